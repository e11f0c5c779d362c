//! `gemba-agent run`: the agent at work. It links to the cloud as its enrolled device,
//! runs on its cameras the tasks the cloud starts, answers every command on `cmd/ack`,
//! and sends a heartbeat (status: cameras, the task each runs, fps, model version,
//! outbox) every few seconds, and at once when a camera starts, runs or fails. What
//! runs where is kept in the data folder, so an agent restarted (or killed) picks its
//! work up again before it reaches the cloud. A camera whose source fails keeps its
//! task: its status says why and since when, and the agent starts it again with a
//! back-off (`health`); only the cloud's stop or another start ends that.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::{self, Channel, Command, CommandAck, CommandMessage, topic};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};

use crate::cameras::health::Health;
use crate::cameras::{Job, Worker};
use crate::capture::{self, Source};
use crate::clock::now_ms;
use crate::infer::Model;
use crate::outbox::{Kind, Outbox};
use crate::sync;

mod cameras;
mod transfer;

use cameras::cameras_differ;
use transfer::{download, finish_recording, upload_clips};

/// A camera the agent has: its name (as the portal shows it) and its source.
#[derive(Debug, Clone)]
pub struct CameraConfig {
    pub name: String,
    pub source: Source,
}

impl std::str::FromStr for CameraConfig {
    type Err = anyhow::Error;
    /// `NAME=SOURCE`, e.g. `cam0=/videos/bench.mp4` or `cam1=rtsp://10.0.0.5/stream`.
    fn from_str(s: &str) -> anyhow::Result<CameraConfig> {
        let (name, source) = s
            .split_once('=')
            .with_context(|| format!("{s:?}: a camera is NAME=SOURCE"))?;
        let name = name.trim();
        gemba_shared::api::v1::device::check_camera(name)
            .map_err(|e| anyhow::anyhow!("{name:?}: {e}"))?;
        Ok(CameraConfig {
            name: name.into(),
            source: source.parse()?,
        })
    }
}

pub struct Config {
    /// The data folder: credentials (from `enroll`), outbox, what runs where.
    pub data: PathBuf,
    pub sync: sync::Options,
    pub cameras: Vec<CameraConfig>,
    /// The model bundle every camera runs.
    pub model: PathBuf,
    pub fps: u32,
    pub looped: bool,
    pub fast: bool,
    /// Outbox capacity in messages.
    pub outbox_capacity: usize,
    /// Cycle clips: how much video each camera keeps in memory; `None`: no clips.
    pub clips: Option<crate::capture::clip::ClipOptions>,
    /// The most disk clips waiting for upload take, in bytes (the oldest go first).
    pub clip_budget_bytes: i64,
    pub heartbeat: Duration,
    /// How each camera's model certainty is watched (window, sustain).
    pub drift: crate::cameras::drift::Options,
}

/// What runs where, kept across restarts.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Running {
    cameras: BTreeMap<String, (i64, EngineConfig)>,
    /// Each camera's generation (`Command::StartTask`); absent in older files.
    #[serde(default)]
    generations: BTreeMap<String, i64>,
}

struct Agent {
    cfg: Config,
    outbox: Arc<Mutex<Outbox>>,
    workers: BTreeMap<String, Worker>,
    running: Running,
    /// Cameras whose task failed, waiting to be started again.
    health: Health,
    org: String,
    device: String,
}

/// Runs until `stop` turns true.
pub async fn run(cfg: Config, mut stop: watch::Receiver<bool>) -> anyhow::Result<()> {
    std::fs::create_dir_all(&cfg.data)?;
    // The model must load before anything starts: a broken bundle is said at once,
    // before the credentials are asked for.
    let model = Model::load(&cfg.model)?;
    tracing::info!(version = model.version, labels = ?model.labels, "model loaded");
    drop(model);
    let link = crate::enroll::link(&crate::enroll::load(&credentials_path(&cfg.data))?)?;
    let outbox = Arc::new(Mutex::new(
        Outbox::open(&cfg.data.join("outbox.db"), cfg.outbox_capacity)
            .context("opening the outbox")?,
    ));
    let running: Running = match std::fs::read(cfg.data.join("running.json")) {
        Ok(b) => serde_json::from_slice(&b).unwrap_or_default(),
        Err(_) => Running::default(),
    };
    let mut agent = Agent {
        org: link.org.to_string(),
        device: link.device.to_string(),
        cfg,
        outbox,
        workers: BTreeMap::new(),
        running: Running::default(),
        health: Health::default(),
    };
    for (camera, (task, engine)) in running.cameras {
        let generation = running.generations.get(&camera).copied().unwrap_or(0);
        if !agent.cfg.cameras.iter().any(|c| c.name == camera) {
            tracing::warn!(
                camera,
                task,
                "not resuming: this device has no such camera now"
            );
            continue;
        }
        agent.running.cameras.insert(camera.clone(), (task, engine));
        agent.running.generations.insert(camera.clone(), generation);
        agent.bring_up(&camera);
    }
    agent.save();
    let (status_tx, status_rx) = watch::channel(agent.status());
    let (cmd_tx, mut cmd_rx) = mpsc::channel(64);
    let (link_stop_tx, link_stop) = watch::channel(false);
    let link = tokio::spawn(sync::run(
        link,
        agent.cfg.sync.clone(),
        agent.outbox.clone(),
        status_rx,
        cmd_tx,
        link_stop,
    ));
    let clips = tokio::spawn(upload_clips(agent.outbox.clone(), link_stop_tx.subscribe()));
    let mut beat = tokio::time::interval(agent.cfg.heartbeat);
    // Cameras that ended or are due to start again are looked at every second; a
    // change in what they do is sent at once, not with the next heartbeat.
    let mut watch_cameras = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = stop.changed() => if *stop.borrow() { break },
            Some(c) = cmd_rx.recv() => {
                if let Some(ack) = agent.command(c).await {
                    agent.ack(ack)?;
                }
                let _ = status_tx.send(agent.status());
            }
            _ = beat.tick() => {
                agent.reap(true);
                let _ = status_tx.send(agent.status());
            }
            _ = watch_cameras.tick() => {
                agent.reap(false);
                agent.retry();
                let s = agent.status();
                if cameras_differ(&status_tx.borrow().cameras, &s.cameras) {
                    let _ = status_tx.send(s);
                }
            }
        }
    }
    // Cameras stop first, so their last cycles reach the outbox (and are sent next
    // time if not now).
    let workers = std::mem::take(&mut agent.workers);
    tokio::task::spawn_blocking(move || workers.into_values().for_each(Worker::stop)).await?;
    let _ = link_stop_tx.send(true);
    let _ = link.await;
    let _ = clips.await;
    Ok(())
}

impl Agent {
    /// Carries out command `c`: its acknowledgement, or `None` when it comes later (a
    /// recording acknowledges once uploaded).
    async fn command(&mut self, c: CommandMessage) -> Option<CommandAck> {
        let r = match c.command {
            Command::StartTask {
                camera,
                task,
                engine,
                generation,
            } => {
                let same = self
                    .running
                    .cameras
                    .get(&camera)
                    .is_some_and(|(t, e)| *t == task && *e == engine)
                    && self.workers.get(&camera).is_some_and(|w| !w.ended());
                // A start the device cannot carry out (no such camera, a model that
                // does not fit) is refused and changes nothing: checked before the
                // camera's current work stops. The same start again is a no-op
                // (commands are idempotent: the cloud repeats what it is not sure of).
                // A start whose source fails is not refused: the camera keeps the task,
                // says why in its status and is started again with a back-off.
                if same {
                    self.running.generations.insert(camera.clone(), generation);
                    self.save();
                    Ok(format!("task {task} already runs on camera {camera}"))
                } else {
                    match self.prepare(&camera, task, engine) {
                        Err(e) => Err(e),
                        Ok((job, model)) => {
                            if let Some(w) = self.workers.remove(&camera) {
                                let _ = tokio::task::spawn_blocking(move || w.stop()).await;
                            }
                            self.health.forget(&camera);
                            self.running.generations.insert(camera.clone(), generation);
                            let r = self.launch(job, model);
                            self.save();
                            Ok(match r {
                                Ok(()) => format!("task {task} runs on camera {camera}"),
                                Err(e) => format!(
                                    "task {task} is set on camera {camera}, which failed to \
                                     start: {e:#}; it is tried again in {} s",
                                    crate::cameras::health::delay(1) / 1000
                                ),
                            })
                        }
                    }
                }
            }
            Command::StopTask {
                camera,
                task,
                generation,
            } => {
                let now = self.running.cameras.get(&camera).map(|(t, _)| *t);
                let now_generation = self.running.generations.get(&camera).copied().unwrap_or(0);
                match (now, task) {
                    (Some(runs), Some(asked)) if runs != asked => Ok(format!(
                        "camera {camera} runs task {runs}, not {asked}: left running"
                    )),
                    (Some(_), _) if generation > 0 && now_generation > generation => Ok(format!(
                        "camera {camera} was started anew after this stop: left running"
                    )),
                    _ => {
                        let w = self.workers.remove(&camera);
                        self.running.cameras.remove(&camera);
                        self.running.generations.remove(&camera);
                        self.health.forget(&camera);
                        self.save();
                        match w {
                            Some(w) => {
                                let _ = tokio::task::spawn_blocking(move || w.stop()).await;
                                Ok(format!("camera {camera} stopped"))
                            }
                            None if now.is_some() => Ok(format!("camera {camera} stopped")),
                            None => Ok(format!("camera {camera} was not running")),
                        }
                    }
                }
            }
            Command::Settings { .. } => Ok("settings noted".into()),
            Command::Deploy {
                task,
                version,
                url,
                sha256,
                size_bytes,
            } => self.deploy(task, &version, &url, &sha256, size_bytes).await,
            Command::Record {
                camera,
                seconds,
                url,
            } => match self.record(&camera, seconds) {
                Ok(done) => {
                    tracing::info!(id = c.id, camera, seconds, "recording");
                    let (outbox, org, device) =
                        (self.outbox.clone(), self.org.clone(), self.device.clone());
                    tokio::spawn(async move {
                        let r = finish_recording(done, &url).await;
                        let ack = make_ack(c.id, r);
                        if let Err(e) = push_ack(&outbox, &org, &device, &ack) {
                            tracing::error!(error = %format!("{e:#}"), "acknowledging a recording");
                        }
                    });
                    return None;
                }
                Err(e) => Err(e),
            },
        };
        Some(make_ack(c.id, r))
    }

    /// Starts recording `seconds` of `camera`: through the task it runs, or on its own
    /// while it runs none.
    fn record(&self, camera: &str, seconds: u32) -> anyhow::Result<capture::RecordingDone> {
        let Some(cam) = self.cfg.cameras.iter().find(|c| c.name == camera) else {
            bail!("this device has no camera {camera}");
        };
        let dir = self.cfg.data.join("recordings");
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!(
            "{}.{}",
            uuid::Uuid::new_v4(),
            capture::recording_format()
        ));
        if let Some(w) = self.workers.get(camera).filter(|w| !w.ended()) {
            return w.record(&path, seconds);
        }
        // Nothing runs on it: a capture of its own (its small frames go unused) lives
        // as long as the recording.
        let cap = capture::Capture::open(
            &cam.source,
            capture::Options {
                width: 64,
                height: 64,
                fps: self.cfg.fps,
                looped: self.cfg.looped,
                fast: false,
                clips: None,
            },
        )?;
        let done = cap.record(&path, seconds)?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name(format!("recording {camera}"))
            .spawn(move || {
                let mut cap = cap;
                // Frames are pulled (and let go) so that the source keeps going.
                let r = loop {
                    match done.try_recv() {
                        Ok(r) => break r,
                        Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                            break Err(anyhow::anyhow!("the recording stopped"));
                        }
                        Err(std::sync::mpsc::TryRecvError::Empty) => {}
                    }
                    match cap.next_frame() {
                        Ok(Some(_)) => {}
                        Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                        Err(e) => break Err(e),
                    }
                };
                drop(cap);
                let _ = tx.send(r);
            })?;
        Ok(rx)
    }

    /// Starts `task` on `camera` at `generation`: an error when the device cannot
    /// (nothing changes then), or when its source failed (the camera keeps the task and
    /// is started again later).
    fn start(
        &mut self,
        camera: &str,
        task: i64,
        engine: EngineConfig,
        generation: i64,
    ) -> anyhow::Result<()> {
        let (job, model) = self.prepare(camera, task, engine)?;
        self.running.generations.insert(camera.into(), generation);
        self.launch(job, model)
    }

    /// What running `task` on `camera` takes, or why the device cannot.
    fn prepare(
        &self,
        camera: &str,
        task: i64,
        engine: EngineConfig,
    ) -> anyhow::Result<(Job, Model)> {
        let Some(cam) = self.cfg.cameras.iter().find(|c| c.name == camera) else {
            bail!("this device has no camera {camera}");
        };
        let model = Model::load(&self.model_for(task))?;
        crate::cameras::fits(&model, &engine)?;
        let job = Job {
            camera: camera.into(),
            source: cam.source.clone(),
            capture: capture::Options {
                width: model.width,
                height: model.height,
                fps: self.cfg.fps,
                looped: self.cfg.looped,
                fast: self.cfg.fast,
                clips: self.cfg.clips,
            },
            task,
            engine,
            org: self.org.clone(),
            device: self.device.clone(),
            clip_dir: clips_dir(&self.cfg.data),
            clip_budget: self.cfg.clip_budget_bytes,
            drift: self.cfg.drift,
        };
        Ok((job, model))
    }

    /// The model bundle `task` runs with: the one deployed for it, else the default.
    fn model_for(&self, task: i64) -> PathBuf {
        match load_deployed(&self.cfg.data).tasks.get(&task) {
            Some(v) => models_dir(&self.cfg.data).join(v),
            None => self.cfg.model.clone(),
        }
    }

    /// Installs model `version` for `task` (downloaded, checked, loaded) and swaps it
    /// into the cameras running `task`; a model that does not fit a camera's task, or
    /// a download that fails its checks, changes nothing.
    async fn deploy(
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
            download(url, &dir, sha256, size_bytes)
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

    fn save(&self) {
        if let Err(e) = save_json(&self.cfg.data.join("running.json"), &self.running) {
            tracing::error!(error = %e, "keeping what runs where");
        }
    }

    fn ack(&self, ack: CommandAck) -> anyhow::Result<()> {
        push_ack(&self.outbox, &self.org, &self.device, &ack)
    }
}

/// The acknowledgement of command `id` from how it went.
fn make_ack(id: String, r: anyhow::Result<String>) -> CommandAck {
    let (ok, message) = match r {
        Ok(m) => (true, m),
        Err(e) => (false, format!("{e:#}")),
    };
    tracing::info!(id, ok, message, "command");
    CommandAck {
        v: v1::VERSION,
        id,
        ok,
        message: message.chars().take(1000).collect(),
    }
}

/// Queues `ack` in the outbox (sent with the rest, in order).
fn push_ack(
    outbox: &Mutex<Outbox>,
    org: &str,
    device: &str,
    ack: &CommandAck,
) -> anyhow::Result<()> {
    let t = topic(org, device, Channel::CmdAck);
    let payload = serde_json::to_vec(ack)?;
    outbox
        .lock()
        .expect("outbox lock")
        .push(Kind::Droppable, None, &t, &payload, now_ms())?;
    Ok(())
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

/// Writes `value` to `path` whole (a temporary file renamed over it).
fn save_json<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec(value)?)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Where cycle clips wait for upload.
fn clips_dir(data: &Path) -> PathBuf {
    data.join("clips")
}

/// The data folder's credentials file.
pub fn credentials_path(data: &Path) -> PathBuf {
    data.join("credentials.json")
}
