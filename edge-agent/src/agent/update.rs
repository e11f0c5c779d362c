//! The running agent's part in a self-update (`crate::update`): taking a release the
//! cloud offers, and, when this version is on trial, saying it came back healthy once
//! it is linked to the broker and has been up for the settle time.

use std::time::Instant;

use gemba_shared::mqtt::v1::{UpdateReport, UpdateState};

use super::Agent;
use crate::update::install::{self, Offer, Taken};
use crate::update::{self, Phase, Record, version::version};

/// The agent's self-update state.
pub(super) struct Updates {
    /// Its latest update, as the status reports it.
    pub report: Option<UpdateReport>,
    /// This version is on trial since then: healthy once linked and settled.
    pub trial_since: Option<Instant>,
    /// A release is staged: the agent stops for the supervisor to run it.
    pub restart: bool,
    /// The release key of the enrolment.
    pub release_key: Option<String>,
    /// Run by `gemba-agent supervise`.
    pub supervised: bool,
    /// The supervisor's process, when supervised: the agent stops when it is gone.
    parent: Option<rustix::process::Pid>,
}

impl Updates {
    /// What the data folder says of the latest update, for this version.
    pub fn load(data: &std::path::Path, release_key: Option<String>) -> Updates {
        let record = update::load(data);
        let mine = record.as_ref().is_some_and(|r| r.version == version());
        let trial = mine
            && matches!(
                record.as_ref().map(|r| &r.phase),
                Some(Phase::Trying { .. })
            );
        Updates {
            report: record.as_ref().map(Record::report),
            trial_since: trial.then(Instant::now),
            restart: false,
            release_key,
            supervised: std::env::var_os(update::SUPERVISED_ENV).is_some(),
            parent: std::env::var_os(update::SUPERVISED_ENV)
                .and_then(|_| rustix::process::getppid()),
        }
    }

    /// The supervisor that started this agent is gone (killed without stopping it):
    /// the agent stops too, rather than run on unsupervised.
    pub fn orphaned(&self) -> bool {
        self.parent
            .is_some_and(|p| rustix::process::getppid() != Some(p))
    }
}

impl Agent {
    /// Takes release `offer`: the acknowledgement's message, or why it was refused.
    pub(super) async fn take_release(&mut self, offer: Offer) -> anyhow::Result<String> {
        self.updates.report = Some(UpdateReport {
            release: offer.release,
            version: offer.version.clone(),
            state: UpdateState::Downloading,
            detail: None,
        });
        let taken = install::take(
            &self.cfg.data,
            &self.http,
            self.updates.release_key.as_deref(),
            self.updates.supervised,
            &offer,
        )
        .await;
        match taken {
            Ok(Taken::Already) => {
                self.updates.report = Some(UpdateReport {
                    state: UpdateState::Done,
                    ..self.updates.report.take().expect("set above")
                });
                Ok(format!("already runs version {}", offer.version))
            }
            Ok(Taken::Staged) => {
                tracing::info!(
                    version = offer.version,
                    "release checked and in place: restarting into it"
                );
                self.updates.report = update::load(&self.cfg.data).map(|r| r.report());
                self.updates.restart = true;
                Ok(format!(
                    "version {} checked and in place: restarting into it",
                    offer.version
                ))
            }
            Err(e) => {
                let why = format!("{e:#}");
                tracing::error!(version = offer.version, why, "release refused");
                self.updates.report = Some(install::refused(&self.cfg.data, &offer, &why).report());
                Err(e)
            }
        }
    }

    /// On trial: once linked to the broker and up for the settle time, this version is
    /// healthy (the supervisor keeps it) and the older releases go. Called every second.
    pub(super) fn tend_trial(&mut self, linked: bool) {
        let Some(since) = self.updates.trial_since else {
            return;
        };
        if !linked || since.elapsed() < self.cfg.update_settle {
            return;
        }
        self.updates.trial_since = None;
        let Some(r) = update::load(&self.cfg.data) else {
            return;
        };
        if r.version != version() || !matches!(r.phase, Phase::Trying { .. }) {
            // The supervisor gave up on this trial already.
            return;
        }
        let healthy = Record {
            phase: Phase::Healthy,
            ..r
        };
        if let Err(e) = update::save(&self.cfg.data, &healthy) {
            tracing::error!(error = %e, "noting this version healthy");
            return;
        }
        tracing::info!(version = healthy.version, "this version came back healthy");
        install::prune(
            &self.cfg.data,
            &[Some(healthy.version.as_str()), healthy.previous.as_deref()],
        );
        self.updates.report = Some(healthy.report());
    }
}
