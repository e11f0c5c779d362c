//! Training (issue 6): a task's labelled video trained by the real training code
//! (`models/train.py`) from the job queue, on both backends; progress, the model
//! version with its held-out metrics, stop, a failing trainer, and bad requests.

use std::time::Duration;

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::device::{DeviceDetails, EnrolmentCode};
use gemba_shared::api::v1::task::{StopTraining, Task, TaskPatch, TrainStatus};
use gemba_shared::api::v1::training::{
    DeployRequest, Deployment, ModelVersion, ModelVersionPatch, RunStatus, TrainedTask,
    TrainedTaskPatch, TrainingRun,
};
use gemba_shared::api::v1::video::{
    AnnotationsCheck, LabelState, LabelsPut, TaskVideos, Video, VideoLabels, VideoPatch,
};
use gemba_shared::cycle::Segment;
use object_store::ObjectStoreExt;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::*;
use crate::devices::World;
use crate::videos::{b_task, clip, subscribed_world, upload};
use crate::{both, both_with};

/// The video a whole upload made (`videos::upload`'s last answer).
fn uploaded((s, v): (StatusCode, Value)) -> Video {
    assert_eq!(s, StatusCode::OK, "{v}");
    serde_json::from_value(v).unwrap()
}

fn labels_path(video: i64) -> String {
    format!("organization/task_record/{video}/labels/")
}

/// Saves `segments` as the labels of `video`, as `tok`.
async fn put_labels(app: &TestApp, tok: &str, video: i64, segments: Vec<Segment>) -> VideoLabels {
    let body = LabelsPut {
        segments,
        reviewed: None,
    };
    app.send_as(Method::PUT, &labels_path(video), &body, tok)
        .await
}

async fn labels(app: &TestApp, tok: &str, video: i64) -> VideoLabels {
    app.get_as(&labels_path(video), tok).await
}

/// Uploads a `seconds`-long clip to the world's task and labels both steps in it.
pub(crate) async fn labelled_video(app: &TestApp, w: &World, seconds: u32) -> i64 {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = clip(tmp.path(), seconds);
    let id = uploaded(upload(app, &w.eng, w.task, "bench.mp4", &bytes, 1 << 20).await).id;
    let ms = i64::from(seconds) * 1000;
    put_labels(
        app,
        &w.eng,
        id,
        vec![
            Segment::new(0, 0, ms * 2 / 5),
            Segment::new(1, ms / 2, ms * 9 / 10),
        ],
    )
    .await;
    id
}

fn path(task: i64) -> String {
    format!("organization/trained_task/{task}")
}

/// The call that starts training, with `epochs` or the default.
fn start(epochs: Option<u32>) -> TrainedTaskPatch {
    TrainedTaskPatch {
        train_status: "training".into(),
        epochs,
    }
}

/// Starts training the world's task as its engineer with `epochs`; the answer.
async fn start_training(app: &TestApp, w: &World, epochs: u32) -> TrainedTask {
    app.send_as(Method::PATCH, &path(w.task), &start(Some(epochs)), &w.eng)
        .await
}

/// The task's training, as `tok`.
async fn training(app: &TestApp, tok: &str, task: i64) -> TrainedTask {
    app.get_as(&path(task), tok).await
}

/// The training's latest run.
fn run(t: &TrainedTask) -> &TrainingRun {
    t.run
        .as_ref()
        .unwrap_or_else(|| panic!("no training run: {t:?}"))
}

/// The model version the training made.
fn made(t: &TrainedTask) -> &ModelVersion {
    t.model_version
        .as_ref()
        .unwrap_or_else(|| panic!("no model version: {t:?}"))
}

/// Trains the world's task with `epochs` and waits until it is done; its training.
pub(crate) async fn trained(app: &TestApp, w: &World, epochs: u32) -> TrainedTask {
    start_training(app, w, epochs).await;
    let t = wait_for(app, &w.eng, w.task, |t| {
        t.train_status != TrainStatus::Training
    })
    .await;
    assert_eq!(t.train_status, TrainStatus::Trained, "{t:?}");
    t
}

/// Polls the task's training until `done` says so (at most five minutes: the training
/// target on 2 cores; the robust recipe's head trains on 12,000 augmented windows however
/// short the video, about a minute alone and more beside a busy test run).
async fn wait_for(
    app: &TestApp,
    tok: &str,
    task: i64,
    mut done: impl FnMut(&TrainedTask) -> bool,
) -> TrainedTask {
    for _ in 0..3000 {
        let t = training(app, tok, task).await;
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let t = training(app, tok, task).await;
    panic!("training did not get there in five minutes: {t:?}");
}

/// Adds a device as `tok`; its id.
async fn device(app: &TestApp, tok: &str, name: &str) -> i64 {
    let code: EnrolmentCode =
        serde_json::from_value(crate::devices::add(app, tok, name).await).unwrap();
    code.device.id
}

both!(
    a_labelled_video_trains_into_a_model_version_with_metrics,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let video = labelled_video(&app, &w, 4).await;

        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(t.train_status, TrainStatus::InAnnotation);
        assert_eq!(t.labelled_videos, 1);
        assert_eq!(t.run, None);

        // One epoch: what is checked is the path (progress, model version, metrics,
        // bundle), not the model's quality; each epoch costs ~9 s of CPU.
        let t = start_training(&app, &w, 1).await;
        assert_eq!(t.train_status, TrainStatus::Training);
        assert_eq!(run(&t).train_videos, [video]);
        assert_eq!(run(&t).holdout_videos, Vec::<i64>::new());
        // A task in training refuses changes (spec section 4).
        let rename = TaskPatch {
            task_name: Some("Other".into()),
            ..TaskPatch::default()
        };
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/task/{}/", w.task),
                &rename,
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

        // Progress moves up while it runs, and it ends trained.
        let mut seen = vec![];
        let t = wait_for(&app, &w.eng, w.task, |t| {
            if let Some(r) = &t.run {
                seen.push(r.progress);
            }
            t.train_status != TrainStatus::Training
        })
        .await;
        assert_eq!(t.train_status, TrainStatus::Trained, "{t:?}");
        let run = run(&t);
        assert_eq!(run.status, RunStatus::Succeeded, "{t:?}");
        assert_eq!(run.progress, 1.0);
        assert!(seen.windows(2).all(|p| p[0] <= p[1]), "{seen:?}");
        assert!(run.finished_at >= run.started_at);

        let m = made(&t);
        assert_eq!(Some(m.id), run.model_version);
        assert_eq!(m.task, Some(w.task));
        assert!(!m.is_deleted);
        let metrics = m.metrics.as_ref().unwrap();
        assert_eq!(metrics.labels, ["Fit", "Check", "background"]);
        // The held-out fifth of a 4 s clip at 15 fps: 12 frames.
        assert_eq!(metrics.frames, 12, "{metrics:?}");
        let acc = metrics.frame_accuracy;
        assert!((0.0..=1.0).contains(&acc), "{metrics:?}");
        assert_eq!(metrics.confusion.len(), 3);
        let total: u64 = metrics.confusion.iter().flatten().sum();
        assert_eq!(total, 12);
        assert_eq!(metrics.per_label.len(), 3);

        // The bundle in the object store is what the checksum says.
        let key = format!("org/{}/models/{}/model.onnx", w.a, m.version);
        let bytes = app
            .state
            .objects
            .get(&object_store::path::Path::from(key))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(m.size_bytes, i64::try_from(bytes.len()).unwrap());
        let sha: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(m.sha256, sha);
        // The work folder is gone.
        assert!(
            !app.data_dir()
                .join("training")
                .join(run.id.to_string())
                .exists()
        );

        // Another organisation's user sees nothing of it; an analytics user may look
        // but not start.
        assert_eq!(
            app.get(&path(w.task), &w.boss_b).await.0,
            StatusCode::NOT_FOUND
        );
        training(&app, &w.analyst, w.task).await;
        let (s, _) = app
            .send_refused(Method::PATCH, &path(w.task), &start(None), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .send_refused(Method::PATCH, &path(w.task), &start(None), &w.boss_b)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);

both!(
    bad_training_requests_are_refused_and_change_nothing,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        // No labels at all: the clear message.
        let (s, v) = app
            .send_refused(Method::PATCH, &path(w.task), &start(None), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This task has no labelled video: label the steps of at least one video before training."
        );
        let video = labelled_video(&app, &w, 2).await;
        let trained_status = TrainedTaskPatch {
            train_status: "trained".into(),
            epochs: None,
        };
        for (body, field, says) in [
            (trained_status, "train_status", "Only 'training'"),
            (start(Some(0)), "epochs", "between 1 and 200"),
            (start(Some(201)), "epochs", "between 1 and 200"),
        ] {
            let (s, v) = app
                .send_refused(Method::PATCH, &path(w.task), &body, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert!(
                v[field][0].as_str().unwrap().contains(says),
                "{body:?}: {v}"
            );
        }
        for body in [
            json!({}),
            json!({"train_status": 5}),
            json!({"train_status": "training", "epochs": -1}),
        ] {
            let (s, v) = app.patch(&path(w.task), body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        // Unknown task, and stopping a task that is not training.
        let (s, _) = app
            .send_refused(Method::PATCH, &path(999_999), &start(None), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, v) = app
            .send_refused(
                Method::PUT,
                "organization/train/stop/",
                &StopTraining { task: w.task },
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

        // Nothing moved: still in annotation, no run; its labels kept.
        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(t.train_status, TrainStatus::InAnnotation);
        assert_eq!(t.run, None);
        assert_eq!(labels(&app, &w.eng, video).await.segments.len(), 2);
    }
);

both!(
    stopping_ends_the_run_and_keeps_no_model,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        labelled_video(&app, &w, 4).await;
        start_training(&app, &w, 200).await;
        // Stopped once it is in its epochs.
        wait_for(&app, &w.eng, w.task, |t| {
            t.run
                .as_ref()
                .is_some_and(|r| r.message.starts_with("Epoch"))
        })
        .await;
        let task: Task = app
            .send_as(
                Method::PUT,
                "organization/train/stop/",
                &StopTraining { task: w.task },
                &w.eng,
            )
            .await;
        assert_eq!(task.train_status, TrainStatus::InAnnotation);
        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(run(&t).status, RunStatus::Stopped);
        let frozen = run(&t).progress;
        // The training code was killed: the run stays as it was and no model comes.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(run(&t).status, RunStatus::Stopped);
        assert_eq!(run(&t).progress, frozen);
        assert_eq!(t.model_version, None);
        assert_eq!(t.train_status, TrainStatus::InAnnotation);
        assert!(
            !app.data_dir()
                .join("training")
                .join(run(&t).id.to_string())
                .exists()
        );
        // It can be trained again.
        trained(&app, &w, 1).await;
    }
);

both_with!(
    a_failing_training_says_why,
    |s: &mut gemba_cloud::config::Settings| {
        s.trainer_script = "/nonexistent/train.py".into();
    },
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        labelled_video(&app, &w, 2).await;
        let _: TrainedTask = app
            .send_as(Method::PATCH, &path(w.task), &start(None), &w.eng)
            .await;
        let t = wait_for(&app, &w.eng, w.task, |t| {
            t.train_status != TrainStatus::Training
        })
        .await;
        assert_eq!(t.train_status, TrainStatus::Failed, "{t:?}");
        assert_eq!(run(&t).status, RunStatus::Failed);
        let why = &run(&t).message;
        assert!(
            why.starts_with("the training code failed") && why.contains("train.py"),
            "{why}"
        );
        assert_eq!(t.model_version, None);
    }
);

both_with!(
    a_separate_worker_process_takes_the_queued_training,
    |s: &mut gemba_cloud::config::Settings| {
        s.train_in_process = false;
    },
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        labelled_video(&app, &w, 2).await;
        start_training(&app, &w, 1).await;
        // No worker in the service: it waits in the queue.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(run(&t).status, RunStatus::Queued, "{t:?}");
        assert_eq!(run(&t).message, "Waiting for a worker");

        // `gemba-cloud worker` on the same database and data folder takes it.
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gemba-cloud"));
        cmd.arg("worker")
            .arg("--data")
            .arg(app.data_dir())
            .env("GEMBA_TRAINER_SCRIPT", &app.state.settings.trainer_script)
            .env("GEMBA_MODELS_PYTHON", &app.state.settings.models_python)
            .env("RUST_LOG", "warn")
            .kill_on_drop(true);
        if let Some(u) = app.pg_url() {
            cmd.arg("--database-url").arg(u);
        }
        let mut worker = cmd.spawn().unwrap();
        let t = wait_for(&app, &w.eng, w.task, |t| {
            t.train_status != TrainStatus::Training
        })
        .await;
        assert_eq!(t.train_status, TrainStatus::Trained, "{t:?}");
        assert_eq!(run(&t).status, RunStatus::Succeeded);
        worker.kill().await.unwrap();
    }
);

both!(
    model_versions_are_listed_soft_deleted_and_refuse_bad_deploys,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        labelled_video(&app, &w, 2).await;
        let t = trained(&app, &w, 1).await;
        let mv = made(&t);
        let id = mv.id;

        let list: Vec<ModelVersion> = app
            .get_as(
                &format!("organization/model_version?task={}", w.task),
                &w.eng,
            )
            .await;
        assert_eq!(list.len(), 1);
        assert_eq!(list[0], *mv);
        let one = format!("organization/model_version/{id}");
        assert_eq!(app.get_as::<ModelVersion>(&one, &w.eng).await, *mv);
        assert_eq!(app.get(&one, &w.boss_b).await.0, StatusCode::NOT_FOUND);

        // The soft delete toggles; bad bodies and forbidden roles change nothing.
        for body in [
            json!({"is_deleted": "yes"}),
            json!({}),
            json!({"is_deleted": true, "x": 1}),
        ] {
            let (s, v) = app.patch(&one, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let deleted = |is_deleted| ModelVersionPatch { is_deleted };
        let (s, _) = app
            .send_refused(Method::PATCH, &one, &deleted(true), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert!(!app.get_as::<ModelVersion>(&one, &w.eng).await.is_deleted);
        let v: ModelVersion = app
            .send_as(Method::PATCH, &one, &deleted(true), &w.eng)
            .await;
        assert!(v.is_deleted);

        // Deploying: the subscription first, then a deleted version, then the devices.
        let deploy = format!("organization/model_version/{id}/deploy/");
        let bench = device(&app, &w.boss, "Bench").await;
        let to = |devices: Vec<i64>| DeployRequest { devices };
        let (s, v) = app
            .send_refused(Method::POST, &deploy, &to(vec![bench]), &w.eng)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        assert_eq!(
            v["detail"],
            "Deploy Model is not enabled for this organization."
        );
        app.subscribe(&w.admin, w.a, "Deploy Model").await;
        let (s, v) = app
            .send_refused(Method::POST, &deploy, &to(vec![bench]), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This model version is deleted: restore it to deploy it."
        );
        let _: ModelVersion = app
            .send_as(Method::PATCH, &one, &deleted(false), &w.eng)
            .await;
        let other = device(&app, &w.boss_b, "Theirs").await;
        for (body, says) in [
            (
                to(vec![bench]),
                "Bench is offline: try again once it is online.",
            ),
            (
                to(vec![other]),
                &*format!("Device {other} is not one of the organisation's devices."),
            ),
            (to(vec![]), "Choose at least one device."),
        ] {
            let (s, v) = app.send_refused(Method::POST, &deploy, &body, &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert_eq!(v["devices"][0], says, "{body:?}");
        }
        for body in [
            json!({"devices": "all"}),
            json!({"devices": [1.5]}),
            json!({}),
        ] {
            let (s, v) = app.post(&deploy, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let (s, _) = app
            .send_refused(Method::POST, &deploy, &to(vec![bench]), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Nothing was sent.
        let d: Vec<Deployment> = app.get_as("organization/deployments/", &w.eng).await;
        assert!(d.is_empty(), "{d:?}");
        let details: DeviceDetails = app
            .get_as(&format!("device/{bench}/device_details/"), &w.boss)
            .await;
        assert!(details.commands.is_empty(), "{details:?}");
    }
);

/// An unlabelled `seconds`-long clip of the world's task.
async fn unlabelled_video(app: &TestApp, w: &World, seconds: u32) -> i64 {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = clip(tmp.path(), seconds);
    uploaded(upload(app, &w.eng, w.task, "new.mp4", &bytes, 1 << 20).await).id
}

/// Where the labels of `video` stand, as the video list shows it.
async fn label_state(app: &TestApp, w: &World, video: i64) -> LabelState {
    app.get_as::<Video>(&format!("organization/task_record/{video}/"), &w.eng)
        .await
        .labels
}

/// Some videos of `task`, or (`None`) all of them.
fn videos(task: i64, videos: Option<Vec<i64>>) -> TaskVideos {
    TaskVideos { task, videos }
}

both!(
    a_trained_model_labels_unlabelled_videos_for_review,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let labelled = labelled_video(&app, &w, 4).await;
        let first = unlabelled_video(&app, &w, 3).await;
        let second = unlabelled_video(&app, &w, 3).await;
        // A trace is not training footage: no labels are propagated to it.
        let trace = unlabelled_video(&app, &w, 2).await;
        let as_trace = VideoPatch {
            is_uploaded_video: Some(false),
            ..VideoPatch::default()
        };
        let _: Video = app
            .send_as(
                Method::PATCH,
                &format!("organization/task_record/{trace}/"),
                &as_trace,
                &w.eng,
            )
            .await;
        assert_eq!(label_state(&app, &w, first).await, LabelState::None);
        assert_eq!(label_state(&app, &w, labelled).await, LabelState::Labelled);

        // One epoch each time: the labels' shape and where they go are checked, not
        // how good the guesses are (the learning loop checks that on the demo footage).
        let t = trained(&app, &w, 1).await;
        let version = made(&t).version.clone();
        for id in [first, second] {
            let l = labels(&app, &w.eng, id).await;
            assert_eq!(l.propagated_from.as_ref(), Some(&version), "{l:?}");
            assert!(!l.reviewed);
            assert_eq!(l.updated_by, None);
            // What the model guessed holds as labels: in order, inside the 3 s video.
            let mut end = 0;
            for g in &l.segments {
                let (a, b) = (g.start_ms, g.end_ms);
                assert!(end <= a && a < b && b <= 3000, "{l:?}");
                assert!(g.step < 2, "{l:?}");
                end = b;
            }
            assert_eq!(label_state(&app, &w, id).await, LabelState::Propagated);
        }
        let l = labels(&app, &w.eng, trace).await;
        assert_eq!(l.propagated_from, None);
        assert_eq!(label_state(&app, &w, trace).await, LabelState::None);
        let l = labels(&app, &w.eng, labelled).await;
        assert_eq!(l.propagated_from, None, "a person's labels stay");
        // Not trained on until reviewed.
        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(t.labelled_videos, 1, "{t:?}");

        // Bad marks are refused and change nothing.
        let mark = "organization/task/mark_propagations_as_reviewed";
        let (eng_b, task_b) = b_task(&app, &w).await;
        for (body, field, says) in [
            (
                videos(w.task, Some(vec![])),
                "videos",
                "Choose at least one video.".to_string(),
            ),
            (
                videos(w.task, Some(vec![first, labelled])),
                "videos",
                format!(
                    "Video {labelled} has no propagated labels of this task to review; nothing was marked."
                ),
            ),
            (
                videos(w.task, Some(vec![trace])),
                "videos",
                format!(
                    "Video {trace} has no propagated labels of this task to review; nothing was marked."
                ),
            ),
            (
                videos(w.task, Some(vec![999_999])),
                "videos",
                "Video 999999 has no propagated labels of this task to review; nothing was marked."
                    .to_string(),
            ),
            (
                videos(task_b, Some(vec![first])),
                "task",
                "Choose one of this organisation's tasks.".to_string(),
            ),
            (
                videos(w.task, Some(vec![first; 1001])),
                "videos",
                "Mark at most 1000 videos at once.".to_string(),
            ),
        ] {
            let (s, v) = app.send_refused(Method::PATCH, mark, &body, &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert_eq!(v[field][0], *says, "{body:?}: {v}");
        }
        for body in [
            json!({}),
            json!({"task": "x"}),
            json!({"task": w.task, "videos": [first], "all": true}),
            json!({"task": w.task, "videos": first}),
        ] {
            let (s, v) = app.patch(mark, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let (s, _) = app
            .send_refused(Method::PATCH, mark, &videos(w.task, None), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .send_refused(Method::PATCH, mark, &videos(w.task, None), &eng_b)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "another organisation's task");
        assert_eq!(label_state(&app, &w, first).await, LabelState::Propagated);

        // Reviewed: trained on; the model that guessed them is still named.
        let v: Msg = app
            .send_as(
                Method::PATCH,
                mark,
                &videos(w.task, Some(vec![first, first])),
                &w.eng,
            )
            .await;
        assert_eq!(v.msg, "Propagated labels of 1 video marked reviewed.");
        let l = labels(&app, &w.eng, first).await;
        assert!(l.reviewed);
        assert_eq!(l.propagated_from.as_ref(), Some(&version));
        assert_eq!(label_state(&app, &w, first).await, LabelState::Reviewed);
        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(t.labelled_videos, 2, "{t:?}");

        // Saved by a person, propagated labels become that person's.
        let l = put_labels(&app, &w.eng, second, vec![Segment::new(1, 0, 1000)]).await;
        assert_eq!(l.propagated_from, None);
        assert_eq!(label_state(&app, &w, second).await, LabelState::Labelled);
        let (s, v) = app
            .send_refused(Method::PATCH, mark, &videos(w.task, None), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This task has no propagated labels to review."
        );

        // The next training trains on all three and replaces no one's labels; a new
        // video gets the new model's guesses.
        let third = unlabelled_video(&app, &w, 2).await;
        let t = start_training(&app, &w, 1).await;
        let mut ran: Vec<i64> = run(&t)
            .train_videos
            .iter()
            .chain(&run(&t).holdout_videos)
            .copied()
            .collect();
        ran.sort_unstable();
        assert_eq!(ran, [labelled, first, second]);
        let t = wait_for(&app, &w.eng, w.task, |t| {
            t.train_status != TrainStatus::Training
        })
        .await;
        assert_eq!(t.train_status, TrainStatus::Trained, "{t:?}");
        let newer = &made(&t).version;
        assert_ne!(*newer, version);
        let l = labels(&app, &w.eng, first).await;
        assert_eq!(
            (l.propagated_from.as_deref(), l.reviewed),
            (Some(&*version), true)
        );
        let l = labels(&app, &w.eng, second).await;
        assert_eq!(l.segments, [Segment::new(1, 0, 1000)]);
        let l = labels(&app, &w.eng, third).await;
        assert_eq!(l.propagated_from.as_ref(), Some(newer), "{l:?}");
    }
);

both!(
    a_tasks_labels_are_checked_and_deleted,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let check_path = format!("organization/task/annotations_check/{}", w.task);
        let check = || app.get_as::<AnnotationsCheck>(&check_path, &w.eng);
        let c = check().await;
        assert_eq!(c.steps, ["Fit", "Check"]);
        assert_eq!(c.labelled_videos, 0);
        assert_eq!(c.step_ms, [0, 0]);
        assert!(!c.can_train);
        assert_eq!(
            c.problems,
            ["No video is labelled yet: label one to train."]
        );

        // Both steps labelled in one video (1.6 s each), the first alone in a second; a
        // third with a model's guesses waiting for review.
        let both_steps = labelled_video(&app, &w, 4).await;
        let first_only = unlabelled_video(&app, &w, 2).await;
        put_labels(&app, &w.eng, first_only, vec![Segment::new(0, 0, 1000)]).await;
        let guessed = unlabelled_video(&app, &w, 2).await;
        let row = gemba_cloud::db::videos::by_id(&app.state.db, guessed)
            .await
            .unwrap()
            .unwrap();
        let guess = r#"[{"step":1,"start_ms":0,"end_ms":500}]"#;
        assert!(
            gemba_cloud::db::videos::propagate(&app.state.db, &row, guess, "t9-r9")
                .await
                .unwrap()
        );
        let no_labels = unlabelled_video(&app, &w, 2).await;
        let c = check().await;
        assert_eq!(c.ready_videos, 4);
        assert_eq!(c.labelled_videos, 2);
        assert_eq!(c.to_review, 1);
        assert_eq!(c.step_ms, [2600, 1600], "{c:?}");
        assert!(c.can_train);
        assert_eq!(
            c.problems,
            ["1 video has propagated labels to review: they are trained on once reviewed."]
        );
        let (_, other) = b_task(&app, &w).await;
        let (s, _) = app
            .get(
                &format!("organization/task/annotations_check/{other}"),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Bad deletes are refused and delete nothing.
        let delete = "organization/task/delete_annotations";
        let nothing = format!("Video {no_labels} has no labels of this task; nothing was deleted.");
        for (body, field, says) in [
            (
                videos(w.task, Some(vec![])),
                "videos",
                "Choose at least one video.",
            ),
            (
                videos(w.task, Some(vec![both_steps, no_labels])),
                "videos",
                &*nothing,
            ),
            (
                videos(other, Some(vec![both_steps])),
                "task",
                "Choose one of this organisation's tasks.",
            ),
        ] {
            let (s, v) = app.send_refused(Method::PATCH, delete, &body, &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert_eq!(v[field][0], says, "{body:?}: {v}");
        }
        for body in [json!({}), json!({"task": w.task, "videos": [1], "x": 1})] {
            let (s, v) = app.patch(delete, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let all = videos(w.task, None);
        let (s, _) = app
            .send_refused(Method::PATCH, delete, &all, &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Not while the task trains.
        let set_status = |status: &'static str| {
            let db = app.state.db.pool.clone();
            let task = w.task;
            async move {
                sqlx::query("UPDATE tasks SET train_status = $1 WHERE id = $2")
                    .bind(status)
                    .bind(task)
                    .execute(&db)
                    .await
                    .unwrap();
            }
        };
        set_status("training").await;
        let (s, v) = app.send_refused(Method::PATCH, delete, &all, &w.eng).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["non_field_errors"][0]
                .as_str()
                .unwrap()
                .contains("is being trained"),
            "{v}"
        );
        set_status("in_annotation").await;
        assert_eq!(check().await.labelled_videos, 2);

        // One video's labels: the check follows.
        let v: Msg = app
            .send_as(
                Method::PATCH,
                delete,
                &videos(w.task, Some(vec![both_steps])),
                &w.eng,
            )
            .await;
        assert_eq!(v.msg, "Labels of 1 video deleted.");
        let l = labels(&app, &w.eng, both_steps).await;
        assert!(l.segments.is_empty(), "{l:?}");
        assert_eq!(l.updated_at, None);
        let c = check().await;
        assert_eq!(c.step_ms, [1000, 0]);
        assert_eq!(
            c.problems[0],
            "Step Check has no labelled segment: the model will not find it."
        );

        // All of them, propagated ones too: the task is new again.
        let v: Msg = app.send_as(Method::PATCH, delete, &all, &w.eng).await;
        assert_eq!(v.msg, "Labels of 2 videos deleted.");
        let c = check().await;
        assert_eq!((c.labelled_videos, c.to_review), (0, 0));
        let t = training(&app, &w.eng, w.task).await;
        assert_eq!(t.train_status, TrainStatus::NewTask, "{t:?}");
        let (s, v) = app.send_refused(Method::PATCH, delete, &all, &w.eng).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This task has no labels to delete."
        );
    }
);
