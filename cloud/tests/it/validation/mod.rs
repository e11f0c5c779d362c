//! Validation groups, videos and runs (issue 31, item 3; spec section 7 "Organisations
//! and validation"). On both backends: groups of a task's labelled videos, records cut
//! from cycles' clips and checked by a person, the refusals, and what deleting leaves.
//! On SQLite, with the real agent binary and the default model (`GEMBA_MODELS`, made by
//! `models/build.sh`): a run's figures, per video and over the group, equal those
//! `gemba-agent eval` computes for the same videos and labels.

mod groups;
mod runs;

use std::path::Path;

use gemba_cloud::db::clips::{ClipRow, put_new};
use gemba_cloud::db::training::{NewModel, register};
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::task::{Task, TaskCreate};
use gemba_shared::api::v1::validation::{
    AddVideosToGroup, GROUP_DELETED, GROUP_UPDATED, RecordLabels, RecordsFromTrace,
    ValidationGroup, ValidationGroupCreate, ValidationRun, ValidationRunCreate, ValidationRunVideo,
    ValidationStatus, ValidationVideo, ValidationVideoPatch, VideoEval, aggregate,
};
use gemba_shared::api::v1::video::{LabelsPut, VideoLabels};
use gemba_shared::cycle::Segment;
use gemba_shared::footage::{Truth, TruthSegment};
use object_store::ObjectStoreExt;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::both;
use crate::common::*;
use crate::learning_loop::{agent_bin, models_dir, until};
use crate::videos::{clip, subscribed_world, upload_video};

const GROUPS: &str = "organization/validation-groups/";
const ADD: &str = "organization/validation-videos/add-video-to-group/";
const RUNS: &str = "organization/validation-runs/";
const FROM_TRACE: &str = "websocket_inference/validation_records_from_trace/";

fn group(name: &str, task: i64) -> ValidationGroupCreate {
    ValidationGroupCreate {
        name: name.into(),
        task,
    }
}

/// Saves `segments` as video `video`'s labels, as the labeling screen does.
async fn label(app: &TestApp, tok: &str, video: i64, segments: Vec<Segment>) {
    let _: VideoLabels = app
        .send_as(
            Method::PUT,
            &format!("organization/task_record/{video}/labels/"),
            &LabelsPut {
                segments,
                reviewed: None,
            },
            tok,
        )
        .await;
}

/// A model version of `task` registered from `bytes` (as `POST
/// organization/model_version` keeps one).
async fn model_version(app: &TestApp, org: i64, task: i64, version: &str, bytes: Vec<u8>) -> i64 {
    let name = format!("models/{version}/model.onnx");
    let size = bytes.len() as i64;
    app.state
        .objects
        .put(&gemba_cloud::objects::key(org, &name), bytes.into())
        .await
        .unwrap();
    register(
        &app.state.db,
        org,
        task,
        &NewModel {
            model_type_id: None,
            version,
            object_key: &name,
            sha256: &gemba_shared::hex(version.as_bytes()),
            size_bytes: size,
            metrics: None,
        },
    )
    .await
    .unwrap()
    .id
}

/// Stores cycle `id` of `task` at `start_ms` (steps 0 then 1, 2 s each) as ingestion
/// does, and its clip (`bytes`, starting 1 s before the cycle, `clip_ms` long).
async fn cycle_with_clip(
    app: &TestApp,
    org: i64,
    task: i64,
    id: &str,
    start_ms: i64,
    bytes: Vec<u8>,
    clip_ms: i64,
) {
    sqlx::query(
        "INSERT INTO cycles (id, organization_id, device_id, task_id, camera, start_ms, \
         end_ms, idle_ms, good, reasons, segments, metadata, received_at) \
         VALUES ($1, $2, NULL, $3, 'cam0', $4, $5, 0, 1, '[]', $6, '{}', $5)",
    )
    .bind(id)
    .bind(org)
    .bind(task)
    .bind(start_ms)
    .bind(start_ms + 4_000)
    .bind(
        json!([
            {"step": 0, "start_ms": start_ms, "end_ms": start_ms + 2_000},
            {"step": 1, "start_ms": start_ms + 2_000, "end_ms": start_ms + 4_000}
        ])
        .to_string(),
    )
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let key = format!("clips/{id}.mp4");
    let size = bytes.len() as i64;
    app.state
        .objects
        .put(&gemba_cloud::objects::key(org, &key), bytes.into())
        .await
        .unwrap();
    put_new(
        &app.state.db,
        &ClipRow {
            cycle_id: id.into(),
            organization_id: org,
            object_key: key,
            start_ms: start_ms - 1_000,
            duration_ms: clip_ms,
            size_bytes: size,
            created_at: start_ms,
        },
    )
    .await
    .unwrap();
}

/// The object files under the organisation's validation folder.
fn validation_files(app: &TestApp, org: i64) -> usize {
    let dir = app
        .state
        .settings
        .data
        .join(format!("objects/org/{org}/validation"));
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

/// The validation records of an organisation the walks try to reach: a group of its
/// task, a checked video in it (footage not stored: the walks never run it) and a run
/// of a model version of the task over it (queued: nothing runs it).
#[derive(Clone, Copy)]
pub(crate) struct WalkRecords {
    pub(crate) group: i64,
    pub(crate) video: i64,
    pub(crate) run: i64,
    pub(crate) model: i64,
}

/// Makes [`WalkRecords`] of `task` of `org` in the database.
pub(crate) async fn walk_records(app: &TestApp, org: i64, task: i64) -> WalkRecords {
    use gemba_cloud::db::validation as db;
    let model = model_version(app, org, task, "walk-validation", b"walk".to_vec()).await;
    let dbh = &app.state.db;
    let group = db::insert_group(dbh, org, task, "Walk set").await.unwrap();
    let segments = [Segment::new(0, 0, 1_000)];
    let video = db::insert_videos(
        dbh,
        group,
        &[db::NewVideo {
            org,
            task,
            group,
            name: "walk.mp4",
            video: None,
            cycle: None,
            object_key: "validation/walk.mp4",
            duration_ms: 2_000,
            segments: &segments,
            reviewed: true,
        }],
        10,
    )
    .await
    .unwrap()
    .unwrap()[0];
    let run = db::insert_run(dbh, org, group, model, &[(video, "walk.mp4".into())])
        .await
        .unwrap();
    WalkRecords {
        group,
        video,
        run,
        model,
    }
}
