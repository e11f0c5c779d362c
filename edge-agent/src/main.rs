//! `gemba-agent`: the edge agent's binary. The parts live in the library (enrolment,
//! capture, inference, recorder, outbox, MQTT link); this puts them together:
//! `enroll`, `run`, `whoami` and `eval`. `run` stops on SIGINT or SIGTERM alike: its
//! cameras close their open cycles and it goes offline before it exits.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "gemba-agent", version = gemba_agent::update::version::version(), about = "gemba edge agent")]
struct Cli {
    /// The agent's data folder (credentials, outbox).
    #[arg(
        long,
        env = "GEMBA_AGENT_DATA",
        default_value = "agent-data",
        global = true
    )]
    data: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Exchanges the one-time code the portal showed for this device's credentials.
    Enroll {
        /// The cloud's address, e.g. https://gemba.example.com (plain http:// only to
        /// this machine, or with --insecure-http).
        #[arg(long)]
        cloud: String,
        /// The code, e.g. ABCD-EFGH-JKMN.
        #[arg(long)]
        code: String,
        /// The certificate authority (PEM) that issued the cloud's HTTPS certificate,
        /// when it is a private one; kept with the credentials for every later request.
        #[arg(long, value_name = "FILE")]
        cloud_ca: Option<PathBuf>,
        /// Enrol over plain http:// to another machine: the device's key crosses the
        /// network unencrypted (a network you trust only).
        #[arg(long)]
        insecure_http: bool,
    },
    /// Shows which device this agent is enrolled as.
    Whoami,
    /// Runs the agent: links to the cloud as the enrolled device and runs on its
    /// cameras the tasks the cloud starts.
    Run(RunArgs),
    /// Runs the agent as a service: `gemba-agent run` with the arguments that follow,
    /// started again when it exits; takes the releases the cloud sends, and goes back
    /// to the binary it had when a new one does not come back healthy.
    Supervise {
        /// Seconds a new release has to come back healthy before the device goes back.
        #[arg(long, env = "GEMBA_AGENT_HEALTH_TIMEOUT", default_value_t = 180,
            value_parser = clap::value_parser!(u64).range(1..=86400))]
        health_timeout: u64,
        /// The arguments of `run` (e.g. --camera line1=rtsp://… --model /var/lib/…).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "RUN ARGS"
        )]
        run: Vec<std::ffi::OsString>,
    },
    /// Writes a copy of this binary with VERSION stamped in (a release's version,
    /// made without building again).
    StampVersion {
        #[arg(long)]
        version: String,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
    /// Judges a model on labelled footage through the agent's own pipeline; prints JSON.
    Eval {
        /// The model bundle (a folder with model.onnx).
        #[arg(long)]
        model: PathBuf,
        /// The footage.
        #[arg(long)]
        video: PathBuf,
        /// Its ground truth (steps, segments, cycles).
        #[arg(long)]
        truth: PathBuf,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// A camera: NAME=SOURCE, where SOURCE is a video file, rtsp://…, v4l2:/dev/videoN
    /// or `test`. Repeat for several cameras.
    #[arg(long = "camera", required = true)]
    cameras: Vec<gemba_agent::agent::CameraConfig>,
    /// The model bundle the cameras run (a folder with model.onnx).
    #[arg(long, env = "GEMBA_AGENT_MODEL")]
    model: PathBuf,
    /// Frames per second each camera is read at, at most.
    #[arg(long, default_value_t = 15)]
    fps: u32,
    /// Video files start again at their end.
    #[arg(long = "loop")]
    looped: bool,
    /// Video files are read as fast as possible rather than at real time.
    #[arg(long)]
    fast: bool,
    /// Messages the outbox holds at most (cycle records are never dropped).
    #[arg(long, default_value_t = 100_000)]
    outbox_capacity: usize,
    /// Seconds between heartbeats.
    #[arg(long, default_value_t = 5)]
    heartbeat: u64,
    /// Seconds of video each camera keeps in memory for the clips of its cycles (a
    /// cycle longer than this gets its last part); 0: no clips.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(0..=1800))]
    clip_seconds: u32,
    /// The clips' format: `mp4` (H.264; the default where GStreamer has x264) or `webm`
    /// (VP8: for browsers that play no H.264).
    #[arg(long, value_parser = ["mp4", "webm"])]
    clip_format: Option<String>,
    /// The most disk, in MiB, clips waiting for upload take (the oldest go first).
    #[arg(long, default_value_t = 1024)]
    clip_disk_mib: u32,
    /// Seconds of frames over which each camera's share of frames its model is unsure
    /// about, and their brightness, are taken.
    #[arg(long, env = "GEMBA_AGENT_DRIFT_WINDOW", default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..=3600))]
    drift_window: u64,
    /// Seconds that share must stay high before the status says the model is unsure
    /// (and low before it says it is sure again).
    #[arg(long, env = "GEMBA_AGENT_DRIFT_SUSTAIN", default_value_t = 120,
        value_parser = clap::value_parser!(u64).range(0..=86400))]
    drift_sustain: u64,
    /// Seconds a new release must be up and linked to the broker before it counts as
    /// healthy (under `supervise`).
    #[arg(long, env = "GEMBA_AGENT_UPDATE_SETTLE", default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(0..=3600))]
    update_settle: u64,
    /// Seconds a camera's picture must stay exactly the same (or its frame rate under
    /// half of --fps) before it is reported frozen (slow).
    #[arg(long, env = "GEMBA_AGENT_FROZEN_AFTER", default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..=86400))]
    frozen_after: u64,
    /// Seconds a camera's picture must stay nearly uniform (covered, or dark) or its
    /// view differ from its reference (moved) before it is reported: a tampering
    /// request for a person to review. 0: not watched.
    #[arg(long, env = "GEMBA_AGENT_TAMPER_AFTER", default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(0..=86400))]
    tamper_after: u64,
    /// An OPC UA discovery URL (`opc.tcp://host:port`) asked besides those the cloud
    /// names (repeatable).
    #[arg(
        long = "opcua-discovery",
        env = "GEMBA_AGENT_OPCUA_DISCOVERY",
        value_delimiter = ','
    )]
    opcua_discovery: Vec<String>,
}

/// The clips asked for: `seconds` of video, in `format` (checked against GStreamer).
fn clip_options(
    seconds: u32,
    format: Option<&str>,
) -> anyhow::Result<gemba_agent::capture::clip::ClipOptions> {
    let webm = match format {
        None => !gemba_agent::capture::clip::has_x264(),
        Some("webm") => true,
        Some(_) if gemba_agent::capture::clip::has_x264() => false,
        Some(_) => anyhow::bail!(
            "--clip-format mp4 needs GStreamer's x264enc (Debian: gstreamer1.0-plugins-ugly); \
             use webm"
        ),
    };
    Ok(gemba_agent::capture::clip::ClipOptions {
        seconds,
        webm,
        ..Default::default()
    })
}

/// Resolves with the signal's name when the agent is asked to stop: Ctrl-C (SIGINT) or
/// SIGTERM (what systemd and container runtimes send); both stop it the same way.
fn stop_signal() -> anyhow::Result<impl Future<Output = &'static str>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        }
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                // async-opcua's complaints that the device has no certificate of its
                // own are left out: it connects without security (`opcua/`).
                .unwrap_or_else(|_| {
                    "info,ort=warn,opcua_crypto=off,opcua_core::comms::secure_channel=off,\
                     opcua_client::session::client=off"
                        .into()
                }),
        )
        .with_writer(std::io::stderr)
        .init();
    if let Err(e) = run(Cli::parse()).await {
        // One line a person can act on, with its causes; no backtrace.
        eprintln!("gemba-agent: {e:#}");
        std::process::exit(1);
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let creds = gemba_agent::agent::credentials_path(&cli.data);
    match cli.command {
        Command::Enroll {
            cloud,
            code,
            cloud_ca,
            insecure_http,
        } => {
            let cloud_ca = match cloud_ca {
                Some(f) => {
                    let pem = std::fs::read_to_string(&f)
                        .with_context(|| format!("reading --cloud-ca {}", f.display()))?;
                    gemba_agent::http::authorities(&pem)
                        .with_context(|| format!("--cloud-ca {}", f.display()))?;
                    Some(pem)
                }
                None => None,
            };
            let reach = gemba_agent::enroll::Reach {
                cloud_ca,
                insecure_http,
            };
            let e = gemba_agent::enroll::enroll(&cloud, &code, &reach).await?;
            gemba_agent::enroll::save(&creds, &e)?;
            let c = &e.credentials;
            println!(
                "Enrolled as device {} ({}) of organisation {}; broker {}. Credentials in {}.",
                c.device,
                c.display_name,
                c.organization,
                c.mqtt,
                creds.display()
            );
        }
        Command::Whoami => {
            let c = gemba_agent::enroll::load(&creds)?.credentials;
            println!(
                "device {} ({}) of organisation {}, key {}, broker {}",
                c.device, c.display_name, c.organization, c.credential_id, c.mqtt
            );
        }
        Command::Run(a) => {
            let cfg = gemba_agent::agent::Config {
                data: cli.data.clone(),
                sync: Default::default(),
                cameras: a.cameras,
                model: a.model,
                fps: a.fps,
                looped: a.looped,
                fast: a.fast,
                outbox_capacity: a.outbox_capacity,
                clips: (a.clip_seconds > 0)
                    .then(|| clip_options(a.clip_seconds, a.clip_format.as_deref()))
                    .transpose()?,
                clip_budget_bytes: i64::from(a.clip_disk_mib) * 1024 * 1024,
                heartbeat: std::time::Duration::from_secs(a.heartbeat.max(1)),
                drift: gemba_agent::cameras::drift::Options {
                    window: std::time::Duration::from_secs(a.drift_window),
                    sustain: std::time::Duration::from_secs(a.drift_sustain),
                },
                update_settle: std::time::Duration::from_secs(a.update_settle),
                frozen_after: std::time::Duration::from_secs(a.frozen_after),
                tamper_after: (a.tamper_after > 0)
                    .then(|| std::time::Duration::from_secs(a.tamper_after)),
                opcua_discovery: a.opcua_discovery,
            };
            let (tx, rx) = tokio::sync::watch::channel(false);
            let stop = stop_signal()?;
            tokio::spawn(async move {
                let signal = stop.await;
                tracing::info!(signal, "stopping: closing open cycles, then going offline");
                let _ = tx.send(true);
            });
            if gemba_agent::agent::run(cfg, rx).await? == gemba_agent::agent::Exit::Update {
                std::process::exit(gemba_agent::update::UPDATE_EXIT);
            }
        }
        Command::Supervise {
            health_timeout,
            run,
        } => {
            gemba_agent::update::supervise::supervise(gemba_agent::update::supervise::Options {
                data: std::path::absolute(&cli.data)?,
                installed: std::env::current_exe().context("finding this binary")?,
                run_args: run,
                health_timeout: std::time::Duration::from_secs(health_timeout),
            })
            .await?;
        }
        Command::StampVersion { version, out } => {
            let me = std::env::current_exe().context("finding this binary")?;
            let bytes = std::fs::read(&me).with_context(|| format!("reading {}", me.display()))?;
            let stamped = gemba_agent::update::version::stamp(&bytes, &version)?;
            std::fs::write(&out, stamped).with_context(|| format!("writing {}", out.display()))?;
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o755))?;
            }
            println!("{} is gemba-agent {version}", out.display());
        }
        Command::Eval {
            model,
            video,
            truth,
        } => {
            let r = gemba_agent::eval::evaluate(&model, &video, &truth)?;
            println!("{}", serde_json::to_string_pretty(&r)?);
        }
    }
    Ok(())
}
