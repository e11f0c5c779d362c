//! The Kaizen assistant (issue 32 item 2): `figures`, its figures equal the analytics
//! calls' for the same period and data (station, two periods, line, devices), each
//! linking to its cycles, and bad input named; `retrieval`, the right passage of a seeded
//! corpus (a .docx made by python-docx among text files) on both backends; `model`, the
//! language-model path against a real local OpenAI-API server (`mockllm`, from PyPI),
//! whose answer keeps the figures that are facts and drops the one that is not;
//! `semantic`, retrieval with the real passage embedder (a question sharing no word with
//! its passage, the ranker, the backfill, tenancy, a broken model's fallback).

mod figures;
mod model;
mod retrieval;
mod semantic;

use gemba_shared::api::v1::assistant::{AssistantAnswer, AssistantDocument};
use reqwest::StatusCode;
use serde_json::Value;

use crate::common::*;

const ASK: &str = "organization/assistant/";
const DOCS: &str = "organization/assistant/documents/";

async fn ask(app: &TestApp, tok: &str, body: Value) -> AssistantAnswer {
    let (s, v) = app.post(ASK, body.clone(), Some(tok)).await;
    assert_eq!(s, StatusCode::OK, "{body}: {v}");
    serde_json::from_value(v).unwrap()
}

/// A document of organisation `org`, added by the super admin `admin` (the tenancy
/// walk's record of B's).
pub(crate) async fn walk_document(app: &TestApp, admin: &str, org: i64) -> i64 {
    let r = app
        .client
        .post(format!("{}/{DOCS}", app.base))
        .query(&[("name", "b.txt")])
        .bearer_auth(admin)
        .header("Organization", org.to_string())
        .body("B's manual: torque to 99 Nm.\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    r.json::<AssistantDocument>().await.unwrap().id
}
