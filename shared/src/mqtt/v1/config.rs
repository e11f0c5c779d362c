//! Long because it is one job: one message, its checks and their tests together; every
//! part of a device's configuration is checked as a whole here, so it reads as one.
//!
//! A device's configuration (issue 29): everything the device keeps and acts on while it
//! is offline (its remote cameras, the privacy blur of its cameras, the schedules that
//! start and stop tasks), sent whole by the cloud in [`super::Command::Config`], each
//! one replacing the last. `version` grows with every change; the agent reports the
//! version it applies in its status (`StatusMessage::config_version`) and the cloud
//! sends the configuration again while that is behind.
//!
//! Invariants a configuration that passes [`Message::check`] holds:
//! - camera names are camera names ([`check_camera`]); remote cameras' names are
//!   distinct;
//! - a remote camera's URL is `rtsp://`, `rtsps://`, `http://` or `https://` with a
//!   host (an optional `user:password@` before it);
//! - a blur region lies inside its frame: fractions 0–1, top-left origin, not empty;
//! - a schedule runs on at least one weekday (0 = Monday … 6 = Sunday), from `start` to
//!   `end` (`HH:MM`, `end` after `start` on the same day, `24:00` the end of the day),
//!   in the organisation's `time_zone`; two schedules of one camera never share a
//!   weekday and a minute.
//!
//! - a task barcode's value is a barcode value (`api::v1::barcode::check_value`'s rule)
//!   and no value is given twice;
//! - its OPC UA bindings pass `opcua::check_bindings` (issue 32: `opc.tcp://` endpoints,
//!   node ids, camera names, no metadata key given twice for a camera and task).
//!
//! `fetch_analytics` (issue 31, `POST device/set_fetch_analytics/{id}/`): whether the
//! device sends its cycles to the cloud now; off, its outbox keeps them (in order, none
//! dropped for it) until a configuration switches it on again. Left out when on, so an
//! agent older than the switch still takes the configuration of a device never
//! switched off.
//!
//! The time zone's name is checked for its shape here (the tz database is not part of
//! this crate); the cloud checks it against the database before it sends one.

use serde::{Deserialize, Serialize};

use super::Message;
use crate::api::v1::device::check_camera;
use crate::cycle::EngineConfig;

/// Most remote cameras of one device.
pub const MAX_REMOTE_CAMERAS: usize = 16;
/// Most blur regions of one device (all its cameras).
pub const MAX_BLUR_REGIONS: usize = 64;
/// Most schedules of one device.
pub const MAX_SCHEDULES: usize = 64;
/// Most task barcodes of one device (`api::v1::barcode::MAX_ASSOCIATED_BARCODES`).
pub const MAX_TASK_BARCODES: usize = crate::api::v1::barcode::MAX_ASSOCIATED_BARCODES;
/// Longest remote camera URL, in bytes.
pub const MAX_URL_BYTES: usize = 1000;
/// Longest time zone name, in bytes.
pub const MAX_TIME_ZONE_BYTES: usize = 64;
/// The schemes a remote camera's URL may have.
pub const URL_SCHEMES: [&str; 4] = ["rtsp", "rtsps", "http", "https"];
/// The minutes of a day: `24:00`, the latest end.
pub const DAY_MINUTES: u16 = 24 * 60;

/// Everything a device must keep and act on while offline (see the module header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// Grows with every change (0: none was ever sent).
    pub version: i64,
    /// The organisation's time zone (IANA name, e.g. `Europe/Berlin`): schedules'
    /// times are read in it.
    pub time_zone: String,
    #[serde(default)]
    pub remote_cameras: Vec<RemoteCamera>,
    #[serde(default)]
    pub blur: Vec<BlurRegion>,
    #[serde(default)]
    pub schedules: Vec<Schedule>,
    /// The OPC UA nodes the device subscribes to and what each does to a camera's
    /// cycles (issue 32, `opcua.rs`). Left out when empty, as `barcodes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional, as = "Option<Vec<super::OpcuaBinding>>"))]
    pub opcua: Vec<super::OpcuaBinding>,
    /// The organisation's barcodes associated with tasks: one read on a camera starts
    /// its task there. Left out when empty, so an agent older than barcodes still
    /// takes the configuration of an organisation without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub barcodes: Vec<TaskBarcode>,
    /// Whether the device sends its cycles to the cloud now (`true`, the default) or
    /// keeps them in its outbox until this is on again. Left out when on.
    #[serde(default = "on", skip_serializing_if = "is_on")]
    #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
    pub fetch_analytics: bool,
}

fn on() -> bool {
    true
}

fn is_on(b: &bool) -> bool {
    *b
}

impl Default for DeviceConfig {
    fn default() -> DeviceConfig {
        DeviceConfig {
            version: 0,
            time_zone: "UTC".into(),
            remote_cameras: vec![],
            blur: vec![],
            schedules: vec![],
            opcua: vec![],
            barcodes: vec![],
            fetch_analytics: true,
        }
    }
}

/// A barcode value that starts `task` on the camera that reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TaskBarcode {
    pub value: String,
    pub task: i64,
    /// The task's cycle rules, as a start carries them.
    pub engine: EngineConfig,
}

/// A network camera the device reads as one of its own cameras, named `name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct RemoteCamera {
    pub name: String,
    /// `rtsp://`, `rtsps://`, `http(s)://`, with `user:password@` when it needs a login.
    pub url: String,
}

/// A rectangle of `camera`'s frame the device blurs before any pixel leaves it (live
/// view, clips, screenshots, recordings): fractions 0–1 of the frame's width and
/// height, from its top-left corner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct BlurRegion {
    pub camera: String,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// Run `task` on `camera` on each of `days` from `start` to `end` (the organisation's
/// time zone), then stop it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    /// The cloud's id of the schedule.
    pub id: i64,
    pub camera: String,
    pub task: i64,
    /// The task's cycle rules, as a start carries them.
    pub engine: EngineConfig,
    /// Weekdays, 0 = Monday … 6 = Sunday.
    pub days: Vec<u8>,
    /// `HH:MM`.
    pub start: String,
    /// `HH:MM` after `start`, or `24:00`.
    pub end: String,
}

/// The minute of the day of `HH:MM` (`00:00`–`23:59`, and `24:00` = [`DAY_MINUTES`]).
pub fn minute_of_day(s: &str) -> Option<u16> {
    let b = s.as_bytes();
    if b.len() != 5 || b[2] != b':' || ![0, 1, 3, 4].iter().all(|&i| b[i].is_ascii_digit()) {
        return None;
    }
    let n = |i: usize| u16::from(b[i] - b'0');
    let (h, m) = (n(0) * 10 + n(1), n(3) * 10 + n(4));
    match (h, m) {
        (24, 0) => Some(DAY_MINUTES),
        (0..=23, 0..=59) => Some(h * 60 + m),
        _ => None,
    }
}

/// The minutes of the day a schedule covers, `[start, end)`, when `start` and `end` are
/// times and `end` is after `start`.
pub fn time_range(start: &str, end: &str) -> Option<(u16, u16)> {
    let (s, e) = (minute_of_day(start)?, minute_of_day(end)?);
    (s < e && s < DAY_MINUTES).then_some((s, e))
}

/// Weekdays are 0 to 6, at least one, none twice.
pub fn check_days(days: &[u8]) -> Result<(), String> {
    let mut seen = [false; 7];
    if days.is_empty() {
        return Err("A schedule needs at least one weekday.".into());
    }
    for &d in days {
        match seen.get_mut(usize::from(d)) {
            Some(s) if !*s => *s = true,
            Some(_) => return Err(format!("Weekday {d} is given twice.")),
            None => return Err(format!("Weekday {d} is not 0 (Monday) to 6 (Sunday).")),
        }
    }
    Ok(())
}

/// Do two schedules' weekdays and times meet (on the same camera, they may not)?
/// Times that are not a range meet nothing.
pub fn schedules_meet(a_days: &[u8], a: (&str, &str), b_days: &[u8], b: (&str, &str)) -> bool {
    let (Some((s1, e1)), Some((s2, e2))) = (time_range(a.0, a.1), time_range(b.0, b.1)) else {
        return false;
    };
    a_days.iter().any(|d| b_days.contains(d)) && s1 < e2 && s2 < e1
}

/// A remote camera's URL: a known scheme, a host, an optional `user:password@` and
/// port, no spaces or control characters; at most [`MAX_URL_BYTES`].
pub fn check_camera_url(url: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("The camera's URL {why}."));
    if url.len() > MAX_URL_BYTES {
        return bad(&format!("must be at most {MAX_URL_BYTES} characters"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad("must not contain spaces or control characters");
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return bad("must start with rtsp://, rtsps://, http:// or https://");
    };
    if !URL_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) {
        return bad("must start with rtsp://, rtsps://, http:// or https://");
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, p))
                if !h.is_empty()
                    && h.chars()
                        .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') =>
            {
                (h, p.strip_prefix(':'))
            }
            _ => return bad("has a malformed IPv6 host"),
        }
    } else {
        match host_port.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    let host_ok = |h: &str| {
        !h.is_empty()
            && h.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
    };
    if !host_ok(host) {
        return bad("must name a host");
    }
    if let Some(p) = port
        && !matches!(p.parse::<u16>(), Ok(1..))
    {
        return bad("has a port that is not 1 to 65535");
    }
    Ok(())
}

/// The URL with its password left out (`user@host`), for answers and logs.
pub fn url_without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            format!("{scheme}://{user}@{host}{path}")
        }
        None => url.to_string(),
    }
}

/// A time zone name's shape (`Area/Location`, `UTC`, `Etc/GMT+5`): the tz database's
/// characters, at most [`MAX_TIME_ZONE_BYTES`].
pub fn time_zone_shape_ok(tz: &str) -> bool {
    !tz.is_empty()
        && tz.len() <= MAX_TIME_ZONE_BYTES
        && tz
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'))
        && !tz.starts_with('/')
        && !tz.ends_with('/')
}

impl BlurRegion {
    /// Inside the frame and not empty.
    pub fn check(&self) -> Result<(), String> {
        let (x, y, w, h) = (self.x, self.y, self.width, self.height);
        let frac = |v: f32| v.is_finite() && (0.0..=1.0).contains(&v);
        if !(frac(x) && frac(y) && frac(w) && frac(h)) {
            return Err(
                "A blur region's x, y, width and height are fractions 0 to 1 of the frame.".into(),
            );
        }
        if w <= 0.0 || h <= 0.0 {
            return Err("A blur region needs a width and a height above 0.".into());
        }
        // A little slack for fractions a browser computed from pixels.
        if x + w > 1.0 + 1e-4 || y + h > 1.0 + 1e-4 {
            return Err(
                "A blur region must lie inside the frame (x + width and y + height at most 1)."
                    .into(),
            );
        }
        Ok(())
    }
}

impl Schedule {
    /// Its own fields (not its neighbours).
    pub fn check(&self) -> Result<(), String> {
        check_camera(&self.camera)?;
        if self.id <= 0 || self.task <= 0 {
            return Err("A schedule's id and task are positive.".into());
        }
        check_days(&self.days)?;
        if time_range(&self.start, &self.end).is_none() {
            return Err(format!(
                "A schedule runs from HH:MM to a later HH:MM of the same day, not {} to {}.",
                self.start, self.end
            ));
        }
        Ok(())
    }

    /// Does it share a camera, a weekday and a minute with `other`?
    pub fn meets(&self, other: &Schedule) -> bool {
        self.camera == other.camera
            && schedules_meet(
                &self.days,
                (&self.start, &self.end),
                &other.days,
                (&other.start, &other.end),
            )
    }
}

impl Message for DeviceConfig {
    fn check(&self) -> Result<(), String> {
        if self.version < 0 {
            return Err("a configuration version below 0".into());
        }
        if !time_zone_shape_ok(&self.time_zone) {
            return Err(format!("{:?} is not a time zone name", self.time_zone));
        }
        if self.remote_cameras.len() > MAX_REMOTE_CAMERAS
            || self.blur.len() > MAX_BLUR_REGIONS
            || self.schedules.len() > MAX_SCHEDULES
            || self.barcodes.len() > MAX_TASK_BARCODES
        {
            return Err(format!(
                "at most {MAX_REMOTE_CAMERAS} remote cameras, {MAX_BLUR_REGIONS} blur regions, \
                 {MAX_SCHEDULES} schedules and {MAX_TASK_BARCODES} task barcodes"
            ));
        }
        for (i, b) in self.barcodes.iter().enumerate() {
            match crate::api::v1::barcode::check_value(&b.value) {
                Ok(v) if v == b.value => {}
                _ => return Err(format!("{:?} is not a barcode value", b.value)),
            }
            if b.task <= 0 {
                return Err("a task barcode's task is positive".into());
            }
            if self.barcodes[..i].iter().any(|o| o.value == b.value) {
                return Err(format!("barcode {:?} is given twice", b.value));
            }
        }
        for (i, c) in self.remote_cameras.iter().enumerate() {
            check_camera(&c.name)?;
            check_camera_url(&c.url)?;
            if self.remote_cameras[..i].iter().any(|o| o.name == c.name) {
                return Err(format!("two remote cameras named {}", c.name));
            }
        }
        for b in &self.blur {
            check_camera(&b.camera)?;
            b.check()?;
        }
        super::opcua::check_bindings(&self.opcua)?;
        for (i, s) in self.schedules.iter().enumerate() {
            s.check()?;
            if let Some(o) = self.schedules[..i].iter().find(|o| o.meets(s)) {
                return Err(format!(
                    "schedules {} and {} of camera {} overlap",
                    o.id, s.id, s.camera
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1::task::TaskSettings;

    fn engine() -> EngineConfig {
        EngineConfig::from_task(&TaskSettings::new("T".into(), "T\n-A\n-B".into()))
    }

    fn schedule(id: i64, camera: &str, days: &[u8], start: &str, end: &str) -> Schedule {
        Schedule {
            id,
            camera: camera.into(),
            task: 3,
            engine: engine(),
            days: days.to_vec(),
            start: start.into(),
            end: end.into(),
        }
    }

    fn config() -> DeviceConfig {
        DeviceConfig {
            version: 4,
            time_zone: "Europe/Berlin".into(),
            remote_cameras: vec![RemoteCamera {
                name: "door".into(),
                url: "rtsp://cam:s3cret@10.0.0.5:554/stream1".into(),
            }],
            blur: vec![BlurRegion {
                camera: "door".into(),
                x: 0.5,
                y: 0.0,
                width: 0.5,
                height: 0.25,
            }],
            schedules: vec![
                schedule(1, "cam0", &[0, 1, 2, 3, 4], "06:00", "14:00"),
                schedule(2, "cam0", &[0, 1, 2, 3, 4], "14:00", "22:00"),
                schedule(3, "door", &[5], "00:00", "24:00"),
            ],
            opcua: vec![super::super::OpcuaBinding {
                endpoint: "opc.tcp://plc:4840".into(),
                node_id: "ns=2;s=Part".into(),
                camera: "cam0".into(),
                task: Some(3),
                role: super::super::OpcuaRole::Metadata { key: "part".into() },
            }],
            barcodes: vec![TaskBarcode {
                value: "LOT-42".into(),
                task: 7,
                engine: engine(),
            }],
            fetch_analytics: true,
        }
    }

    #[test]
    fn analytics_are_fetched_unless_switched_off_and_only_off_is_written() {
        let on = config();
        assert!(on.fetch_analytics);
        // On (the default) is left out, so an agent older than the switch takes it.
        let json = serde_json::to_value(&on).unwrap();
        assert!(json.get("fetch_analytics").is_none(), "{json}");
        let min: DeviceConfig = serde_json::from_str(r#"{"version":1,"time_zone":"UTC"}"#).unwrap();
        assert!(min.fetch_analytics);
        let off = DeviceConfig {
            fetch_analytics: false,
            ..config()
        };
        let json = serde_json::to_value(&off).unwrap();
        assert_eq!(json["fetch_analytics"], serde_json::json!(false));
        assert_eq!(serde_json::from_value::<DeviceConfig>(json).unwrap(), off);
    }

    #[test]
    fn a_configuration_round_trips_and_checks() {
        let c = config();
        assert_eq!(c.check(), Ok(()));
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(
            json["schedules"][0]["days"],
            serde_json::json!([0, 1, 2, 3, 4])
        );
        let back: DeviceConfig = serde_json::from_value(json).unwrap();
        assert_eq!(back, c);
        // Signed and read back as a command would be.
        let key = b"0123456789abcdef0123456789abcdef";
        let signed = super::super::sign(key, "1", &c);
        assert_eq!(super::super::verify::<DeviceConfig>(key, &signed), Ok(c));
        // Lists may be left out; unknown fields may not.
        let min: DeviceConfig = serde_json::from_str(r#"{"version":1,"time_zone":"UTC"}"#).unwrap();
        assert_eq!(min.check(), Ok(()));
        assert!(
            serde_json::from_str::<DeviceConfig>(r#"{"version":1,"time_zone":"UTC","x":1}"#)
                .is_err()
        );
        assert_eq!(DeviceConfig::default().time_zone, "UTC");
    }

    #[test]
    fn bad_configurations_say_why() {
        let bad = |f: &dyn Fn(&mut DeviceConfig)| {
            let mut c = config();
            f(&mut c);
            c.check().unwrap_err()
        };
        assert!(bad(&|c| c.version = -1).contains("version"));
        assert!(bad(&|c| c.time_zone = "Europe Berlin".into()).contains("time zone"));
        assert!(bad(&|c| c.time_zone = String::new()).contains("time zone"));
        assert!(bad(&|c| c.remote_cameras[0].name = "a door".into()).contains("camera name"));
        assert!(bad(&|c| c.remote_cameras[0].url = "ftp://x/".into()).contains("rtsp://"));
        assert!(
            bad(&|c| c.remote_cameras.push(c.remote_cameras[0].clone())).contains("two remote")
        );
        assert!(bad(&|c| c.blur[0].x = 1.2).contains("fractions"));
        assert!(bad(&|c| c.blur[0].width = 0.0).contains("above 0"));
        assert!(bad(&|c| c.blur[0].x = 0.7).contains("inside the frame"));
        assert!(bad(&|c| c.blur[0].height = f32::NAN).contains("fractions"));
        assert!(bad(&|c| c.barcodes.push(c.barcodes[0].clone())).contains("twice"));
        assert!(bad(&|c| c.barcodes[0].value = " LOT".into()).contains("barcode value"));
        assert!(bad(&|c| c.barcodes[0].task = 0).contains("positive"));
        assert!(bad(&|c| c.opcua[0].node_id = "Part".into()).contains("node id"));
        assert!(bad(&|c| c.opcua.push(c.opcua[0].clone())).contains("twice"));
        assert!(bad(&|c| c.schedules[0].days = vec![]).contains("weekday"));
        assert!(bad(&|c| c.schedules[0].days = vec![7]).contains("0 (Monday)"));
        assert!(bad(&|c| c.schedules[0].days = vec![1, 1]).contains("twice"));
        assert!(bad(&|c| c.schedules[0].end = "05:00".into()).contains("later"));
        assert!(bad(&|c| c.schedules[0].start = "6:00".into()).contains("HH:MM"));
        assert!(bad(&|c| c.schedules[0].id = 0).contains("positive"));
        assert!(bad(&|c| c.schedules[1].start = "13:59".into()).contains("overlap"));
        assert!(
            bad(&|c| c.schedules = (1..=65)
                .map(|i| schedule(i, "cam0", &[0], "00:00", "00:01"))
                .collect())
            .contains("at most")
        );
        // Another camera, or another day, does not overlap.
        let mut c = config();
        c.schedules[1].start = "13:00".into();
        c.schedules[1].days = vec![5, 6];
        assert_eq!(c.check(), Ok(()));
    }

    #[test]
    fn times_of_day_read_and_ranges_need_an_end_after_the_start() {
        assert_eq!(minute_of_day("00:00"), Some(0));
        assert_eq!(minute_of_day("23:59"), Some(1439));
        assert_eq!(minute_of_day("24:00"), Some(1440));
        for bad in [
            "24:01",
            "25:00",
            "12:60",
            "1200",
            "12:0",
            " 12:00",
            "ab:cd",
            "",
            "１２:00",
        ] {
            assert_eq!(minute_of_day(bad), None, "{bad:?}");
        }
        assert_eq!(time_range("08:00", "08:01"), Some((480, 481)));
        assert_eq!(time_range("08:00", "08:00"), None);
        assert_eq!(time_range("09:00", "08:00"), None);
        assert_eq!(time_range("24:00", "24:00"), None);
        // Touching ends do not meet; a shared minute on a shared day does.
        let a = (&[0u8, 2][..], ("08:00", "12:00"));
        assert!(!schedules_meet(a.0, a.1, &[0], ("12:00", "13:00")));
        assert!(schedules_meet(a.0, a.1, &[2], ("11:59", "13:00")));
        assert!(!schedules_meet(a.0, a.1, &[1], ("09:00", "10:00")));
        assert!(schedules_meet(a.0, a.1, &[2, 3], ("00:00", "24:00")));
    }

    #[test]
    fn camera_urls_are_checked_and_shown_without_their_password() {
        for ok in [
            "rtsp://10.0.0.5/stream",
            "rtsp://admin:pa:ss@cam.local:554/h264?x=1",
            "RTSPS://cam.example.com",
            "http://192.168.1.9:8080/video.mjpg",
            "https://user@cam.example.com/snap.jpg",
            "rtsp://[fe80::1]:554/s",
        ] {
            assert_eq!(check_camera_url(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "cam.local/stream",
            "file:///etc/passwd",
            "rtsp://",
            "rtsp:///stream",
            "rtsp://cam local/s",
            "rtsp://user:pw@/s",
            "rtsp://cam:0/s",
            "rtsp://cam:99999/s",
            "rtsp://cam:abc/s",
            "rtsp://[zz]/s",
            "rtsp://cam/\u{7}",
        ] {
            assert!(check_camera_url(bad).is_err(), "{bad}");
        }
        assert!(check_camera_url(&format!("rtsp://h/{}", "x".repeat(MAX_URL_BYTES))).is_err());
        assert_eq!(
            url_without_password("rtsp://admin:pa:ss@cam:554/s?a=b@c"),
            "rtsp://admin@cam:554/s?a=b@c"
        );
        assert_eq!(url_without_password("rtsp://cam/s"), "rtsp://cam/s");
        assert_eq!(url_without_password("http://u@cam/"), "http://u@cam/");
    }
}
