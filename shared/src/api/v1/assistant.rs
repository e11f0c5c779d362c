//! The Kaizen assistant (spec section 1 "a separate assistant feature for lean-manufacturing
//! chat with beta models", section 3 "Assistant message: type, caption, is_advisor",
//! section 8 "Assistant modes" and "Retrieval options"; the spec names no call: ours are
//! `POST organization/assistant/` and `organization/assistant/documents/`, see
//! docs/decisions.md "The Kaizen assistant").
//!
//! Every answer is built on facts computed from the organisation's own data through the
//! analytics calls; each figure carries the link to the cycles behind it.

use serde::{Deserialize, Serialize};

/// The modes (spec section 8), as the request names them, with their labels.
pub const ASSISTANT_MODES: [(&str, &str); 6] = [
    (
        "station_performance",
        "Station Performance (single time period)",
    ),
    (
        "station_comparison",
        "Station Performance (comparison of two time periods)",
    ),
    ("line_performance", "Line Performance"),
    ("ergonomics", "Ergonomics"),
    ("iot_infrastructure", "IoT Infrastructure"),
    ("rag", "Retrieval-Augmented Generation"),
];

/// The beta-model limitation notice every answer carries (spec section 8).
pub const BETA_NOTICE: &str = "Beta: the assistant's models are in beta and can be \
    incomplete or wrong. Every figure links to the cycles behind it: check them before \
    acting.";

/// The longest question, in characters.
pub const QUESTION_MAX: usize = 2000;
/// The longest mode name, in characters (the longest known is 20).
pub const MODE_MAX: usize = 40;
/// The longest date or date-time of a period, in characters (an RFC 3339 date-time
/// with nanoseconds and an offset is 35).
pub const DATETIME_MAX: usize = 40;
/// The longest document name, in characters.
pub const DOCUMENT_NAME_MAX: usize = 255;

/// `POST organization/assistant/`: a question in a mode, over a range.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct AssistantAsk {
    /// One of [`ASSISTANT_MODES`]' names.
    #[cfg_attr(feature = "openapi", schema(max_length = 40))]
    pub mode: Option<String>,
    /// The user's question (1 to [`QUESTION_MAX`] characters; required for `rag`).
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub message: Option<String>,
    /// The period (required but for `rag`): a date (`YYYY-MM-DD`, UTC) or an RFC 3339
    /// date-time; the end's whole day counts.
    #[cfg_attr(feature = "openapi", schema(max_length = 40))]
    pub datetime_start: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 40))]
    pub datetime_end: Option<String>,
    /// The period compared with (required for `station_comparison`).
    #[cfg_attr(feature = "openapi", schema(max_length = 40))]
    pub compare_start: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 40))]
    pub compare_end: Option<String>,
    /// One operation's or one device's cycles (station modes, ergonomics).
    pub task: Option<i64>,
    pub device: Option<i64>,
    /// The line (required for `line_performance`).
    pub line: Option<i64>,
    /// Retrieval options (spec section 8).
    pub use_semantic_ranker: Option<bool>,
    pub use_query_contextual_summaries: Option<bool>,
    pub suggest_followup_questions: Option<bool>,
}

/// A figure of an answer: what it is, its value and unit, and the screen (with the
/// filter) that lists the cycles behind it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssistantFigure {
    /// `F1`, `F2`…: how the answer's text cites it.
    pub id: String,
    pub label: String,
    pub value: f64,
    /// `s`, `%`, `cycles`, `devices`, `events`, `parts/h`.
    pub unit: String,
    /// A portal path with its query (`/user/trace?…`, `/user/issue-center?…`).
    pub link: String,
}

/// A passage of one of the organisation's documents.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssistantPassage {
    pub document: i64,
    pub document_name: String,
    /// The passage's place in its document (0 first).
    pub position: i64,
    pub text: String,
    /// With `use_query_contextual_summaries`: the passage's sentences that answer the
    /// question.
    pub summary: Option<String>,
}

/// A message of the chat (spec section 3): its type, caption (the text) and whether the
/// assistant said it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssistantMessage {
    /// `question` (the user's), `fact` (a figure in a sentence), `advice` (the lean method
    /// the facts point to), `answer` (the model's), `passage`, `note` (what cannot be said
    /// or was left out), `warning` (a figure the model gave that is not among the facts).
    #[serde(rename = "type")]
    pub kind: String,
    pub caption: String,
    pub is_advisor: bool,
    /// The figures the caption cites.
    pub figures: Vec<AssistantFigure>,
    /// The lean method it points to (line balancing, standard work, 5 whys, SMED…).
    pub method: Option<String>,
    pub passage: Option<AssistantPassage>,
}

/// The answer to `POST organization/assistant/`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssistantAnswer {
    pub mode: String,
    /// The question, then the assistant's messages.
    pub messages: Vec<AssistantMessage>,
    /// Every figure the answer was built on.
    pub facts: Vec<AssistantFigure>,
    /// With `suggest_followup_questions`: questions to ask next, from the facts.
    pub follow_up: Vec<String>,
    /// The language model that phrased the answer; `null`: the facts in plain sentences.
    pub model: Option<String>,
    /// [`BETA_NOTICE`].
    pub notice: String,
}

/// One of the organisation's documents the assistant retrieves from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssistantDocument {
    pub id: i64,
    pub name: String,
    /// `docx`, `pdf` or `text`: what it was read as.
    pub source: String,
    /// Its passages.
    pub chunks: i64,
    pub created_at_ms: i64,
}
