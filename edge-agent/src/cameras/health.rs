//! Cameras whose task failed, and when the agent starts them again: plain bookkeeping,
//! no I/O (the agent's loop asks it what is due and tells it what happened).
//!
//! Invariants:
//! - A camera is here from its first failure until it is stopped or given a new start
//!   by the cloud ([`Health::forget`]); while it is retried it stays here, so a source
//!   that keeps failing backs off further each time ([`delay`]: 2 s doubling to 5 min).
//! - A retry that ran for [`STABLE_MS`] before it failed again counts as a new run of
//!   failures: the back-off starts over, and so does `since_ms`.
//! - Only a camera waiting (not being retried) is [`Health::due`] or reported as failed.

use std::collections::BTreeMap;

use gemba_shared::api::v1::device::CameraEventKind;

/// The first wait before a failed camera is started again.
pub const FIRST_RETRY_MS: i64 = 2_000;
/// The longest wait.
pub const MAX_RETRY_MS: i64 = 300_000;
/// A retry that ran this long was a recovery.
pub const STABLE_MS: i64 = 60_000;

/// The wait before try number `attempts + 1` after `attempts` failures in a row.
pub fn delay(attempts: u32) -> i64 {
    FIRST_RETRY_MS
        .saturating_mul(1 << attempts.saturating_sub(1).min(20))
        .min(MAX_RETRY_MS)
}

/// One failed camera, as its status reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// Why, in words a technician can act on.
    pub error: String,
    /// Failing since (the first failure of this run).
    pub since_ms: i64,
    /// When it is started again.
    pub retry_at_ms: i64,
    /// What failed: its source (`Offline`) or its model (`Model`).
    pub kind: CameraEventKind,
}

#[derive(Debug, Clone)]
struct Entry {
    failure: Failure,
    /// Failures in a row.
    attempts: u32,
    /// Set while a retry runs: when it started.
    retried_at: Option<i64>,
}

/// The failed cameras of one agent.
#[derive(Debug, Default)]
pub struct Health {
    cameras: BTreeMap<String, Entry>,
}

impl Health {
    /// `camera` failed at `now` with `error`: answers when it is tried again.
    pub fn failed(
        &mut self,
        camera: &str,
        error: String,
        kind: CameraEventKind,
        now: i64,
    ) -> &Failure {
        let fresh = |failure| Entry {
            failure,
            attempts: 0,
            retried_at: None,
        };
        let e = self.cameras.entry(camera.to_string()).or_insert_with(|| {
            fresh(Failure {
                error: String::new(),
                since_ms: now,
                retry_at_ms: now,
                kind,
            })
        });
        if e.retried_at.is_some_and(|at| now - at >= STABLE_MS) || e.failure.kind != kind {
            *e = fresh(Failure {
                error: String::new(),
                since_ms: now,
                retry_at_ms: now,
                kind,
            });
        }
        e.attempts += 1;
        e.retried_at = None;
        e.failure.error = error;
        e.failure.retry_at_ms = now + delay(e.attempts);
        &e.failure
    }

    /// `camera` was started again at `now` (its worker runs).
    pub fn retrying(&mut self, camera: &str, now: i64) {
        if let Some(e) = self.cameras.get_mut(camera) {
            e.retried_at = Some(now);
        }
    }

    /// Forgets `camera` (stopped, or started anew by the cloud).
    pub fn forget(&mut self, camera: &str) {
        self.cameras.remove(camera);
    }

    /// Cameras waiting whose retry time has come.
    pub fn due(&self, now: i64) -> Vec<String> {
        self.cameras
            .iter()
            .filter(|(_, e)| e.retried_at.is_none() && e.failure.retry_at_ms <= now)
            .map(|(c, _)| c.clone())
            .collect()
    }

    /// How `camera` failed, from its first failure of this run until it is forgotten
    /// or a retry ran long enough to count as a recovery, retries included.
    pub fn failing(&self, camera: &str) -> Option<&Failure> {
        self.cameras.get(camera).map(|e| &e.failure)
    }

    /// How `camera` failed, while it waits for its retry.
    pub fn failure(&self, camera: &str) -> Option<&Failure> {
        self.cameras
            .get(camera)
            .filter(|e| e.retried_at.is_none())
            .map(|e| &e.failure)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_doubles_from_two_seconds_to_five_minutes() {
        let waits: Vec<i64> = (1..=10).map(delay).collect();
        assert_eq!(
            waits,
            [
                2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000
            ]
        );
        assert_eq!(delay(u32::MAX), MAX_RETRY_MS);
    }

    #[test]
    fn a_camera_failing_again_backs_off_further_and_keeps_its_since() {
        let mut h = Health::default();
        assert_eq!(
            h.failed("cam0", "no stream".into(), CameraEventKind::Offline, 1_000)
                .retry_at_ms,
            3_000
        );
        assert!(h.due(2_999).is_empty());
        assert_eq!(h.due(3_000), ["cam0"]);
        h.retrying("cam0", 3_000);
        assert!(h.due(10_000).is_empty(), "not due while a retry runs");
        assert_eq!(h.failure("cam0"), None, "a retry running is not a failure");
        let f = h
            .failed(
                "cam0",
                "still no stream".into(),
                CameraEventKind::Offline,
                3_500,
            )
            .clone();
        assert_eq!(
            f,
            Failure {
                error: "still no stream".into(),
                since_ms: 1_000,
                retry_at_ms: 7_500,
                kind: CameraEventKind::Offline,
            }
        );
        assert_eq!(h.failure("cam0"), Some(&f));
    }

    #[test]
    fn a_retry_that_ran_a_minute_starts_the_back_off_over() {
        let mut h = Health::default();
        for t in [0, 10_000, 20_000] {
            h.failed("cam0", "x".into(), CameraEventKind::Offline, t);
            h.retrying("cam0", t + 1);
        }
        let f = h
            .failed("cam0", "y".into(), CameraEventKind::Offline, 30_000)
            .clone();
        assert_eq!(f.retry_at_ms, 30_000 + 16_000);
        h.retrying("cam0", 50_000);
        let f = h
            .failed(
                "cam0",
                "z".into(),
                CameraEventKind::Offline,
                50_000 + STABLE_MS,
            )
            .clone();
        assert_eq!(f.since_ms, 50_000 + STABLE_MS);
        assert_eq!(f.retry_at_ms, 50_000 + STABLE_MS + FIRST_RETRY_MS);
    }

    #[test]
    fn a_forgotten_camera_is_neither_due_nor_failed() {
        let mut h = Health::default();
        h.failed("cam0", "x".into(), CameraEventKind::Offline, 0);
        h.failed("cam1", "y".into(), CameraEventKind::Offline, 0);
        h.forget("cam0");
        assert_eq!(h.due(i64::MAX), ["cam1"]);
        assert_eq!(h.failure("cam0"), None);
    }

    #[test]
    fn a_failure_stays_while_retried_and_another_kind_is_another_run() {
        let mut h = Health::default();
        h.failed("cam0", "no stream".into(), CameraEventKind::Offline, 1_000);
        h.retrying("cam0", 3_000);
        // Retried: not waiting, but still failing since its first failure.
        assert_eq!(h.failure("cam0"), None);
        assert_eq!(
            h.failing("cam0").map(|f| (f.kind, f.since_ms)),
            Some((CameraEventKind::Offline, 1_000))
        );
        // Its model fails now: another run of failures, from now.
        let f = h
            .failed("cam0", "model".into(), CameraEventKind::Model, 9_000)
            .clone();
        assert_eq!(
            (f.kind, f.since_ms, f.retry_at_ms),
            (CameraEventKind::Model, 9_000, 11_000)
        );
        h.forget("cam0");
        assert_eq!(h.failing("cam0"), None);
    }
}
