//! Training (issue 6): a task's labelled video trained by the real training code
//! (`models/train.py`) from the job queue, on both backends; progress, the model
//! version with its held-out metrics, stop, a failing trainer, and bad requests.

use std::time::Duration;

use object_store::ObjectStoreExt;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::*;
use crate::devices::World;
use crate::videos::{b_task, clip, subscribed_world, upload};
use crate::{both, both_with};

/// Uploads a `seconds`-long clip to the world's task and labels both steps in it.
pub(crate) async fn labelled_video(app: &TestApp, w: &World, seconds: u32) -> i64 {
    let tmp = tempfile::tempdir().unwrap();
    let bytes = clip(tmp.path(), seconds);
    let (s, v) = upload(app, &w.eng, w.task, "bench.mp4", &bytes, 1 << 20).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_i64().unwrap();
    let ms = i64::from(seconds) * 1000;
    let (s, v) = app
        .call(
            Method::PUT,
            &format!("organization/task_record/{id}/labels/"),
            Some(json!({"segments": [
                {"step": 0, "start_ms": 0, "end_ms": ms * 2 / 5},
                {"step": 1, "start_ms": ms / 2, "end_ms": ms * 9 / 10},
            ]})),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    id
}

fn path(task: i64) -> String {
    format!("organization/trained_task/{task}")
}

/// Starts training the world's task as its engineer with `epochs`; the answer.
async fn start_training(app: &TestApp, w: &World, epochs: u32) -> Value {
    let (s, t) = app
        .patch(
            &path(w.task),
            json!({"train_status": "training", "epochs": epochs}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    t
}

/// Trains the world's task with `epochs` and waits until it is done; its training.
pub(crate) async fn trained(app: &TestApp, w: &World, epochs: u32) -> Value {
    start_training(app, w, epochs).await;
    let t = wait_for(app, &w.eng, w.task, |v| v["train_status"] != "training").await;
    assert_eq!(t["train_status"], "trained", "{t}");
    t
}

/// Polls the task's training until `done` says so (at most five minutes: the training
/// target on 2 cores; the robust recipe's head trains on 12,000 augmented windows however
/// short the video, about a minute alone and more beside a busy test run).
async fn wait_for(
    app: &TestApp,
    tok: &str,
    task: i64,
    mut done: impl FnMut(&Value) -> bool,
) -> Value {
    for _ in 0..3000 {
        let (s, v) = app.get(&path(task), tok).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        if done(&v) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, v) = app.get(&path(task), tok).await;
    panic!("training did not get there in five minutes: {v}");
}

both!(
    a_labelled_video_trains_into_a_model_version_with_metrics,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let video = labelled_video(&app, &w, 4).await;

        let (s, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(s, StatusCode::OK, "{t}");
        assert_eq!(t["train_status"], "in_annotation");
        assert_eq!(t["labelled_videos"], 1);
        assert_eq!(t["run"], Value::Null);

        let t = start_training(&app, &w, 3).await;
        assert_eq!(t["train_status"], "training");
        assert_eq!(t["run"]["train_videos"], json!([video]));
        assert_eq!(t["run"]["holdout_videos"], json!([]));
        // A task in training refuses changes (spec section 4).
        let (s, v) = app
            .patch(
                &format!("organization/task/{}/", w.task),
                json!({"taskName": "Other"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

        // Progress moves up while it runs, and it ends trained.
        let mut seen = vec![];
        let t = wait_for(&app, &w.eng, w.task, |v| {
            if let Some(p) = v["run"]["progress"].as_f64() {
                seen.push(p);
            }
            v["train_status"] != "training"
        })
        .await;
        assert_eq!(t["train_status"], "trained", "{t}");
        let run = &t["run"];
        assert_eq!(run["status"], "succeeded", "{t}");
        assert_eq!(run["progress"], 1.0);
        assert!(seen.windows(2).all(|p| p[0] <= p[1]), "{seen:?}");
        assert!(run["finished_at"].as_i64() >= run["started_at"].as_i64());

        let m = &t["model_version"];
        assert_eq!(m["id"], run["model_version"]);
        assert_eq!(m["task"], w.task);
        assert_eq!(m["is_deleted"], false);
        let metrics = &m["metrics"];
        assert_eq!(metrics["labels"], json!(["Fit", "Check", "background"]));
        // The held-out fifth of a 4 s clip at 15 fps: 12 frames.
        assert_eq!(metrics["frames"], 12, "{metrics}");
        let acc = metrics["frame_accuracy"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&acc), "{metrics}");
        let confusion = metrics["confusion"].as_array().unwrap();
        assert_eq!(confusion.len(), 3);
        let total: u64 = confusion
            .iter()
            .flat_map(|r| r.as_array().unwrap())
            .map(|c| c.as_u64().unwrap())
            .sum();
        assert_eq!(total, 12);
        assert_eq!(metrics["per_label"].as_array().unwrap().len(), 3);

        // The bundle in the object store is what the checksum says.
        let key = format!(
            "org/{}/models/{}/model.onnx",
            w.a,
            m["version"].as_str().unwrap()
        );
        let bytes = app
            .state
            .objects
            .get(&object_store::path::Path::from(key))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(m["size_bytes"], bytes.len());
        let sha: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(m["sha256"], sha);
        // The work folder is gone.
        assert!(
            !app.data_dir()
                .join("training")
                .join(run["id"].to_string())
                .exists()
        );

        // Another organisation's user sees nothing of it; an analytics user may look
        // but not start.
        assert_eq!(
            app.get(&path(w.task), &w.boss_b).await.0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(app.get(&path(w.task), &w.analyst).await.0, StatusCode::OK);
        let (s, _) = app
            .patch(
                &path(w.task),
                json!({"train_status": "training"}),
                Some(&w.analyst),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .patch(
                &path(w.task),
                json!({"train_status": "training"}),
                Some(&w.boss_b),
            )
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
            .patch(
                &path(w.task),
                json!({"train_status": "training"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This task has no labelled video: label the steps of at least one video before training."
        );
        let video = labelled_video(&app, &w, 2).await;
        for (body, field, says) in [
            (
                json!({"train_status": "trained"}),
                "train_status",
                "Only 'training'",
            ),
            (
                json!({"train_status": "training", "epochs": 0}),
                "epochs",
                "between 1 and 200",
            ),
            (
                json!({"train_status": "training", "epochs": 201}),
                "epochs",
                "between 1 and 200",
            ),
        ] {
            let (s, v) = app.patch(&path(w.task), body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            assert!(v[field][0].as_str().unwrap().contains(says), "{body}: {v}");
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
            .patch(
                &path(999_999),
                json!({"train_status": "training"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, v) = app
            .put("organization/train/stop/", json!({"task": w.task}), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

        // Nothing moved: still in annotation, no run; its labels kept.
        let (_, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(t["train_status"], "in_annotation");
        assert_eq!(t["run"], Value::Null);
        let (_, l) = app
            .get(&format!("organization/task_record/{video}/labels/"), &w.eng)
            .await;
        assert_eq!(l["segments"].as_array().unwrap().len(), 2);
    }
);

both!(
    stopping_ends_the_run_and_keeps_no_model,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        labelled_video(&app, &w, 4).await;
        start_training(&app, &w, 200).await;
        // Stopped once it is in its epochs.
        wait_for(&app, &w.eng, w.task, |v| {
            v["run"]["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("Epoch")
        })
        .await;
        let (s, task) = app
            .put("organization/train/stop/", json!({"task": w.task}), &w.eng)
            .await;
        assert_eq!(s, StatusCode::OK, "{task}");
        assert_eq!(task["train_status"], "in_annotation");
        let (_, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(t["run"]["status"], "stopped");
        let frozen = t["run"]["progress"].clone();
        // The training code was killed: the run stays as it was and no model comes.
        tokio::time::sleep(Duration::from_secs(3)).await;
        let (_, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(t["run"]["status"], "stopped");
        assert_eq!(t["run"]["progress"], frozen);
        assert_eq!(t["model_version"], Value::Null);
        assert_eq!(t["train_status"], "in_annotation");
        assert!(
            !app.data_dir()
                .join("training")
                .join(t["run"]["id"].to_string())
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
        let (s, t) = app
            .patch(
                &path(w.task),
                json!({"train_status": "training"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{t}");
        let t = wait_for(&app, &w.eng, w.task, |v| v["train_status"] != "training").await;
        assert_eq!(t["train_status"], "failed", "{t}");
        assert_eq!(t["run"]["status"], "failed");
        let why = t["run"]["message"].as_str().unwrap();
        assert!(
            why.starts_with("the training code failed") && why.contains("train.py"),
            "{why}"
        );
        assert_eq!(t["model_version"], Value::Null);
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
        start_training(&app, &w, 2).await;
        // No worker in the service: it waits in the queue.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (_, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(t["run"]["status"], "queued", "{t}");
        assert_eq!(t["run"]["message"], "Waiting for a worker");

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
        let t = wait_for(&app, &w.eng, w.task, |v| v["train_status"] != "training").await;
        assert_eq!(t["train_status"], "trained", "{t}");
        assert_eq!(t["run"]["status"], "succeeded");
        worker.kill().await.unwrap();
    }
);

both!(
    model_versions_are_listed_soft_deleted_and_refuse_bad_deploys,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        labelled_video(&app, &w, 2).await;
        let t = trained(&app, &w, 1).await;
        let id = t["model_version"]["id"].as_i64().unwrap();

        let (s, list) = app
            .get(
                &format!("organization/model_version?task={}", w.task),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{list}");
        assert_eq!(list.as_array().unwrap().len(), 1);
        assert_eq!(list[0], t["model_version"]);
        let one = format!("organization/model_version/{id}");
        assert_eq!(app.get(&one, &w.eng).await.1, t["model_version"]);
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
        let (s, _) = app
            .patch(&one, json!({"is_deleted": true}), Some(&w.analyst))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(app.get(&one, &w.eng).await.1["is_deleted"], false);
        let (s, v) = app
            .patch(&one, json!({"is_deleted": true}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["is_deleted"], true);

        // Deploying: the subscription first, then a deleted version, then the devices.
        let deploy = format!("organization/model_version/{id}/deploy/");
        let bench = crate::devices::add(&app, &w.boss, "Bench").await["device"]["id"]
            .as_i64()
            .unwrap();
        let (s, v) = app
            .post(&deploy, json!({"devices": [bench]}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        assert_eq!(
            v["detail"],
            "Deploy Model is not enabled for this organization."
        );
        app.subscribe(&w.admin, w.a, "Deploy Model").await;
        let (s, v) = app
            .post(&deploy, json!({"devices": [bench]}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This model version is deleted: restore it to deploy it."
        );
        let (s, _) = app
            .patch(&one, json!({"is_deleted": false}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK);
        let other = crate::devices::add(&app, &w.boss_b, "Theirs").await["device"]["id"]
            .as_i64()
            .unwrap();
        for (body, says) in [
            (
                json!({"devices": [bench]}),
                "Bench is offline: try again once it is online.",
            ),
            (
                json!({"devices": [other]}),
                &*format!("Device {other} is not one of the organisation's devices."),
            ),
            (json!({"devices": []}), "Choose at least one device."),
        ] {
            let (s, v) = app.post(&deploy, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            assert_eq!(v["devices"][0], says, "{body}");
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
            .post(&deploy, json!({"devices": [bench]}), Some(&w.analyst))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Nothing was sent.
        let (s, d) = app.get("organization/deployments/", &w.eng).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(d, json!([]));
        let (_, details) = app
            .get(&format!("device/{bench}/device_details/"), &w.boss)
            .await;
        assert_eq!(details["commands"], json!([]), "{details}");
    }
);

/// An unlabelled `seconds`-long clip of the world's task.
async fn unlabelled_video(app: &TestApp, w: &World, seconds: u32) -> i64 {
    let tmp = tempfile::tempdir().unwrap();
    let (s, v) = upload(
        app,
        &w.eng,
        w.task,
        "new.mp4",
        &clip(tmp.path(), seconds),
        1 << 20,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v["id"].as_i64().unwrap()
}

/// Where the labels of `video` stand, as the video list shows it.
async fn label_state(app: &TestApp, w: &World, video: i64) -> Value {
    let (s, v) = app
        .get(&format!("organization/task_record/{video}/"), &w.eng)
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v["labels"].clone()
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
        let (s, v) = app
            .patch(
                &format!("organization/task_record/{trace}/"),
                json!({"isUploadedVideo": false}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(label_state(&app, &w, first).await, "none");
        assert_eq!(label_state(&app, &w, labelled).await, "labelled");

        let t = trained(&app, &w, 3).await;
        let version = t["model_version"]["version"].as_str().unwrap().to_string();
        let labels = |id: i64| format!("organization/task_record/{id}/labels/");
        for id in [first, second] {
            let (s, l) = app.get(&labels(id), &w.eng).await;
            assert_eq!(s, StatusCode::OK, "{l}");
            assert_eq!(l["propagated_from"], version, "{l}");
            assert_eq!(l["reviewed"], false);
            assert_eq!(l["updated_by"], Value::Null);
            // What the model guessed holds as labels: in order, inside the 3 s video.
            let mut end = 0;
            for g in l["segments"].as_array().unwrap() {
                let (a, b) = (
                    g["start_ms"].as_i64().unwrap(),
                    g["end_ms"].as_i64().unwrap(),
                );
                assert!(end <= a && a < b && b <= 3000, "{l}");
                assert!(g["step"].as_u64().unwrap() < 2, "{l}");
                end = b;
            }
            assert_eq!(label_state(&app, &w, id).await, "propagated");
        }
        let (_, l) = app.get(&labels(trace), &w.eng).await;
        assert_eq!(l["propagated_from"], Value::Null);
        assert_eq!(label_state(&app, &w, trace).await, "none");
        let (_, l) = app.get(&labels(labelled), &w.eng).await;
        assert_eq!(l["propagated_from"], Value::Null, "a person's labels stay");
        // Not trained on until reviewed.
        let (_, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(t["labelled_videos"], 1, "{t}");

        // Bad marks are refused and change nothing.
        let mark = "organization/task/mark_propagations_as_reviewed";
        let (eng_b, task_b) = b_task(&app, &w).await;
        for (body, field, says) in [
            (
                json!({"task": w.task, "videos": []}),
                "videos",
                "Choose at least one video.".to_string(),
            ),
            (
                json!({"task": w.task, "videos": [first, labelled]}),
                "videos",
                format!(
                    "Video {labelled} has no propagated labels of this task to review; nothing was marked."
                ),
            ),
            (
                json!({"task": w.task, "videos": [trace]}),
                "videos",
                format!(
                    "Video {trace} has no propagated labels of this task to review; nothing was marked."
                ),
            ),
            (
                json!({"task": w.task, "videos": [999_999]}),
                "videos",
                "Video 999999 has no propagated labels of this task to review; nothing was marked."
                    .to_string(),
            ),
            (
                json!({"task": task_b, "videos": [first]}),
                "task",
                "Choose one of this organisation's tasks.".to_string(),
            ),
            (
                json!({"task": w.task, "videos": vec![first; 1001]}),
                "videos",
                "Mark at most 1000 videos at once.".to_string(),
            ),
        ] {
            let (s, v) = app.patch(mark, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            assert_eq!(v[field][0], *says, "{body}: {v}");
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
            .patch(mark, json!({"task": w.task}), Some(&w.analyst))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app.patch(mark, json!({"task": w.task}), Some(&eng_b)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "another organisation's task");
        assert_eq!(label_state(&app, &w, first).await, "propagated");

        // Reviewed: trained on; the model that guessed them is still named.
        let (s, v) = app
            .patch(
                mark,
                json!({"task": w.task, "videos": [first, first]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["msg"], "Propagated labels of 1 video marked reviewed.");
        let (_, l) = app.get(&labels(first), &w.eng).await;
        assert_eq!(l["reviewed"], true);
        assert_eq!(l["propagated_from"], version);
        assert_eq!(label_state(&app, &w, first).await, "reviewed");
        let (_, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(t["labelled_videos"], 2, "{t}");

        // Saved by a person, propagated labels become that person's.
        let (s, l) = app
            .call(
                Method::PUT,
                &labels(second),
                Some(json!({"segments": [{"step": 1, "start_ms": 0, "end_ms": 1000}]})),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{l}");
        assert_eq!(l["propagated_from"], Value::Null);
        assert_eq!(label_state(&app, &w, second).await, "labelled");
        let (s, v) = app.patch(mark, json!({"task": w.task}), Some(&w.eng)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This task has no propagated labels to review."
        );

        // The next training trains on all three and replaces no one's labels; a new
        // video gets the new model's guesses.
        let third = unlabelled_video(&app, &w, 2).await;
        let t = start_training(&app, &w, 2).await;
        let mut ran: Vec<i64> = [&t["run"]["train_videos"], &t["run"]["holdout_videos"]]
            .iter()
            .flat_map(|v| v.as_array().unwrap())
            .map(|v| v.as_i64().unwrap())
            .collect();
        ran.sort_unstable();
        assert_eq!(ran, [labelled, first, second]);
        let t = wait_for(&app, &w.eng, w.task, |v| v["train_status"] != "training").await;
        assert_eq!(t["train_status"], "trained", "{t}");
        let newer = t["model_version"]["version"].as_str().unwrap();
        assert_ne!(newer, version);
        let (_, l) = app.get(&labels(first), &w.eng).await;
        assert_eq!(
            (l["propagated_from"].as_str(), l["reviewed"].as_bool()),
            (Some(&*version), Some(true))
        );
        let (_, l) = app.get(&labels(second), &w.eng).await;
        assert_eq!(
            l["segments"],
            json!([{"step": 1, "start_ms": 0, "end_ms": 1000}])
        );
        let (_, l) = app.get(&labels(third), &w.eng).await;
        assert_eq!(l["propagated_from"], newer, "{l}");
    }
);

both!(
    a_tasks_labels_are_checked_and_deleted,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let check_path = format!("organization/task/annotations_check/{}", w.task);
        let check = || async {
            let (s, c) = app.get(&check_path, &w.eng).await;
            assert_eq!(s, StatusCode::OK, "{c}");
            c
        };
        let c = check().await;
        assert_eq!(c["steps"], json!(["Fit", "Check"]));
        assert_eq!(c["labelled_videos"], 0);
        assert_eq!(c["step_ms"], json!([0, 0]));
        assert_eq!(c["can_train"], false);
        assert_eq!(
            c["problems"],
            json!(["No video is labelled yet: label one to train."])
        );

        // Both steps labelled in one video (1.6 s each), the first alone in a second; a
        // third with a model's guesses waiting for review.
        let both_steps = labelled_video(&app, &w, 4).await;
        let first_only = unlabelled_video(&app, &w, 2).await;
        let labels = |id: i64| format!("organization/task_record/{id}/labels/");
        let (s, v) = app
            .call(
                Method::PUT,
                &labels(first_only),
                Some(json!({"segments": [{"step": 0, "start_ms": 0, "end_ms": 1000}]})),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
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
        assert_eq!(c["ready_videos"], 4);
        assert_eq!(c["labelled_videos"], 2);
        assert_eq!(c["to_review"], 1);
        assert_eq!(c["step_ms"], json!([2600, 1600]), "{c}");
        assert_eq!(c["can_train"], true);
        assert_eq!(
            c["problems"],
            json!(["1 video has propagated labels to review: they are trained on once reviewed."])
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
                json!({"task": w.task, "videos": []}),
                "videos",
                "Choose at least one video.",
            ),
            (
                json!({"task": w.task, "videos": [both_steps, no_labels]}),
                "videos",
                &*nothing,
            ),
            (
                json!({"task": other, "videos": [both_steps]}),
                "task",
                "Choose one of this organisation's tasks.",
            ),
        ] {
            let (s, v) = app.patch(delete, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            assert_eq!(v[field][0], says, "{body}: {v}");
        }
        for body in [json!({}), json!({"task": w.task, "videos": [1], "x": 1})] {
            let (s, v) = app.patch(delete, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let (s, _) = app
            .patch(delete, json!({"task": w.task}), Some(&w.analyst))
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
        let (s, v) = app
            .patch(delete, json!({"task": w.task}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["non_field_errors"][0]
                .as_str()
                .unwrap()
                .contains("is being trained"),
            "{v}"
        );
        set_status("in_annotation").await;
        assert_eq!(check().await["labelled_videos"], 2);

        // One video's labels: the check follows.
        let (s, v) = app
            .patch(
                delete,
                json!({"task": w.task, "videos": [both_steps]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["msg"], "Labels of 1 video deleted.");
        let (_, l) = app.get(&labels(both_steps), &w.eng).await;
        assert_eq!(l["segments"], json!([]));
        assert_eq!(l["updated_at"], Value::Null);
        let c = check().await;
        assert_eq!(c["step_ms"], json!([1000, 0]));
        assert_eq!(
            c["problems"][0],
            "Step Check has no labelled segment: the model will not find it."
        );

        // All of them, propagated ones too: the task is new again.
        let (s, v) = app
            .patch(delete, json!({"task": w.task}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["msg"], "Labels of 2 videos deleted.");
        let c = check().await;
        assert_eq!(
            (c["labelled_videos"].as_i64(), c["to_review"].as_i64()),
            (Some(0), Some(0))
        );
        let (_, t) = app.get(&path(w.task), &w.eng).await;
        assert_eq!(t["train_status"], "new_task", "{t}");
        let (s, v) = app
            .patch(delete, json!({"task": w.task}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "This task has no labels to delete."
        );
    }
);
