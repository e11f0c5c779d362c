//! `gemba-agent supervise`: the process the service manager runs. It runs `gemba-agent
//! run` (the installed binary, or the release `update/current` names), starts it again
//! when it exits, takes the release it staged, and goes back when that release does not
//! come back healthy (`supervisor.rs` decides; this acts). SIGTERM or SIGINT stop the
//! agent the way the service manager would (SIGTERM, then SIGKILL after a grace) and
//! then the supervisor.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use anyhow::Context;
use tokio::process::{Child, Command};
use tokio::signal::unix::{SignalKind, signal};

use super::supervisor::{Decision, Supervisor};
use super::{SUPERVISED_ENV, binary, current, load, save, set_current};
use crate::clock::now_ms;

/// How long a stopped agent has to close its cycles before it is killed.
const GRACE: Duration = Duration::from_secs(60);

pub struct Options {
    /// The agent's data folder.
    pub data: PathBuf,
    /// The installed binary (this one), run when no release is current.
    pub installed: PathBuf,
    /// The arguments after `run`.
    pub run_args: Vec<OsString>,
    /// How long a new release has to come back healthy.
    pub health_timeout: Duration,
}

/// Runs the agent until SIGTERM or SIGINT.
pub async fn supervise(opts: Options) -> anyhow::Result<()> {
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut sup = Supervisor::new(opts.health_timeout);
    let d = sup.on_start(load(&opts.data).as_ref(), now_ms());
    apply(&opts, &d)?;
    loop {
        let version = current(&opts.data);
        let exe = version
            .as_deref()
            .map_or_else(|| opts.installed.clone(), |v| binary(&opts.data, v));
        tracing::info!(exe = %exe.display(), "starting the agent");
        let started = Instant::now();
        let exited: Option<ExitStatus> = match spawn(&opts, &exe) {
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "the agent could not start");
                None
            }
            Ok(mut child) => {
                let mut tick = tokio::time::interval(Duration::from_millis(250));
                loop {
                    tokio::select! {
                        s = child.wait() => break Some(s?),
                        _ = term.recv() => return stop(child, "SIGTERM").await,
                        _ = int.recv() => return stop(child, "SIGINT").await,
                        _ = tick.tick() => {
                            if let Some(d) = sup.on_tick(load(&opts.data).as_ref(), now_ms()) {
                                tracing::warn!("the release on trial is late: going back");
                                apply(&opts, &d)?;
                                end(&mut child).await;
                                break Some(child.wait().await?);
                            }
                        }
                    }
                }
            }
        };
        let code = exited.and_then(|s| s.code());
        tracing::info!(?code, "the agent exited");
        let d = sup.on_exit(
            load(&opts.data).as_ref(),
            if exited.is_some() { code } else { Some(127) },
            started.elapsed(),
            now_ms(),
        );
        apply(&opts, &d)?;
        tokio::select! {
            _ = tokio::time::sleep(d.wait) => {}
            _ = term.recv() => return Ok(()),
            _ = int.recv() => return Ok(()),
        }
    }
}

fn spawn(opts: &Options, exe: &std::path::Path) -> anyhow::Result<Child> {
    Command::new(exe)
        .arg("--data")
        .arg(&opts.data)
        .arg("run")
        .args(&opts.run_args)
        .env(SUPERVISED_ENV, "1")
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("running {}", exe.display()))
}

/// Writes what `d` changes.
fn apply(opts: &Options, d: &Decision) -> anyhow::Result<()> {
    if let Some(r) = &d.record {
        save(&opts.data, r).context("writing update.json")?;
    }
    if let Some(v) = &d.current {
        tracing::info!(
            version = v.as_deref().unwrap_or("installed"),
            "the agent to run"
        );
        set_current(&opts.data, v.as_deref()).context("writing update/current")?;
    }
    Ok(())
}

/// Stops the agent (SIGTERM, then SIGKILL after [`GRACE`]), then the supervisor.
async fn stop(mut child: Child, signal: &str) -> anyhow::Result<()> {
    tracing::info!(signal, "stopping the agent");
    end(&mut child).await;
    Ok(())
}

async fn end(child: &mut Child) {
    let pid = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32));
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        if tokio::time::timeout(GRACE, child.wait()).await.is_ok() {
            return;
        }
        tracing::warn!("the agent did not stop within the grace: killed");
    }
    let _ = child.kill().await;
}
