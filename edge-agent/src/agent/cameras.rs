//! The agent's cameras: what running a task on a camera takes, starting its worker,
//! noting a failure and starting the camera again after its pause
//! (`crate::cameras::health`), and what each camera does as the status says it.

use anyhow::bail;
use gemba_shared::api::v1::device::CameraEventKind;
use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::{self, CameraState, CameraStatus, Fault, StatusMessage};

use super::{Agent, clips_dir};
use crate::cameras::{Job, Worker};
use crate::capture;
use crate::clock::now_ms;
use crate::infer::Model;

impl Agent {
    /// Starts the camera's worker on `job`; the camera is set to the job's task even
    /// when its source fails (then it waits in `health` to be started again).
    pub(super) fn launch(&mut self, mut job: Job, model: Model) -> anyhow::Result<()> {
        let (camera, task, engine) = (job.camera.clone(), job.task, job.engine.clone());
        // The task's pipeline feeds live view from now on; one opened only for
        // viewers lets the camera go first (a V4L2 camera opens once).
        self.live.release(&camera);
        job.capture.live = Some(self.live.feed(&camera));
        self.running.cameras.insert(camera.clone(), (task, engine));
        match Worker::start(job, model, self.outbox.clone()) {
            Ok(w) => {
                self.workers.insert(camera, w);
                Ok(())
            }
            Err(e) => {
                self.failed(&camera, format!("{e:#}"), CameraEventKind::Offline);
                Err(e)
            }
        }
    }

    /// Notes that `camera`'s task failed, to be started again after a back-off.
    pub(super) fn failed(&mut self, camera: &str, error: String, kind: CameraEventKind) {
        let now = now_ms();
        let f = self.health.failed(camera, error, kind, now);
        tracing::warn!(
            camera,
            error = f.error,
            retry_in_s = (f.retry_at_ms - now) / 1000,
            "a camera failed; it is started again after a pause"
        );
    }

    /// Forgets workers whose input failed (to be started again: [`Self::retry`]) and,
    /// with `ended_too`, those whose input ended (a file that was not looped: its
    /// camera shows idle from the next heartbeat on, as before failures were watched).
    pub(super) fn reap(&mut self, ended_too: bool) {
        let ended: Vec<(String, Option<String>, bool)> = self
            .workers
            .iter()
            .filter(|(_, w)| w.ended())
            .map(|(k, w)| {
                let st = w.stats.lock().expect("stats lock");
                (k.clone(), st.error.clone(), st.model_failed)
            })
            .filter(|(_, error, _)| ended_too || error.is_some())
            .collect();
        for (k, error, model_failed) in ended {
            if let Some(w) = self.workers.remove(&k) {
                w.stop();
                if let Some(e) = error {
                    let kind = if model_failed {
                        CameraEventKind::Model
                    } else {
                        CameraEventKind::Offline
                    };
                    self.failed(&k, e, kind);
                }
            }
        }
    }

    /// Starts again the failed cameras whose pause is over.
    pub(super) fn retry(&mut self) {
        let now = now_ms();
        for camera in self.health.due(now) {
            let Some((task, _)) = self.running.cameras.get(&camera) else {
                self.health.forget(&camera);
                continue;
            };
            tracing::info!(camera, task, "starting a failed camera again");
            if self.bring_up(&camera) {
                self.health.retrying(&camera, now);
            }
        }
    }

    /// Starts `camera` on the task it is set to; a failure waits in `health` to be
    /// started again. Answers whether it started.
    pub(super) fn bring_up(&mut self, camera: &str) -> bool {
        let Some((task, engine)) = self.running.cameras.get(camera).cloned() else {
            return false;
        };
        match self.prepare(camera, task, engine) {
            Ok((job, model)) => self.launch(job, model).is_ok(),
            Err(e) => {
                // The camera is there: its model could not be loaded or does not fit.
                self.failed(camera, format!("{e:#}"), CameraEventKind::Model);
                false
            }
        }
    }

    /// Starts `task` on `camera` at `generation`: an error when the device cannot
    /// (nothing changes then), or when its source failed (the camera keeps the task and
    /// is started again later).
    pub(super) fn start(
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
    pub(super) fn prepare(
        &self,
        camera: &str,
        task: i64,
        engine: EngineConfig,
    ) -> anyhow::Result<(Job, Model)> {
        let Some(cam) = self.camera(camera) else {
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
                live: None,
                blur: self.blur_of(camera),
                barcodes: true,
            },
            task,
            engine,
            org: self.org.clone(),
            device: self.device.clone(),
            clip_dir: clips_dir(&self.cfg.data),
            clip_budget: self.cfg.clip_budget_bytes,
            drift: self.cfg.drift,
            vitals: crate::cameras::vitals::Options {
                frozen_after: self.cfg.frozen_after,
                slow_after: self.cfg.frozen_after,
                // Files read as fast as they go have no pace to keep.
                fps_floor: if self.cfg.fast {
                    0.0
                } else {
                    self.cfg.fps as f32 / 2.0
                },
            },
            tamper: self
                .cfg
                .tamper_after
                .map(|after| crate::cameras::tamper::Options {
                    after,
                    ..Default::default()
                }),
            reference: crate::cameras::tamper::reference_path(&self.cfg.data, camera),
            barcodes: self.config.barcodes.clone(),
            barcode: None,
            plc: self.opcua.board(),
        };
        Ok((job, model))
    }

    pub(super) fn status(&self) -> StatusMessage {
        let cameras = self
            .cameras()
            .iter()
            .map(|c| {
                let generation = self.running.generations.get(&c.name).copied().unwrap_or(0);
                let schedule = self.running.scheduled.run(&c.name).map(|r| r.schedule);
                if let Some(w) = self.workers.get(&c.name) {
                    let st = w.stats.lock().expect("stats lock").clone();
                    let mut faults = st.faults.clone();
                    // Started again after a failure and no frame yet: still failing.
                    if st.frames == 0
                        && let Some(f) = self.health.failing(&c.name)
                    {
                        faults.push(fault_of(f));
                    }
                    return CameraStatus {
                        camera: c.name.clone(),
                        task: Some(w.task),
                        fps: st.fps,
                        model_version: st.model_version,
                        state: if st.frames > 0 {
                            CameraState::Running
                        } else {
                            CameraState::Starting
                        },
                        generation,
                        warning: st.warning.map(at_most_1000),
                        unsure_share: st.drift.now.map(|f| f.unsure_share),
                        brightness: st.drift.now.map(|f| f.brightness),
                        unsure_since_ms: st.drift.unsure_since_ms,
                        sure_share: st.drift.sure.map(|f| f.unsure_share),
                        sure_brightness: st.drift.sure.map(|f| f.brightness),
                        schedule,
                        barcode: self.running.barcodes.get(&c.name).cloned(),
                        faults,
                        ..CameraStatus::default()
                    };
                }
                match (
                    self.running.cameras.get(&c.name),
                    self.health.failure(&c.name),
                ) {
                    (Some((task, _)), Some(f)) => CameraStatus {
                        camera: c.name.clone(),
                        task: Some(*task),
                        state: CameraState::Failed,
                        generation,
                        error: Some(at_most_1000(f.error.clone())),
                        since_ms: Some(f.since_ms),
                        retry_at_ms: Some(f.retry_at_ms),
                        schedule,
                        barcode: self.running.barcodes.get(&c.name).cloned(),
                        faults: vec![fault_of(f)],
                        ..CameraStatus::default()
                    },
                    _ => CameraStatus {
                        camera: c.name.clone(),
                        ..CameraStatus::default()
                    },
                }
            })
            .collect();
        StatusMessage {
            v: v1::VERSION,
            online: true,
            ts_ms: now_ms(),
            agent_version: crate::update::version::version().into(),
            cameras,
            outbox: self
                .outbox
                .lock()
                .expect("outbox lock")
                .len()
                .unwrap_or(0)
                .max(0) as u64,
            disk_free_mb: self.device_vitals.disk_free_mb(),
            temperature_c: None,
            config_version: self.config.version,
            target: gemba_shared::release::this_target().into(),
            updatable: self.updates.supervised,
            update: self.updates.report.clone(),
            faults: self.device_vitals.faults(),
        }
    }
}

/// A camera's failure as its status's fault.
fn fault_of(f: &crate::cameras::health::Failure) -> Fault {
    Fault {
        kind: f.kind,
        since_ms: f.since_ms,
        detail: Some(at_most_1000(f.error.clone())),
    }
}

/// Whether two camera lists differ in what a person would see change (not the frame
/// rate nor the drift figures, which move all the time; but the model becoming unsure
/// or sure again does).
pub(super) fn cameras_differ(a: &[CameraStatus], b: &[CameraStatus]) -> bool {
    let key = |c: &CameraStatus| {
        (
            c.camera.clone(),
            c.task,
            c.state,
            c.error.clone(),
            c.warning.clone(),
            c.generation,
            c.unsure_since_ms,
            fault_keys(&c.faults),
        )
    };
    a.len() != b.len() || a.iter().zip(b).any(|(x, y)| key(x) != key(y))
}

/// Whether two lists of faults differ in their kinds or starts (not in their details,
/// whose figures move).
pub(super) fn faults_differ(a: &[Fault], b: &[Fault]) -> bool {
    fault_keys(a) != fault_keys(b)
}

fn fault_keys(f: &[Fault]) -> Vec<(CameraEventKind, i64)> {
    f.iter().map(|f| (f.kind, f.since_ms)).collect()
}

/// `text` cut to the 1000 bytes a status allows a camera's error or warning (on a
/// character's boundary): a longer one would have the whole status refused.
fn at_most_1000(mut text: String) -> String {
    if text.len() > 1000 {
        let mut end = 997;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::at_most_1000;

    #[test]
    fn a_long_error_is_cut_to_what_a_status_allows() {
        assert_eq!(at_most_1000("short".into()), "short");
        let long = at_most_1000("é".repeat(800));
        assert!(long.len() <= 1000 && long.ends_with('…'), "{}", long.len());
    }
}
