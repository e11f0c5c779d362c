//! A release's roll-out as plain logic (issue 30): which devices take part and in which
//! wave ([`waves`], [`newcomer_wave`]), what a device's status says of its progress
//! ([`progress`]), and what the roll-out does next ([`decide`]): send the release to
//! whom, stop, or end. No I/O here: `crate::releases` reads the rows, calls these and
//! writes what they answer.
//!
//! Invariants:
//! - the first wave is [`FIRST_WAVE_SHARE`] of the devices (at least one); the second
//!   wave is sent only once every device of the first is `done`;
//! - the first device `failed` or `rolled_back` stops the roll-out (its reason names
//!   the device and its words); going on sends the release to the failed devices
//!   again ([`resume`]);
//! - a device is sent the release only while it is online, and sent it again while it
//!   has not acknowledged it: at once when it comes back online, else after
//!   [`RESEND_AFTER`];
//! - a failure report of a device sent the release again, before it acknowledged the
//!   new command, is the previous attempt's and changes nothing.

use std::time::Duration;

use gemba_shared::api::v1::release::{FIRST_WAVE_SHARE, state};
use gemba_shared::mqtt::v1::{UpdateReport, UpdateState};

/// How long a sent release waits for its acknowledgement before it is sent again to a
/// device that stayed online.
pub const RESEND_AFTER: Duration = Duration::from_secs(20);

/// One device of a roll-out, as `crate::releases` reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub device: i64,
    pub name: String,
    /// 1: the first wave; 2: the rest.
    pub wave: i32,
    pub state: UpdateState,
    pub detail: Option<String>,
    /// When the release was last sent to it.
    pub sent_at: Option<i64>,
    /// It acknowledged the last command sent.
    pub acked: bool,
    pub online: bool,
}

/// The size of the first wave of `n` devices: [`FIRST_WAVE_SHARE`] of them, rounded up,
/// at least one.
pub fn first_wave(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    ((n as f64 * FIRST_WAVE_SHARE).ceil() as usize).clamp(1, n)
}

/// The waves of a roll-out beginning over `devices`: the first [`first_wave`] of them
/// in id order in wave 1, the rest in wave 2.
pub fn waves(devices: &[i64]) -> Vec<(i64, i32)> {
    let mut d = devices.to_vec();
    d.sort_unstable();
    d.dedup();
    let k = first_wave(d.len());
    d.into_iter()
        .enumerate()
        .map(|(i, id)| (id, if i < k { 1 } else { 2 }))
        .collect()
}

/// The wave of a device that joins a roll-out already under way (it began following
/// the environment, or its agent became updatable): the first when the roll-out has no
/// device yet, else the second (it goes once the first wave is done).
pub fn newcomer_wave(members: &[Member]) -> i32 {
    if members.is_empty() { 1 } else { 2 }
}

/// What a device's status says of member `m` of the roll-out of release `release`
/// (`version`): its new state and detail, or `None` when nothing changed. The agent
/// running the version is `done`, whatever its report; a report of this release moves
/// the device on, but not before it was sent the release, and a failure not before it
/// acknowledged the latest send (see the module's invariants).
pub fn progress(
    m: &Member,
    release: i64,
    version: &str,
    agent_version: &str,
    report: Option<&UpdateReport>,
) -> Option<(UpdateState, Option<String>)> {
    if m.state == UpdateState::Done {
        return None;
    }
    if agent_version == version {
        return Some((UpdateState::Done, None));
    }
    let r = report.filter(|r| r.release == release)?;
    if m.state == UpdateState::Pending || r.state == m.state {
        return None;
    }
    let failure = matches!(r.state, UpdateState::Failed | UpdateState::RolledBack);
    if failure && m.state == UpdateState::Sent && !m.acked {
        return None;
    }
    if m.state.is_final() {
        // Failed and not yet sent again: stays so until the roll-out goes on.
        return None;
    }
    match r.state {
        // A device running another version that says done: believe the version.
        UpdateState::Done => None,
        UpdateState::Pending | UpdateState::Sent => None,
        s => Some((s, r.detail.clone())),
    }
}

/// What a roll-out does next.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Decision {
    /// Stop it, for this reason.
    pub stop: Option<String>,
    /// Every device runs the release: it is deployed.
    pub deployed: bool,
    /// Send the release now to these devices (for the first time, or again).
    pub send: Vec<i64>,
}

/// The next step of a roll-out in `current` state with `members`, at `now` (ms);
/// `back`: a device just back online (its unacknowledged command goes again at once).
pub fn decide(current: &str, members: &[Member], now: i64, back: Option<i64>) -> Decision {
    let mut d = Decision::default();
    if current != state::ROLLING_OUT {
        return d;
    }
    if let Some(f) = members
        .iter()
        .find(|m| matches!(m.state, UpdateState::Failed | UpdateState::RolledBack))
    {
        let what = if f.state == UpdateState::Failed {
            "failed"
        } else {
            "rolled back"
        };
        d.stop = Some(match &f.detail {
            Some(detail) if !detail.is_empty() => {
                format!("{} (device {}) {what}: {detail}", f.name, f.device)
            }
            _ => format!("{} (device {}) {what}.", f.name, f.device),
        });
        return d;
    }
    if members.is_empty() {
        return d;
    }
    if members.iter().all(|m| m.state == UpdateState::Done) {
        d.deployed = true;
        return d;
    }
    let first_done = members
        .iter()
        .filter(|m| m.wave == 1)
        .all(|m| m.state == UpdateState::Done);
    let resend = RESEND_AFTER.as_millis() as i64;
    d.send = members
        .iter()
        .filter(|m| m.online && (m.wave == 1 || first_done))
        .filter(|m| match m.state {
            UpdateState::Pending => true,
            UpdateState::Sent if !m.acked => {
                back == Some(m.device) || m.sent_at.is_none_or(|at| now - at >= resend)
            }
            _ => false,
        })
        .map(|m| m.device)
        .collect();
    d
}

/// Going on with a stopped roll-out: the members that failed, to be sent the release
/// again.
pub fn resume(members: &[Member]) -> Vec<i64> {
    members
        .iter()
        .filter(|m| matches!(m.state, UpdateState::Failed | UpdateState::RolledBack))
        .map(|m| m.device)
        .collect()
}

/// The state a release takes when it enters an environment with `devices` to bring to
/// it: rolling out, or uploaded when there are none yet.
pub fn entering(devices: usize) -> &'static str {
    if devices == 0 {
        state::UPLOADED
    } else {
        state::ROLLING_OUT
    }
}

/// Whether a release in `current` state is superseded by a newer one of its
/// environment and target: every state but `deployed` (kept as history) and
/// `superseded`.
pub fn superseded_by_newer(current: &str) -> bool {
    matches!(
        current,
        state::UPLOADED | state::ROLLING_OUT | state::STOPPED
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(device: i64, wave: i32, state: UpdateState) -> Member {
        Member {
            device,
            name: format!("D{device}"),
            wave,
            state,
            detail: None,
            sent_at: Some(0),
            acked: false,
            online: true,
        }
    }

    fn report(release: i64, state: UpdateState, detail: Option<&str>) -> UpdateReport {
        UpdateReport {
            release,
            version: "2.0.0".into(),
            state,
            detail: detail.map(Into::into),
        }
    }

    use UpdateState::*;

    #[test]
    fn the_first_wave_is_a_tenth_and_at_least_one() {
        assert_eq!(first_wave(0), 0);
        assert_eq!(first_wave(1), 1);
        assert_eq!(first_wave(3), 1);
        assert_eq!(first_wave(10), 1);
        assert_eq!(first_wave(11), 2);
        assert_eq!(first_wave(100), 10);
        let w = waves(&[5, 3, 9, 1, 7, 2, 8, 4, 6, 10, 11, 3]);
        assert_eq!(w.len(), 11);
        assert_eq!(w[0], (1, 1));
        assert_eq!(w[1], (2, 1));
        assert!(w[2..].iter().all(|(_, wave)| *wave == 2));
    }

    #[test]
    fn the_second_wave_waits_for_every_device_of_the_first() {
        let mut ms = vec![m(1, 1, Pending), m(2, 1, Pending), m(3, 2, Pending)];
        let d = decide(state::ROLLING_OUT, &ms, 0, None);
        assert_eq!(d.send, vec![1, 2]);
        ms[0].state = Done;
        ms[1].state = Restarting;
        assert_eq!(
            decide(state::ROLLING_OUT, &ms, 0, None).send,
            Vec::<i64>::new()
        );
        ms[1].state = Done;
        let d = decide(state::ROLLING_OUT, &ms, 0, None);
        assert_eq!(d.send, vec![3]);
        assert!(!d.deployed);
        ms[2].state = Done;
        let d = decide(state::ROLLING_OUT, &ms, 0, None);
        assert!(d.deployed && d.send.is_empty());
        // Nothing happens to a roll-out that is not under way.
        ms[2].state = Pending;
        for s in [
            state::STOPPED,
            state::UPLOADED,
            state::SUPERSEDED,
            state::DEPLOYED,
        ] {
            assert_eq!(decide(s, &ms, 0, None), Decision::default(), "{s}");
        }
    }

    #[test]
    fn the_first_failure_stops_it_naming_the_device_and_going_on_sends_again() {
        let mut ms = vec![m(1, 1, Sent), m(2, 1, Downloading), m(3, 2, Pending)];
        ms[1].state = RolledBack;
        ms[1].detail = Some("the new version did not come back in 120 s".into());
        let d = decide(state::ROLLING_OUT, &ms, 0, None);
        assert_eq!(
            d.stop.as_deref(),
            Some("D2 (device 2) rolled back: the new version did not come back in 120 s")
        );
        assert!(d.send.is_empty());
        ms[1].detail = None;
        ms[1].state = Failed;
        assert_eq!(
            decide(state::ROLLING_OUT, &ms, 0, None).stop.as_deref(),
            Some("D2 (device 2) failed.")
        );
        // Going on: the failed device is sent the release again.
        assert_eq!(resume(&ms), vec![2]);
        ms[1].state = Pending;
        let d = decide(state::ROLLING_OUT, &ms, 0, None);
        assert_eq!((d.stop, d.send), (None, vec![2]));
    }

    #[test]
    fn offline_devices_wait_and_unanswered_sends_go_again() {
        let mut ms = vec![m(1, 1, Pending), m(2, 1, Sent)];
        ms[0].online = false;
        ms[1].sent_at = Some(1_000);
        let wait = RESEND_AFTER.as_millis() as i64;
        assert!(
            decide(state::ROLLING_OUT, &ms, 1_000 + wait - 1, None)
                .send
                .is_empty()
        );
        assert_eq!(
            decide(state::ROLLING_OUT, &ms, 1_000 + wait, None).send,
            vec![2]
        );
        // Back online: at once.
        assert_eq!(
            decide(state::ROLLING_OUT, &ms, 1_001, Some(2)).send,
            vec![2]
        );
        // Acknowledged: never again (progress comes in its statuses).
        ms[1].acked = true;
        assert!(
            decide(state::ROLLING_OUT, &ms, 1_000_000, Some(2))
                .send
                .is_empty()
        );
        // The offline device, online again.
        ms[0].online = true;
        assert_eq!(decide(state::ROLLING_OUT, &ms, 0, Some(1)).send, vec![1]);
    }

    #[test]
    fn devices_that_join_later_go_with_the_second_wave() {
        assert_eq!(newcomer_wave(&[]), 1);
        let ms = vec![m(1, 1, Sent)];
        assert_eq!(newcomer_wave(&ms), 2);
        let mut ms = vec![m(1, 1, Sent), m(9, newcomer_wave(&ms), Pending)];
        assert!(decide(state::ROLLING_OUT, &ms, 0, None).send.is_empty());
        ms[0].state = Done;
        assert_eq!(decide(state::ROLLING_OUT, &ms, 0, None).send, vec![9]);
    }

    #[test]
    fn a_status_moves_a_device_on_only_with_its_own_release() {
        let mut x = m(1, 1, Sent);
        let p =
            |x: &Member, agent: &str, r: Option<&UpdateReport>| progress(x, 7, "2.0.0", agent, r);
        // Running the version: done, with or without a report.
        assert_eq!(p(&x, "2.0.0", None), Some((Done, None)));
        // Another release's report, or none: nothing.
        assert_eq!(p(&x, "1.0.0", Some(&report(6, Downloading, None))), None);
        assert_eq!(p(&x, "1.0.0", None), None);
        let r = report(7, Downloading, None);
        assert_eq!(p(&x, "1.0.0", Some(&r)), Some((Downloading, None)));
        // A failure before the device acknowledged this send: the previous attempt's.
        let failed = report(7, RolledBack, Some("unhealthy"));
        assert_eq!(p(&x, "1.0.0", Some(&failed)), None);
        x.acked = true;
        assert_eq!(
            p(&x, "1.0.0", Some(&failed)),
            Some((RolledBack, Some("unhealthy".into())))
        );
        // Not sent yet: a report is an old one.
        x.state = Pending;
        assert_eq!(p(&x, "1.0.0", Some(&r)), None);
        // Done stays done; a "done" report on another version is not believed.
        x.state = Restarting;
        assert_eq!(p(&x, "1.0.0", Some(&report(7, Done, None))), None);
        x.state = Done;
        assert_eq!(p(&x, "1.0.0", Some(&failed)), None);
    }

    #[test]
    fn a_newer_release_supersedes_all_but_the_deployed() {
        assert!(superseded_by_newer(state::ROLLING_OUT));
        assert!(superseded_by_newer(state::STOPPED));
        assert!(superseded_by_newer(state::UPLOADED));
        assert!(!superseded_by_newer(state::DEPLOYED));
        assert!(!superseded_by_newer(state::SUPERSEDED));
        assert_eq!(entering(0), state::UPLOADED);
        assert_eq!(entering(3), state::ROLLING_OUT);
    }
}
