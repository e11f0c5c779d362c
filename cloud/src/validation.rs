//! The validation runner: one validation run, a model version over a group's checked
//! videos through the agent's own pipeline (docs/decisions.md "Validation").
//!
//! The cloud does not run step models itself; it runs `gemba-agent eval` (GStreamer
//! capture, ONNX Runtime, the cycle engine: the code a station runs) on each video, with
//! the model version's bundle and the video's labels as the ground truth, and keeps its
//! report. The run's report pools them (`validation::aggregate`). Runs go one at a time
//! in this process (each `eval` decodes a video and runs the model on every frame); a
//! run a stopped cloud left unfinished is taken up again at the next start, from its
//! first video without a result.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::LazyLock;

use anyhow::{Context, bail};
use futures_util::StreamExt;
use gemba_shared::api::v1::validation::{VideoEval, aggregate};
use gemba_shared::footage::{Truth, TruthSegment};
use object_store::ObjectStoreExt;
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

use crate::db::validation as db;
use crate::db::{tasks, training};
use crate::state::AppState;

/// One run at a time in a process.
static SLOTS: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(1));

/// The `gemba-agent` binary: `agent_bin` when set, else beside this binary, else one
/// folder up (a test binary in `target/debug/deps` finds `target/debug/gemba-agent`).
pub fn agent_bin(configured: Option<&Path>) -> PathBuf {
    if let Some(p) = configured {
        return p.to_path_buf();
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let beside = exe.with_file_name("gemba-agent");
    if beside.is_file() {
        return beside;
    }
    exe.parent()
        .and_then(Path::parent)
        .map(|d| d.join("gemba-agent"))
        .filter(|p| p.is_file())
        .unwrap_or(beside)
}

/// Runs run `id` in the background (after the runs before it).
pub fn spawn(state: AppState, id: i64) {
    tokio::spawn(async move {
        let _slot = SLOTS.acquire().await.expect("never closed");
        if let Err(e) = run(&state, id).await {
            tracing::warn!(
                run = id,
                error = format!("{e:#}"),
                "validation run not recorded"
            );
        }
    });
}

/// Takes up the runs a stopped cloud left unfinished.
pub async fn resume(state: &AppState) -> anyhow::Result<()> {
    for id in db::unfinished(&state.db).await? {
        spawn(state.clone(), id);
    }
    Ok(())
}

/// Runs run `id` to its end; errors only when its end cannot be recorded.
pub async fn run(state: &AppState, id: i64) -> anyhow::Result<()> {
    let Some(r) = db::run(&state.db, None, id).await? else {
        return Ok(());
    };
    if !db::begin(&state.db, id).await? {
        return Ok(());
    }
    tracing::info!(
        run = id,
        group = r.group_id,
        model = r.model_version_id,
        "validating"
    );
    let work = state.settings.data.join("validation").join(id.to_string());
    let result = attempt(state, &r, &work).await;
    if let Err(e) = tokio::fs::remove_dir_all(&work).await
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(run = id, error = %e, "could not remove the validation folder");
    }
    match result {
        Ok(()) => {
            let evals: Vec<VideoEval> = db::run_videos(&state.db, id)
                .await?
                .iter()
                .filter_map(db::RunVideoRow::eval)
                .collect();
            match aggregate(&evals) {
                Some(report) => db::finish(&state.db, id, Ok(&report)).await?,
                None => {
                    let first = db::run_videos(&state.db, id)
                        .await?
                        .into_iter()
                        .find_map(|v| v.error)
                        .unwrap_or_else(|| "the run has no video".into());
                    let why = format!("No video could be evaluated: {first}");
                    db::finish(&state.db, id, Err(&why)).await?
                }
            }
        }
        Err(e) => {
            tracing::warn!(run = id, error = format!("{e:#}"), "validation failed");
            db::finish(&state.db, id, Err(&format!("{e:#}"))).await?;
        }
    }
    Ok(())
}

/// The model's bundle, then each video without a result: evaluated, or why not.
async fn attempt(state: &AppState, r: &db::RunRow, work: &Path) -> anyhow::Result<()> {
    let org = r.organization_id;
    tokio::fs::create_dir_all(work.join("model"))
        .await
        .with_context(|| format!("creating {}", work.display()))?;
    let model = training::model(&state.db, org, r.model_version_id)
        .await?
        .context("the model version was deleted")?;
    fetch(
        state,
        &crate::objects::key(org, &model.object_key),
        &work.join("model").join("model.onnx"),
    )
    .await
    .context("reading the model version from storage")?;
    let task = tasks::get(&state.db, 0, Some(org), r.task_id)
        .await?
        .context("the task was deleted")?;
    let settings = task.settings();
    let agent = agent_bin(state.settings.agent_bin.as_deref());
    for rv in db::run_videos(&state.db, r.id).await? {
        if rv.report.is_some() || rv.error.is_some() {
            continue;
        }
        let result = match rv.validation_video_id {
            None => Err("the video was deleted before the run reached it".to_string()),
            Some(v) => match db::video(&state.db, org, v).await? {
                None => Err("the video was deleted before the run reached it".to_string()),
                Some(v) => {
                    let truth = Truth {
                        operation: settings.task_detail.clone(),
                        strict_step_order: settings
                            .task_parameters
                            .telemetry_params
                            .strict_step_order,
                        steps: settings.operation().step_names(),
                        segments: v
                            .segments()
                            .iter()
                            .map(|s| TruthSegment {
                                step: s.step,
                                start_ms: s.start_ms,
                                end_ms: s.end_ms,
                            })
                            .collect(),
                        cycles: vec![],
                    };
                    evaluate(state, &agent, work, &v, &truth)
                        .await
                        .map_err(|e| format!("{e:#}"))
                }
            },
        };
        db::video_done(&state.db, rv.id, result.as_ref().map_err(String::as_str)).await?;
    }
    Ok(())
}

/// `gemba-agent eval` on video `v` against `truth`, with the bundle in `work/model`.
async fn evaluate(
    state: &AppState,
    agent: &Path,
    work: &Path,
    v: &db::VideoRow,
    truth: &Truth,
) -> anyhow::Result<VideoEval> {
    let ext = v.object_key.rsplit('.').next().unwrap_or("mp4");
    let video = work.join(format!("{}.{ext}", v.id));
    fetch(
        state,
        &crate::objects::key(v.organization_id, &v.object_key),
        &video,
    )
    .await
    .context("reading the video from storage")?;
    let truth_file = work.join(format!("{}.truth.json", v.id));
    tokio::fs::write(&truth_file, serde_json::to_vec(truth)?).await?;
    let out = tokio::process::Command::new(agent)
        .arg("eval")
        .arg("--model")
        .arg(work.join("model"))
        .arg("--video")
        .arg(&video)
        .arg("--truth")
        .arg(&truth_file)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .with_context(|| format!("the agent could not start ({})", agent.display()))?;
    tokio::fs::remove_file(&video).await.ok();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output");
        bail!("the agent's evaluation failed ({}): {last}", out.status);
    }
    serde_json::from_slice(&out.stdout).context("the agent's evaluation is unreadable")
}

async fn fetch(
    state: &AppState,
    key: &object_store::path::Path,
    path: &Path,
) -> anyhow::Result<()> {
    let mut stream = state.objects.get(key).await?.into_stream();
    let mut file = tokio::fs::File::create(path).await?;
    while let Some(chunk) = stream.next().await {
        file.write_all(&chunk?).await?;
    }
    file.flush().await?;
    Ok(())
}
