//! The answer without a language model: the facts in sentences, each with the lean method
//! it points to, as the spec's messages (type, caption, is_advisor); and the follow-up
//! questions. Plain functions.

use gemba_shared::api::v1::assistant::{AssistantFigure, AssistantMessage, AssistantPassage};

use super::facts::Facts;

/// The most follow-up questions suggested.
pub const FOLLOW_UPS: usize = 3;

/// The user's question as the chat's first message.
pub fn question(text: &str) -> AssistantMessage {
    AssistantMessage {
        kind: "question".into(),
        caption: text.to_string(),
        is_advisor: false,
        figures: vec![],
        method: None,
        passage: None,
    }
}

/// The figures of `facts` with these ids, in that order.
pub fn cited(facts: &Facts, ids: &[String]) -> Vec<AssistantFigure> {
    ids.iter()
        .filter_map(|id| facts.figures.iter().find(|f| &f.id == id).cloned())
        .collect()
}

/// Each finding as a message of the assistant's: the sentence, then the method it
/// points to.
pub fn plain(facts: &Facts) -> Vec<AssistantMessage> {
    facts
        .findings
        .iter()
        .map(|f| {
            let caption = match f.method {
                Some(m) if f.kind == super::facts::Kind::Fact => format!("{} ({m})", f.text),
                _ => f.text.clone(),
            };
            AssistantMessage {
                kind: f.kind.as_str().into(),
                caption,
                is_advisor: true,
                figures: cited(facts, &f.figures),
                method: f.method.map(str::to_owned),
                passage: None,
            }
        })
        .collect()
}

/// A passage as a message citing its source.
pub fn passage(p: AssistantPassage) -> AssistantMessage {
    AssistantMessage {
        kind: "passage".into(),
        caption: format!(
            "From \"{}\" (passage {}): {}",
            p.document_name,
            p.position + 1,
            p.summary.as_deref().unwrap_or(&p.text)
        ),
        is_advisor: true,
        figures: vec![],
        method: None,
        passage: Some(p),
    }
}

/// The follow-up questions: the facts' own, at most [`FOLLOW_UPS`].
pub fn follow_up(facts: &Facts) -> Vec<String> {
    facts.questions.iter().take(FOLLOW_UPS).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::facts::method;

    fn facts() -> Facts {
        let mut f = Facts::default();
        let a = f.figure("Average", 14.0, "s", "/user/analytics?task=1".into());
        f.fact(
            format!("It averages {}.", f.cite(&a)),
            vec![a.clone()],
            Some(method::STANDARD_WORK),
        );
        f.advice("Time it.".into(), vec![a], method::STANDARD_WORK);
        f.note("Posture is not measured.");
        for q in ["One?", "Two?", "Three?", "Four?"] {
            f.ask(q);
        }
        f
    }

    #[test]
    fn each_finding_is_an_advisors_message_with_its_figures_and_method() {
        let m = plain(&facts());
        assert_eq!(m.len(), 3);
        assert!(m.iter().all(|m| m.is_advisor));
        assert_eq!(m[0].kind, "fact");
        assert_eq!(m[0].caption, "It averages 14 s [F1]. (Standard work)");
        assert_eq!(m[0].figures[0].link, "/user/analytics?task=1");
        assert_eq!(m[1].kind, "advice");
        assert_eq!(m[1].method.as_deref(), Some("Standard work"));
        assert_eq!(m[2].kind, "note");
        assert!(m[2].figures.is_empty() && m[2].method.is_none());
    }

    #[test]
    fn the_question_is_the_users() {
        let q = question("Why?");
        assert!(!q.is_advisor);
        assert_eq!((q.kind.as_str(), q.caption.as_str()), ("question", "Why?"));
    }

    #[test]
    fn follow_ups_are_the_facts_first_questions() {
        assert_eq!(follow_up(&facts()), vec!["One?", "Two?", "Three?"]);
    }

    #[test]
    fn a_passage_names_its_source_and_shows_its_summary_when_made() {
        let p = AssistantPassage {
            document: 4,
            document_name: "Torque SOP".into(),
            position: 1,
            text: "Long text. Torque to 12 Nm.".into(),
            summary: Some("Torque to 12 Nm.".into()),
        };
        let m = passage(p);
        assert_eq!(
            m.caption,
            "From \"Torque SOP\" (passage 2): Torque to 12 Nm."
        );
        assert_eq!(m.passage.unwrap().document, 4);
    }
}
