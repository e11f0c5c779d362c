//! A device's configuration (issue 29, `mqtt::v1::DeviceConfig`): its remote cameras,
//! blur regions and schedules, its organisation's task barcodes, whether it sends its
//! analytics now (issue 31), with the
//! organisation's time zone, built from the
//! database ([`build`]) and sent whole as `Command::Config` ([`send`]) after every
//! change, and again on a status whose `config_version` is behind ([`on_status`]).
//!
//! Invariants:
//! - every change to what goes into it bumps `devices.config_version` in the change's
//!   transaction (`db::device_config::bump`), so a device behind is always told;
//! - a configuration sent and not yet answered is not sent again on a status for
//!   [`crate::reconcile::ANSWER_WAIT`] (the status may predate it), one answered (either
//!   way) and still behind only after the reconcile's back-off; a device back online
//!   is sent it at once ([`due`]);
//! - the passwords of remote cameras travel only in the command sent; the copy kept
//!   in `device_commands` (and shown among a device's commands) has them left out.

use std::time::Duration;

use gemba_shared::mqtt::v1::{self, BlurRegion, Command, DeviceConfig, RemoteCamera, Schedule};

use crate::db::device_config as db;
use crate::db::{devices, now_ms, orgs};
use crate::reconcile::{ANSWER_WAIT, Why, retry_wait};
use crate::state::AppState;

/// The URL a device dials: `url` (kept without a login) with `username` and `password`
/// put in, percent-encoded.
pub fn with_login(url: &str, username: &str, password: &str) -> String {
    if username.is_empty() && password.is_empty() {
        return url.to_string();
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let mut login = encode(username);
    if !password.is_empty() {
        login.push(':');
        login.push_str(&encode(password));
    }
    format!("{scheme}://{login}@{rest}")
}

/// Percent-encodes what may not stand in a URL's user information.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A URL's login taken out: (the URL without it, user, password), percent-decoding
/// both.
pub fn split_login(url: &str) -> (String, Option<String>, Option<String>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_string(), None, None);
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let (user, pass) = match userinfo.split_once(':') {
                Some((u, p)) => (decode(u), Some(decode(p))),
                None => (decode(userinfo), None),
            };
            (format!("{scheme}://{host}{path}"), Some(user), pass)
        }
        None => (url.to_string(), None, None),
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The configuration as kept among the device's commands: the remote cameras' URLs
/// without their passwords.
pub fn without_passwords(c: &DeviceConfig) -> DeviceConfig {
    let mut c = c.clone();
    for cam in &mut c.remote_cameras {
        cam.url = v1::url_without_password(&cam.url);
    }
    c
}

/// Room left in a command for what is not the configuration (its id, times, the
/// signature's header and tag), in bytes.
const COMMAND_OVERHEAD: usize = 1024;

/// Whether `config` fits in one signed command (the contract's largest payload): its
/// JSON in base64 (a compact JWS) and the command's other parts.
pub fn fits(config: &DeviceConfig) -> bool {
    let json = serde_json::to_vec(config).expect("configurations serialise");
    json.len().div_ceil(3) * 4 + COMMAND_OVERHEAD <= v1::MAX_PAYLOAD_BYTES
}

/// Device `device`'s configuration as it is now; `None` when the device is gone.
pub async fn build(state: &AppState, org: i64, device: i64) -> sqlx::Result<Option<DeviceConfig>> {
    let Some(version) = db::version(&state.db, device).await? else {
        return Ok(None);
    };
    let fetch_analytics = db::fetch_analytics(&state.db, device)
        .await?
        .unwrap_or(true);
    let time_zone = orgs::by_id(&state.db, org)
        .await?
        .map_or_else(|| "UTC".to_string(), |o| o.time_zone);
    let remote_cameras = db::remote_cams(&state.db, device)
        .await?
        .into_iter()
        .map(|c| RemoteCamera {
            url: with_login(&c.url, &c.username, &c.password),
            name: c.name,
        })
        .collect();
    let blur = db::blur_regions(&state.db, device, None)
        .await?
        .into_iter()
        .map(|b| BlurRegion {
            camera: b.camera,
            x: b.x as f32,
            y: b.y as f32,
            width: b.width as f32,
            height: b.height as f32,
        })
        .collect();
    let mut schedules = vec![];
    for s in db::schedules(&state.db, device).await? {
        // A task deleted since is not run (its schedules stay, for the portal to show).
        let Some(task) = crate::db::tasks::get(&state.db, 0, Some(org), s.task_id).await? else {
            continue;
        };
        let settings = task.settings();
        if settings.is_deleted {
            continue;
        }
        schedules.push(Schedule {
            id: s.id,
            days: s.days(),
            camera: s.camera,
            task: s.task_id,
            engine: gemba_shared::cycle::EngineConfig::from_task(&settings),
            start: s.start_time,
            end: s.end_time,
        });
    }
    let mut barcodes = vec![];
    for (value, task_id) in crate::db::barcodes::task_barcodes(&state.db, org).await? {
        // A deleted task starts nowhere (its barcode stays associated, for the portal).
        let Some(task) = crate::db::tasks::get(&state.db, 0, Some(org), task_id).await? else {
            continue;
        };
        let settings = task.settings();
        if settings.is_deleted {
            continue;
        }
        barcodes.push(v1::TaskBarcode {
            value,
            task: task_id,
            engine: gemba_shared::cycle::EngineConfig::from_task(&settings),
        });
    }
    Ok(Some(DeviceConfig {
        version,
        time_zone,
        remote_cameras,
        blur,
        schedules,
        opcua: crate::opcua::configured(state, org, device).await?,
        barcodes,
        fetch_analytics,
    }))
}

/// Sends device `device` of `org` its configuration, when it is enrolled and online
/// (otherwise its next status after coming back asks for it).
pub async fn send(state: &AppState, org: i64, device: i64) -> sqlx::Result<()> {
    let Some(row) = devices::get(&state.db, 0, Some(org), device).await? else {
        return Ok(());
    };
    if !row.enrolled || !row.online || row.archived {
        return Ok(());
    }
    let Some(config) = build(state, org, device).await? else {
        return Ok(());
    };
    if !fits(&config) {
        // The calls refuse what would not fit (a schedule's task's rules are the one
        // part that can grow): a task changed since has made it too large.
        tracing::error!(
            device,
            version = config.version,
            "a device's configuration is over the largest message: not sent; \
             remove schedules of the device or shorten their tasks"
        );
        return Ok(());
    }
    state
        .mqtt
        .command(&state.db, org, device, Command::Config { config })
        .await?;
    Ok(())
}

/// [`send`] to each of `devices` of `org`.
pub async fn send_all(state: &AppState, org: i64, devices: &[i64]) -> sqlx::Result<()> {
    for &d in devices {
        send(state, org, d).await?;
    }
    Ok(())
}

/// Whether a configuration whose last sends were `last` (newest first: when, answered)
/// goes again now: never sent, or the device is back online (`back`): yes; the last
/// send unanswered: once [`ANSWER_WAIT`] passed; answered: after the reconcile's
/// back-off from `first`.
pub fn due(last: &[(i64, bool)], now: i64, back: bool, first: Duration) -> bool {
    if back {
        return true;
    }
    match last.first() {
        None => true,
        Some(&(at, false)) => now - at >= ANSWER_WAIT.as_millis() as i64,
        Some(_) => retry_wait(last, first).is_none_or(|(at, w)| now - at >= w.as_millis() as i64),
    }
}

/// On an online status `s` of device `device`: sends the configuration when the
/// status's `config_version` is behind and it is [`due`].
pub async fn on_status(
    state: &AppState,
    org: i64,
    device: i64,
    s: &v1::StatusMessage,
    why: Why,
) -> sqlx::Result<()> {
    let Some(version) = db::version(&state.db, device).await? else {
        return Ok(());
    };
    if version == 0 || s.config_version >= version {
        return Ok(());
    }
    let Some(config) = build(state, org, device).await? else {
        return Ok(());
    };
    let command = Command::Config { config };
    let kept = stored_form(&command);
    let json = serde_json::to_string(&kept).expect("commands serialise");
    let last = devices::same_commands(&state.db, device, &json, 8).await?;
    let first = Duration::from_millis(state.settings.reconcile_retry_ms);
    if due(&last, now_ms(), why == Why::Back, first) {
        state.mqtt.command(&state.db, org, device, command).await?;
    }
    Ok(())
}

/// A command as kept in `device_commands`: a configuration without its passwords.
pub fn stored_form(c: &Command) -> Command {
    match c {
        Command::Config { config } => Command::Config {
            config: without_passwords(config),
        },
        c => c.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_goes_into_the_url_encoded_and_comes_out_decoded() {
        assert_eq!(with_login("rtsp://cam/s", "", ""), "rtsp://cam/s");
        assert_eq!(
            with_login("rtsp://cam:554/s", "ad min", "p@ss:w/rd"),
            "rtsp://ad%20min:p%40ss%3Aw%2Frd@cam:554/s"
        );
        assert_eq!(with_login("http://cam/", "u", ""), "http://u@cam/");
        let url = with_login("rtsp://cam:554/s?x=@", "ad min", "p@ss:w/rd");
        assert_eq!(
            split_login(&url),
            (
                "rtsp://cam:554/s?x=@".into(),
                Some("ad min".into()),
                Some("p@ss:w/rd".into())
            )
        );
        assert_eq!(
            split_login("rtsp://cam/s"),
            ("rtsp://cam/s".into(), None, None)
        );
        assert_eq!(
            split_login("rtsp://u@cam/s"),
            ("rtsp://cam/s".into(), Some("u".into()), None)
        );
        assert_eq!(decode("%zz%4"), "%zz%4");
        // The kept form shows the user, never the password.
        let c = DeviceConfig {
            remote_cameras: vec![RemoteCamera {
                name: "door".into(),
                url: url.clone(),
            }],
            ..DeviceConfig::default()
        };
        let kept = serde_json::to_string(&stored_form(&Command::Config { config: c })).unwrap();
        assert!(
            !kept.contains("p%40ss") && kept.contains("ad%20min@cam"),
            "{kept}"
        );
    }

    #[test]
    fn the_largest_configuration_of_ordinary_tasks_fits_and_a_huge_one_does_not() {
        let task = gemba_shared::api::v1::task::TaskSettings::new(
            "T".into(),
            "T\nA:\na;\nB:\nb;\nC:\nc;\nD:\nd;\nE:\ne;\nF:\nf;\nG:\ng;\nH:\nh;\n".into(),
        );
        let schedule = |id: i64, engine: &gemba_shared::cycle::EngineConfig| Schedule {
            id,
            camera: "c".repeat(100),
            task: id,
            engine: engine.clone(),
            days: vec![0, 1, 2, 3, 4, 5, 6],
            start: "00:00".into(),
            end: "24:00".into(),
        };
        let engine = gemba_shared::cycle::EngineConfig::from_task(&task);
        let mut c = DeviceConfig {
            version: i64::MAX,
            time_zone: "America/Argentina/ComodRivadavia".into(),
            remote_cameras: (0..v1::MAX_REMOTE_CAMERAS)
                .map(|i| RemoteCamera {
                    name: format!("{i:0>100}"),
                    url: format!("rtsp://{}", "u".repeat(990)),
                })
                .collect(),
            blur: (0..v1::MAX_BLUR_REGIONS)
                .map(|_| BlurRegion {
                    camera: "c".repeat(100),
                    x: 0.123_456_79,
                    y: 0.123_456_79,
                    width: 0.123_456_79,
                    height: 0.123_456_79,
                })
                .collect(),
            schedules: (1..=v1::MAX_SCHEDULES as i64)
                .map(|i| schedule(i, &engine))
                .collect(),
            // The most OPC UA bindings, each text at its longest.
            opcua: (0..v1::opcua::MAX_BINDINGS)
                .map(|i| v1::OpcuaBinding {
                    endpoint: format!(
                        "opc.tcp://{}{}",
                        i % v1::opcua::MAX_BINDING_ENDPOINTS,
                        "h".repeat(v1::opcua::MAX_ENDPOINT_BYTES - 11)
                    ),
                    node_id: format!("ns=1;s={}", "n".repeat(v1::opcua::MAX_NODE_ID_BYTES - 7)),
                    camera: format!("{i:0>100}"),
                    task: Some(i64::MAX),
                    role: v1::OpcuaRole::Metadata {
                        key: "k".repeat(v1::opcua::MAX_KEY_BYTES),
                    },
                })
                .collect(),
            barcodes: (0..v1::MAX_TASK_BARCODES as i64)
                .map(|i| v1::TaskBarcode {
                    value: format!("{i:0>100}"),
                    task: i + 1,
                    engine: engine.clone(),
                })
                .collect(),
            fetch_analytics: false,
        };
        assert!(fits(&c));
        // A task of thousands of steps, scheduled 64 times, does not.
        let mut big = engine.clone();
        big.start_steps = (0..5_000).collect();
        c.schedules = (1..=64).map(|i| schedule(i, &big)).collect();
        assert!(!fits(&c));
    }

    #[test]
    fn a_configuration_waits_for_its_answer_then_backs_off() {
        let first = Duration::from_secs(30);
        let wait = ANSWER_WAIT.as_millis() as i64;
        assert!(due(&[], 0, false, first));
        // Sent and not answered: not again until the answer could have come.
        assert!(!due(&[(1_000, false)], 1_000 + wait - 1, false, first));
        assert!(due(&[(1_000, false)], 1_000 + wait, false, first));
        // Back online: at once.
        assert!(due(&[(1_000, false)], 1_001, true, first));
        // Answered and still behind: after the back-off, doubling.
        assert!(!due(&[(1_000, true)], 30_999, false, first));
        assert!(due(&[(1_000, true)], 31_000, false, first));
        assert!(!due(&[(1_000, true), (500, true)], 31_000, false, first));
        assert!(due(&[(1_000, true), (500, true)], 61_000, false, first));
    }
}
