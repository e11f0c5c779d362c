//! `gemba-agent run`, the real binary, against the real cloud: the demo footage through
//! GStreamer and the default model (models/build.sh, found at `GEMBA_MODELS`, default
//! target/models; ONNX Runtime at `ORT_DYLIB_PATH`), cycles over MQTT into the
//! database. The portal's setting (a task running on a camera) reaches the agent as a
//! command when it comes online, which it acknowledges.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod common;
use common::{Cloud, cloud};

struct Demo {
    footage: PathBuf,
    model: PathBuf,
    operation: String,
    /// Cycles the model finds in the footage (its evaluation, `eval.json`).
    cycles: u64,
}

fn demo() -> Demo {
    let dir = std::env::var_os("GEMBA_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/models"));
    let footage = dir.join("demo.mp4");
    let model = dir.join("default");
    assert!(
        footage.is_file() && model.join("eval.json").is_file(),
        "the demo footage and model are missing in {}: run models/build.sh (scripts/test does)",
        dir.display()
    );
    assert!(
        std::env::var_os("ORT_DYLIB_PATH").is_some(),
        "ORT_DYLIB_PATH is not set (scripts/lib.sh ensure_models_tools sets it)"
    );
    let truth: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("demo.truth.json")).unwrap()).unwrap();
    let eval: serde_json::Value =
        serde_json::from_slice(&std::fs::read(model.join("eval.json")).unwrap()).unwrap();
    Demo {
        footage,
        model,
        operation: truth["operation"].as_str().unwrap().into(),
        cycles: eval["found_cycles"].as_u64().unwrap(),
    }
}

fn agent(data: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gemba-agent"));
    c.arg("--data").arg(data).env("RUST_LOG", "warn");
    c
}

/// Enrols an agent in `data` as the cloud's device and sets the cloud's task to run on
/// its camera `cam0`, as the portal does. Answers the device id.
async fn enrolled(c: &Cloud, data: &std::path::Path) -> i64 {
    let out = agent(data)
        .args(["enroll", "--cloud", &c.url, "--code", "ABCD-EFGH-JKMN"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let device: i64 = sqlx::query_scalar("SELECT id FROM devices")
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    gemba_cloud::db::devices::set_camera_task(&c.state.db, device, "cam0", Some(c.task))
        .await
        .unwrap();
    device
}

/// An agent process, killed if the test ends without stopping it.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run(data: &std::path::Path, d: &Demo, extra: &[&str]) -> Running {
    Running(
        agent(data)
            .arg("run")
            .arg("--camera")
            .arg(format!("cam0={}", d.footage.display()))
            .arg("--model")
            .arg(&d.model)
            .args(["--fast", "--heartbeat", "3600"])
            .args(extra)
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

async fn ids(c: &Cloud) -> BTreeSet<String> {
    sqlx::query_scalar::<_, String>("SELECT id FROM cycles")
        .fetch_all(&c.state.db.pool)
        .await
        .unwrap()
        .into_iter()
        .collect()
}

async fn wait_for(what: &str, secs: u64, mut ok: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while !ok().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {secs} s for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Ctrl-C: the agent stops its cameras and link, and exits on its own.
fn interrupt(mut r: Running) {
    Command::new("kill")
        .args(["-INT", &r.0.id().to_string()])
        .status()
        .unwrap();
    let status = r.0.wait().unwrap();
    assert!(status.success(), "the agent exited with {status}");
}

async fn runs_the_demo(mqtt: Option<String>) {
    let d = demo();
    let c = cloud(mqtt, &d.operation).await;
    let data = tempfile::tempdir().unwrap();
    let device = enrolled(&c, data.path()).await;
    let child = run(data.path(), &d, &[]);
    // The footage once, as fast as it decodes: exactly the cycles the evaluation found.
    wait_for("the footage's cycles", 120, async || {
        ids(&c).await.len() as u64 >= d.cycles
    })
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(ids(&c).await.len() as u64, d.cycles, "each cycle once");
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
    interrupt(child);
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
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_killed_mid_work_loses_nothing_it_recorded() {
    let d = demo();
    let c = cloud(None, &d.operation).await;
    let data = tempfile::tempdir().unwrap();
    enrolled(&c, data.path()).await;
    let mut child = run(data.path(), &d, &["--loop"]);
    wait_for("some cycles", 120, async || ids(&c).await.len() >= 5).await;
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let stored = ids(&c).await;
    let outbox = rusqlite::Connection::open(data.path().join("outbox.db")).unwrap();
    let waiting: BTreeSet<String> = outbox
        .prepare("SELECT key FROM outbox WHERE key IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    drop(outbox);
    eprintln!(
        "killed with {} stored and {} in the outbox",
        stored.len(),
        waiting.len()
    );
    // Started again with the same data folder; it resumes before it hears the cloud.
    let child = run(data.path(), &d, &["--loop"]);
    let recorded: BTreeSet<String> = stored.union(&waiting).cloned().collect();
    wait_for("every recorded cycle", 60, async || {
        ids(&c).await.is_superset(&recorded)
    })
    .await;
    let before = ids(&c).await.len();
    wait_for("new cycles after the restart", 60, async || {
        ids(&c).await.len() > before
    })
    .await;
    interrupt(child);
}
