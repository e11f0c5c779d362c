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

use anyhow::Context;
use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::{CommandAck, DeviceConfig};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, watch};

use crate::cameras::Worker;
use crate::cameras::health::Health;
use crate::capture::Source;
use crate::capture::blur::Regions;
use crate::infer::Model;
use crate::live::Live;
use crate::outbox::Outbox;
use crate::schedules::Scheduled;
use crate::sync;

mod barcodes;
mod cameras;
mod commands;
mod config;
mod deploy;
mod live;
mod update;
mod uploads;
mod vitals;

use cameras::{cameras_differ, faults_differ};
use commands::push_ack;
use uploads::upload_clips;

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
    /// How long a new release must be up and linked before it counts as healthy.
    pub update_settle: Duration,
    /// How long a camera's picture must stay exactly the same (or its pace under half
    /// its frame rate) before the status says it is frozen (slow).
    pub frozen_after: Duration,
    /// How long a camera must stay covered, or its view moved from its reference,
    /// before the status says so (`crate::cameras::tamper`); `None`: not watched.
    pub tamper_after: Option<Duration>,
    /// Where an OPC UA discovery asks besides the cloud's URLs (`crate::opcua`).
    pub opcua_discovery: Vec<String>,
}

/// Why [`run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Asked to stop.
    Stopped,
    /// A release is staged: the supervisor runs it next
    /// ([`crate::update::UPDATE_EXIT`]).
    Update,
}

/// What runs where, kept across restarts.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Running {
    cameras: BTreeMap<String, (i64, EngineConfig)>,
    /// Each camera's generation (`Command::StartTask`); absent in older files.
    #[serde(default)]
    generations: BTreeMap<String, i64>,
    /// What the schedules started (`crate::schedules`); absent in older files.
    #[serde(default)]
    scheduled: Scheduled,
    /// The cameras whose task a barcode they read started (`barcodes.rs`), with its
    /// value, until a start or stop from the cloud; absent in older files.
    #[serde(default)]
    barcodes: BTreeMap<String, String>,
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
    /// The HTTP client to the cloud (uploads, downloads), trusting its authority.
    http: reqwest::Client,
    /// Live view: each camera's feed, the viewers' sessions.
    live: Live,
    /// The cloud's configuration of the device (`config.rs`).
    config: DeviceConfig,
    /// Each camera's privacy blur, shared with its pipelines.
    blur: BTreeMap<String, Regions>,
    /// Self-update (`update.rs`).
    updates: update::Updates,
    /// The device's own faults (`vitals.rs`).
    device_vitals: vitals::DeviceVitals,
    /// OPC UA: the bindings' links, the cloud's questions (`crate::opcua`).
    opcua: crate::opcua::Opcua,
}

/// Runs until `stop` turns true, or until a release is staged.
pub async fn run(cfg: Config, mut stop: watch::Receiver<bool>) -> anyhow::Result<Exit> {
    std::fs::create_dir_all(&cfg.data)?;
    // The model must load before anything starts: a broken bundle is said at once,
    // before the credentials are asked for.
    let model = Model::load(&cfg.model)?;
    tracing::info!(version = model.version, labels = ?model.labels, "model loaded");
    drop(model);
    let enrolment = crate::enroll::load(&credentials_path(&cfg.data))?;
    let link = crate::enroll::link(&enrolment.credentials)?;
    // Uploads and downloads trust the cloud's authority.
    let http = crate::http::client(enrolment.cloud_ca.as_deref())
        .context("the credentials' cloud certificate authority")?;
    let outbox = Arc::new(Mutex::new(
        Outbox::open(&cfg.data.join("outbox.db"), cfg.outbox_capacity)
            .context("opening the outbox")?,
    ));
    let running: Running = match std::fs::read(cfg.data.join("running.json")) {
        Ok(b) => serde_json::from_slice(&b).unwrap_or_default(),
        Err(_) => Running::default(),
    };
    let (replies_tx, mut replies) = mpsc::unbounded_channel();
    let cfg_data = cfg.data.clone();
    let opcua_discovery = cfg.opcua_discovery.clone();
    let mut agent = Agent {
        live: Live::new(replies_tx),
        org: link.org.to_string(),
        device: link.device.to_string(),
        cfg,
        outbox,
        workers: BTreeMap::new(),
        running: Running::default(),
        health: Health::default(),
        http,
        config: DeviceConfig::default(),
        blur: BTreeMap::new(),
        updates: update::Updates::load(&cfg_data, enrolment.credentials.release_key.clone()),
        device_vitals: Default::default(),
        opcua: crate::opcua::Opcua::new(&cfg_data, opcua_discovery)?,
    };
    agent.tend_vitals();
    agent.config = config::load(&agent.cfg.data);
    agent.opcua.set_bindings(&agent.config.opcua);
    agent.hold_analytics();
    agent.set_blur();
    agent.running.scheduled = running.scheduled;
    agent.running.barcodes = running.barcodes;
    for (camera, (task, engine)) in running.cameras {
        let generation = running.generations.get(&camera).copied().unwrap_or(0);
        if agent.camera(&camera).is_none() {
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
    let (rtc_tx, mut rtc_rx) = mpsc::channel(64);
    let (link_stop_tx, link_stop) = watch::channel(false);
    let (linked_tx, linked) = watch::channel(false);
    let link = tokio::spawn(sync::run(
        link,
        agent.cfg.sync.clone(),
        agent.outbox.clone(),
        status_rx,
        sync::Inbox {
            commands: cmd_tx,
            rtc: rtc_tx,
            linked: linked_tx,
        },
        link_stop,
    ));
    let clips = tokio::spawn(upload_clips(
        agent.outbox.clone(),
        agent.http.clone(),
        link_stop_tx.subscribe(),
    ));
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
                if agent.updates.restart {
                    break;
                }
            }
            Some(m) = rtc_rx.recv() => agent.live_request(m),
            Some((session, answer)) = replies.recv() => agent.live_reply(session, answer)?,
            _ = beat.tick() => {
                agent.reap(true);
                let _ = status_tx.send(agent.status());
            }
            _ = watch_cameras.tick() => {
                agent.reap(false);
                agent.retry();
                agent.tend_schedules().await;
                agent.tend_barcodes().await;
                agent.tend_live();
                agent.tend_trial(*linked.borrow());
                agent.tend_vitals();
                if agent.updates.orphaned() {
                    tracing::warn!("the supervisor is gone: stopping");
                    break;
                }
                let s = agent.status();
                let sent = status_tx.borrow();
                let differ = cameras_differ(&sent.cameras, &s.cameras)
                    || sent.update != s.update
                    || faults_differ(&sent.faults, &s.faults);
                drop(sent);
                if differ {
                    let _ = status_tx.send(s);
                }
            }
        }
    }
    // Cameras stop first, so their last cycles reach the outbox (and are sent next
    // time if not now).
    agent.live.stop();
    let workers = std::mem::take(&mut agent.workers);
    tokio::task::spawn_blocking(move || workers.into_values().for_each(Worker::stop)).await?;
    let _ = link_stop_tx.send(true);
    let _ = link.await;
    let _ = clips.await;
    Ok(if agent.updates.restart {
        Exit::Update
    } else {
        Exit::Stopped
    })
}

impl Agent {
    fn save(&self) {
        if let Err(e) = save_json(&self.cfg.data.join("running.json"), &self.running) {
            tracing::error!(error = %e, "keeping what runs where");
        }
    }

    /// The device's own faults, looked at again.
    fn tend_vitals(&mut self) {
        let len = self
            .outbox
            .lock()
            .expect("outbox lock")
            .len()
            .unwrap_or(0)
            .max(0) as usize;
        let disk = vitals::disk_of(&self.cfg.data);
        self.device_vitals
            .tend(crate::clock::now_ms(), len, self.cfg.outbox_capacity, disk);
    }

    fn ack(&self, ack: CommandAck) -> anyhow::Result<()> {
        push_ack(&self.outbox, &self.org, &self.device, &ack)
    }
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
