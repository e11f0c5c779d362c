//! Validation groups, videos and runs (issue 31, item 3; spec section 7 "Organisations
//! and validation"). On both backends: groups of a task's labelled videos, records cut
//! from cycles' clips and checked by a person, the refusals, and what deleting leaves.
//! On SQLite, with the real agent binary and the default model (`GEMBA_MODELS`, made by
//! `models/build.sh`): a run's figures, per video and over the group, equal those
//! `gemba-agent eval` computes for the same videos and labels.

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

both!(
    groups_hold_copies_of_labelled_videos_and_checked_records_from_traces,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let dir = tempfile::tempdir().unwrap();

        // A group of the task; names are unique per organisation.
        let g: ValidationGroup = app
            .create_as(GROUPS, &group(" Line 1 set ", w.task), &w.eng)
            .await;
        assert_eq!(
            (g.name.as_str(), g.task, g.videos),
            ("Line 1 set", w.task, 0)
        );
        let (s, v) = app
            .send_refused(Method::POST, GROUPS, &group("Line 1 set", w.task), &w.boss)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["name"].is_array(), "{v}");
        for (tok, body, field) in [
            (&w.boss_b, group("Theirs", w.task), "task"),
            (&w.eng, group("  ", w.task), "name"),
            (&w.eng, group(&"x".repeat(101), w.task), "name"),
        ] {
            let (s, v) = app.send_refused(Method::POST, GROUPS, &body, tok).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field].is_array(), "{v}");
        }
        // The analytics user reads groups but changes none.
        let _: Vec<ValidationGroup> = app.get_as(GROUPS, &w.analyst).await;
        let (s, _) = app
            .send_refused(Method::POST, GROUPS, &group("Mine", w.task), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // A task video joins once it has labels: a copy of its footage and labels.
        let bytes = clip(dir.path(), 4);
        let video = upload_video(&app, &w.eng, w.task, "bench.mp4", &bytes, 1 << 20).await;
        let add = AddVideosToGroup {
            group_id: g.id,
            videos: vec![video.id],
        };
        let (s, v) = app.send_refused(Method::PUT, ADD, &add, &w.eng).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["videos"][0].as_str().unwrap().contains("no labels"),
            "{v}"
        );
        let labels = vec![Segment::new(0, 500, 1_500), Segment::new(1, 1_500, 3_000)];
        label(&app, &w.eng, video.id, labels.clone()).await;
        let m: Msg = app.send_as(Method::PUT, ADD, &add, &w.eng).await;
        assert_eq!(m.msg, GROUP_UPDATED);
        let in_group: Vec<ValidationVideo> = app
            .get_as(
                &format!("organization/validation-videos/retrieve/?group_id={}", g.id),
                &w.eng,
            )
            .await;
        assert_eq!(in_group.len(), 1);
        let copy = &in_group[0];
        assert_eq!(
            (
                copy.video,
                copy.group,
                copy.reviewed,
                &copy.segments,
                copy.name.as_str()
            ),
            (Some(video.id), Some(g.id), true, &labels, "bench.mp4")
        );
        assert_eq!(validation_files(&app, w.a), 1);
        // Relabelling the task video leaves the copy as it was.
        label(&app, &w.eng, video.id, vec![Segment::new(0, 0, 100)]).await;
        let again: Vec<ValidationVideo> = app
            .get_as("organization/validation-videos/retrieve", &w.eng)
            .await;
        assert_eq!(again[0].segments, labels);

        // A cycle's clip becomes a record labelled with the recognised steps, unchecked.
        let at = 1_793_606_400_000;
        cycle_with_clip(&app, w.a, w.task, "cyc-1", at, clip(dir.path(), 4), 4_000).await;
        let from = RecordsFromTrace {
            group_id: g.id,
            cycles: vec!["cyc-1".into()],
        };
        let made: Vec<ValidationVideo> = app.create_as(FROM_TRACE, &from, &w.eng).await;
        assert_eq!(made.len(), 1);
        let rec = &made[0];
        assert_eq!(rec.cycle.as_deref(), Some("cyc-1"));
        assert!(!rec.reviewed);
        assert_eq!(
            rec.segments,
            [Segment::new(0, 1_000, 3_000), Segment::new(1, 3_000, 4_000)]
        );
        for cycles in [vec!["nope".to_string()], vec![]] {
            let bad = RecordsFromTrace {
                group_id: g.id,
                cycles,
            };
            let (s, v) = app
                .send_refused(Method::POST, FROM_TRACE, &bad, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v["cycles"].is_array(), "{v}");
        }
        assert_eq!(validation_files(&app, w.a), 2);

        // A person checks the record's labels: within the clip, of the task's steps.
        let check = format!("websocket_inference/validation_record/{}/", rec.id);
        for segments in [
            vec![Segment::new(7, 0, 1_000)],
            vec![Segment::new(0, 3_000, 9_000)],
        ] {
            let (s, v) = app
                .send_refused(Method::POST, &check, &RecordLabels { segments }, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v["segments"].is_array(), "{v}");
        }
        let fixed = vec![Segment::new(0, 800, 3_000), Segment::new(1, 3_000, 4_000)];
        let checked: ValidationVideo = app
            .send_as(
                Method::POST,
                &check,
                &RecordLabels {
                    segments: fixed.clone(),
                },
                &w.eng,
            )
            .await;
        assert!(checked.reviewed);
        assert_eq!(checked.segments, fixed);
        let records: Vec<ValidationVideo> = app
            .get_as(
                &format!("websocket_inference/validation_record/group/{}/", g.id),
                &w.eng,
            )
            .await;
        assert_eq!(records.len(), 2);
        let listed: Vec<ValidationGroup> = app.get_as(GROUPS, &w.eng).await;
        assert_eq!((listed[0].videos, listed[0].checked_videos), (2, 2));

        // Renamed, and moved into another group of the task (not another task's).
        let other: ValidationGroup = app
            .create_as(GROUPS, &group("Night shift", w.task), &w.eng)
            .await;
        let patched: ValidationVideo = app
            .send_as(
                Method::PATCH,
                &format!("organization/validation-videos/{}/", rec.id),
                &ValidationVideoPatch {
                    name: Some("Dropped screw".into()),
                    group_id: Some(other.id),
                },
                &w.eng,
            )
            .await;
        assert_eq!(
            (patched.name.as_str(), patched.group),
            ("Dropped screw", Some(other.id))
        );

        // Runs: a model version of the group's task, over checked videos.
        let model = model_version(&app, w.a, w.task, "pump-1", b"not run".to_vec()).await;
        let empty: ValidationGroup = app.create_as(GROUPS, &group("Empty", w.task), &w.eng).await;
        for (body, field) in [
            (
                ValidationRunCreate {
                    group_id: empty.id,
                    model_version: model,
                },
                "group_id",
            ),
            (
                ValidationRunCreate {
                    group_id: g.id,
                    model_version: 999_999,
                },
                "model_version",
            ),
        ] {
            let (s, v) = app.send_refused(Method::POST, RUNS, &body, &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field].is_array(), "{v}");
        }

        // Another organisation sees none of it.
        for path in [
            format!("websocket_inference/validation_record/group/{}/", g.id),
            format!("organization/validation-videos/retrieve/?group_id={}", g.id),
        ] {
            let (s, _) = app.get(&path, &w.boss_b).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
        }
        let theirs: Vec<ValidationVideo> = app
            .get_as("organization/validation-videos/retrieve", &w.boss_b)
            .await;
        assert!(theirs.is_empty());
        let (s, _) = app.delete(&check, &w.boss_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Deleting a record takes its footage; deleting a group leaves its videos.
        let (s, v) = app.delete(&check, &w.eng).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(validation_files(&app, w.a), 1);
        let (s, v) = app.delete(&format!("{GROUPS}{}/", g.id), &w.eng).await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some(GROUP_DELETED))
        );
        let left: Vec<ValidationVideo> = app
            .get_as("organization/validation-videos/retrieve", &w.eng)
            .await;
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].group, None);
        let (s, _) = app.delete(&format!("{GROUPS}{}/", g.id), &w.eng).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);

/// Footage of the demo operation (`models/demo.py`), `seconds` long: the video and its
/// ground truth.
fn footage(app: &TestApp, dir: &Path, seed: u32, seconds: u32) -> (std::path::PathBuf, Truth) {
    let out = dir.join(format!("seed{seed}"));
    let models = app.state.settings.trainer_script.parent().unwrap();
    let st = std::process::Command::new(&app.state.settings.models_python)
        .arg(models.join("demo.py"))
        .args(["--seed", &seed.to_string()])
        .args(["--seconds", &seconds.to_string()])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "making footage");
    let truth =
        serde_json::from_slice(&std::fs::read(out.with_extension("truth.json")).unwrap()).unwrap();
    (out.with_extension("mp4"), truth)
}

/// `gemba-agent eval` of the default model on `video` against `truth`.
fn agent_eval(dir: &Path, video: &Path, truth: &Truth) -> VideoEval {
    let file = dir.join("truth.json");
    std::fs::write(&file, serde_json::to_vec(truth).unwrap()).unwrap();
    let out = std::process::Command::new(agent_bin())
        .arg("eval")
        .arg("--model")
        .arg(models_dir().join("default"))
        .arg("--video")
        .arg(video)
        .arg("--truth")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `got` and `want` alike, numbers to the last digits a JSON round trip keeps.
fn same_figures(got: &serde_json::Value, want: &serde_json::Value) {
    use serde_json::Value;
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{a} vs {b}");
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len());
            a.iter().zip(b).for_each(|(x, y)| same_figures(x, y));
        }
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
            a.iter().for_each(|(k, x)| same_figures(x, &b[k]));
        }
        _ => assert_eq!(got, want),
    }
}

/// The figures of one evaluation, without its speed (which differs run to run).
fn figures(mut e: VideoEval) -> VideoEval {
    e.fps = 0.0;
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_figures_equal_those_gemba_agent_eval_computes_for_the_same_videos() {
    let app = TestApp::start(Backend::Sqlite).await;
    let w = subscribed_world(&app).await;
    let dir = tempfile::tempdir().unwrap();
    let detail = "Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n\
                  Fasten screws:\nDrive;\nInspect:\nLook;\n";
    let t: Task = app
        .create_as(
            "organization/task/",
            &TaskCreate {
                task_detail: Some(detail.into()),
                ..TaskCreate::default()
            },
            &w.eng,
        )
        .await;
    let model = std::fs::read(models_dir().join("default/model.onnx")).unwrap();
    let version = model_version(&app, w.a, t.id, "demo-1", model).await;
    let g: ValidationGroup = app.create_as(GROUPS, &group("Bench", t.id), &w.eng).await;

    // Two videos of the operation, labelled with their ground truth (cut at their end).
    let mut expected = vec![];
    for seed in [11, 12] {
        let (file, truth) = footage(&app, dir.path(), seed, 24);
        let bytes = std::fs::read(&file).unwrap();
        let name = format!("seed{seed}.mp4");
        let v = upload_video(&app, &w.eng, t.id, &name, &bytes, 4 << 20).await;
        let end = v.duration_ms.unwrap();
        let segments: Vec<Segment> = truth
            .segments
            .iter()
            .filter(|s| s.start_ms < end)
            .map(|s| Segment::new(s.step, s.start_ms, s.end_ms.min(end)))
            .collect();
        label(&app, &w.eng, v.id, segments.clone()).await;
        let _: Msg = app
            .send_as(
                Method::PUT,
                ADD,
                &AddVideosToGroup {
                    group_id: g.id,
                    videos: vec![v.id],
                },
                &w.eng,
            )
            .await;
        // What the agent computes for the same footage and labels, and the task's
        // step order rule (not strict, the default).
        let same = Truth {
            operation: detail.into(),
            strict_step_order: false,
            steps: truth.steps.clone(),
            segments: segments
                .iter()
                .map(|s| TruthSegment {
                    step: s.step,
                    start_ms: s.start_ms,
                    end_ms: s.end_ms,
                })
                .collect(),
            cycles: truth.cycles.clone(),
        };
        expected.push((name, agent_eval(dir.path(), &file, &same)));
    }

    let run: ValidationRun = app
        .create_as(
            RUNS,
            &ValidationRunCreate {
                group_id: g.id,
                model_version: version,
            },
            &w.eng,
        )
        .await;
    assert_eq!((run.of, run.model_version_name.as_str()), (2, "demo-1"));
    let path = format!("organization/validation-runs/{}/", run.id);
    let mut done = None;
    until("the validation run", 600, async || {
        let r: ValidationRun = app.get_as(&path, &w.eng).await;
        let end = !matches!(
            r.status,
            ValidationStatus::Queued | ValidationStatus::Running
        );
        done = Some(r);
        end
    })
    .await;
    let done = done.unwrap();
    assert_eq!(done.status, ValidationStatus::Succeeded, "{done:?}");
    assert_eq!(done.done, 2);

    // Per video, the agent's own figures.
    let per_video: Vec<ValidationRunVideo> = app
        .get_as(
            &format!("organization/validation-runs-videos/{}/", run.id),
            &w.eng,
        )
        .await;
    assert_eq!(per_video.len(), 2);
    for (got, (name, want)) in per_video.iter().zip(&expected) {
        assert_eq!(&got.name, name);
        assert_eq!(got.error, None);
        let report = got.report.clone().unwrap();
        same_figures(
            &serde_json::to_value(figures(report)).unwrap(),
            &serde_json::to_value(figures(want.clone())).unwrap(),
        );
        assert!(want.frames > 300, "{want:?}");
        assert!(want.true_cycles > 0, "{want:?}");
    }
    // Over the group: the pooled figures of the same evaluations.
    let evals: Vec<VideoEval> = expected.into_iter().map(|(_, e)| e).collect();
    let pooled = aggregate(&evals).unwrap();
    let report = done.report.unwrap();
    same_figures(
        &serde_json::to_value(&report).unwrap(),
        &serde_json::to_value(&pooled).unwrap(),
    );
    assert_eq!(report.frames, evals.iter().map(|e| e.frames).sum::<u64>());
    assert_eq!(
        report.matched,
        evals.iter().map(|e| e.matched).sum::<usize>()
    );

    // The group lists the run, to compare it with others.
    let listed: Vec<ValidationGroup> = app.get_as(GROUPS, &w.eng).await;
    let bench = listed.iter().find(|x| x.id == g.id).unwrap();
    assert_eq!(bench.runs.len(), 1);
    assert_eq!(bench.runs[0].status, ValidationStatus::Succeeded);
    // The work folder is gone.
    until("the work folder to go", 10, async || {
        !app.state
            .settings
            .data
            .join(format!("validation/{}", run.id))
            .exists()
    })
    .await;
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
