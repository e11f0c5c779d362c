//! Schedules kept on the device (issue 29, `DeviceConfig::schedules`): which task a
//! camera runs by schedule now, decided here from the wall clock and the organisation's
//! time zone alone, so a device the cloud cannot reach still starts and stops on time.
//! Plain logic; the agent acts on its [`Action`]s once a second.
//!
//! Invariants:
//! - a schedule's window (a weekday, from `start` to `end` in the time zone) is begun
//!   once: started when the agent first sees it open (on time, or late after being
//!   off), never again within the same window, even when a person stopped or replaced
//!   the task by hand meanwhile ([`Scheduled::forget`]);
//! - a camera started by a schedule is stopped when its window ends or its schedule is
//!   gone (removed, or moved off that time), and only if it still runs that
//!   schedule's task;
//! - local times that do not exist (a spring-forward gap) start at the first instant
//!   after the gap; ones that occur twice (autumn) at the first.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Duration, LocalResult, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::{Schedule, time_range};
use serde::{Deserialize, Serialize};

/// A camera that runs a schedule's task until `end_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub schedule: i64,
    pub task: i64,
    pub end_ms: i64,
}

/// What the schedules ask of the agent now.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Start {
        camera: String,
        task: i64,
        engine: EngineConfig,
        schedule: i64,
    },
    Stop {
        camera: String,
        task: i64,
        schedule: i64,
    },
}

/// The schedules' state, kept across restarts.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scheduled {
    /// Camera → the schedule it runs now.
    runs: BTreeMap<String, Run>,
    /// Schedule → the start (ms) of the last window begun.
    begun: BTreeMap<i64, i64>,
}

impl Scheduled {
    /// The schedule `camera` runs now, if any.
    pub fn run(&self, camera: &str) -> Option<&Run> {
        self.runs.get(camera)
    }

    /// A person (the cloud's start or stop) took `camera` over: its schedule's window
    /// no longer stops it.
    pub fn forget(&mut self, camera: &str) {
        self.runs.remove(camera);
    }

    /// What `schedules` (in time zone `tz`) ask for at `now_ms`: stops first (a window
    /// over, a schedule gone), then starts of windows open and not begun yet. The
    /// state is updated as if every action was carried out.
    pub fn plan(&mut self, schedules: &[Schedule], tz: Tz, now_ms: i64) -> Vec<Action> {
        let mut actions = vec![];
        let open: Vec<(&Schedule, (i64, i64))> = schedules
            .iter()
            .filter_map(|s| window(s, tz, now_ms).map(|w| (s, w)))
            .collect();
        let ended: Vec<String> = self
            .runs
            .iter()
            .filter(|(camera, r)| {
                now_ms >= r.end_ms
                    || !open
                        .iter()
                        .any(|(s, _)| s.id == r.schedule && &s.camera == *camera)
            })
            .map(|(camera, _)| camera.clone())
            .collect();
        for camera in ended {
            let r = self.runs.remove(&camera).expect("listed above");
            actions.push(Action::Stop {
                camera,
                task: r.task,
                schedule: r.schedule,
            });
        }
        for (s, (start, end)) in open {
            if self.begun.get(&s.id) == Some(&start) {
                continue;
            }
            self.begun.insert(s.id, start);
            self.runs.insert(
                s.camera.clone(),
                Run {
                    schedule: s.id,
                    task: s.task,
                    end_ms: end,
                },
            );
            actions.push(Action::Start {
                camera: s.camera.clone(),
                task: s.task,
                engine: s.engine.clone(),
                schedule: s.id,
            });
        }
        self.begun
            .retain(|id, _| schedules.iter().any(|s| s.id == *id));
        actions
    }
}

/// The window of `s` open at `now_ms` in `tz`, as (start, end) in ms, if any.
pub fn window(s: &Schedule, tz: Tz, now_ms: i64) -> Option<(i64, i64)> {
    let (from, to) = time_range(&s.start, &s.end)?;
    let now = DateTime::<Utc>::from_timestamp_millis(now_ms)?.with_timezone(&tz);
    // A window that began yesterday has ended by today's midnight: only today's can
    // be open.
    let today = now.date_naive();
    if !s
        .days
        .contains(&(today.weekday().num_days_from_monday() as u8))
    {
        return None;
    }
    let start = at(tz, today, from)?;
    let end = at(tz, today, to)?;
    (start <= now_ms && now_ms < end).then_some((start, end))
}

/// The instant (ms) of minute `minute` of day `date` in `tz` (1440: the next day's
/// midnight).
fn at(tz: Tz, date: NaiveDate, minute: u16) -> Option<i64> {
    let (date, minute) = if minute >= 1440 {
        (date.succ_opt()?, 0)
    } else {
        (date, minute)
    };
    let mut local = date.and_time(NaiveTime::from_hms_opt(
        u32::from(minute / 60),
        u32::from(minute % 60),
        0,
    )?);
    // A gap (spring forward): the first minute after it.
    for _ in 0..=180 {
        match tz.from_local_datetime(&local) {
            LocalResult::Single(t) => return Some(t.timestamp_millis()),
            LocalResult::Ambiguous(first, _) => return Some(first.timestamp_millis()),
            LocalResult::None => local += Duration::minutes(1),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(id: i64, camera: &str, days: &[u8], start: &str, end: &str) -> Schedule {
        Schedule {
            id,
            camera: camera.into(),
            task: 10 + id,
            engine: crate::cameras::recorder::tests::cfg(),
            days: days.to_vec(),
            start: start.into(),
            end: end.into(),
        }
    }

    /// The instant of `y-m-d h:mi` in `tz`, in ms.
    fn t(tz: Tz, y: i32, m: u32, d: u32, h: u32, mi: u32) -> i64 {
        tz.with_ymd_and_hms(y, m, d, h, mi, 0)
            .earliest()
            .unwrap()
            .timestamp_millis()
    }

    fn starts(a: &[Action]) -> Vec<(String, i64)> {
        a.iter()
            .filter_map(|a| match a {
                Action::Start { camera, task, .. } => Some((camera.clone(), *task)),
                _ => None,
            })
            .collect()
    }

    fn stops(a: &[Action]) -> Vec<(String, i64)> {
        a.iter()
            .filter_map(|a| match a {
                Action::Stop { camera, task, .. } => Some((camera.clone(), *task)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_window_starts_once_and_stops_at_its_end_in_the_time_zone() {
        let tz: Tz = "Europe/Berlin".parse().unwrap();
        // 2026-11-23 is a Monday.
        let s = vec![schedule(1, "cam0", &[0], "08:00", "12:30")];
        let mut st = Scheduled::default();
        assert!(st.plan(&s, tz, t(tz, 2026, 11, 23, 7, 59)).is_empty());
        // 08:00 Berlin is 07:00 UTC.
        let a = st.plan(&s, tz, t(Tz::UTC, 2026, 11, 23, 7, 0));
        assert_eq!(starts(&a), vec![("cam0".into(), 11)]);
        assert_eq!(st.run("cam0").unwrap().end_ms, t(tz, 2026, 11, 23, 12, 30));
        assert!(st.plan(&s, tz, t(tz, 2026, 11, 23, 10, 0)).is_empty());
        let a = st.plan(&s, tz, t(tz, 2026, 11, 23, 12, 30));
        assert_eq!(stops(&a), vec![("cam0".into(), 11)]);
        assert!(st.run("cam0").is_none());
        // Tuesday is not one of its days; next Monday is.
        assert!(st.plan(&s, tz, t(tz, 2026, 11, 24, 9, 0)).is_empty());
        assert_eq!(starts(&st.plan(&s, tz, t(tz, 2026, 11, 30, 9, 0))).len(), 1);
    }

    #[test]
    fn a_device_off_at_the_start_starts_late_and_a_window_taken_over_is_left_alone() {
        let tz = Tz::UTC;
        let s = vec![schedule(
            1,
            "cam0",
            &[0, 1, 2, 3, 4, 5, 6],
            "08:00",
            "24:00",
        )];
        let mut st = Scheduled::default();
        // First seen at 15:00 (the agent was off at 08:00): started then.
        let a = st.plan(&s, tz, t(tz, 2026, 11, 23, 15, 0));
        assert_eq!(starts(&a).len(), 1);
        // A person stopped it: not started again in the same window…
        st.forget("cam0");
        assert!(st.plan(&s, tz, t(tz, 2026, 11, 23, 16, 0)).is_empty());
        // …nor stopped at its end (it no longer runs the schedule)…
        assert!(st.plan(&s, tz, t(tz, 2026, 11, 24, 0, 0)).is_empty());
        // …and started at the next day's.
        assert_eq!(starts(&st.plan(&s, tz, t(tz, 2026, 11, 24, 8, 0))).len(), 1);
        // Restarted from what was kept: the same window is not begun twice.
        let kept: Scheduled = serde_json::from_str(&serde_json::to_string(&st).unwrap()).unwrap();
        let mut again = kept;
        assert!(again.plan(&s, tz, t(tz, 2026, 11, 24, 9, 0)).is_empty());
        // 24:00 ends at the next midnight.
        let a = again.plan(&s, tz, t(tz, 2026, 11, 25, 0, 0));
        assert_eq!(stops(&a).len(), 1);
    }

    #[test]
    fn a_schedule_removed_or_moved_stops_its_camera_and_others_go_on() {
        let tz = Tz::UTC;
        let mut s = vec![
            schedule(1, "cam0", &[0], "08:00", "10:00"),
            schedule(2, "cam1", &[0], "08:00", "10:00"),
        ];
        let mut st = Scheduled::default();
        assert_eq!(starts(&st.plan(&s, tz, t(tz, 2026, 11, 23, 8, 0))).len(), 2);
        s.remove(0);
        let a = st.plan(&s, tz, t(tz, 2026, 11, 23, 8, 5));
        assert_eq!(stops(&a), vec![("cam0".into(), 11)]);
        assert!(starts(&a).is_empty());
        s[0].start = "09:00".into();
        let a = st.plan(&s, tz, t(tz, 2026, 11, 23, 8, 10));
        assert_eq!(stops(&a), vec![("cam1".into(), 12)]);
        // Its new window begins at 09:00.
        assert_eq!(starts(&st.plan(&s, tz, t(tz, 2026, 11, 23, 9, 0))).len(), 1);
    }

    #[test]
    fn daylight_saving_gaps_and_repeats_start_at_the_first_real_instant() {
        let tz: Tz = "Europe/Berlin".parse().unwrap();
        // 2026-03-29 (a Sunday): 02:00–03:00 does not exist.
        let s = [schedule(1, "cam0", &[6], "02:30", "04:00")];
        let gap_end = t(Tz::UTC, 2026, 3, 29, 1, 0); // 03:00 CEST
        assert_eq!(
            window(&s[0], tz, gap_end),
            Some((gap_end, gap_end + 3_600_000))
        );
        assert_eq!(window(&s[0], tz, gap_end - 1), None);
        // 2026-10-25 (a Sunday): 02:00–03:00 happens twice; the window opens at the
        // first 02:30 (00:30 UTC) and lasts until 04:00 CET (03:00 UTC).
        let first = t(Tz::UTC, 2026, 10, 25, 0, 30);
        assert_eq!(
            window(&s[0], tz, first),
            Some((first, t(Tz::UTC, 2026, 10, 25, 3, 0)))
        );
        // A bad range opens nothing.
        let bad = schedule(2, "cam0", &[6], "05:00", "04:00");
        assert_eq!(window(&bad, tz, first), None);
    }
}
