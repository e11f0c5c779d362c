//! The trainer: one training run, from a task's labelled videos to a model version.
//!
//! 1. The run's videos come out of the object store into a work folder
//!    (`{data}/training/{run}`), each with its labels as the training code reads them
//!    (`{steps, segments}`).
//! 2. The training code (`models/train.py`, run by `models_python`) decodes and scales
//!    the frames as the agent does, trains, writes `model.onnx`, and writes its output
//!    on the held-out frames; it reports each stage on stdout, which becomes the run's
//!    progress. The run is checked every second: a stop kills the training.
//! 3. The held-out output is scored here with the cycle engine against the labels
//!    (`gemba_shared::eval`): frame accuracy, per-step F1, confusion matrix, cycle-time
//!    error.
//! 4. The bundle goes into the object store and the model version is registered with
//!    its metrics, in one transaction with the run's end and the task's `trained`.
//! 5. Propagated labels: the new model also labels the task's training videos nobody
//!    has labelled (up to [`PROPAGATE_MAX`], newest first); its output there, smoothed
//!    and verified as the cycle engine does, becomes their labels, marked as the
//!    model's for a person to review. Reviewed, they are trained on next time; a
//!    person's labels are never replaced.
//!
//! Held out: with two or more labelled videos, every fifth (at least one, the newest);
//! with one, its last fifth.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::StreamExt;
use gemba_shared::api::v1::training::Metrics;
use gemba_shared::cycle::{EngineConfig, Segment};
use gemba_shared::eval::Scorer;
use object_store::ObjectStoreExt;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::db::training::{self, NewModel, RunRow};
use crate::db::{model_types, tasks, videos};
use crate::state::AppState;

/// The share of a single labelled video held out (its end).
pub const HOLDOUT_TAIL: f64 = 0.2;

/// Most unlabelled videos one training run labels (propagated labels).
pub const PROPAGATE_MAX: i64 = 20;

/// Which labelled videos (oldest first) are held out: every fifth, at least one, the
/// newest among them, when there are two or more; none otherwise (the single video's
/// last fifth is held out).
pub fn split(videos: &[i64]) -> (Vec<i64>, Vec<i64>) {
    if videos.len() < 2 {
        return (videos.to_vec(), vec![]);
    }
    let holdout = (videos.len() / 5).max(1);
    let cut = videos.len() - holdout;
    (videos[..cut].to_vec(), videos[cut..].to_vec())
}

/// Runs training run `id` to its end. Errors only when its end cannot be recorded.
pub async fn run(state: &AppState, id: i64) -> anyhow::Result<()> {
    let Some(r) = training::run(&state.db, id).await? else {
        return Ok(());
    };
    if !training::begin(&state.db, id).await? {
        return Ok(()); // stopped while queued
    }
    tracing::info!(run = id, task = r.task_id, "training");
    let work = state.settings.data.join("training").join(id.to_string());
    let result = attempt(state, &r, &work).await;
    if let Err(e) = tokio::fs::remove_dir_all(&work).await
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(run = id, error = %e, "could not remove the training folder");
    }
    match result {
        Ok(()) => Ok(()),
        Err(e) => {
            tracing::warn!(run = id, error = format!("{e:#}"), "training failed");
            training::fail(&state.db, &r, &format!("{e:#}")).await?;
            Ok(())
        }
    }
}

/// A frame-by-frame output of the training code on the held-out frames.
#[derive(Deserialize)]
struct Predictions {
    fps: f64,
    labels: Vec<String>,
    videos: Vec<PredictedVideo>,
    /// On each `--propagate` video, in order (none where it could not be decoded).
    #[serde(default)]
    propagated: Vec<Propagated>,
}

#[derive(Deserialize)]
struct Propagated {
    probs: Option<Vec<Vec<f32>>>,
}

#[derive(Deserialize)]
struct PredictedVideo {
    start_frame: i64,
    probs: Vec<Vec<f32>>,
}

/// One line of the training code's progress.
#[derive(Deserialize)]
struct Stage {
    stage: String,
    done: u32,
    of: u32,
    #[serde(default)]
    loss: Option<f64>,
}

async fn attempt(state: &AppState, r: &RunRow, work: &Path) -> anyhow::Result<()> {
    let db = &state.db;
    let task = tasks::get(db, 0, Some(r.organization_id), r.task_id)
        .await?
        .context("the task was deleted")?;
    let settings = task.settings();
    let steps: Vec<String> = settings.operation().step_names();
    tokio::fs::create_dir_all(work)
        .await
        .with_context(|| format!("creating {}", work.display()))?;

    // 1. The videos and their labels.
    let (train_ids, holdout_ids) = (r.train_videos(), r.holdout_videos());
    let all: Vec<i64> = train_ids.iter().chain(&holdout_ids).copied().collect();
    let mut files = std::collections::HashMap::new();
    for (i, vid) in all.iter().enumerate() {
        if !training::progress(
            db,
            r.id,
            0.1 * i as f64 / all.len() as f64,
            &format!("Fetching video {} of {}", i + 1, all.len()),
        )
        .await?
        {
            return Ok(());
        }
        let v = videos::get(db, r.organization_id, *vid)
            .await?
            .with_context(|| format!("video {vid} was deleted before training began"))?;
        let segments: Vec<Segment> = match videos::labels(db, v.id).await? {
            Some(l) => serde_json::from_str(&l.segments).unwrap_or_default(),
            None => vec![],
        };
        let ext = v.object_key.rsplit('.').next().unwrap_or("mp4");
        let path = work.join(format!("{vid}.{ext}"));
        fetch(
            state,
            &crate::objects::key(r.organization_id, &v.object_key),
            &path,
        )
        .await
        .with_context(|| format!("reading video {vid} from storage"))?;
        let labels = work.join(format!("{vid}.json"));
        let json = serde_json::json!({ "steps": steps, "segments": segments });
        tokio::fs::write(&labels, json.to_string()).await?;
        files.insert(*vid, (path, labels, segments));
    }

    // The videos the new model is to label, fetched too (one that cannot be is skipped).
    let unlabelled = videos::to_propagate(db, r.organization_id, r.task_id, PROPAGATE_MAX).await?;
    let (n, mut propagate) = (unlabelled.len(), vec![]);
    for (i, v) in unlabelled.into_iter().enumerate() {
        if !training::progress(
            db,
            r.id,
            0.1,
            &format!("Fetching unlabelled video {} of {n}", i + 1),
        )
        .await?
        {
            return Ok(());
        }
        let ext = v.object_key.rsplit('.').next().unwrap_or("mp4");
        let path = work.join(format!("unlabelled-{}.{ext}", v.id));
        let key = crate::objects::key(r.organization_id, &v.object_key);
        match fetch(state, &key, &path).await {
            Ok(()) => propagate.push((v, path)),
            Err(e) => tracing::warn!(run = r.id, video = v.id, error = %e, "not propagating to it"),
        }
    }

    // 2. Training.
    let version = format!("t{}-r{}", r.task_id, r.id);
    let out = work.join("model");
    let predictions = work.join("predictions.json");
    let pair = |id: &i64| {
        let (v, l, _) = &files[id];
        format!("{}:{}", v.display(), l.display())
    };
    let recipe = recipe_of(state, settings.model_choice.as_deref()).await?;
    let mut cmd = tokio::process::Command::new(&state.settings.models_python);
    cmd.arg(&state.settings.trainer_script)
        .args(["--version", &version, "--progress"])
        .args(["--epochs", &r.epochs.to_string()])
        .arg("--out")
        .arg(&out)
        .arg("--predictions")
        .arg(&predictions);
    for id in &train_ids {
        cmd.args(["--train", &pair(id)]);
    }
    for id in &holdout_ids {
        cmd.args(["--holdout", &pair(id)]);
    }
    if holdout_ids.is_empty() {
        cmd.args(["--holdout-tail", &HOLDOUT_TAIL.to_string()]);
    }
    for (_, path) in &propagate {
        cmd.arg("--propagate").arg(path);
    }
    if let Some(t) = &recipe {
        cmd.args(["--width", &t.input_width.to_string()])
            .args(["--height", &t.input_height.to_string()])
            .args(["--hidden", &t.hidden.to_string()]);
    }
    cmd.env("GST_PLUGIN_FEATURE_RANK", crate::media::FEATURE_RANKS)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().with_context(|| {
        format!(
            "the training code could not start ({} {})",
            state.settings.models_python,
            state.settings.trainer_script.display()
        )
    })?;
    let mut stdout = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut stderr = child.stderr.take().expect("piped");
    let err_text = tokio::spawn(async move {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s).await;
        s
    });
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            line = stdout.next_line() => match line? {
                Some(l) => {
                    if let Ok(s) = serde_json::from_str::<Stage>(&l) {
                        let (p, m) = stage_progress(&s);
                        if !training::progress(db, r.id, p, &m).await? {
                            child.kill().await.ok();
                            return Ok(());
                        }
                    }
                }
                None => break,
            },
            _ = tick.tick() => {
                if !training::is_active(db, r.id).await? {
                    child.kill().await.ok();
                    return Ok(());
                }
            }
        }
    }
    let status = child.wait().await?;
    let err_text = err_text.await.unwrap_or_default();
    if !status.success() {
        let last = err_text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output");
        bail!("the training code failed ({status}): {last}");
    }

    // 3. Scoring the held-out frames.
    training::progress(db, r.id, 0.95, "Evaluating on held-out video").await?;
    let pred: Predictions = serde_json::from_slice(
        &tokio::fs::read(&predictions)
            .await
            .context("the training code wrote no held-out output")?,
    )
    .context("the training code's held-out output is unreadable")?;
    let truth_of: Vec<&Vec<Segment>> = if holdout_ids.is_empty() {
        train_ids.iter().map(|id| &files[id].2).collect()
    } else {
        holdout_ids.iter().map(|id| &files[id].2).collect()
    };
    let engine = EngineConfig::from_task(&settings);
    let metrics = score(engine.clone(), &pred, &truth_of)?;
    if pred.propagated.len() != propagate.len() {
        bail!(
            "the training code labelled {} unlabelled videos, not {}",
            pred.propagated.len(),
            propagate.len()
        );
    }

    // 4. The bundle and the model version.
    let bytes = tokio::fs::read(out.join("model.onnx"))
        .await
        .context("the training code wrote no model")?;
    let sha256 = gemba_shared::hex(&Sha256::digest(&bytes));
    let size = bytes.len() as i64;
    let name = format!("models/{version}/model.onnx");
    let key = crate::objects::key(r.organization_id, &name);
    state
        .objects
        .put(&key, bytes.into())
        .await
        .context("storing the model")?;
    // 5. Propagated labels, saved before the run ends (so they are there once it has);
    //    taken back should the run turn out stopped.
    let mut labelled = 0;
    for ((v, _), out) in propagate.iter().zip(&pred.propagated) {
        let Some(probs) = &out.probs else { continue };
        let segments = propagated_segments(&engine, pred.fps, probs, v.duration_ms.unwrap_or(0));
        let json = serde_json::to_string(&segments).expect("segments serialise");
        if videos::propagate(db, v, &json, &version).await? {
            labelled += 1;
        }
    }
    let registered = training::succeed(
        db,
        r,
        NewModel {
            model_type_id: recipe.as_ref().map(|t| t.id),
            version: &version,
            object_key: &name,
            sha256: &sha256,
            size_bytes: size,
            metrics: Some(&metrics),
        },
    )
    .await?;
    if registered.is_none() {
        // Stopped at the last moment: nothing of it is kept.
        state.objects.delete(&key).await.ok();
        videos::unpropagate(db, r.task_id, &version).await?;
    } else {
        tracing::info!(
            run = r.id,
            version,
            frame_accuracy = metrics.frame_accuracy,
            propagated_to = labelled,
            "trained"
        );
    }
    Ok(())
}

/// The model type whose recipe training follows: the task's choice (a type's id), else
/// the default type (the oldest); `None` when there is no type at all (the training
/// code's own defaults).
async fn recipe_of(
    state: &AppState,
    choice: Option<&str>,
) -> anyhow::Result<Option<model_types::TypeRow>> {
    if let Some(id) = choice.and_then(|c| c.trim().parse::<i64>().ok())
        && let Some(t) = model_types::get_type(&state.db, id).await?
    {
        return Ok(Some(t));
    }
    Ok(model_types::default_type(&state.db).await?)
}

/// A stage line as the run's progress (0–1) and message: fetching is the first tenth,
/// decoding up to 0.3, the epochs up to 0.9, labelling unlabelled videos to 0.93,
/// export to 0.95.
fn stage_progress(s: &Stage) -> (f64, String) {
    let f = f64::from(s.done) / f64::from(s.of.max(1));
    match s.stage.as_str() {
        "decode" => (
            0.1 + 0.2 * f,
            format!("Decoding video {} of {}", s.done, s.of),
        ),
        "train" => (
            0.3 + 0.6 * f,
            match s.loss {
                Some(l) => format!("Epoch {} of {} (loss {l:.3})", s.done, s.of),
                None => format!("Epoch {} of {}", s.done, s.of),
            },
        ),
        "propagate" => (
            0.9 + 0.03 * f,
            format!("Labelling unlabelled video {} of {}", s.done, s.of),
        ),
        _ => (0.93 + 0.02 * f, "Exporting the model".into()),
    }
}

/// A model's output on a whole video (frames at `fps` from its start) as step
/// segments, cut at the video's end.
fn propagated_segments(
    engine: &EngineConfig,
    fps: f64,
    probs: &[Vec<f32>],
    duration_ms: i64,
) -> Vec<Segment> {
    let frames = probs
        .iter()
        .enumerate()
        .map(|(i, p)| ((i as f64 * 1000.0 / fps).round() as i64, p.as_slice()));
    let end = duration_ms.max(((probs.len() as f64) * 1000.0 / fps).round() as i64);
    gemba_shared::cycle::step_segments(engine, frames, end)
        .into_iter()
        .filter_map(|mut s| {
            s.end_ms = s.end_ms.min(duration_ms);
            (s.start_ms < s.end_ms).then_some(s)
        })
        .collect()
}

/// The metrics of the held-out output against the labels (`truth[i]`: the segments of
/// the i-th held-out video).
fn score(
    engine: EngineConfig,
    pred: &Predictions,
    truth: &[&Vec<Segment>],
) -> anyhow::Result<Metrics> {
    if pred.videos.len() != truth.len() {
        bail!(
            "the training code's held-out output has {} videos, not {}",
            pred.videos.len(),
            truth.len()
        );
    }
    if engine.steps + 1 != pred.labels.len() {
        bail!("the model's labels do not match the task's steps");
    }
    let mut scorer = Scorer::new(engine, pred.labels.clone());
    for (v, segments) in pred.videos.iter().zip(truth) {
        for (i, probs) in v.probs.iter().enumerate() {
            let t_ms = ((v.start_frame + i as i64) as f64 * 1000.0 / pred.fps).round() as i64;
            let label = segments
                .iter()
                .find(|s| s.start_ms <= t_ms && t_ms < s.end_ms)
                .map(|s| s.step);
            scorer.push(t_ms, probs, label);
        }
        scorer.end_video();
    }
    Ok(scorer.finish().metrics)
}

/// Copies object `key` into `path`, streaming.
async fn fetch(
    state: &AppState,
    key: &object_store::path::Path,
    path: &PathBuf,
) -> anyhow::Result<()> {
    let mut stream = state.objects.get(key).await?.into_stream();
    let mut file = tokio::fs::File::create(path).await?;
    while let Some(chunk) = stream.next().await {
        file.write_all(&chunk?).await?;
    }
    file.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifth_is_held_out_and_at_least_one_is_trained_on() {
        assert_eq!(split(&[]), (vec![], vec![]));
        assert_eq!(split(&[1]), (vec![1], vec![]));
        assert_eq!(split(&[1, 2]), (vec![1], vec![2]));
        assert_eq!(split(&[1, 2, 3, 4]), (vec![1, 2, 3], vec![4]));
        assert_eq!(
            split(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
            (vec![1, 2, 3, 4, 5, 6, 7, 8], vec![9, 10])
        );
    }

    #[test]
    fn stages_fill_the_bar_in_order() {
        let s = |stage: &str, done, of| Stage {
            stage: stage.into(),
            done,
            of,
            loss: Some(0.5),
        };
        let order = [
            s("decode", 1, 2),
            s("decode", 2, 2),
            s("train", 1, 10),
            s("train", 10, 10),
            s("propagate", 1, 2),
            s("propagate", 2, 2),
            s("export", 1, 1),
        ];
        let ps: Vec<f64> = order.iter().map(|x| stage_progress(x).0).collect();
        assert!(ps.windows(2).all(|w| w[0] < w[1]), "{ps:?}");
        assert_eq!(stage_progress(&order[2]).1, "Epoch 1 of 10 (loss 0.500)");
    }
}
