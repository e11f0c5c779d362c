//! The device's configuration from the cloud (issue 29, `Command::Config`): kept in the
//! data folder (`config.json`) so it holds across restarts and while the cloud is away,
//! its remote cameras added to the device's own, and its schedules followed once a
//! second (`crate::schedules`).
//!
//! Whether the device sends its analytics now (`fetch_analytics`, issue 31) is the
//! outbox's hold on its cycles ([`Agent::hold_analytics`]), set again on every start.
//!
//! A configuration older than the one kept is acknowledged and ignored (the cloud may
//! send one twice); one this agent cannot follow (a time zone its tz database does
//! not know) is refused whole, the one kept staying in force.

use anyhow::bail;
use chrono_tz::Tz;
use gemba_shared::mqtt::v1::DeviceConfig;

use super::{Agent, CameraConfig, save_json};
use crate::capture::Source;
use crate::capture::blur::{Rect, Regions};
use crate::clock::now_ms;
use crate::schedules::Action;

/// The data folder's configuration file.
const FILE: &str = "config.json";

/// The configuration kept in `data`, or none yet.
pub(super) fn load(data: &std::path::Path) -> DeviceConfig {
    std::fs::read(data.join(FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// `config`'s time zone, or why the agent cannot read it.
fn time_zone(config: &DeviceConfig) -> anyhow::Result<Tz> {
    match config.time_zone.parse::<Tz>() {
        Ok(tz) => Ok(tz),
        Err(_) => bail!(
            "the time zone {:?} is not in this agent's time zone database: configuration \
             {} not applied (update the agent)",
            config.time_zone,
            config.version
        ),
    }
}

impl Agent {
    /// Keeps `config` and acts on it at once: the acknowledgement's message.
    pub(super) async fn apply_config(&mut self, config: DeviceConfig) -> anyhow::Result<String> {
        if config.version < self.config.version {
            return Ok(format!(
                "configuration {} is older than {} applied: ignored",
                config.version, self.config.version
            ));
        }
        time_zone(&config)?;
        save_json(&self.cfg.data.join(FILE), &config)?;
        let dropped: Vec<String> = self
            .config
            .remote_cameras
            .iter()
            .filter(|c| !config.remote_cameras.iter().any(|n| n.name == c.name))
            .map(|c| c.name.clone())
            .collect();
        let changed: Vec<String> = config
            .remote_cameras
            .iter()
            .filter(|c| {
                self.config
                    .remote_cameras
                    .iter()
                    .any(|o| o.name == c.name && o.url != c.url)
            })
            .map(|c| c.name.clone())
            .collect();
        self.config = config;
        self.hold_analytics();
        // A remote camera gone stops what ran on it; one whose address changed starts
        // again from the new one.
        for camera in dropped {
            self.running.scheduled.forget(&camera);
            let _ = self.stop_task(&camera, None, 0).await;
            self.live.release(&camera);
        }
        for camera in changed {
            if let Some(w) = self.workers.remove(&camera) {
                let _ = tokio::task::spawn_blocking(move || w.stop()).await;
                self.bring_up(&camera);
            }
            self.live.release(&camera);
        }
        self.set_blur();
        self.opcua.set_bindings(&self.config.opcua);
        for w in self.workers.values() {
            w.set_barcodes(self.config.barcodes.clone());
        }
        self.tend_schedules().await;
        self.save();
        Ok(format!(
            "configuration {} applied: {} remote cameras, {} blur regions, {} schedules",
            self.config.version,
            self.config.remote_cameras.len(),
            self.config.blur.len(),
            self.config.schedules.len()
        ))
    }

    /// The outbox holds the cycles back while the configuration says the device keeps
    /// its analytics (`fetch_analytics` off), and lets them go, in order, once it is on.
    pub(super) fn hold_analytics(&self) {
        let hold = !self.config.fetch_analytics;
        let mut outbox = self.outbox.lock().expect("outbox lock");
        if outbox.holding_cycles() != hold {
            outbox.hold_cycles(hold);
            if hold {
                tracing::info!("analytics kept on the device until the cloud asks for them");
            } else {
                tracing::info!("analytics sent to the cloud, those kept first");
            }
        }
    }

    /// The device's cameras: its own (the command line's), then the configuration's
    /// remote cameras (one named like its own is left out, with a warning once).
    pub(super) fn cameras(&self) -> Vec<CameraConfig> {
        let mut all = self.cfg.cameras.clone();
        for r in &self.config.remote_cameras {
            if all.iter().any(|c| c.name == r.name) {
                continue;
            }
            all.push(CameraConfig {
                name: r.name.clone(),
                source: Source::Uri(r.url.clone()),
            });
        }
        all
    }

    /// Each camera's blur regions from the configuration, applied to its pipelines at
    /// their next frame.
    pub(super) fn set_blur(&mut self) {
        for c in self.cameras() {
            let rects = self
                .config
                .blur
                .iter()
                .filter(|b| b.camera == c.name)
                .map(|b| Rect {
                    x: b.x,
                    y: b.y,
                    width: b.width,
                    height: b.height,
                })
                .collect();
            self.blur.entry(c.name).or_default().set(rects);
        }
    }

    /// `camera`'s blur regions, shared with its pipelines.
    pub(super) fn blur_of(&self, camera: &str) -> Regions {
        self.blur.get(camera).cloned().unwrap_or_default()
    }

    /// The camera named `name`, if the device has it.
    pub(super) fn camera(&self, name: &str) -> Option<CameraConfig> {
        self.cameras().into_iter().find(|c| c.name == name)
    }

    /// Starts and stops what the schedules ask for now.
    pub(super) async fn tend_schedules(&mut self) {
        let Ok(tz) = time_zone(&self.config) else {
            return;
        };
        let actions = self
            .running
            .scheduled
            .plan(&self.config.schedules, tz, now_ms());
        if actions.is_empty() {
            return;
        }
        for a in actions {
            match a {
                Action::Start {
                    camera,
                    task,
                    engine,
                    schedule,
                } => {
                    let generation = self.running.generations.get(&camera).copied().unwrap_or(0);
                    let r = self.start_task(&camera, task, engine, generation).await;
                    match r {
                        Ok(m) => {
                            self.running.barcodes.remove(&camera);
                            tracing::info!(schedule, camera, task, "{m}")
                        }
                        Err(e) => {
                            // Nothing runs by it: the window does not stop anything.
                            self.running.scheduled.forget(&camera);
                            tracing::warn!(schedule, camera, task, error = %format!("{e:#}"), "a schedule's task could not start");
                        }
                    }
                }
                Action::Stop {
                    camera,
                    task,
                    schedule,
                } => match self.stop_task(&camera, Some(task), 0).await {
                    Ok(m) => tracing::info!(schedule, camera, task, "{m}"),
                    Err(e) => {
                        tracing::warn!(schedule, camera, error = %format!("{e:#}"), "stopping a schedule's task")
                    }
                },
            }
        }
        self.save();
    }
}
