//! An OpenAI-compatible chat-completions endpoint (`[assistant]` settings): the facts go
//! as the context, the model phrases and reasons over them, and its answer is checked:
//! every number it states must be one of the context's, else the sentence is dropped and
//! flagged. The prompt and the check are plain functions; [`complete`] is the one call.

use std::time::Duration;

use gemba_shared::api::v1::assistant::{AssistantFigure, AssistantPassage};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::facts::{Facts, text};
use crate::config::Secret;

/// `[assistant]`: where the language model is. Unset, answers are the facts in plain
/// sentences.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AssistantSettings {
    /// The API's base, `/chat/completions` under it (e.g. `http://127.0.0.1:8000/v1`).
    /// Empty (with `model`): no language model, `[assistant]` holding only
    /// `embedding_model` (`crate::config::Settings::load`).
    #[serde(default)]
    pub base_url: String,
    #[serde(default)]
    pub model: String,
    /// Sent as `Authorization: Bearer …`; never logged.
    #[serde(default)]
    pub api_key: Option<Secret>,
    /// How long one answer may take.
    #[serde(default = "timeout_default")]
    pub timeout_secs: u64,
}

fn timeout_default() -> u64 {
    60
}

/// The instructions the model gets before the facts.
pub const SYSTEM: &str = "You are a lean-manufacturing coach (kaizen, standard work, line \
    balancing, 5 whys, SMED, poka-yoke, TPM). Answer the question from the FACTS and \
    PASSAGES below only. Cite every figure you use by its id in brackets, like [F2], and \
    state no number that is not in them. Name the lean method each point leads to. If the \
    facts do not answer the question, say so.";

/// The context: each figure with its id, the findings, the passages and the question.
pub fn prompt(facts: &Facts, passages: &[AssistantPassage], question: &str) -> String {
    let mut s = String::from("FACTS\n");
    for f in &facts.figures {
        s.push_str(&format!(
            "[{}] {}: {} {}\n",
            f.id,
            f.label,
            text(f.value),
            f.unit
        ));
    }
    for f in &facts.findings {
        s.push_str(&format!("- {}\n", f.text));
    }
    if !passages.is_empty() {
        s.push_str("PASSAGES\n");
        for p in passages {
            s.push_str(&format!(
                "({}, passage {}) {}\n",
                p.document_name,
                p.position + 1,
                p.text
            ));
        }
    }
    s.push_str(&format!("QUESTION\n{question}\n"));
    s
}

/// The model's answer after the check.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The sentences kept.
    pub text: String,
    /// The figures it cites, in order.
    pub cited: Vec<AssistantFigure>,
    /// The sentences dropped, each with what was not among the facts.
    pub dropped: Vec<(String, Vec<String>)>,
}

/// The numbers of `s` (`12`, `4.5`, `1,200` as 1200), but a figure id's (`F12`).
pub fn numbers(s: &str) -> Vec<f64> {
    let b = s.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && !(i > 0 && (b[i - 1] == b'F' || b[i - 1].is_ascii_alphabetic()))
        {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || ((b[i] == b'.' || b[i] == b',')
                        && i + 1 < b.len()
                        && b[i + 1].is_ascii_digit()))
            {
                i += 1;
            }
            if let Ok(v) = s[start..i].replace(',', "").parse::<f64>() {
                out.push(v);
            }
        } else {
            // Skip the rest of a word (F12, x86).
            if b[i].is_ascii_alphabetic() {
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                continue;
            }
            i += 1;
        }
    }
    out
}

/// Splits `s` into sentences (after `.`, `!`, `?` or a line break followed by space).
fn sentences(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        cur.push(c);
        let end =
            matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if end || c == '\n' {
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Keeps the sentences of `answer` whose numbers are all in `context` (the prompt: the
/// figures as shown, the findings, passages and question) or the instructions, and
/// whose cited ids are
/// figures; the others are dropped with what was wrong in them.
pub fn check(answer: &str, facts: &Facts, context: &str) -> Checked {
    // The instructions name methods with numbers ("5 whys").
    let allowed = numbers(&format!("{SYSTEM}\n{context}"));
    let known = |v: f64| allowed.iter().any(|a| (a - v).abs() < 1e-9);
    let mut kept = vec![];
    let mut cited: Vec<AssistantFigure> = vec![];
    let mut dropped = vec![];
    for s in sentences(answer) {
        let mut wrong: Vec<String> = numbers(&s)
            .into_iter()
            .filter(|v| !known(*v))
            .map(text)
            .collect();
        let ids = ids(&s);
        for id in &ids {
            if !facts.figures.iter().any(|f| &f.id == id) {
                wrong.push(format!("[{id}]"));
            }
        }
        if wrong.is_empty() {
            for id in ids {
                if let Some(f) = facts.figures.iter().find(|f| f.id == id)
                    && !cited.iter().any(|c| c.id == id)
                {
                    cited.push(f.clone());
                }
            }
            kept.push(s);
        } else {
            dropped.push((s, wrong));
        }
    }
    Checked {
        text: kept.join(" "),
        cited,
        dropped,
    }
}

/// The `[F…]` ids cited in `s`.
fn ids(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut rest = s;
    while let Some(at) = rest.find("[F") {
        let after = &rest[at + 2..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && after[digits.len()..].starts_with(']') {
            out.push(format!("F{digits}"));
        }
        rest = &rest[at + 2..];
    }
    out
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    content: Option<String>,
}

/// Asks the endpoint; the answer's text, or why not (for the log; the user is told the
/// model could not answer).
pub async fn complete(s: &AssistantSettings, context: &str) -> Result<String, String> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(s.timeout_secs))
        .build()
        .map_err(|e| e.to_string())?;
    let url = format!("{}/chat/completions", s.base_url.trim_end_matches('/'));
    let mut rb = client.post(url).json(&json!({
        "model": s.model,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": context},
        ],
    }));
    if let Some(k) = &s.api_key {
        rb = rb.bearer_auth(&k.0);
    }
    let r = rb.send().await.map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!("the model answered {}", r.status()));
    }
    let c: Completion = r.json().await.map_err(|e| e.to_string())?;
    c.choices
        .into_iter()
        .next()
        .and_then(|c| c.message.content)
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| "the model answered nothing".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        let mut f = Facts::default();
        let a = f.figure(
            "Average cycle time, Pump on Bench 1",
            16.24,
            "s",
            "/user/analytics".into(),
        );
        let b = f.figure(
            "Bad share",
            25.0,
            "%",
            "/user/analytics?filter=bad_cycles".into(),
        );
        f.fact(
            format!("It averages {} with {} bad.", f.cite(&a), f.cite(&b)),
            vec![a, b],
            None,
        );
        f
    }

    #[test]
    fn numbers_are_read_but_not_ids_or_words() {
        assert_eq!(
            numbers("16.2 s [F1], 25% and 1,200 parts; x86 F3"),
            vec![16.2, 25.0, 1200.0]
        );
        assert_eq!(numbers("Step 3."), vec![3.0]);
        assert!(numbers("none here").is_empty());
    }

    #[test]
    fn the_prompt_holds_every_figure_with_its_id_and_the_question() {
        let p = prompt(&facts(), &[], "Why so slow?");
        assert!(
            p.contains("[F1] Average cycle time, Pump on Bench 1: 16.2 s"),
            "{p}"
        );
        assert!(p.contains("[F2] Bad share: 25 %"), "{p}");
        assert!(p.ends_with("QUESTION\nWhy so slow?\n"), "{p}");
    }

    #[test]
    fn sentences_with_the_facts_figures_are_kept_and_cite_them() {
        let f = facts();
        let ctx = prompt(&f, &[], "Why?");
        let c = check(
            "Bench 1 averages 16.2 s [F1]. A quarter is bad [F2]; use 5 whys.",
            &f,
            &ctx,
        );
        assert!(c.dropped.is_empty(), "{c:?}");
        assert_eq!(
            c.cited.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
            ["F1", "F2"]
        );
        assert!(c.text.starts_with("Bench 1 averages 16.2 s [F1]."), "{c:?}");
    }

    #[test]
    fn a_figure_not_among_the_facts_drops_its_sentence() {
        let f = facts();
        let ctx = prompt(&f, &[], "Why?");
        let c = check(
            "Bench 1 averages 16.2 s [F1]. It lost 37 parts yesterday. See [F9].",
            &f,
            &ctx,
        );
        assert_eq!(c.text, "Bench 1 averages 16.2 s [F1].");
        assert_eq!(c.dropped.len(), 2, "{c:?}");
        assert_eq!(c.dropped[0].1, vec!["37"]);
        assert_eq!(c.dropped[1].1, vec!["[F9]"]);
    }

    #[test]
    fn the_api_key_is_redacted() {
        let s = AssistantSettings {
            base_url: "http://127.0.0.1:1/v1".into(),
            model: "m".into(),
            api_key: Some(Secret("sk-secret".into())),
            timeout_secs: 5,
        };
        assert!(!format!("{s:?}").contains("sk-secret"));
    }
}
