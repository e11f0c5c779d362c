//! `gemba-cloud serve --demo`: the product on its embedded defaults with something to
//! watch. It seeds an organisation `demo` (sub-domain `demo`) with the demo operation,
//! a user to sign in as and a demo device set to run the operation on its camera
//! `cam0`; then it starts a real `gemba-agent` process that enrols itself with a one-time
//! code and replays the demo footage with the default model, so cycles arrive over MQTT
//! like any device's. The demo footage is also the operation's training video, uploaded
//! and labelled with its ground truth (the 240 s training clip beside it when there is
//! one, and the replayed 120 s), so a newcomer can press Start training and then deploy
//! the model to the station. What was seeded is kept in `<data>/demo/demo.json`; a
//! restart reuses it (and the agent its credentials and outbox).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, bail};
use gemba_shared::api::v1::feature_control::Gated;
use gemba_shared::footage::Truth;
use gemba_shared::roles::Role;
use serde::{Deserialize, Serialize};

use crate::db::{devices, features, orgs, users};
use crate::state::AppState;

pub const ORG: &str = "demo";
pub const USER_EMAIL: &str = "demo@gemba.local";
pub const USER_PASSWORD: &str = "gemba-demo-1";
pub const DEVICE: &str = "Demo station";
/// The demo's analytics user (the same password): the analytics screens alone.
pub const ANALYST_EMAIL: &str = "analyst@gemba.local";
/// The demo line: the demo station, with a takt time a tenth over its target.
pub const LINE: &str = "Demo line";
pub const CAMERA: &str = "cam0";

/// Where the demo's parts are.
#[derive(Debug, Clone)]
pub struct Options {
    /// The footage the demo agent replays; its ground truth beside it
    /// (`<name>.truth.json`) holds the operation.
    pub footage: PathBuf,
    /// The model bundle.
    pub model: PathBuf,
    /// The `gemba-agent` binary.
    pub agent: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
struct Seeded {
    org: i64,
    task: i64,
    device: i64,
}

/// The demo, seeded: its organisation, task and device.
#[derive(Debug)]
pub struct Prepared(Seeded);

/// Checks the demo's files and seeds the organisation, its user, task, labelled videos
/// and device (once). Done before the server answers, so the demo user can sign in from
/// its first answer.
pub async fn prepare(state: &AppState, o: &Options) -> anyhow::Result<Prepared> {
    for (what, p) in [
        ("footage", &o.footage),
        ("model", &o.model),
        ("agent", &o.agent),
    ] {
        if !p.exists() {
            bail!(
                "the demo's {what} is missing ({}): scripts/run makes it",
                p.display()
            );
        }
    }
    let dir = state.settings.data.join("demo");
    std::fs::create_dir_all(&dir)?;
    Ok(Prepared(seed(state, &dir, &o.footage).await?))
}

/// Starts the demo agent (enrolling it first, over HTTP(S): the server must be answering);
/// answers its process, which dies with the cloud. When it cannot start (no ONNX
/// Runtime, most often), the error says why and what to do, and the demo station's page
/// shows the same ([`notice`]) while the cloud serves on.
pub async fn start(
    state: &AppState,
    o: &Options,
    Prepared(seeded): Prepared,
) -> anyhow::Result<tokio::process::Child> {
    let device = seeded.device;
    let started = start_agent(state, o, seeded).await;
    let file = notice_file(state);
    match &started {
        Ok(_) => {
            let _ = std::fs::remove_file(&file);
        }
        Err(e) => {
            let n = Notice {
                device,
                text: format!("The demo agent is not running: {e:#}"),
            };
            if let Err(w) = std::fs::write(&file, serde_json::to_vec(&n)?) {
                tracing::warn!(file = %file.display(), error = %w, "keeping the demo's notice");
            }
        }
    }
    started
}

/// Why the demo agent is not running, for the demo station's page: written by
/// [`start`] when the agent could not start, gone when it did.
#[derive(Debug, Serialize, Deserialize)]
struct Notice {
    device: i64,
    text: String,
}

fn notice_file(state: &AppState) -> PathBuf {
    state.settings.data.join("demo").join("notice.json")
}

/// Why device `device`, the demo station, has no agent running, with the fix; `None`
/// for any other device, and when the demo agent started.
pub fn notice(state: &AppState, device: i64) -> Option<String> {
    let n: Notice = serde_json::from_slice(&std::fs::read(notice_file(state)).ok()?).ok()?;
    (n.device == device).then_some(n.text)
}

/// What keeps the agent from loading ONNX Runtime (it reads `ORT_DYLIB_PATH`, inherited
/// from the cloud), with the fix; `None` when nothing does.
fn onnx_runtime_missing() -> Option<String> {
    let fix = "start the demo with ./scripts/run, or set ORT_DYLIB_PATH to libonnxruntime.so \
               from the onnxruntime wheel (pip install onnxruntime puts it in \
               site-packages/onnxruntime/capi/) and restart gemba-cloud";
    match std::env::var_os("ORT_DYLIB_PATH") {
        None => Some(format!(
            "ONNX Runtime was not found (ORT_DYLIB_PATH is not set): {fix}"
        )),
        Some(p) if !Path::new(&p).is_file() => Some(format!(
            "ONNX Runtime was not found (ORT_DYLIB_PATH names no file: {}): {fix}",
            Path::new(&p).display()
        )),
        Some(_) => None,
    }
}

async fn start_agent(
    state: &AppState,
    o: &Options,
    seeded: Seeded,
) -> anyhow::Result<tokio::process::Child> {
    if let Some(why) = onnx_runtime_missing() {
        bail!(why);
    }
    let dir = state.settings.data.join("demo");
    // Over HTTPS the certificate names the public address, not the listener's: the demo
    // agent enrols there (so its certificate must be one the agent trusts by default).
    let cloud = if state.settings.tls_cert.is_some() {
        state.settings.public_url()
    } else {
        local_url(state.settings.http)
    };
    if !dir.join("credentials.json").exists() {
        let code = crate::auth::enrolment_code();
        let expires = crate::db::now_ms() + 3600 * 1000;
        let hash = crate::auth::enrolment_code_hash(&code);
        devices::set_code(&state.db, seeded.org, seeded.device, &hash, expires).await?;
        let out = tokio::process::Command::new(&o.agent)
            .arg("--data")
            .arg(&dir)
            .args(["enroll", "--cloud", &cloud, "--code", &code])
            .output()
            .await
            .with_context(|| format!("starting {}", o.agent.display()))?;
        if !out.status.success() {
            bail!(
                "the demo agent could not enrol: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
    }
    let child = tokio::process::Command::new(&o.agent)
        .arg("--data")
        .arg(&dir)
        .arg("run")
        .arg("--camera")
        .arg(format!("{CAMERA}={}", o.footage.display()))
        .arg("--model")
        .arg(&o.model)
        .arg("--loop")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting {}", o.agent.display()))?;
    tracing::info!(
        org = seeded.org,
        device = seeded.device,
        "demo agent started; sign in as {USER_EMAIL} / {USER_PASSWORD} and open Devices \
         (or as {ANALYST_EMAIL}, the same password, for the analytics screens)"
    );
    Ok(child)
}

/// `clip` as a ready training video of `task`, labelled with its ground truth
/// (`<clip>.truth.json`, cut at the video's end).
async fn labelled_video(
    state: &AppState,
    org: i64,
    task: i64,
    user: i64,
    clip: &Path,
) -> anyhow::Result<()> {
    use crate::db::videos;
    let truth: Truth = serde_json::from_slice(&std::fs::read(clip.with_extension("truth.json"))?)?;
    let row = videos::create(
        &state.db,
        videos::NewVideo {
            org,
            task,
            file_name: &clip
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "demo.mp4".into()),
            extension: "mp4",
            is_uploaded_video: true,
            size_bytes: std::fs::metadata(clip)?.len() as i64,
            created_by: user,
            recording: None,
        },
    )
    .await?;
    // Read from a copy where uploads are staged: reading may rewrite the file.
    let staged = crate::media::upload::staging(state, row.id);
    if let Some(d) = staged.parent() {
        std::fs::create_dir_all(d)?;
    }
    std::fs::copy(clip, &staged)?;
    let read = crate::media::upload::finish(state, &row, &staged).await;
    let _ = std::fs::remove_file(&staged);
    read.map_err(|e| anyhow::anyhow!("{e}"))?;
    let row = videos::get(&state.db, org, row.id)
        .await?
        .context("the video vanished")?;
    let end = row.duration_ms.unwrap_or(0);
    let segments: Vec<gemba_shared::cycle::Segment> = truth
        .segments
        .iter()
        .filter(|g| g.start_ms < end)
        .map(|g| gemba_shared::cycle::Segment {
            step: g.step,
            start_ms: g.start_ms,
            end_ms: g.end_ms.min(end),
        })
        .collect();
    videos::save_labels(
        &state.db,
        &row,
        &serde_json::to_string(&segments)?,
        !segments.is_empty(),
        true,
        user,
    )
    .await?;
    Ok(())
}

fn local_url(addr: std::net::SocketAddr) -> String {
    let ip = if addr.ip().is_unspecified() {
        "127.0.0.1".parse().expect("an address")
    } else {
        addr.ip()
    };
    format!("http://{}", std::net::SocketAddr::new(ip, addr.port()))
}

/// The demo organisation, its task and device: made on the first start.
async fn seed(state: &AppState, dir: &Path, footage: &Path) -> anyhow::Result<Seeded> {
    let file = dir.join("demo.json");
    let existing = orgs::by_name(&state.db, ORG).await?;
    if let Some(org) = &existing {
        let seeded: Seeded = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .filter(|s: &Seeded| s.org == org.id)
            .with_context(|| {
                format!(
                    "an organisation named {ORG:?} exists but is not the demo's ({} is missing)",
                    file.display()
                )
            })?;
        return Ok(seeded);
    }
    let truth = footage.with_extension("truth.json");
    let truth: Truth = serde_json::from_slice(
        &std::fs::read(&truth).with_context(|| format!("reading {}", truth.display()))?,
    )
    .with_context(|| format!("{}: not the demo's ground truth", truth.display()))?;
    let user = match users::by_email(&state.db, USER_EMAIL).await? {
        Some(u) => u.id,
        None => {
            let hash = state.passwords.hash(USER_PASSWORD.to_string()).await?;
            users::insert(
                &state.db,
                &users::NewUser {
                    email: USER_EMAIL,
                    name: "Demo",
                    lastname: "User",
                    password_hash: &hash,
                    role: Some(Role::OrgAdmin),
                    is_active: true,
                    is_email_verified: true,
                    is_approved: true,
                    require_otp: false,
                },
            )
            .await?
        }
    };
    let (org, task) =
        crate::seed::organization_with_settings(state, ORG, &truth.task_settings(), user).await?;
    users::link(&state.db, user, org).await?;
    let all = features::list(&state.db).await?;
    for name in [
        Gated::DefineOperation,
        Gated::Devices,
        Gated::RecordTrainingSet,
        Gated::DeployModel,
    ]
    .map(Gated::name)
    {
        let f = all
            .iter()
            .find(|f| f.name == name)
            .with_context(|| format!("the feature {name:?} is not seeded"))?;
        features::subscribe(&state.db, f.id, org, false).await?;
    }
    // The training clip first, so that training holds the replayed footage out.
    let mut clips = vec![];
    let train = footage.with_file_name("demo-train.mp4");
    if train.exists() {
        clips.push(train);
    }
    clips.push(footage.to_path_buf());
    for clip in &clips {
        labelled_video(state, org, task, user, clip)
            .await
            .with_context(|| format!("adding {} as a training video", clip.display()))?;
    }
    let device =
        crate::seed::device_with_code(state, org, DEVICE, &crate::auth::enrolment_code()).await?;
    devices::set_camera_task(&state.db, device, CAMERA, Some(task)).await?;
    let target_s = truth
        .task_settings()
        .steps_avg_time
        .get("cycle_time")
        .and_then(|v| v.as_f64());
    crate::db::lines::create(
        &state.db,
        org,
        LINE,
        target_s.map(|t| (t * 1100.0).round() as i64),
        &[gemba_shared::api::v1::line::Station { task, device }],
    )
    .await?;
    if users::by_email(&state.db, ANALYST_EMAIL).await?.is_none() {
        let hash = state.passwords.hash(USER_PASSWORD.to_string()).await?;
        let analyst = users::insert(
            &state.db,
            &users::NewUser {
                email: ANALYST_EMAIL,
                name: "Demo",
                lastname: "Analyst",
                password_hash: &hash,
                role: Some(Role::AnalyticsUser),
                is_active: true,
                is_email_verified: true,
                is_approved: true,
                require_otp: false,
            },
        )
        .await?;
        users::link(&state.db, analyst, org).await?;
    }
    let seeded = Seeded { org, task, device };
    std::fs::write(&file, serde_json::to_vec(&seeded)?)?;
    Ok(seeded)
}
