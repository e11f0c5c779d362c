//! Brings what a device's cameras run in line with what the portal set. On each online
//! status the cloud compares each camera's task with its setting ([`plan`], plain
//! logic) and sends the commands that differ ([`reconcile`]). Commands sent while the
//! device was away are not kept by the broker; this is how the device catches up.
//!
//! Invariants:
//! - A status read while a start or stop sent in the last [`ANSWER_WAIT`] still waits
//!   for its acknowledgement is not acted on: it may predate that command (the agent
//!   sends its status on one path and its acknowledgements through its outbox), and a
//!   command built on it would undo the one in flight. Only the status of a device back
//!   online is acted on at once: what was sent while it was away is lost.
//! - A refused command is an answer: the same command goes again only after a back-off
//!   ([`due`]: `reconcile_retry_ms`, doubling up to [`RETRY_MAX`]) or at once when
//!   something changed: the command itself (the task's settings, a new setting of the
//!   camera, so a new generation), the device came back online, its cameras changed, or
//!   a model was deployed to it (the caller says which: [`Why`]).
//! - A camera told to start gets no stop in the same round (the start replaces what it
//!   runs), and every stop names the task it stops and the camera's generation, so an
//!   agent never stops a newer start with it.
//! - A camera the agent reports failed on its task (its source) is not started again
//!   from here: the agent retries it itself, with its own back-off.

use std::time::Duration;

use gemba_shared::mqtt::v1::{self, Command};

use crate::db::camera_tasks::{self, CameraTask};
use crate::db::{devices, now_ms};
use crate::state::AppState;

/// How long a start or stop may wait for its acknowledgement before the reconcile acts
/// on a status again (a command the device never got is sent again after it).
pub const ANSWER_WAIT: Duration = Duration::from_secs(20);

/// Longest wait before [`reconcile`] repeats an acknowledged command.
pub const RETRY_MAX: Duration = Duration::from_secs(600);

/// One command a status calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Start {
        camera: String,
        task: i64,
        generation: i64,
    },
    Stop {
        camera: String,
        task: i64,
        generation: i64,
    },
}

/// What device status `s` lacks of the settings `set`: a start for each camera set
/// running whose status shows another task or none, a stop for each camera that runs a
/// task it is not set to run (unless it is told to start); nothing for a camera whose
/// status says a schedule runs it (`CameraStatus::schedule`) or a barcode it read
/// started its task (`CameraStatus::barcode`).
pub fn plan(set: &[CameraTask], s: &v1::StatusMessage) -> Vec<Step> {
    let runs = |camera: &str, task: i64| {
        s.cameras
            .iter()
            .any(|c| c.camera == camera && c.task == Some(task))
    };
    // A camera a schedule runs is the device's until the schedule's window ends; one
    // whose task a barcode it read started, until a start or stop from here.
    let scheduled = |camera: &str| {
        s.cameras
            .iter()
            .any(|c| c.camera == camera && (c.schedule.is_some() || c.barcode.is_some()))
    };
    let mut steps: Vec<Step> = set
        .iter()
        .filter(|t| t.running && !runs(&t.camera, t.task) && !scheduled(&t.camera))
        .map(|t| Step::Start {
            camera: t.camera.clone(),
            task: t.task,
            generation: t.generation,
        })
        .collect();
    for c in s
        .cameras
        .iter()
        .filter(|c| c.schedule.is_none() && c.barcode.is_none())
    {
        let Some(task) = c.task else { continue };
        let setting = set.iter().find(|t| t.camera == c.camera);
        let wanted = setting.is_some_and(|t| t.running && t.task == task);
        let starting = setting.is_some_and(|t| t.running);
        if !wanted && !starting {
            steps.push(Step::Stop {
                camera: c.camera.clone(),
                task,
                generation: setting.map_or(0, |t| t.generation),
            });
        }
    }
    steps
}

/// Why [`reconcile`] looks at a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// A status like the last: a refused command waits for its back-off.
    Heartbeat,
    /// Something changed that may make a refused command go through now (its cameras,
    /// a model deployed to it): no back-off holds a command back.
    Changed,
    /// It was offline until this status (a restarted agent may now carry out what it
    /// refused; what was sent while it was away is lost): neither a back-off nor a
    /// command waiting for its answer holds anything back.
    Back,
}

/// Sends device `device` of `org` the commands its status `s` calls for ([`plan`]),
/// each when [`due`] (see [`Why`]).
pub async fn reconcile(
    state: &AppState,
    org: i64,
    device: i64,
    s: &v1::StatusMessage,
    why: Why,
) -> sqlx::Result<()> {
    let since = now_ms() - ANSWER_WAIT.as_millis() as i64;
    if why != Why::Back && camera_tasks::awaiting_answer(&state.db, device, since).await? {
        return Ok(());
    }
    let set = camera_tasks::of_device(&state.db, device).await?;
    for step in plan(&set, s) {
        let command = match step {
            Step::Start {
                camera,
                task,
                generation,
            } => {
                let Some(row) = crate::db::tasks::get(&state.db, 0, Some(org), task).await? else {
                    continue;
                };
                Command::StartTask {
                    camera,
                    task,
                    engine: gemba_shared::cycle::EngineConfig::from_task(&row.settings()),
                    generation,
                }
            }
            Step::Stop {
                camera,
                task,
                generation,
            } => Command::StopTask {
                camera,
                task: Some(task),
                generation,
            },
        };
        if why != Why::Heartbeat || due(state, device, &command).await? {
            state.mqtt.command(&state.db, org, device, command).await?;
        }
    }
    Ok(())
}

/// [`reconcile`] on the device's last status after something changed that is not a
/// status (e.g. a model deployed); nothing when it is offline.
pub async fn reconcile_stored(state: &AppState, org: i64, device: i64) -> sqlx::Result<()> {
    let Some(row) = devices::get(&state.db, 0, Some(org), device).await? else {
        return Ok(());
    };
    match devices::parse_status(row.status.as_deref()) {
        Some(s) if row.online && s.online => reconcile(state, org, device, &s, Why::Changed).await,
        _ => Ok(()),
    }
}

/// Should [`reconcile`] send `command` to `device` now? Yes if it was never sent, or
/// the device did not acknowledge it last time (it was away); if it did (accepted or
/// refused) and its status still differs, only once `reconcile_retry_ms` passed,
/// doubling with each acknowledged repeat up to [`RETRY_MAX`].
async fn due(state: &AppState, device: i64, command: &Command) -> sqlx::Result<bool> {
    let json = serde_json::to_string(command).expect("commands serialise");
    let last = devices::same_commands(&state.db, device, &json, 8).await?;
    let first = Duration::from_millis(state.settings.reconcile_retry_ms);
    Ok(match retry_wait(&last, first) {
        None => true,
        Some((at, wait)) => now_ms() - at >= wait.as_millis() as i64,
    })
}

/// How long after the last of `last` (the same command's sends, newest first: when,
/// acknowledged) it may go again: `None` at once (never sent, or the last send was not
/// acknowledged), else `first` doubled with each acknowledged repeat, up to
/// [`RETRY_MAX`].
pub(crate) fn retry_wait(last: &[(i64, bool)], first: Duration) -> Option<(i64, Duration)> {
    let &(at, true) = last.first()? else {
        return None;
    };
    let repeats = last.iter().take_while(|(_, acked)| *acked).count() as u32;
    Some((
        at,
        first
            .saturating_mul(1 << (repeats - 1).min(10))
            .min(RETRY_MAX),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(camera: &str, task: i64, running: bool, generation: i64) -> CameraTask {
        CameraTask {
            camera: camera.into(),
            task,
            running,
            generation,
            refused_at: None,
        }
    }

    fn status(cameras: &[(&str, Option<i64>)]) -> v1::StatusMessage {
        v1::StatusMessage {
            v: 1,
            online: true,
            ts_ms: 1,
            agent_version: String::new(),
            cameras: cameras
                .iter()
                .map(|(c, t)| v1::CameraStatus {
                    camera: (*c).into(),
                    task: *t,
                    ..v1::CameraStatus::default()
                })
                .collect(),
            outbox: 0,
            disk_free_mb: None,
            temperature_c: None,
            config_version: 0,
            target: String::new(),
            updatable: false,
            update: None,
            faults: vec![],
        }
    }

    #[test]
    fn a_camera_set_to_another_task_is_started_and_not_also_stopped() {
        // The stale status of a restarted agent still shows task 1; the portal set 2.
        let steps = plan(&[set("cam0", 2, true, 9)], &status(&[("cam0", Some(1))]));
        assert_eq!(
            steps,
            vec![Step::Start {
                camera: "cam0".into(),
                task: 2,
                generation: 9
            }]
        );
    }

    #[test]
    fn a_camera_running_what_it_should_gets_nothing() {
        let s = status(&[("cam0", Some(2)), ("cam1", None)]);
        assert!(plan(&[set("cam0", 2, true, 9), set("cam1", 3, false, 4)], &s).is_empty());
    }

    #[test]
    fn stops_name_the_task_and_the_generation() {
        let s = status(&[("cam0", Some(2)), ("cam1", Some(5))]);
        let steps = plan(&[set("cam0", 2, false, 11)], &s);
        assert_eq!(
            steps,
            vec![
                Step::Stop {
                    camera: "cam0".into(),
                    task: 2,
                    generation: 11
                },
                // Never set from the portal: stopped whatever its generation.
                Step::Stop {
                    camera: "cam1".into(),
                    task: 5,
                    generation: 0
                },
            ]
        );
    }

    #[test]
    fn a_failed_camera_on_its_task_is_left_to_the_agent() {
        let mut s = status(&[("cam0", Some(2))]);
        s.cameras[0].state = v1::CameraState::Failed;
        s.cameras[0].error = Some("camera cam0 (rtsp://x): unreachable".into());
        assert!(plan(&[set("cam0", 2, true, 1)], &s).is_empty());
    }

    #[test]
    fn a_camera_a_schedule_runs_is_left_to_the_device_until_its_window_ends() {
        // Set to task 2 from the portal; a schedule runs task 7 on it, and another
        // runs on a camera the portal never set.
        let mut s = status(&[("cam0", Some(7)), ("cam1", Some(8))]);
        s.cameras[0].schedule = Some(3);
        s.cameras[1].schedule = Some(4);
        assert!(plan(&[set("cam0", 2, true, 5)], &s).is_empty());
        // The window over: the portal's setting again.
        s.cameras[0].schedule = None;
        s.cameras[0].task = None;
        assert_eq!(plan(&[set("cam0", 2, true, 5)], &s).len(), 1);
    }

    #[test]
    fn a_camera_whose_barcode_started_its_task_is_left_to_the_device() {
        // Set to task 2 from the portal; the camera read a barcode of task 7.
        let mut s = status(&[("cam0", Some(7))]);
        s.cameras[0].barcode = Some("PUMP-7".into());
        assert!(plan(&[set("cam0", 2, true, 5)], &s).is_empty());
        assert!(plan(&[], &s).is_empty(), "not stopped either");
        s.cameras[0].barcode = None;
        assert_eq!(plan(&[set("cam0", 2, true, 5)], &s).len(), 1);
    }

    #[test]
    fn a_camera_the_device_lacks_is_asked_for_but_no_stop_follows() {
        let steps = plan(&[set("cam9", 2, true, 1)], &status(&[("cam0", None)]));
        assert_eq!(steps.len(), 1);
        assert!(matches!(&steps[0], Step::Start { camera, .. } if camera == "cam9"));
    }

    #[test]
    fn a_refused_or_accepted_command_waits_doubling_and_an_unanswered_one_does_not() {
        let first = Duration::from_secs(30);
        assert_eq!(retry_wait(&[], first), None);
        assert_eq!(retry_wait(&[(5, false), (1, true)], first), None);
        assert_eq!(retry_wait(&[(5, true)], first), Some((5, first)));
        assert_eq!(
            retry_wait(&[(9, true), (5, true), (1, true)], first),
            Some((9, first * 4))
        );
        let many = vec![(9, true); 8];
        assert_eq!(retry_wait(&many, first), Some((9, RETRY_MAX)));
    }
}
