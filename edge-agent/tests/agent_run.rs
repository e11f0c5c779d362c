//! `gemba-agent run`, the real binary, against the real cloud: the demo footage through
//! GStreamer and the default model (models/build.sh, found at `GEMBA_MODELS`, default
//! target/models; ONNX Runtime at `ORT_DYLIB_PATH`), cycles over MQTT into the
//! database. The portal's setting (a task running on a camera) reaches the agent as a
//! command when it comes online, which it acknowledges.

use std::collections::BTreeSet;
use std::time::Duration;

mod common;
use common::{
    Broker, Cloud, Demo, agent, cloud, command, demo, enroll, interrupt, outbox_cycles, run,
    stored, wait_for,
};

/// The clips stored: cycle, clip start and length, cycle start and end, object key.
async fn clips(db: &gemba_cloud::db::Db) -> Vec<(String, i64, i64, i64, i64, String)> {
    sqlx::query_as(
        "SELECT k.cycle_id, k.start_ms, k.duration_ms, c.start_ms, c.end_ms, k.object_key \
         FROM cycle_clips k JOIN cycles c ON c.id = k.cycle_id ORDER BY c.start_ms",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap()
}

/// `gemba-agent eval` of `model` on `video` against the demo's ground truth.
fn eval(
    d: &Demo,
    data: &std::path::Path,
    model: &std::path::Path,
    video: &std::path::Path,
) -> std::process::Output {
    agent(data)
        .arg("eval")
        .arg("--model")
        .arg(model)
        .arg("--video")
        .arg(video)
        .arg("--truth")
        .arg(&d.truth_file)
        .output()
        .unwrap()
}

/// Enrols an agent in `data` as the cloud's device (set to run the cloud's task on its
/// camera `cam0`, as the portal does). Answers the device id.
fn enrolled(c: &Cloud, data: &std::path::Path) -> i64 {
    enroll(data, &c.url);
    c.device
}

async fn runs_the_demo(mqtt: Option<String>) {
    let d = demo();
    let c = cloud(mqtt, &d.truth.operation).await;
    let data = tempfile::tempdir().unwrap();
    let device = enrolled(&c, data.path());
    let child = run(data.path(), &d, &[]);
    // The footage once, as fast as it decodes: exactly the cycles the evaluation found.
    wait_for("the footage's cycles", 120, async || {
        stored(&c.state.db).await.len() as u64 >= d.cycles
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        stored(&c.state.db).await.len() as u64,
        d.cycles,
        "each cycle once"
    );
    // Each cycle's clip followed it (uploaded once the cloud stored the cycle), cut from
    // the video the camera kept: from before the cycle's start to after its end, a video
    // the cloud read the length of, playable through the cycle's details.
    wait_for("every cycle's clip", 120, async || {
        clips(&c.state.db).await.len() as u64 >= d.cycles
    })
    .await;
    let clips = clips(&c.state.db).await;
    assert_eq!(clips.len() as u64, d.cycles, "one clip a cycle");
    for (id, clip_start, clip_ms, start, end, key) in &clips {
        assert!(key.ends_with(".mp4") || key.ends_with(".webm"), "{key}");
        // The footage's first key frame may come before the first frame is timed.
        if *start >= 3_000 {
            assert!(
                clip_start <= start,
                "{id}: the clip starts at {clip_start}, the cycle at {start}"
            );
            assert!(
                start - clip_start <= 3_200,
                "{id}: at most a second and a key interval before"
            );
        }
        assert!(
            clip_start + clip_ms >= *end,
            "{id}: the clip ends at {}, the cycle at {end}",
            clip_start + clip_ms
        );
    }
    let (id, ..) = &clips[clips.len() / 2];
    let org: i64 = sqlx::query_scalar("SELECT organization_id FROM cycles WHERE id = $1")
        .bind(id)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    // Played as the portal would, with no sign-in (a URL of no session).
    let viewer = gemba_cloud::media::urls::Viewer::Device;
    let clip = gemba_cloud::http::clips::of_cycle(&c.state, viewer, Some(org), id)
        .await
        .unwrap()
        .unwrap();
    let bytes = reqwest::get(format!("{}{}", c.url, clip.url))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let file = data.path().join("played.mp4");
    std::fs::write(&file, &bytes).unwrap();
    let info = gemba_cloud::media::probe(&file).unwrap();
    assert!(
        (info.duration_ms - clip.duration_ms).abs() <= 200,
        "{info:?} {clip:?}"
    );
    // Nothing is left waiting in the agent's clip folder.
    wait_for("the agent's clip folder emptied", 30, async || {
        std::fs::read_dir(data.path().join("clips"))
            .unwrap()
            .count()
            == 0
    })
    .await;
    let (task, camera, good): (i64, String, i64) =
        sqlx::query_as("SELECT MIN(task_id), MIN(camera), SUM(good) FROM cycles")
            .fetch_one(&c.state.db.pool)
            .await
            .unwrap();
    assert_eq!((task, camera.as_str()), (c.task, "cam0"));
    assert!(
        good > 0 && (good as u64) < d.cycles,
        "good and bad cycles: {good}"
    );
    // The start command was acknowledged, and the status names the camera's task.
    let acked: Vec<(i64, String)> =
        sqlx::query_as("SELECT ok, message FROM device_commands WHERE device_id = $1")
            .bind(device)
            .fetch_all(&c.state.db.pool)
            .await
            .unwrap();
    assert!(
        acked
            .iter()
            .any(|(ok, m)| *ok == 1 && m.contains("runs on camera cam0")),
        "{acked:?}"
    );
    let status: String = sqlx::query_scalar("SELECT status FROM devices WHERE id = $1")
        .bind(device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    assert!(status.contains("\"model_version\":\"demo-1\""), "{status}");
    // Commands it cannot carry out are answered with why, and change nothing.
    let engine = |steps| gemba_shared::cycle::EngineConfig {
        steps,
        ..gemba_shared::cycle::EngineConfig::from_task(&d.truth.task_settings())
    };
    for (camera, steps, why) in [
        ("cam9", 4, "this device has no camera cam9"),
        ("cam0", 2, "the model knows 4 steps and the task has 2"),
    ] {
        let cmd = gemba_shared::mqtt::v1::Command::StartTask {
            camera: camera.into(),
            task: c.task,
            engine: engine(steps),
            generation: 0,
        };
        let (ok, message) = command(&c, cmd).await;
        assert!(!ok);
        assert!(message.contains(why), "{message:?}");
    }
    // The camera kept its task through the refusals: the cloud had no reason to start
    // it again (the start, then the two refused), and no pass of the footage began anew.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM device_commands WHERE device_id = $1 AND created_at > \
         (SELECT MIN(created_at) FROM device_commands WHERE device_id = $1 AND ok = 0)",
    )
    .bind(device)
    .fetch_one(&c.state.db.pool)
    .await
    .unwrap();
    assert_eq!(
        after, 1,
        "after the first refusal only the second, no start again"
    );
    assert_eq!(
        stored(&c.state.db).await.len() as u64,
        d.cycles,
        "nothing more was recorded"
    );
    interrupt(child);
}

/// The start the cloud sends for its task on `cam0` (what reconciling sends).
async fn start_cam0(c: &Cloud) -> gemba_shared::mqtt::v1::Command {
    let row = gemba_cloud::db::tasks::get(&c.state.db, 0, None, c.task)
        .await
        .unwrap()
        .unwrap();
    gemba_shared::mqtt::v1::Command::StartTask {
        camera: "cam0".into(),
        task: c.task,
        engine: gemba_shared::cycle::EngineConfig::from_task(&row.settings()),
        generation: 0,
    }
}

/// What a person types wrong gets one line saying what, and exit status 1.
#[test]
fn bad_arguments_get_one_clear_line() {
    let d = demo();
    let data = tempfile::tempdir().unwrap();
    let footage = format!("cam0={}", d.footage.display());
    let model = d.model.display().to_string();
    for (args, why) in [
        (
            vec!["run", "--camera", "cam0", "--model", &model],
            "a camera is NAME=SOURCE",
        ),
        (
            vec!["run", "--camera", "bad name=x.mp4", "--model", &model],
            "camera name",
        ),
        (
            vec!["run", "--camera", "cam0=", "--model", &model],
            "a camera source is empty",
        ),
        (
            vec!["run", "--camera", &footage, "--model", "/no/such/model"],
            "no model at /no/such/model",
        ),
        (
            vec!["run", "--camera", &footage, "--model", &model],
            "enrol the device first",
        ),
        (
            vec![
                "run",
                "--camera",
                &footage,
                "--model",
                &model,
                "--clip-format",
                "avi",
            ],
            "invalid value 'avi' for '--clip-format",
        ),
        (
            vec![
                "run",
                "--camera",
                &footage,
                "--model",
                &model,
                "--clip-seconds",
                "3600",
            ],
            "invalid value '3600' for '--clip-seconds",
        ),
        (
            vec![
                "eval",
                "--model",
                &model,
                "--video",
                "/no/such.mp4",
                "--truth",
                "/no/such.json",
            ],
            "reading /no/such.json",
        ),
    ] {
        let out = agent(data.path()).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    // A model file that is not a model.
    let junk = data.path().join("junk");
    std::fs::create_dir_all(&junk).unwrap();
    std::fs::write(junk.join("model.onnx"), b"not a model").unwrap();
    let out = eval(&d, data.path(), &junk, &d.footage);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("loading the model"),
        "{err}"
    );
    // A video file that is not a video.
    let out = eval(&d, data.path(), &d.model, &junk.join("model.onnx"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.lines().count() == 1, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_runs_the_task_the_cloud_set_and_every_cycle_arrives_once_embedded_broker() {
    runs_the_demo(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_runs_the_task_the_cloud_set_and_every_cycle_arrives_once_through_mosquitto() {
    let url = std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or("mqtt://127.0.0.1:1883".into());
    runs_the_demo(Some(url)).await;
}

/// Killed (SIGKILL) in the middle of work and started again: every cycle that was
/// recorded (in the outbox at the kill, or already stored) is stored once, and the
/// agent resumes its task by itself.
async fn killed_mid_work(mqtt: Option<String>) {
    let d = demo();
    let c = cloud(mqtt, &d.truth.operation).await;
    let data = tempfile::tempdir().unwrap();
    enrolled(&c, data.path());
    let mut child = run(data.path(), &d, &["--loop"]);
    wait_for("some cycles", 120, async || {
        stored(&c.state.db).await.len() >= 5
    })
    .await;
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let kept = stored(&c.state.db).await;
    let waiting = outbox_cycles(data.path());
    eprintln!(
        "killed with {} stored and {} in the outbox",
        kept.len(),
        waiting.len()
    );
    // Started again with the same data folder; it resumes before it hears the cloud.
    let child = run(data.path(), &d, &["--loop"]);
    let recorded: BTreeSet<String> = kept.union(&waiting).cloned().collect();
    wait_for("every recorded cycle", 60, async || {
        stored(&c.state.db).await.is_superset(&recorded)
    })
    .await;
    let before = stored(&c.state.db).await.len();
    wait_for("new cycles after the restart", 60, async || {
        stored(&c.state.db).await.len() > before
    })
    .await;
    // The same start again (the cloud repeats what it is not sure of) changes nothing.
    let (ok, message) = command(&c, start_cam0(&c).await).await;
    assert!(ok, "{message}");
    assert!(message.contains("already runs on camera cam0"), "{message}");
    interrupt(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_killed_mid_work_loses_nothing_it_recorded_embedded_broker() {
    killed_mid_work(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_killed_mid_work_loses_nothing_it_recorded_through_mosquitto() {
    let url = std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or("mqtt://127.0.0.1:1883".into());
    killed_mid_work(Some(url)).await;
}

/// The broker goes away while the agent works and the cloud stays up, then comes back
/// on the same address: every cycle recorded meanwhile arrives, once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cycles_recorded_while_the_broker_is_down_arrive_once_it_is_back() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let port = gemba_cloud::seed::free_port_pair();
    let broker = Broker::start(dir.path(), port);
    let c = cloud(Some(format!("mqtt://127.0.0.1:{port}")), &d.truth.operation).await;
    let data = tempfile::tempdir().unwrap();
    enrolled(&c, data.path());
    let child = run(data.path(), &d, &["--loop"]);
    wait_for("some cycles", 120, async || {
        stored(&c.state.db).await.len() >= 3
    })
    .await;
    drop(broker);
    let before = stored(&c.state.db).await;
    // The agent goes on recording into its outbox.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while outbox_cycles(data.path()).difference(&before).count() < 5 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no cycles recorded while the broker was down"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let during: BTreeSet<String> = outbox_cycles(data.path())
        .difference(&before)
        .cloned()
        .collect();
    assert_eq!(
        stored(&c.state.db).await,
        before,
        "nothing reached the cloud without a broker"
    );
    let _broker = Broker::start(dir.path(), port);
    wait_for("the cycles recorded during the outage", 90, async || {
        stored(&c.state.db).await.is_superset(&during)
    })
    .await;
    interrupt(child);
}

/// The default model through the agent's own pipeline on held-out footage: the frame
/// accuracy and cycle-time error its card promises, every cycle found, and the cycle
/// engine judging each cycle as it was performed (good, or bad with a missed step or
/// swapped picks).
#[test]
fn the_default_model_and_the_engine_meet_the_ground_truth_on_held_out_footage() {
    let d = demo();
    let out = eval(
        &d,
        tempfile::tempdir().unwrap().path(),
        &d.model,
        &d.footage,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let performed = &d.truth.cycles;
    assert!(
        performed.iter().any(|c| !c.good),
        "the footage has bad cycles"
    );
    // The robust recipe gives up step-boundary frames for robustness (93% here; issue
    // 26's 95% as recorded is not met yet: docs/benchmarks.md "Step-model recipes").
    assert!(r["frame_accuracy"].as_f64().unwrap() >= 0.92, "{r}");
    assert!(r["cycle_time_error_share"].as_f64().unwrap() <= 0.02, "{r}");
    assert_eq!(r["found_cycles"], r["true_cycles"], "{r}");
    assert_eq!(r["matched"], r["true_cycles"], "{r}");
    assert_eq!(
        r["performed_cycles_found"].as_u64().unwrap() as usize,
        performed.len(),
        "{r}"
    );
    assert_eq!(r["performed_verdict_agreement"], 1.0, "{r}");
    assert_eq!(r["verdict_agreement"], 1.0, "{r}");
}
