//! The agent's pipeline, measured side by side in one run (bench/pipeline.sh):
//! GStreamer decode alone, ONNX inference alone, and the whole pipeline (capture →
//! inference → cycle engine → outbox) on one 640×480 camera as fast as it goes; then
//! how many cameras at 15 fps (real time) one machine sustains, and the process's
//! memory (RSS) with one camera and with the most. With `--agent PATH`, then the real
//! `gemba-agent run` binary, enrolled with a cloud started here (SQLite, embedded
//! broker), replaying the footage in real time on 1 and on 4 cameras: its RSS (now and
//! at its peak) after `--hold` seconds, with the MQTT link and the outbox.
//!
//!     cargo run --release -p gemba-agent --example pipeline_bench -- \
//!         --footage target/models/demo.mp4 --model target/models/default \
//!         [--agent target/release/gemba-agent]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gemba_agent::cameras::recorder::Recorder;
use gemba_agent::cameras::{Job, Worker};
use gemba_agent::capture::{self, Capture, Source};
use gemba_agent::infer::Model;
use gemba_agent::outbox::Outbox;
use gemba_shared::cycle::EngineConfig;
use gemba_shared::footage::Truth;

/// The bench's options.
#[derive(clap::Parser)]
struct Args {
    #[arg(long, default_value = "target/models/demo.mp4")]
    footage: PathBuf,
    #[arg(long, default_value = "target/models/default")]
    model: PathBuf,
    /// Frames for the single-camera ceilings.
    #[arg(long, default_value_t = 3000)]
    frames: u64,
    #[arg(long, default_value_t = 12)]
    max_cameras: usize,
    /// Seconds each camera count is held.
    #[arg(long, default_value_t = 8)]
    hold: u64,
    /// Then the real `gemba-agent` binary at this path, enrolled with a cloud started here.
    #[arg(long)]
    agent: Option<PathBuf>,
    /// Cameras only without cycle clips (the agent's `--clip-seconds 0`); by default
    /// without, then with.
    #[arg(long)]
    no_clips: bool,
}

fn fast(model: &Model) -> capture::Options {
    capture::Options {
        width: model.width,
        height: model.height,
        fps: 1000,
        looped: true,
        fast: true,
        clips: None,
        live: None,
        blur: Default::default(),
        barcodes: false,
    }
}

/// What the cameras of step 4 share.
struct Cameras<'a> {
    source: &'a Source,
    model_dir: &'a std::path::Path,
    engine: &'a EngineConfig,
    outbox: &'a Arc<Mutex<Outbox>>,
    clip_dir: &'a std::path::Path,
}

impl Cameras<'_> {
    /// Adds cameras at 15 fps (real time) one at a time, each held `hold`, while the
    /// slowest keeps ≥ 14 fps (and its clips' frames too, `clips`); answers how many were
    /// sustained and the RSS with one.
    fn sustained(&self, clips: bool, max: usize, hold: Duration) -> anyhow::Result<(usize, f64)> {
        println!(
            "cameras at 15 fps (real time), each step held {} s, cycle clips {}:",
            hold.as_secs(),
            if clips { "kept" } else { "off" }
        );
        let (mut rss_one, mut sustained) = (0.0, 0);
        for n in 1..=max {
            let workers: Vec<Worker> = (0..n)
                .map(|i| {
                    let model = Model::load(self.model_dir)?;
                    Worker::start(
                        Job {
                            camera: format!("cam{i}"),
                            source: self.source.clone(),
                            capture: capture::Options {
                                width: model.width,
                                height: model.height,
                                fps: 15,
                                looped: true,
                                fast: false,
                                clips: clips.then(Default::default),
                                live: None,
                                blur: Default::default(),
                                // Read for barcodes, as the agent's cameras are.
                                barcodes: true,
                            },
                            task: 1,
                            engine: self.engine.clone(),
                            org: "1".into(),
                            device: "1".into(),
                            clip_dir: self.clip_dir.to_path_buf(),
                            clip_budget: 256 * 1024 * 1024,
                            drift: Default::default(),
                            vitals: Default::default(),
                            // Watched as the agent watches by default.
                            tamper: Some(Default::default()),
                            reference: self.clip_dir.join(format!("tamper-cam{i}.json")),
                            barcodes: vec![],
                            barcode: None,
                            // No OPC UA bindings: cycles from the steps alone.
                            plc: Default::default(),
                        },
                        model,
                        self.outbox.clone(),
                    )
                })
                .collect::<anyhow::Result<_>>()?;
            std::thread::sleep(Duration::from_secs(2));
            let counts = |w: &Worker| (w.stats.lock().unwrap().frames, w.clip_frames());
            let before: Vec<(u64, u64)> = workers.iter().map(counts).collect();
            std::thread::sleep(hold);
            let rates: Vec<(f64, f64)> = workers
                .iter()
                .zip(&before)
                .map(|(w, b)| {
                    let (f, c) = counts(w);
                    let secs = hold.as_secs_f64();
                    ((f - b.0) as f64 / secs, (c - b.1) as f64 / secs)
                })
                .collect();
            let rss = rss_mib();
            if n == 1 {
                rss_one = rss;
            }
            let min = rates.iter().map(|r| r.0).fold(f64::MAX, f64::min);
            let clip_min = rates.iter().map(|r| r.1).fold(f64::MAX, f64::min);
            if clips {
                println!(
                    "  {n:2} cameras: slowest {min:5.1} fps, its clips {clip_min:5.1} fps, process RSS {rss:6.1} MiB"
                );
            } else {
                println!("  {n:2} cameras: slowest {min:5.1} fps, process RSS {rss:6.1} MiB");
            }
            workers.into_iter().for_each(Worker::stop);
            if min < 14.0 || (clips && clip_min < 14.0) {
                break;
            }
            sustained = n;
        }
        Ok((sustained, rss_one))
    }
}

fn rss_mib() -> f64 {
    status_mib("self", "VmRSS:")
}

/// A size line (`VmRSS:`, `VmHWM:`) of `/proc/{pid}/status`, in MiB.
fn status_mib(pid: &str, field: &str) -> f64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn main() -> anyhow::Result<()> {
    let args: Args = clap::Parser::parse();
    let (footage, model_dir, frames, max_cameras, agent) = (
        args.footage,
        args.model,
        args.frames,
        args.max_cameras,
        args.agent,
    );
    let hold = Duration::from_secs(args.hold);
    let clips = !args.no_clips;
    let clip_dir = tempfile::tempdir()?;
    let source = Source::File(footage.clone());
    let truth: Truth =
        serde_json::from_slice(&std::fs::read(footage.with_extension("truth.json"))?)?;
    let engine = EngineConfig::from_task(&truth.task_settings());
    let mut model = Model::load(&model_dir)?;
    let rss_start = rss_mib();

    // 1. Decode alone (decode, convert, scale to the model's input), as fast as it goes.
    let mut cap = Capture::open(&source, fast(&model))?;
    let t = Instant::now();
    for _ in 0..frames {
        cap.next_frame()?.expect("looped");
    }
    let decode = frames as f64 / t.elapsed().as_secs_f64();
    let frame = cap.next_frame()?.expect("looped");
    let pixels = frame.rgb.to_vec();
    drop(frame);
    drop(cap);

    // 2. Inference alone, on one frame.
    let t = Instant::now();
    for _ in 0..frames {
        model.infer(&pixels)?;
    }
    let infer = frames as f64 / t.elapsed().as_secs_f64();

    // 3. The whole pipeline, one camera, as fast as it goes.
    let dir = tempfile::tempdir()?;
    let outbox = Arc::new(Mutex::new(Outbox::open(
        &dir.path().join("o.db"),
        1_000_000,
    )?));
    let mut rec = Recorder::new(engine.clone(), "1", "1", 1, "cam0", outbox.clone());
    let mut cap = Capture::open(&source, fast(&model))?;
    let t = Instant::now();
    let mut cycles = 0;
    for _ in 0..frames {
        let f = cap.next_frame()?.expect("looped");
        let p = model.infer(&f.rgb)?;
        cycles += rec.frame(f.t_ms, &p)?.len();
    }
    let pipeline = frames as f64 / t.elapsed().as_secs_f64();
    drop(cap);
    // Decode alone once more, after: the first pass also warms caches up.
    let mut cap = Capture::open(&source, fast(&model))?;
    let t = Instant::now();
    for _ in 0..frames {
        cap.next_frame()?.expect("looped");
    }
    let decode_after = frames as f64 / t.elapsed().as_secs_f64();
    drop(cap);
    let decode = decode.max(decode_after);
    let ceiling = decode.min(infer);
    println!("frames per second, one 640x480 camera, {frames} frames each:");
    println!(
        "  decode alone (GStreamer)      {decode:8.0}  (the faster of a pass before and one after)"
    );
    println!("  inference alone (ONNX)        {infer:8.0}");
    println!(
        "  whole pipeline                {pipeline:8.0}  = {:.0}% of the slower ceiling ({cycles} cycles)",
        100.0 * pipeline / ceiling
    );
    drop(model);

    // 4. Cameras at 15 fps, real time: add cameras while every one keeps ≥ 14 fps;
    // without cycle clips, then with them (the agent's default: each camera also encodes
    // its video), where the clips' frames must keep ≥ 14 fps too.
    let passes: &[bool] = if clips { &[false, true] } else { &[false] };
    for &with_clips in passes {
        let c = Cameras {
            source: &source,
            model_dir: &model_dir,
            engine: &engine,
            outbox: &outbox,
            clip_dir: clip_dir.path(),
        };
        let (sustained, rss_one) = c.sustained(with_clips, max_cameras, hold)?;
        println!(
            "sustained{}: {sustained} cameras at 15 fps",
            if with_clips { " with clips" } else { "" }
        );
        println!(
            "RSS: {rss_start:.1} MiB with the model loaded, {rss_one:.1} MiB with one camera running"
        );
    }
    if let Some(agent) = &agent {
        // At least 12 s: the cloud starts the cameras on the agent's first status, and the
        // reading is taken from a heartbeat (every 5 s) after they all run.
        let hold = hold.max(Duration::from_secs(12));
        agent_binary(agent, &footage, &model_dir, &truth, hold)?;
    }
    Ok(())
}

/// The real agent binary's memory: enrolled with a cloud run here, replaying the
/// footage in real time on 1, then 4 cameras.
fn agent_binary(
    agent: &std::path::Path,
    footage: &std::path::Path,
    model: &std::path::Path,
    truth: &Truth,
    hold: Duration,
) -> anyhow::Result<()> {
    let rt = tokio::runtime::Runtime::new()?;
    let dir = tempfile::tempdir()?;
    let mqtt = format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair());
    let cameras = ["cam0", "cam1", "cam2", "cam3"];
    let cloud = rt.block_on(gemba_cloud::seed::local_cloud(
        dir.path().join("cloud"),
        mqtt,
        &truth.operation,
        &cameras,
    ))?;
    let data = dir.path().join("agent");
    let enrolled = std::process::Command::new(agent)
        .arg("--data")
        .arg(&data)
        .args(["enroll", "--cloud", &cloud.url])
        .args(["--code", gemba_cloud::seed::AGENT_CODE])
        .output()?;
    anyhow::ensure!(
        enrolled.status.success(),
        "enrolling: {}",
        String::from_utf8_lossy(&enrolled.stderr)
    );
    // Each without cycle clips and with them (the default), a fresh process each.
    for (cameras, clip_seconds) in [(1, "0"), (1, "120"), (4, "0"), (4, "120")] {
        let mut c = std::process::Command::new(agent);
        c.arg("--data").arg(&data).arg("run");
        c.args(["--clip-seconds", clip_seconds]);
        for cam in 0..cameras {
            c.arg("--camera")
                .arg(format!("cam{cam}={}", footage.display()));
        }
        let mut child = c
            .arg("--model")
            .arg(model)
            .arg("--loop")
            .env("RUST_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .spawn()?;
        std::thread::sleep(hold);
        let pid = child.id().to_string();
        let (now, peak) = (status_mib(&pid, "VmRSS:"), status_mib(&pid, "VmHWM:"));
        // What the agent's last heartbeat said: its cameras running a task, and their fps.
        let status: Option<String> = rt.block_on(
            sqlx::query_scalar("SELECT status FROM devices WHERE id = $1")
                .bind(cloud.device)
                .fetch_one(&cloud.state.db.pool),
        )?;
        let status: gemba_shared::mqtt::v1::StatusMessage =
            serde_json::from_str(status.as_deref().unwrap_or("null"))?;
        let running: Vec<String> = status
            .cameras
            .iter()
            .filter(|c| c.task.is_some())
            .map(|c| format!("{:.1}", c.fps))
            .collect();
        child.kill()?;
        child.wait()?;
        println!(
            "gemba-agent run, {cameras} camera(s) at 15 fps, clips {}, for {} s: RSS {now:.1} MiB, \
             peak {peak:.1} MiB ({} running, at {} fps, as its last status said)",
            if clip_seconds == "0" { "off" } else { "kept" },
            hold.as_secs(),
            running.len(),
            running.join(", ")
        );
    }
    Ok(())
}
