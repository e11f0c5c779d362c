//! The Kaizen assistant (issue 32 item 2; spec sections 1, 3 and 8): answers about an
//! organisation's own production, built on facts.
//!
//! - [`facts`]: figures (each with the link to its cycles) and findings (sentences that
//!   cite them, with the lean method they point to);
//! - [`modes`]: each mode's facts from the analytics calls' answers (the I/O, calling
//!   those same handlers, is `crate::http::assistant`);
//! - [`answer`]: the answer without a language model: the findings as the spec's messages
//!   (type, caption, is_advisor) and the follow-up questions;
//! - [`llm`]: an OpenAI-compatible endpoint (`[assistant]` settings) phrasing the same
//!   facts, its answer checked to cite only them;
//! - [`rag`]: retrieval over the organisation's documents (passages, search terms,
//!   re-ranking, query-contextual summaries); the index is `crate::db::assistant_docs`;
//! - [`embed`], [`vector`], [`retrieve`]: the passage embedder (ONNX through `ort`), the
//!   vector arithmetic, and retrieval itself: full-text, or hybrid with the embedder.

pub mod answer;
pub mod embed;
pub mod facts;
pub mod llm;
pub mod modes;
pub mod rag;
pub mod retrieve;
pub mod vector;

/// The spec's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    StationPerformance,
    StationComparison,
    LinePerformance,
    Ergonomics,
    Iot,
    Rag,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s.trim() {
            "station_performance" => Mode::StationPerformance,
            "station_comparison" => Mode::StationComparison,
            "line_performance" => Mode::LinePerformance,
            "ergonomics" => Mode::Ergonomics,
            "iot_infrastructure" => Mode::Iot,
            "rag" => Mode::Rag,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::StationPerformance => "station_performance",
            Mode::StationComparison => "station_comparison",
            Mode::LinePerformance => "line_performance",
            Mode::Ergonomics => "ergonomics",
            Mode::Iot => "iot_infrastructure",
            Mode::Rag => "rag",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemba_shared::api::v1::assistant::ASSISTANT_MODES;

    #[test]
    fn every_spec_mode_parses_to_itself() {
        for (name, _) in ASSISTANT_MODES {
            assert_eq!(Mode::parse(name).map(Mode::as_str), Some(name));
        }
        assert_eq!(Mode::parse("chat"), None);
    }
}
