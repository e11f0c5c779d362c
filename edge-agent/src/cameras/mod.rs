//! One camera running one task, on its own thread: capture → inference → recorder
//! (cycle engine → outbox). Stopping it closes the open cycle when it showed enough
//! steps. A new model can be handed over while it runs: it is swapped in between two
//! frames, so no frame and no cycle is lost.
//!
//! Its faults name it: a camera that cannot start or stops by itself says
//! `camera NAME (SOURCE): what is wrong` ([`Stats::error`], the log), and everything its
//! thread logs carries the camera's name (a `camera` span).
//!
//! Every inferred frame also feeds its drift state ([`drift`]: how unsure the
//! model is and how bright the frames are), which its stats carry to the status; a
//! new model starts it afresh.
//!
//! Every frame also feeds its picture's vitals ([`vitals`]: frozen, slow) and its
//! tampering watch ([`tamper`]: covered, moved), whose reference the worker keeps in
//! the data folder.
//!
//! Barcodes in its view ([`barcode`]) are read from the capture's barcode branch on a
//! thread of its own; between two frames the worker puts a value read on the cycle
//! that finishes next, and asks the agent to start the task a value starts
//! ([`Stats::switch`]).
//!
//! The folder: the worker here, the cycle engine's side in `recorder.rs`, the model's
//! certainty in `drift.rs`, failed cameras and their back-off in `health.rs`, frozen
//! and slow in `vitals.rs`, covered and moved in `tamper.rs`.

use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::bail;
use gemba_shared::cycle::EngineConfig;

use crate::capture::{self, Capture, Source};
use crate::clock::now_ms;
use crate::infer::Model;
use crate::outbox::Outbox;

pub mod barcode;
pub mod drift;
pub mod health;
pub mod recorder;
pub mod tamper;
pub mod vitals;

pub use barcode::Switch;

use recorder::Recorder;

/// What a camera worker is told while it runs.
pub enum Control {
    /// Use this model from the next frame on.
    Model(Box<Model>),
    /// Record the next `seconds` into `path`; the answer says whether it started.
    Record {
        path: std::path::PathBuf,
        seconds: u32,
        reply: Sender<anyhow::Result<capture::RecordingDone>>,
    },
    /// Take a screenshot of the next frame; the answer says whether it will.
    Snapshot {
        reply: Sender<anyhow::Result<capture::SnapshotDone>>,
    },
    /// The organisation's task barcodes changed (a new configuration).
    Barcodes(Vec<gemba_shared::mqtt::v1::TaskBarcode>),
    /// Take the view it has now as its reference ([`tamper::Tamper::rebaseline`]).
    Rebaseline {
        reply: Sender<anyhow::Result<String>>,
    },
    Stop,
}

/// What a running camera reports (for the status message and for tests).
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub frames: u64,
    pub cycles: u64,
    /// Frames per second over the last few seconds.
    pub fps: f32,
    pub model_version: Option<String>,
    /// Why it stopped, when it stopped by itself: `camera NAME (SOURCE): what is
    /// wrong`, a sentence for the technician.
    pub error: Option<String>,
    /// The latest warning about its source (a file that ends early, clips that
    /// stopped), in the same form; it keeps running.
    pub warning: Option<String>,
    pub ended: bool,
    /// Whether its model has become unsure of what it sees ([`drift`]).
    pub drift: drift::Report,
    /// Its picture frozen, its pace slow, while they last ([`vitals`]).
    pub faults: Vec<gemba_shared::mqtt::v1::Fault>,
    /// It stopped because its model failed on a frame (not its source).
    pub model_failed: bool,
    /// A barcode read asks for another task on this camera: the agent takes it and
    /// starts the task in this worker's place.
    pub switch: Option<Switch>,
}

/// What a worker needs to start.
pub struct Job {
    pub camera: String,
    pub source: Source,
    pub capture: capture::Options,
    pub task: i64,
    pub engine: EngineConfig,
    pub org: String,
    pub device: String,
    /// Where this camera's cycle clips are written (when its capture keeps clips), and
    /// the most disk the clips waiting for upload take.
    pub clip_dir: std::path::PathBuf,
    pub clip_budget: i64,
    /// How its model's certainty is watched.
    pub drift: drift::Options,
    /// When its picture counts as frozen and its pace as slow.
    pub vitals: vitals::Options,
    /// When it counts as covered or moved (`None`: not watched), and the file its
    /// reference view is kept in.
    pub tamper: Option<tamper::Options>,
    pub reference: std::path::PathBuf,
    /// The organisation's barcodes that start a task (when its capture reads
    /// barcodes), and the value that started this task, for its first cycle.
    pub barcodes: Vec<gemba_shared::mqtt::v1::TaskBarcode>,
    pub barcode: Option<String>,
    /// What the device's OPC UA bindings say of this camera's cycles (`crate::opcua`).
    pub plc: crate::opcua::Board,
}

pub struct Worker {
    pub task: i64,
    /// The frame size its capture delivers (the model's input at start).
    input: (u32, u32),
    control: Sender<Control>,
    pub stats: Arc<Mutex<Stats>>,
    /// Its cycle clips' ring (when it keeps clips).
    clips: Option<crate::capture::clip::Shared>,
    thread: Option<JoinHandle<()>>,
}

/// `camera NAME (SOURCE): what`: a camera's fault as the technician reads it.
pub fn fault(camera: &str, source: &Source, what: impl std::fmt::Display) -> String {
    format!("camera {camera} ({source}): {what}")
}

/// Checks that `model` can serve `engine` (its steps, then background).
pub fn fits(model: &Model, engine: &EngineConfig) -> anyhow::Result<()> {
    if model.labels.len() != engine.steps + 1 {
        bail!(
            "the model knows {} steps and the task has {}",
            model.labels.len() - 1,
            engine.steps
        );
    }
    Ok(())
}

impl Worker {
    /// Starts `job` with `model` (already loaded and checked to fit).
    pub fn start(mut job: Job, model: Model, outbox: Arc<Mutex<Outbox>>) -> anyhow::Result<Worker> {
        fits(&model, &job.engine)?;
        job.capture.width = model.width;
        job.capture.height = model.height;
        // Opened here so that a camera that cannot start is an answer, not a log line.
        let cap = Capture::open(&job.source, job.capture.clone())
            .map_err(|e| anyhow::anyhow!(fault(&job.camera, &job.source, format!("{e:#}"))))?;
        let ring = cap.clips();
        let clips = match &ring {
            Some(ring) => Some(clip_writer(ring.clone(), &job, outbox.clone())?),
            None => None,
        };
        let (tx, rx) = mpsc::channel();
        let stats = Arc::new(Mutex::new(Stats {
            model_version: Some(model.version.clone()),
            ..Stats::default()
        }));
        let s = stats.clone();
        let task = job.task;
        let input = (job.capture.width, job.capture.height);
        let thread = std::thread::Builder::new()
            .name(format!("camera {}", job.camera))
            .spawn(move || {
                let _span = tracing::info_span!("camera", camera = job.camera).entered();
                let (camera, source) = (job.camera.clone(), job.source.clone());
                let (jobs, writer) = clips.unzip();
                let r = work(job, cap, model, outbox, rx, &s, jobs);
                // The capture is closed: the writer finishes the clips it was given.
                if let Some(w) = writer {
                    let _ = w.join();
                }
                let mut st = s.lock().expect("stats lock");
                st.ended = true;
                if let Err(e) = r {
                    let error = fault(&camera, &source, format!("{e:#}"));
                    tracing::error!("{error}");
                    st.error = Some(error);
                }
            })?;
        Ok(Worker {
            input,
            task,
            control: tx,
            stats,
            clips: ring,
            thread: Some(thread),
        })
    }

    /// The frame size its capture delivers: a model for another size needs a restart.
    pub fn input_size(&self) -> (u32, u32) {
        self.input
    }

    /// Records the next `seconds` of this camera into `path` while its task runs.
    pub fn record(
        &self,
        path: &std::path::Path,
        seconds: u32,
    ) -> anyhow::Result<capture::RecordingDone> {
        let (reply, answer) = mpsc::channel();
        self.control
            .send(Control::Record {
                path: path.to_path_buf(),
                seconds,
                reply,
            })
            .map_err(|_| anyhow::anyhow!("the camera has stopped"))?;
        answer
            .recv_timeout(std::time::Duration::from_secs(10))
            .map_err(|_| anyhow::anyhow!("the camera did not answer"))?
    }

    /// Takes a screenshot of this camera's next frame while its task runs.
    pub fn snapshot(&self) -> anyhow::Result<capture::SnapshotDone> {
        let (reply, answer) = mpsc::channel();
        self.control
            .send(Control::Snapshot { reply })
            .map_err(|_| anyhow::anyhow!("the camera has stopped"))?;
        answer
            .recv_timeout(std::time::Duration::from_secs(10))
            .map_err(|_| anyhow::anyhow!("the camera did not answer"))?
    }

    /// Takes this camera's view now as its reference: the acknowledgement's message.
    pub fn rebaseline(&self) -> anyhow::Result<String> {
        let (reply, answer) = mpsc::channel();
        self.control
            .send(Control::Rebaseline { reply })
            .map_err(|_| anyhow::anyhow!("the camera has stopped"))?;
        answer
            .recv_timeout(std::time::Duration::from_secs(10))
            .map_err(|_| anyhow::anyhow!("the camera did not answer"))?
    }

    /// The organisation's task barcodes changed.
    pub fn set_barcodes(&self, barcodes: Vec<gemba_shared::mqtt::v1::TaskBarcode>) {
        let _ = self.control.send(Control::Barcodes(barcodes));
    }

    /// The task a barcode read asks for on this camera, once.
    pub fn take_switch(&self) -> Option<Switch> {
        self.stats.lock().expect("stats lock").switch.take()
    }

    pub fn swap_model(&self, model: Model) {
        let _ = self.control.send(Control::Model(Box::new(model)));
    }

    /// Stops the camera and waits for its last cycle to be recorded.
    pub fn stop(mut self) {
        let _ = self.control.send(Control::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Frames encoded for its cycle clips so far (0 without clips).
    pub fn clip_frames(&self) -> u64 {
        self.clips
            .as_ref()
            .map_or(0, |r| r.0.lock().expect("clip ring lock").encoded)
    }

    pub fn ended(&self) -> bool {
        self.stats.lock().expect("stats lock").ended
    }
}

/// Starts the thread that writes the clips of `job`'s cycles from `ring` and queues
/// them for upload; answers where to send its cycles.
fn clip_writer(
    ring: crate::capture::clip::Shared,
    job: &Job,
    outbox: Arc<Mutex<Outbox>>,
) -> anyhow::Result<(Sender<crate::capture::clip::Job>, JoinHandle<()>)> {
    let (tx, rx) = crate::capture::clip::jobs();
    let budget = job.clip_budget;
    let span = tracing::info_span!("camera", camera = job.camera);
    let _in = span.enter();
    let handle = crate::capture::clip::writer(ring, job.clip_dir.clone(), rx, move |w| {
        let path = w.path.to_string_lossy().to_string();
        let r = outbox.lock().expect("outbox lock").clip_written(
            &w.cycle,
            &path,
            w.start_ms,
            w.bytes as i64,
            budget,
            now_ms(),
        );
        match r {
            Ok(gone) => {
                for p in gone {
                    tracing::warn!(path = p, "a clip waiting for upload was dropped for room");
                    let _ = std::fs::remove_file(p);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "queueing a clip");
                let _ = std::fs::remove_file(&w.path);
            }
        }
    })?;
    Ok((tx, handle))
}

fn work(
    job: Job,
    mut cap: Capture,
    mut model: Model,
    outbox: Arc<Mutex<Outbox>>,
    control: Receiver<Control>,
    stats: &Mutex<Stats>,
    clips: Option<Sender<crate::capture::clip::Job>>,
) -> anyhow::Result<()> {
    let clip = |made: &[gemba_shared::mqtt::v1::CycleMessage]| {
        if let Some(tx) = &clips {
            for m in made {
                let _ = tx.send(crate::capture::clip::Job {
                    cycle: m.id.clone(),
                    start_ms: m.start_ms,
                    end_ms: m.end_ms,
                });
            }
        }
    };
    let mut rec = Recorder::new(
        job.engine,
        &job.org,
        &job.device,
        job.task,
        &job.camera,
        outbox,
    );
    let mut drift = drift::Drift::new(job.drift);
    let mut vitals = vitals::Vitals::new(job.vitals);
    let mut tamper = job
        .tamper
        .map(|o| tamper::Tamper::new(o, tamper::load_reference(&job.reference)));
    let feed = match cap.codes() {
        Some(codes) => Some(barcode::feed::Feed::start(codes, &job.camera)?),
        None => None,
    };
    let mut station = barcode::Station::new(job.barcodes, Some(job.task));
    if let Some(v) = &job.barcode {
        rec.attach(barcode::METADATA_KEY, v);
    }
    let mut window = (Instant::now(), 0u32);
    let mut last_t = 0;
    let mut plc_seen = 0;
    loop {
        match control.try_recv() {
            Ok(Control::Model(m)) => {
                if model.labels.len() == m.labels.len() {
                    stats.lock().expect("stats lock").model_version = Some(m.version.clone());
                    model = *m;
                    drift.reset();
                } else {
                    tracing::error!(version = m.version, "a model with other labels was refused");
                }
            }
            Ok(Control::Record {
                path,
                seconds,
                reply,
            }) => {
                let _ = reply.send(cap.record(&path, seconds));
            }
            Ok(Control::Snapshot { reply }) => {
                let _ = reply.send(cap.snapshot());
            }
            Ok(Control::Barcodes(b)) => station.set_barcodes(b),
            Ok(Control::Rebaseline { reply }) => {
                let r = match tamper.as_mut() {
                    None => Err(anyhow::anyhow!("this camera is not watched for tampering")),
                    Some(t) => t
                        .rebaseline(now_ms())
                        .map_err(|e| anyhow::anyhow!("camera {}: {e}", job.camera))
                        .and_then(|r| {
                            tamper::save_reference(&job.reference, &r)?;
                            tracing::info!("the camera's view is its new reference");
                            Ok(format!(
                                "camera {}: its view now is its reference",
                                job.camera
                            ))
                        }),
                };
                let _ = reply.send(r);
            }
            Ok(Control::Stop) | Err(TryRecvError::Disconnected) => break,
            Err(TryRecvError::Empty) => {}
        }
        let next = cap.next_frame();
        if let Some(w) = cap.warning() {
            let mut st = stats.lock().expect("stats lock");
            if st.warning.as_deref().is_none_or(|old| !old.ends_with(w)) {
                st.warning = Some(fault(&job.camera, &job.source, w));
            }
        }
        let Some(frame) = next? else {
            break;
        };
        let probs = match model.infer(&frame.rgb) {
            Ok(p) => p,
            Err(e) => {
                stats.lock().expect("stats lock").model_failed = true;
                return Err(e.context(format!("model {} failed on a frame", model.version)));
            }
        };
        let now = now_ms();
        drift.frame(now, &probs, drift::brightness(&frame.rgb));
        vitals.frame(now, &frame.rgb);
        if let Some(t) = tamper.as_mut() {
            t.frame(
                now,
                &frame.rgb,
                job.capture.width as usize,
                job.capture.height as usize,
            );
            if let Some(r) = t.take_new_reference() {
                match tamper::save_reference(&job.reference, &r) {
                    Ok(()) => tracing::info!("the camera's reference view was taken"),
                    Err(e) => {
                        tracing::warn!(error = %format!("{e:#}"), "keeping the camera's reference view")
                    }
                }
            }
        }
        if let Some(f) = &feed {
            for r in f.reads() {
                let actions = station.read(&r.value, r.t_ms);
                if let Some(s) = barcode::switch_of(&actions, &r.value) {
                    tracing::info!(
                        barcode = r.value,
                        task = s.task,
                        "a barcode starts its task"
                    );
                    stats.lock().expect("stats lock").switch = Some(s);
                } else if actions.contains(&barcode::Action::Attach(r.value.clone())) {
                    rec.attach(barcode::METADATA_KEY, &r.value);
                }
            }
        }
        last_t = frame.t_ms;
        // A PLC's word (OPC UA) first: its latest values, then its starts and ends, at
        // this frame's time.
        let plc = job.plc.take(&job.camera, job.task, plc_seen, now);
        plc_seen = plc.version;
        rec.outside(plc.starts, plc.ends);
        if let Some(values) = plc.metadata {
            rec.hold(values);
        }
        for edge in plc.edges {
            let made = match edge {
                crate::opcua::Edge::Start => rec.start_at(frame.t_ms)?,
                crate::opcua::Edge::End => rec.end_at(frame.t_ms)?,
            };
            clip(&made);
            stats.lock().expect("stats lock").cycles += made.len() as u64;
        }
        let made = rec.frame(frame.t_ms, &probs)?;
        clip(&made);
        window.1 += 1;
        let mut st = stats.lock().expect("stats lock");
        st.frames += 1;
        st.cycles += made.len() as u64;
        st.drift = drift.report();
        let secs = window.0.elapsed().as_secs_f32();
        if secs >= 2.0 {
            st.fps = window.1 as f32 / secs;
            vitals.rate(now, st.fps);
            window = (Instant::now(), 0);
        }
        st.faults = vitals.faults(now);
        if let Some(t) = &tamper {
            st.faults.extend(t.faults(now));
        }
    }
    drop(feed);
    let end = if job.capture.fast { last_t } else { now_ms() };
    let made = rec.finish(end.max(last_t))?;
    clip(&made);
    stats.lock().expect("stats lock").cycles += made.len() as u64;
    // Cycles the full outbox could not take yet: wait for room rather than drop them.
    while rec.waiting() > 0 {
        std::thread::sleep(std::time::Duration::from_millis(500));
        rec.flush(now_ms())?;
    }
    Ok(())
}
