//! The cloud's commands carried out: a task started or stopped on a camera, settings,
//! a model deployed (`deploy.rs`), a recording made and uploaded; each answered on
//! `cmd/ack` through the outbox, and each once (a replayed one is ignored, an expired
//! one refused: `outbox/commands.rs`).

use std::sync::Mutex;
use std::time::Duration;

use anyhow::bail;
use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::{self, Channel, Command, CommandAck, CommandMessage, topic};

use super::Agent;
use super::uploads::{finish_recording, finish_screenshot};
use crate::capture;
use crate::clock::now_ms;
use crate::outbox::{CommandTaken, Kind, Outbox};

impl Agent {
    /// Carries out command `c`: its acknowledgement, or `None` when it comes later (a
    /// recording acknowledges once uploaded).
    pub(super) async fn command(&mut self, c: CommandMessage) -> Option<CommandAck> {
        // A command carried out before (replayed, or delivered twice) is not again; one
        // that expired is refused.
        let taken =
            self.outbox
                .lock()
                .expect("outbox lock")
                .take_command(&c.id, c.sent_ms, c.expires_ms);
        match taken {
            Ok(CommandTaken::New) => {}
            Ok(CommandTaken::Again) => {
                tracing::warn!(
                    id = c.id,
                    "a command carried out before came again (a replay?): ignored"
                );
                return None;
            }
            Ok(CommandTaken::Expired { newest_ms }) => {
                let why = format!(
                    "the command expired (it held until {}; a command sent at {} was \
                     taken already, both on the cloud's clock): stale or replayed, not \
                     carried out",
                    c.expires_ms, newest_ms
                );
                tracing::warn!(id = c.id, "{why}");
                return Some(make_ack(c.id, Err(anyhow::anyhow!(why))));
            }
            // Better to obey the cloud than to drop its command for a disk error.
            Err(e) => tracing::error!(error = %e, "noting a command in the outbox"),
        }
        let r = match c.command {
            Command::StartTask {
                camera,
                task,
                engine,
                generation,
            } => {
                // A person's start takes the camera from its schedule, and from the
                // barcode that started its task.
                self.running.scheduled.forget(&camera);
                self.running.barcodes.remove(&camera);
                self.start_task(&camera, task, engine, generation).await
            }
            Command::StopTask {
                camera,
                task,
                generation,
            } => {
                self.running.scheduled.forget(&camera);
                let r = self.stop_task(&camera, task, generation).await;
                self.save();
                r
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
                    let http = self.http.clone();
                    self.ack_later(
                        c.id,
                        async move { finish_recording(done, &http, &url).await },
                    );
                    return None;
                }
                Err(e) => Err(e),
            },
            Command::Config { config } => self.apply_config(config).await,
            Command::Screenshot { camera, url } => match self.snapshot(&camera) {
                Ok(done) => {
                    let http = self.http.clone();
                    self.ack_later(
                        c.id,
                        async move { finish_screenshot(done, &http, &url).await },
                    );
                    return None;
                }
                Err(e) => Err(e),
            },
            Command::Rebaseline { camera } => self.rebaseline(&camera),
            Command::Opcua { request } => {
                // Answered once the server has (seconds at most), off the loop.
                let asked = self.opcua.answer(request);
                let (outbox, org, device) =
                    (self.outbox.clone(), self.org.clone(), self.device.clone());
                let id = c.id.clone();
                tokio::spawn(async move {
                    let (r, reply) = match asked.await {
                        Ok((message, reply)) => (Ok(message), Some(reply)),
                        Err(e) => (Err(e), None),
                    };
                    let mut ack = make_ack(id, r);
                    ack.opcua = reply;
                    if let Err(e) = push_ack(&outbox, &org, &device, &ack) {
                        tracing::error!(error = %format!("{e:#}"), "acknowledging a command");
                    }
                });
                return None;
            }
            Command::Update {
                release,
                version,
                target,
                url,
                sha256,
                size_bytes,
                signature,
            } => {
                self.take_release(crate::update::install::Offer {
                    release,
                    version,
                    target,
                    url,
                    sha256,
                    size_bytes,
                    signature,
                })
                .await
            }
        };
        Some(make_ack(c.id, r))
    }

    /// Acknowledges command `id` once `work` (an upload) is done, without holding up
    /// the agent's loop.
    fn ack_later(
        &self,
        id: String,
        work: impl std::future::Future<Output = anyhow::Result<String>> + Send + 'static,
    ) {
        let (outbox, org, device) = (self.outbox.clone(), self.org.clone(), self.device.clone());
        tokio::spawn(async move {
            let ack = make_ack(id, work.await);
            if let Err(e) = push_ack(&outbox, &org, &device, &ack) {
                tracing::error!(error = %format!("{e:#}"), "acknowledging a command");
            }
        });
    }

    /// Starts `task` on `camera` (a command's or a schedule's start): the message of
    /// its acknowledgement.
    pub(super) async fn start_task(
        &mut self,
        camera: &str,
        task: i64,
        engine: EngineConfig,
        generation: i64,
    ) -> anyhow::Result<String> {
        let same = self
            .running
            .cameras
            .get(camera)
            .is_some_and(|(t, e)| *t == task && *e == engine)
            && self.workers.get(camera).is_some_and(|w| !w.ended());
        // A start the device cannot carry out (no such camera, a model that does not
        // fit) is refused and changes nothing: checked before the camera's current
        // work stops. The same start again is a no-op (commands are idempotent: the
        // cloud repeats what it is not sure of). A start whose source fails is not
        // refused: the camera keeps the task, says why in its status and is started
        // again with a back-off.
        if same {
            self.running.generations.insert(camera.into(), generation);
            self.save();
            return Ok(format!("task {task} already runs on camera {camera}"));
        }
        let (job, model) = self.prepare(camera, task, engine)?;
        if let Some(w) = self.workers.remove(camera) {
            let _ = tokio::task::spawn_blocking(move || w.stop()).await;
        }
        self.health.forget(camera);
        self.running.generations.insert(camera.into(), generation);
        let r = self.launch(job, model);
        self.save();
        Ok(match r {
            Ok(()) => format!("task {task} runs on camera {camera}"),
            Err(e) => format!(
                "task {task} is set on camera {camera}, which failed to start: {e:#}; it \
                 is tried again in {} s",
                crate::cameras::health::delay(1) / 1000
            ),
        })
    }

    /// Stops `camera` (a command's or a schedule's stop), unless it runs another task
    /// than `task` or was started anew after `generation` (0: any): the message of its
    /// acknowledgement. The caller saves.
    pub(super) async fn stop_task(
        &mut self,
        camera: &str,
        task: Option<i64>,
        generation: i64,
    ) -> anyhow::Result<String> {
        let now = self.running.cameras.get(camera).map(|(t, _)| *t);
        let now_generation = self.running.generations.get(camera).copied().unwrap_or(0);
        match (now, task) {
            (Some(runs), Some(asked)) if runs != asked => {
                return Ok(format!(
                    "camera {camera} runs task {runs}, not {asked}: left running"
                ));
            }
            (Some(_), _) if generation > 0 && now_generation > generation => {
                return Ok(format!(
                    "camera {camera} was started anew after this stop: left running"
                ));
            }
            _ => {}
        }
        let w = self.workers.remove(camera);
        self.running.cameras.remove(camera);
        self.running.generations.remove(camera);
        self.running.barcodes.remove(camera);
        self.health.forget(camera);
        Ok(match w {
            Some(w) => {
                let _ = tokio::task::spawn_blocking(move || w.stop()).await;
                format!("camera {camera} stopped")
            }
            None if now.is_some() => format!("camera {camera} stopped"),
            None => format!("camera {camera} was not running"),
        })
    }

    /// Starts recording `seconds` of `camera`: through the task it runs, or on its own
    /// while it runs none.
    fn record(&self, camera: &str, seconds: u32) -> anyhow::Result<capture::RecordingDone> {
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
        let cap = self.own_capture(camera)?;
        let done = cap.record(&path, seconds)?;
        kept_going(cap, done, camera, "recording")
    }

    /// Takes `camera`'s view now as its reference (`crate::cameras::tamper`): through
    /// the task it runs; a camera running none forgets its reference, to take a new one
    /// when it runs next.
    fn rebaseline(&self, camera: &str) -> anyhow::Result<String> {
        if self.camera(camera).is_none() {
            bail!("this device has no camera {camera}");
        }
        if let Some(w) = self.workers.get(camera).filter(|w| !w.ended()) {
            // Answered at the camera's next frame, as a screenshot is.
            return w.rebaseline();
        }
        let path = crate::cameras::tamper::reference_path(&self.cfg.data, camera);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
        Ok(format!(
            "camera {camera} runs no task: its reference is forgotten, a new one is taken \
             when it runs next"
        ))
    }

    /// Takes a screenshot of `camera`'s next frame: through the task it runs, or on
    /// its own while it runs none.
    fn snapshot(&self, camera: &str) -> anyhow::Result<capture::SnapshotDone> {
        if let Some(w) = self.workers.get(camera).filter(|w| !w.ended()) {
            return w.snapshot();
        }
        let cap = self.own_capture(camera)?;
        let done = cap.snapshot()?;
        kept_going(cap, done, camera, "screenshot")
    }

    /// A capture of `camera` of its own (its small frames go unused; its other branches
    /// are full size), its blur applied.
    fn own_capture(&self, camera: &str) -> anyhow::Result<capture::Capture> {
        let Some(cam) = self.camera(camera) else {
            bail!("this device has no camera {camera}");
        };
        capture::Capture::open(
            &cam.source,
            capture::Options {
                looped: self.cfg.looped,
                blur: self.blur_of(camera),
                ..capture::Options::at_real_time(64, 64, self.cfg.fps)
            },
        )
    }
}

/// Keeps `cap` going on a thread of its own (its frames pulled and let go, so that the
/// source flows) until `done` answers, then closes it: where the answer arrives.
fn kept_going<T: Send + 'static>(
    cap: capture::Capture,
    done: std::sync::mpsc::Receiver<anyhow::Result<T>>,
    camera: &str,
    what: &str,
) -> anyhow::Result<std::sync::mpsc::Receiver<anyhow::Result<T>>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let stopped = format!("the {what} stopped");
    std::thread::Builder::new()
        .name(format!("{what} {camera}"))
        .spawn(move || {
            let mut cap = cap;
            let r = loop {
                match done.try_recv() {
                    Ok(r) => break r,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        break Err(anyhow::anyhow!(stopped));
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
        opcua: None,
    }
}

/// Queues `ack` in the outbox (sent with the rest, in order).
pub(super) fn push_ack(
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
