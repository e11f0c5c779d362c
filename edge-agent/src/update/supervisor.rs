//! What the supervisor does when the agent it runs exits, or time passes: plain logic
//! over the update [`Record`], apart from processes and files (`supervise.rs` acts on
//! its answers).

use std::time::Duration;

use super::{Phase, Record, UPDATE_EXIT};

/// The first wait before an agent that exited is started again; it doubles with each
/// exit that comes soon after a start, up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// An agent up this long before it exits is started again after the first wait.
pub const STEADY: Duration = Duration::from_secs(60);

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The record to write, when it changes.
    pub record: Option<Record>,
    /// The version to run from now on, when it changes (`Some(None)`: the installed
    /// binary).
    pub current: Option<Option<String>>,
    /// How long to wait before starting the agent again.
    pub wait: Duration,
}

/// The supervisor's memory between exits.
#[derive(Debug, Clone)]
pub struct Supervisor {
    /// How long a trial may take.
    pub health_timeout: Duration,
    backoff: Duration,
}

impl Supervisor {
    pub fn new(health_timeout: Duration) -> Supervisor {
        Supervisor {
            health_timeout,
            backoff: FIRST_BACKOFF,
        }
    }

    /// When the supervisor starts, before the first agent: a trial it finds was cut
    /// short (the device restarted while a release was on trial) goes back; a staged
    /// release begins its trial.
    pub fn on_start(&mut self, record: Option<&Record>, now_ms: i64) -> Decision {
        match record.map(|r| (&r.phase, r)) {
            Some((Phase::Trying { .. }, r)) => roll_back(
                r,
                format!(
                    "the device restarted while version {} was on trial",
                    r.version
                ),
            ),
            Some((Phase::Staged, r)) => self.begin_trial(r, now_ms),
            _ => Decision {
                record: None,
                current: None,
                wait: Duration::ZERO,
            },
        }
    }

    /// The agent exited with `code` (`None`: killed by a signal) after running `ran`.
    pub fn on_exit(
        &mut self,
        record: Option<&Record>,
        code: Option<i32>,
        ran: Duration,
        now_ms: i64,
    ) -> Decision {
        match record.map(|r| (&r.phase, r)) {
            Some((Phase::Staged, r)) if code == Some(UPDATE_EXIT) => self.begin_trial(r, now_ms),
            Some((Phase::Trying { .. }, r)) => roll_back(
                r,
                format!(
                    "version {} {} before it came back healthy",
                    r.version,
                    match code {
                        Some(c) => format!("exited with code {c}"),
                        None => "was killed".to_string(),
                    }
                ),
            ),
            _ => {
                if ran >= STEADY {
                    self.backoff = FIRST_BACKOFF;
                }
                let wait = self.backoff;
                self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
                Decision {
                    record: None,
                    current: None,
                    wait,
                }
            }
        }
    }

    /// Time passes while an agent runs: a trial past its deadline goes back (the
    /// supervisor then stops the agent on trial, and starts the one before).
    pub fn on_tick(&self, record: Option<&Record>, now_ms: i64) -> Option<Decision> {
        match record.map(|r| (&r.phase, r)) {
            Some((Phase::Trying { deadline_ms }, r)) if now_ms > *deadline_ms => Some(roll_back(
                r,
                format!(
                    "version {} did not come back healthy within {} s",
                    r.version,
                    self.health_timeout.as_secs()
                ),
            )),
            _ => None,
        }
    }

    fn begin_trial(&mut self, r: &Record, now_ms: i64) -> Decision {
        self.backoff = FIRST_BACKOFF;
        Decision {
            record: Some(Record {
                phase: Phase::Trying {
                    deadline_ms: now_ms + self.health_timeout.as_millis() as i64,
                },
                ..r.clone()
            }),
            current: Some(Some(r.version.clone())),
            wait: Duration::ZERO,
        }
    }
}

fn roll_back(r: &Record, why: String) -> Decision {
    Decision {
        record: Some(Record {
            phase: Phase::RolledBack { why },
            ..r.clone()
        }),
        current: Some(r.previous.clone()),
        wait: Duration::ZERO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(phase: Phase) -> Record {
        Record {
            release: 7,
            version: "2.0.0".into(),
            previous: Some("1.0.0".into()),
            phase,
        }
    }

    fn why(d: &Decision) -> String {
        match &d.record.as_ref().unwrap().phase {
            Phase::RolledBack { why } => why.clone(),
            p => panic!("not rolled back: {p:?}"),
        }
    }

    #[test]
    fn a_staged_release_is_tried_and_one_that_exits_on_trial_goes_back() {
        let mut s = Supervisor::new(Duration::from_secs(120));
        let staged = rec(Phase::Staged);
        // The agent staged it and exited for it: tried at once, with a deadline.
        let d = s.on_exit(
            Some(&staged),
            Some(UPDATE_EXIT),
            Duration::from_secs(500),
            1_000,
        );
        assert_eq!(d.current, Some(Some("2.0.0".into())));
        assert_eq!(d.wait, Duration::ZERO);
        let trying = d.record.unwrap();
        assert_eq!(
            trying.phase,
            Phase::Trying {
                deadline_ms: 121_000
            }
        );
        // It exits before it is healthy: back to the version before, with why.
        let d = s.on_exit(Some(&trying), Some(3), Duration::from_secs(1), 2_000);
        assert_eq!(d.current, Some(Some("1.0.0".into())));
        assert_eq!(
            why(&d),
            "version 2.0.0 exited with code 3 before it came back healthy"
        );
        let d = s.on_exit(Some(&trying), None, Duration::from_secs(1), 2_000);
        assert!(why(&d).contains("was killed"));
        // Back to the installed binary when nothing under bin/ ran before.
        let first = Record {
            previous: None,
            ..trying.clone()
        };
        assert_eq!(
            s.on_exit(Some(&first), Some(0), Duration::ZERO, 0).current,
            Some(None)
        );
    }

    #[test]
    fn a_trial_past_its_deadline_goes_back_and_a_healthy_one_stays() {
        let s = Supervisor::new(Duration::from_secs(120));
        let trying = rec(Phase::Trying { deadline_ms: 5_000 });
        assert_eq!(s.on_tick(Some(&trying), 5_000), None);
        let d = s.on_tick(Some(&trying), 5_001).unwrap();
        assert_eq!(d.current, Some(Some("1.0.0".into())));
        assert_eq!(
            why(&d),
            "version 2.0.0 did not come back healthy within 120 s"
        );
        assert_eq!(s.on_tick(Some(&rec(Phase::Healthy)), 9_999_999), None);
        assert_eq!(s.on_tick(None, 9_999_999), None);
    }

    #[test]
    fn a_plain_exit_waits_longer_each_time_until_the_agent_ran_steadily() {
        let mut s = Supervisor::new(Duration::from_secs(120));
        let healthy = rec(Phase::Healthy);
        let waits: Vec<u64> = (0..7)
            .map(|_| {
                let d = s.on_exit(Some(&healthy), Some(1), Duration::from_secs(2), 0);
                assert_eq!((d.record, d.current), (None, None));
                d.wait.as_secs()
            })
            .collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30]);
        // Up for a minute: the first wait again.
        assert_eq!(s.on_exit(None, Some(1), STEADY, 0).wait, FIRST_BACKOFF);
        // The update exit code without a staged release is a plain exit too.
        assert_eq!(s.on_exit(None, Some(UPDATE_EXIT), STEADY, 0).current, None);
    }

    #[test]
    fn at_start_a_cut_trial_goes_back_and_a_staged_release_is_tried() {
        let mut s = Supervisor::new(Duration::from_secs(60));
        let d = s.on_start(Some(&rec(Phase::Trying { deadline_ms: 0 })), 10);
        assert!(why(&d).contains("restarted while version 2.0.0 was on trial"));
        let d = s.on_start(Some(&rec(Phase::Staged)), 10);
        assert_eq!(
            d.record.unwrap().phase,
            Phase::Trying {
                deadline_ms: 60_010
            }
        );
        let d = s.on_start(Some(&rec(Phase::Healthy)), 10);
        assert_eq!((d.record, d.current), (None, None));
    }
}
