//! Deploying a model: a version downloaded for a task into `{data}/models/{version}/`
//! (its size and SHA-256 checked before it is kept), loaded and checked against the
//! cameras running the task, then swapped into them; `deployed.json` says which model
//! each task runs with from then on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::{Agent, save_json};
use crate::infer::Model;

impl Agent {
    /// The model bundle `task` runs with: the one deployed for it, else the default.
    pub(super) fn model_for(&self, task: i64) -> PathBuf {
        match load_deployed(&self.cfg.data).tasks.get(&task) {
            Some(v) => models_dir(&self.cfg.data).join(v),
            None => self.cfg.model.clone(),
        }
    }

    /// Installs model `version` for `task` (downloaded, checked, loaded) and swaps it
    /// into the cameras running `task`; a model that does not fit a camera's task, or
    /// a download that fails its checks, changes nothing.
    pub(super) async fn deploy(
        &mut self,
        task: i64,
        version: &str,
        url: &str,
        sha256: &str,
        size_bytes: i64,
    ) -> anyhow::Result<String> {
        if version.is_empty()
            || !version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            || version.starts_with('.')
        {
            bail!("{version:?} is not a model version name");
        }
        let dir = models_dir(&self.cfg.data).join(version);
        if !dir.join("model.onnx").exists() {
            download(&self.http, url, &dir, sha256, size_bytes)
                .await
                .with_context(|| format!("downloading model {version}"))?;
        }
        let cameras: Vec<String> = self
            .workers
            .iter()
            .filter(|(_, w)| w.task == task && !w.ended())
            .map(|(c, _)| c.clone())
            .collect();
        // Every camera's model first, so that a model that fits none is refused whole.
        let mut models = vec![];
        for c in &cameras {
            let m = Model::load(&dir)?;
            let (_, engine) = &self.running.cameras[c];
            crate::cameras::fits(&m, engine)?;
            models.push(m);
        }
        if cameras.is_empty() {
            Model::load(&dir)?;
        }
        let mut deployed = load_deployed(&self.cfg.data);
        deployed.tasks.insert(task, version.to_string());
        save_json(&models_dir(&self.cfg.data).join("deployed.json"), &deployed)?;
        for (c, m) in cameras.iter().zip(models) {
            let w = &self.workers[c];
            if w.input_size() == (m.width, m.height) {
                w.swap_model(m);
            } else {
                // Another input size needs the capture made anew: the camera restarts.
                let (_, engine) = self.running.cameras[c].clone();
                let generation = self.running.generations.get(c).copied().unwrap_or(0);
                if let Some(w) = self.workers.remove(c) {
                    let _ = tokio::task::spawn_blocking(move || w.stop()).await;
                }
                self.start(c, task, engine, generation)?;
            }
        }
        tracing::info!(task, version, ?cameras, "model deployed");
        Ok(if cameras.is_empty() {
            format!("model {version} installed for task {task}")
        } else {
            format!(
                "model {version} installed for task {task}, running on {}",
                cameras.join(", ")
            )
        })
    }
}

/// Which model each task runs with (`{data}/models/deployed.json`).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Deployed {
    tasks: BTreeMap<i64, String>,
}

fn models_dir(data: &Path) -> PathBuf {
    data.join("models")
}

fn load_deployed(data: &Path) -> Deployed {
    std::fs::read(models_dir(data).join("deployed.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Downloads a model bundle into `dir` (`model.onnx`), checking its size and SHA-256
/// before it is put in place: a failed check leaves nothing.
async fn download(
    http: &reqwest::Client,
    url: &str,
    dir: &Path,
    sha256: &str,
    size: i64,
) -> anyhow::Result<()> {
    let parent = dir.parent().context("no models folder")?;
    let part = parent.join(format!(
        ".{}.part",
        dir.file_name().and_then(|n| n.to_str()).unwrap_or("model")
    ));
    tokio::fs::create_dir_all(dir).await?;
    let r = crate::http::download_checked(
        http,
        url,
        &part,
        &dir.join("model.onnx"),
        sha256,
        size,
        "the model",
    )
    .await;
    if r.is_err() {
        let _ = tokio::fs::remove_dir(dir).await;
    }
    r
}
