//! Retrieval over the organisation's documents, the plain parts: a document's paragraphs
//! cut into passages, a question's search terms, the full-text query of each backend,
//! the re-ranking by the question's terms a passage covers (`use_semantic_ranker`), and
//! a passage's sentences that answer the question (`use_query_contextual_summaries`).
//! The index itself is `crate::db::assistant_docs`.

use crate::sop::outline::{Kind, Para};

/// A passage's most characters (a paragraph longer than that is cut at sentences).
pub const CHUNK_CHARS: usize = 800;
/// The most search terms a question gives.
pub const MAX_TERMS: usize = 12;
/// Passages an answer shows.
pub const PASSAGES: usize = 3;
/// Candidates the full-text search hands the re-ranker.
pub const CANDIDATES: usize = 20;

/// Words too common to search for.
const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "i", "if", "in", "is", "it", "its", "of", "on", "or", "our", "should", "so", "that", "the",
    "their", "this", "to", "was", "we", "what", "when", "where", "which", "who", "why", "with",
    "you", "your", "my", "me", "there", "these", "those", "be", "been", "into", "than", "then",
];

/// The document's paragraphs as passages of at most [`CHUNK_CHARS`]: paragraphs joined in
/// order; a new heading starts a new passage and leads it.
pub fn chunks(paras: &[Para]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        if !cur.trim().is_empty() {
            out.push(cur.trim().to_string());
        }
        cur.clear();
    };
    for p in paras {
        let t = p.text.trim();
        if t.is_empty() {
            continue;
        }
        if matches!(p.kind, Kind::Title | Kind::Heading) {
            flush(&mut cur, &mut out);
        }
        for piece in pieces(t) {
            if !cur.is_empty() && cur.chars().count() + 1 + piece.chars().count() > CHUNK_CHARS {
                flush(&mut cur, &mut out);
            }
            if !cur.is_empty() {
                cur.push('\n');
            }
            cur.push_str(&piece);
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// A paragraph in pieces of at most [`CHUNK_CHARS`], cut after sentences (or, for one
/// sentence longer than that, at characters).
fn pieces(t: &str) -> Vec<String> {
    if t.chars().count() <= CHUNK_CHARS {
        return vec![t.to_string()];
    }
    let mut out = vec![];
    let mut cur = String::new();
    for s in sentences(t) {
        if !cur.is_empty() && cur.chars().count() + 1 + s.chars().count() > CHUNK_CHARS {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&s);
        while cur.chars().count() > CHUNK_CHARS {
            let head: String = cur.chars().take(CHUNK_CHARS).collect();
            let tail: String = cur.chars().skip(CHUNK_CHARS).collect();
            out.push(head);
            cur = tail;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A text's sentences (cut after `.`, `!`, `?` followed by white space, and at line
/// breaks).
pub fn sentences(t: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let chars: Vec<char> = t.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '\n' {
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
            continue;
        }
        cur.push(c);
        if matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) {
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

/// The question's search terms: its words (letters and digits, lower case), the common
/// ones left out, each once, at most [`MAX_TERMS`].
pub fn terms(question: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for w in question
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 2 && !STOP.contains(&w.as_str()))
    {
        if !out.contains(&w) && out.len() < MAX_TERMS {
            out.push(w);
        }
    }
    out
}

/// SQLite FTS5's query for any of `terms` (each quoted as a phrase).
pub fn fts5_query(terms: &[String]) -> String {
    terms
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "")))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// PostgreSQL's `to_tsquery` text for any of `terms` (letters and digits only).
pub fn tsquery(terms: &[String]) -> String {
    terms
        .iter()
        .map(|t| {
            t.chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        })
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The first five characters of a term: a crude stem that makes "torque" find
/// "torqued" and "tightening" find "tighten".
fn stem(t: &str) -> String {
    t.chars().take(5).collect()
}

/// How many of `terms` the text holds (by stem), over how many there are.
pub fn coverage(text: &str, terms: &[String]) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let low = text.to_lowercase();
    let words: Vec<&str> = low.split(|c: char| !c.is_alphanumeric()).collect();
    let hit = terms
        .iter()
        .filter(|t| {
            let s = stem(t);
            words.iter().any(|w| w.starts_with(&s))
        })
        .count();
    hit as f64 / terms.len() as f64
}

/// Re-orders candidates (in the index's rank order) by the share of the question's terms
/// each covers, the index's order breaking ties.
pub fn rerank<T>(candidates: Vec<T>, text: impl Fn(&T) -> &str, terms: &[String]) -> Vec<T> {
    let mut scored: Vec<(usize, f64, T)> = candidates
        .into_iter()
        .enumerate()
        .map(|(i, c)| (i, coverage(text(&c), terms), c))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(_, _, c)| c).collect()
}

/// The passage's (at most two) sentences holding most of the question's terms, in the
/// passage's order; `None` when none holds any.
pub fn summary(passage: &str, terms: &[String]) -> Option<String> {
    let s = sentences(passage);
    let mut scored: Vec<(usize, f64)> = s
        .iter()
        .enumerate()
        .map(|(i, x)| (i, coverage(x, terms)))
        .filter(|(_, c)| *c > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut best: Vec<usize> = scored.iter().take(2).map(|(i, _)| *i).collect();
    best.sort();
    (!best.is_empty()).then(|| {
        best.iter()
            .map(|&i| s[i].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str, kind: Kind) -> Para {
        Para::new(t, kind)
    }

    #[test]
    fn headings_start_passages_and_long_ones_are_cut() {
        let long = "Tighten the screw. ".repeat(60);
        let c = chunks(&[
            p("Pump SOP", Kind::Title),
            p("Fit the housing.", Kind::Item(0)),
            p("Torque", Kind::Heading),
            p("Torque to 12 Nm.", Kind::Plain),
            p(&long, Kind::Plain),
        ]);
        assert_eq!(c[0], "Pump SOP\nFit the housing.");
        assert!(c[1].starts_with("Torque\nTorque to 12 Nm."), "{c:?}");
        assert!(c.iter().all(|x| x.chars().count() <= CHUNK_CHARS), "{c:?}");
        let all: String = c[1..].join(" ");
        assert_eq!(all.matches("Tighten the screw.").count(), 60);
    }

    #[test]
    fn one_endless_sentence_is_cut_at_characters() {
        let c = chunks(&[p(&"x".repeat(2000), Kind::Plain)]);
        assert_eq!(
            c.iter().map(|x| x.len()).collect::<Vec<_>>(),
            [800, 800, 400]
        );
    }

    #[test]
    fn terms_leave_out_common_words_and_repeats() {
        assert_eq!(
            terms("What is the torque for the M6 screws? Torque!"),
            ["torque", "m6", "screws"]
        );
        assert!(terms("how is it?").is_empty());
        assert_eq!(terms(&"word ".repeat(3)).len(), 1);
    }

    #[test]
    fn queries_quote_or_clean_each_term() {
        let t = vec!["torque".to_string(), "m6\"x".to_string()];
        assert_eq!(fts5_query(&t), "\"torque\" OR \"m6x\"");
        assert_eq!(tsquery(&t), "torque | m6x");
    }

    #[test]
    fn the_ranker_puts_the_passage_covering_most_terms_first() {
        let t = terms("torque screws housing");
        let got = rerank(
            vec!["torque only", "the housing screws are torqued", "nothing"],
            |s| s,
            &t,
        );
        assert_eq!(
            got,
            ["the housing screws are torqued", "torque only", "nothing"]
        );
    }

    #[test]
    fn the_summary_is_the_sentences_that_answer() {
        let text = "Wear gloves. Torque the M6 screws to 12 Nm. Pack the pump. Check the torque.";
        assert_eq!(
            summary(text, &terms("torque m6")).as_deref(),
            Some("Torque the M6 screws to 12 Nm. Check the torque.")
        );
        assert_eq!(summary(text, &terms("welding")), None);
    }
}
