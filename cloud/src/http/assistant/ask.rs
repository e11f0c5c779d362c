//! `POST organization/assistant/`: a question in one of the spec's modes. The facts come
//! from the analytics calls themselves (`telemetry/cycle_stats`, `telemetry/issues`,
//! `telemetry/line_stats`, `device/device_status/`, `telemetry/device_events`), called
//! as the user, so the figures are the analytics screens' and each call's own checks
//! (permission, tenancy, the range) apply; [`crate::assistant::modes`] reads them.
//! Then the answer: the facts in sentences, or, with `[assistant]` set, the model's
//! phrasing of them, checked.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::assistant::{
    AssistantAnswer, AssistantAsk, AssistantMessage, AssistantPassage, BETA_NOTICE,
};
use gemba_shared::api::v1::telemetry::{CycleStats, IssueCenter};
use gemba_shared::validate::Bounded;

use crate::assistant::facts::{Facts, Period};
use crate::assistant::modes::{self, Scope};
use crate::assistant::{Mode, answer, llm, rag, retrieve};
use crate::http::devices::status::device_status;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::http::telemetry::issue_center::{DeviceEventsParams, device_events, issues};
use crate::http::telemetry::lines::{LineStatsParams, get as get_line, line_stats};
use crate::http::telemetry::stats::{StatsParams, cycle_stats};
use crate::state::AppState;

/// Answer a question in a mode, from the organisation's own data.
#[utoipa::path(post, path = "/organization/assistant/", tag = "assistant",
    request_body = AssistantAsk,
    responses((status = 200, body = AssistantAnswer), (status = 400), (status = 403), (status = 404)))]
pub async fn ask(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AssistantAsk>,
) -> ApiResult<axum::Json<AssistantAnswer>> {
    // The question and the period's texts (`api::v1::lengths`), before anything else.
    req.check_lengths()?;
    me.require(Permission::ViewCycles)?;
    me.org()?;
    let mode = Mode::parse(req.mode.as_deref().unwrap_or_default()).ok_or_else(|| {
        ApiError::field(
            "mode",
            "Choose station_performance, station_comparison, line_performance, ergonomics, \
             iot_infrastructure or rag.",
        )
    })?;
    let question = req
        .message
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    if mode == Mode::Rag && question.is_empty() {
        return Err(ApiError::field(
            "message",
            "Ask a question to search the documents for.",
        ));
    }
    let scope = Scope {
        task: req.task,
        device: req.device,
    };
    let (facts, passages, retrieval) = match mode {
        Mode::Rag => {
            let (p, how) = passages(&state, &me, &req, &question).await?;
            (Facts::default(), p, Some(how))
        }
        _ => (facts(&state, &me, mode, &req, scope).await?, vec![], None),
    };
    let mut messages = vec![];
    if !question.is_empty() {
        messages.push(answer::question(&question));
    }
    let mut model = None;
    let phrased = match (
        &state.settings.assistant,
        facts.figures.is_empty() && passages.is_empty(),
    ) {
        (Some(s), false) => {
            let q = if question.is_empty() {
                format!(
                    "What do these facts say about {}, and what should we improve first?",
                    mode.as_str()
                )
            } else {
                question.clone()
            };
            let context = llm::prompt(&facts, &passages, &q);
            match llm::complete(s, &context).await {
                Ok(text) => {
                    let c = llm::check(&text, &facts, &context);
                    model = Some(s.model.clone());
                    Some(phrased_messages(c))
                }
                Err(why) => {
                    tracing::warn!(%why, "the assistant's language model did not answer");
                    None
                }
            }
        }
        _ => None,
    };
    match phrased {
        Some(m) => {
            messages.extend(m);
            // What cannot be said stays said.
            messages.extend(
                answer::plain(&facts)
                    .into_iter()
                    .filter(|m| m.kind == "note"),
            );
        }
        None => {
            if state.settings.assistant.is_some() && model.is_none() && !facts.figures.is_empty() {
                messages.push(note(
                    "The language model did not answer: here are the facts in plain sentences.",
                ));
            }
            messages.extend(answer::plain(&facts));
        }
    }
    if mode == Mode::Rag && passages.is_empty() {
        messages.push(note(
            "No passage of the organisation's documents matches the question.",
        ));
    }
    // Which retrieval found the passages (full-text, or with the embedding model).
    messages.extend(retrieval.map(|how| note(&how)));
    messages.extend(passages.into_iter().map(answer::passage));
    let follow = if req.suggest_followup_questions.unwrap_or(true) {
        answer::follow_up(&facts)
    } else {
        vec![]
    };
    Ok(axum::Json(AssistantAnswer {
        mode: mode.as_str().into(),
        messages,
        facts: facts.figures,
        follow_up: follow,
        model,
        notice: BETA_NOTICE.into(),
    }))
}

fn note(text: &str) -> AssistantMessage {
    AssistantMessage {
        kind: "note".into(),
        caption: text.into(),
        is_advisor: true,
        figures: vec![],
        method: None,
        passage: None,
    }
}

/// The model's checked answer, and a warning for each sentence dropped.
fn phrased_messages(c: llm::Checked) -> Vec<AssistantMessage> {
    let mut out = vec![];
    if !c.text.is_empty() {
        out.push(AssistantMessage {
            kind: "answer".into(),
            caption: c.text,
            is_advisor: true,
            figures: c.cited,
            method: None,
            passage: None,
        });
    }
    for (sentence, wrong) in c.dropped {
        out.push(AssistantMessage {
            kind: "warning".into(),
            caption: format!(
                "Left out: the model said \"{sentence}\", but {} is not among the facts.",
                wrong.join(", ")
            ),
            is_advisor: true,
            figures: vec![],
            method: None,
            passage: None,
        });
    }
    out
}

/// `telemetry/cycle_stats`' and `telemetry/issues`' parameters for a period.
fn stats_params(scope: Scope, start: Option<&String>, end: Option<&String>) -> StatsParams {
    StatsParams {
        task: scope.task,
        device: scope.device,
        datetime_start: start.cloned(),
        datetime_end: end.cloned(),
        cycle_filter: None,
        // One bucket a month: the trend is not read, and a year stays far under the cap.
        bucket: Some("month".into()),
        utc_offset_minutes: None,
    }
}

/// A field error of the second period's call named as the request names its fields.
fn as_compare(e: ApiError) -> ApiError {
    match e {
        ApiError::Field { field, message } => ApiError::Field {
            field: match field.as_str() {
                "datetime_start" => "compare_start".into(),
                "datetime_end" => "compare_end".into(),
                _ => field,
            },
            message,
        },
        e => e,
    }
}

async fn stats(state: &AppState, me: &AuthUser, p: StatsParams) -> ApiResult<CycleStats> {
    Ok(cycle_stats(State(state.clone()), me.clone(), Query(p))
        .await?
        .0)
}

async fn issue_list(state: &AppState, me: &AuthUser, p: StatsParams) -> ApiResult<IssueCenter> {
    Ok(issues(State(state.clone()), me.clone(), Query(p)).await?.0)
}

fn period(s: &CycleStats) -> Period {
    Period {
        start_ms: s.start_ms,
        end_ms: s.end_ms,
    }
}

async fn facts(
    state: &AppState,
    me: &AuthUser,
    mode: Mode,
    req: &AssistantAsk,
    scope: Scope,
) -> ApiResult<Facts> {
    let (start, end) = (req.datetime_start.as_ref(), req.datetime_end.as_ref());
    Ok(match mode {
        Mode::StationPerformance | Mode::Ergonomics => {
            let s = stats(state, me, stats_params(scope, start, end)).await?;
            let i = issue_list(state, me, stats_params(scope, start, end)).await?;
            if mode == Mode::Ergonomics {
                modes::ergonomics(period(&s), scope, &s, &i)
            } else {
                modes::station_performance(period(&s), scope, &s, &i)
            }
        }
        Mode::StationComparison => {
            let now = stats(state, me, stats_params(scope, start, end)).await?;
            if req.compare_start.is_none() {
                return Err(ApiError::field(
                    "compare_start",
                    "Choose where the period to compare with starts.",
                ));
            }
            let before = stats(
                state,
                me,
                stats_params(scope, req.compare_start.as_ref(), req.compare_end.as_ref()),
            )
            .await
            .map_err(as_compare)?;
            modes::station_comparison((period(&now), &now), (period(&before), &before), scope)
        }
        Mode::LinePerformance => {
            let id = req
                .line
                .ok_or_else(|| ApiError::field("line", "Choose a line."))?;
            let line = get_line(State(state.clone()), me.clone(), Path(id))
                .await?
                .0;
            let p = LineStatsParams {
                line: Some(id),
                datetime_start: start.cloned(),
                datetime_end: end.cloned(),
            };
            let s = line_stats(State(state.clone()), me.clone(), Query(p))
                .await?
                .0;
            let pr = Period {
                start_ms: s.start_ms,
                end_ms: s.end_ms,
            };
            modes::line_performance(pr, &line.name, &s)
        }
        Mode::Iot => {
            let p = DeviceEventsParams {
                device: req.device,
                datetime_start: start.cloned(),
                datetime_end: end.cloned(),
            };
            // The events first: they check the range.
            let events = device_events(State(state.clone()), me.clone(), Query(p))
                .await?
                .0;
            let devices = device_status(State(state.clone()), me.clone()).await?.0;
            let (from, to) = crate::http::videos::list::date_range(
                start.map(String::as_str),
                end.map(String::as_str),
            )?;
            let pr = Period {
                start_ms: from.unwrap_or_default(),
                end_ms: to.unwrap_or_default(),
            };
            modes::iot(pr, &devices, &events)
        }
        Mode::Rag => Facts::default(),
    })
}

/// The passages answering `question` (`crate::assistant::retrieve`: full-text, or
/// hybrid with the embedding model; ordered by the semantic ranker with
/// `use_semantic_ranker`), each with the sentences that answer
/// (`use_query_contextual_summaries`), and the sentence saying how they were found.
async fn passages(
    state: &AppState,
    me: &AuthUser,
    req: &AssistantAsk,
    question: &str,
) -> ApiResult<(Vec<AssistantPassage>, String)> {
    let ranker = req.use_semantic_ranker.unwrap_or(true);
    let found = retrieve::passages(&state.db, &state.semantic, me.org()?, question, ranker).await?;
    let terms = rag::terms(question);
    let summaries = req.use_query_contextual_summaries.unwrap_or(true);
    let passages = found
        .hits
        .into_iter()
        .map(|h| AssistantPassage {
            summary: summaries.then(|| rag::summary(&h.text, &terms)).flatten(),
            document: h.document,
            document_name: h.document_name,
            position: h.position,
            text: h.text,
        })
        .collect();
    Ok((passages, found.how))
}
