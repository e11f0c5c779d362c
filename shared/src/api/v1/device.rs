//! Device calls (spec section 7 "Devices") and the device's fields (section 3 "Device"),
//! plus enrolment: the portal adds a device and shows a one-time code, and
//! `gemba-agent enroll` exchanges the code for the device's credentials.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mqtt::v1::{Command, StatusMessage};

/// The device type whose devices the devices list hides (spec section 3).
pub const DEPARTMENTAL: &str = "departmental device";
/// The type of a workstation computer running gemba-agent (the default).
pub const WORKSTATION: &str = "workstation";
/// How long an enrolment code stays good.
pub const ENROL_CODE_TTL_SECS: i64 = 24 * 3600;
/// Longest display name, serial number and type.
pub const MAX_DEVICE_TEXT: usize = crate::validate::MAX_NAME_CHARS;

/// What one camera of a device is set to run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceTask {
    pub camera: String,
    pub task: i64,
    pub task_name: String,
    /// Started (and not stopped) from the portal.
    pub running: bool,
    /// The device refused to start it, and why (e.g. it has no such camera, or the
    /// model does not fit the task): its last start was refused and nothing changed
    /// since. The cloud asks again only after a back-off or when something changes
    /// (the task's settings, a model deployed, the device's cameras, the device
    /// restarted).
    #[serde(default)]
    pub refused: Option<String>,
    /// When it was refused (the cloud's clock).
    #[serde(default)]
    pub refused_at: Option<i64>,
}

/// A device (spec section 3 "Device").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Device {
    pub id: i64,
    pub display_name: String,
    #[serde(rename = "Serial_number")]
    pub serial_number: String,
    #[serde(rename = "Type")]
    pub device_type: String,
    pub starred: bool,
    pub active: bool,
    pub is_archived: bool,
    pub organization: i64,
    pub department: Option<i64>,
    /// Holds working credentials (enrolled and not revoked).
    pub enrolled: bool,
    /// As the device last said (its last will says offline).
    pub online: bool,
    pub last_seen: Option<i64>,
    /// The device's last status message, if any.
    pub status: Option<StatusMessage>,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub settings: Value,
    pub tasks: Vec<DeviceTask>,
    pub created_at: i64,
    /// The release environment the device's agent follows: `dev` or `prod` (issue 30).
    pub update_channel: String,
    /// Whether the device sends its analytics (cycles) to the cloud now, or keeps them
    /// on the device until switched on again (`POST device/set_fetch_analytics/{id}/`).
    pub fetch_analytics: bool,
}

/// `POST device/`: adds a device; the answer carries its one-time enrolment code.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct DeviceCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub display_name: Option<String>,
    #[serde(rename = "Serial_number")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub serial_number: Option<String>,
    #[serde(rename = "Type")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub device_type: Option<String>,
    pub department: Option<i64>,
}

/// A new enrolment code: shown once; only its hash is kept.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EnrolmentCode {
    pub device: Device,
    pub code: String,
    pub expires_at: i64,
    /// The command that enrols the agent, for the portal to show.
    pub command: String,
}

/// `PATCH device/{id}/` and `device/update_device/{id}/`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct DevicePatch {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub display_name: Option<String>,
    #[serde(rename = "Serial_number")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub serial_number: Option<String>,
    #[serde(rename = "Type")]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub device_type: Option<String>,
    pub active: Option<bool>,
    pub starred: Option<bool>,
    pub is_archived: Option<bool>,
}

/// `POST device/enroll/` (the agent, no user): the code for the credentials.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct EnrolRequest {
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub code: String,
}

/// The device's credentials: the key signs every MQTT message (`mqtt::v1::sign`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Credentials {
    pub organization: i64,
    pub device: i64,
    pub display_name: String,
    /// The key's id (the JWS `kid`).
    pub credential_id: i64,
    /// The key, base64 (standard alphabet).
    pub key: String,
    /// Where the agent connects: `mqtt://host:port`, or `mqtts://host:port` for TLS.
    pub mqtt: String,
    /// The embedded broker's TLS (with `mqtts://`): absent for a plain broker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tls: Option<BrokerTls>,
    /// The Ed25519 public key (base64) the deployment signs agent releases with: the
    /// device runs only releases it signed (`gemba_shared::release`). Absent from an
    /// older cloud: the device refuses self-updates until enrolled again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub release_key: Option<String>,
}

/// What a device needs for TLS to the embedded broker, made by the cloud at enrolment
/// (`gemba_shared::broker::tls`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BrokerTls {
    /// The cloud's certificate authority (PEM), the only one the broker's certificate
    /// is accepted from.
    pub ca: String,
    /// The device's client certificate (PEM); its organisation is the tenant.
    pub cert: String,
    /// The certificate's private key (PEM, PKCS#8).
    pub key: String,
    /// The device's tenant: its topics are under `/tenants/{tenant}/`.
    pub tenant: String,
    /// When the broker serves an operator's certificate (`mqtt_tls_cert`): the
    /// authority (PEM) it is accepted from, checked for the host the agent dials.
    /// Absent: the broker's certificate comes from `ca`, for the name `gemba-broker`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub server_ca: Option<String>,
}

/// `GET device/{id}/device_details/`: a device with its recent commands and its latest
/// cycles (with the step names of their tasks, by task id).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceDetails {
    #[serde(flatten)]
    pub device: Device,
    pub commands: Vec<DeviceCommand>,
    pub recent_cycles: Vec<RecentCycle>,
    pub task_steps: std::collections::BTreeMap<i64, Vec<String>>,
    /// What keeps the device from working that the cloud knows and the device cannot
    /// say, with the fix: the demo station's agent that could not start (`serve
    /// --demo` without ONNX Runtime). `null` otherwise.
    #[serde(default)]
    pub notice: Option<String>,
    /// What happened to its cameras (the model unsure of what a camera sees), newest
    /// first, the last 20, including those that ended.
    #[serde(default)]
    pub camera_events: Vec<CameraEvent>,
}

/// What kind of thing happened to a camera.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CameraEventKind {
    /// Its model was unsure of what it saw (a sustained rise of the share of frames
    /// whose most likely label is under `mqtt::v1::UNSURE_BELOW`): the light, the view
    /// or the work changed; add video of it and train again.
    Unsure,
    /// Its source could not be read: a network camera unreachable, a device gone.
    Offline,
    /// Its picture has not changed at all for a while: a stuck camera or encoder.
    Frozen,
    /// Its frames come at under half the rate asked for.
    Slow,
    /// Its model failed on its frames.
    Model,
    /// The device's outbox is filling (the cloud has not taken its cycles for a
    /// while); `camera` is empty for the device's own events.
    OutboxFilling,
    /// The device's disk is nearly full.
    DiskLow,
    /// Its picture has been nearly uniform for a while: the lens blocked, or dark. A
    /// tampering request (`telemetry/tampering_requests/`).
    Covered,
    /// Its view has differed from its reference for a while: the camera was moved or
    /// turned. A tampering request; accepting the new view sends `rebaseline`.
    Moved,
}

impl CameraEventKind {
    pub const ALL: [CameraEventKind; 9] = [
        CameraEventKind::Unsure,
        CameraEventKind::Offline,
        CameraEventKind::Frozen,
        CameraEventKind::Slow,
        CameraEventKind::Model,
        CameraEventKind::OutboxFilling,
        CameraEventKind::DiskLow,
        CameraEventKind::Covered,
        CameraEventKind::Moved,
    ];

    /// The kinds that are tampering requests: a person reviews each.
    pub const TAMPERING: [CameraEventKind; 2] = [CameraEventKind::Covered, CameraEventKind::Moved];

    /// Its name as stored and sent (`snake_case`).
    pub fn as_str(self) -> &'static str {
        match self {
            CameraEventKind::Unsure => "unsure",
            CameraEventKind::Offline => "offline",
            CameraEventKind::Frozen => "frozen",
            CameraEventKind::Slow => "slow",
            CameraEventKind::Model => "model",
            CameraEventKind::OutboxFilling => "outbox_filling",
            CameraEventKind::DiskLow => "disk_low",
            CameraEventKind::Covered => "covered",
            CameraEventKind::Moved => "moved",
        }
    }

    pub fn parse(s: &str) -> Option<CameraEventKind> {
        CameraEventKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// In a person's words, for lists and mails.
    pub fn describe(self) -> &'static str {
        match self {
            CameraEventKind::Unsure => "model unsure",
            CameraEventKind::Offline => "camera offline",
            CameraEventKind::Frozen => "frozen frames",
            CameraEventKind::Slow => "frame rate under its floor",
            CameraEventKind::Model => "model error",
            CameraEventKind::OutboxFilling => "outbox filling",
            CameraEventKind::DiskLow => "disk low",
            CameraEventKind::Covered => "camera covered",
            CameraEventKind::Moved => "camera moved",
        }
    }
}

/// `GET device/devicelistadminview`: a device of any organisation (the super admin's
/// All Devices) with its health: its events that have not ended (issue 30), oldest
/// first; none when all is well.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AdminDevice {
    #[serde(flatten)]
    pub device: Device,
    pub health: Vec<CameraEvent>,
}

/// `GET telemetry/device_events/`: a health event of one of the organisation's devices
/// (the Issue Center), with the device it happened to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceEvent {
    pub device: i64,
    pub device_name: String,
    #[serde(flatten)]
    pub event: CameraEvent,
}

/// Something that happened to a camera of a device, from when to when (the cloud's
/// clock; `ended_at` `null` while it lasts).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CameraEvent {
    pub id: i64,
    pub camera: String,
    pub kind: CameraEventKind,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    /// The share of unsure frames (0–1) and the brightness (0–255) when it began…
    pub unsure_share: Option<f64>,
    pub brightness: Option<f64>,
    /// …and when the model was last sure before.
    pub sure_share: Option<f64>,
    pub sure_brightness: Option<f64>,
    /// What the device said of it (an error, the figures), for the kinds but `unsure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub detail: Option<String>,
}

/// A cycle as its device sent it (a device's latest, and telemetry's lists).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecentCycle {
    pub id: String,
    pub task: i64,
    /// `null` once its device was deleted.
    pub device: Option<i64>,
    pub camera: String,
    pub start_ms: i64,
    pub end_ms: i64,
    pub idle_ms: i64,
    pub good: bool,
    pub reasons: Vec<crate::cycle::BadReason>,
    pub segments: Vec<crate::cycle::Segment>,
}

/// `PATCH device/archive_device/{id}/`: `{}` archives, `{"is_archived": false}` brings
/// back.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct Archive {
    pub is_archived: Option<bool>,
}

/// `PATCH device/{id}/update_channel/`: the release environment the device follows
/// (`dev` or `prod`; issue 30).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct UpdateChannel {
    pub update_channel: String,
}

/// `POST device/set_fetch_analytics/{id}/`: whether the device sends its analytics
/// (cycles) to the cloud now (`true`), or keeps them in its outbox until switched on
/// again (`false`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct FetchAnalytics {
    pub fetch_analytics: bool,
}

/// One device's settings (`device_setting/`, `device_settings/…`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceSettings {
    pub id: i64,
    pub display_name: String,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub settings: Value,
}

/// `POST device/device_tasks_upsert/`: sets and starts the task of one of a device's
/// cameras.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct DeviceTaskUpsert {
    pub device: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: String,
    pub task: i64,
}

/// `POST device/{id}/start_task/`: run a task on one of the device's cameras.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct StartTask {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: String,
    pub task: i64,
}

/// `POST device/{id}/stop_task/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct StopTask {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: String,
}

/// A command sent to a device, and its acknowledgement once it came.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceCommand {
    pub id: String,
    pub command: Command,
    pub created_at: i64,
    pub acked_at: Option<i64>,
    pub ok: Option<bool>,
    pub message: Option<String>,
}

/// `GET device/device_status/`: one row per device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceStatus {
    pub id: i64,
    pub display_name: String,
    pub online: bool,
    pub last_seen: Option<i64>,
}

/// `GET device/devices_stats/`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceStats {
    pub total: i64,
    pub online: i64,
    pub offline: i64,
    pub archived: i64,
    pub enrolled: i64,
    pub running_tasks: i64,
    /// Cycles received in the last 24 hours.
    pub cycles_24h: i64,
}

/// `GET organization/task/task_inference_status`: which tasks run where.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskInferenceStatus {
    pub task: i64,
    pub task_name: String,
    pub device: i64,
    pub device_name: String,
    pub camera: String,
    pub online: bool,
}

/// `GET device/get_device_tasks_association/?task=&device=`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceTaskAssociation {
    pub task: i64,
    pub device: i64,
    pub associated: bool,
    pub running: bool,
    pub cameras: Vec<String>,
}

/// Checks a display name, serial number or type: trimmed, at most
/// [`MAX_DEVICE_TEXT`] characters; `required` ones not empty.
pub fn check_text(label: &str, value: &str, required: bool) -> Result<String, String> {
    let v = value.trim();
    if required && v.is_empty() {
        return Err(format!("{label} is required!"));
    }
    if v.chars().count() > MAX_DEVICE_TEXT {
        return Err(format!(
            "{label} must be at most {MAX_DEVICE_TEXT} characters."
        ));
    }
    if v.chars().any(char::is_control) {
        return Err(format!("{label} must not contain control characters."));
    }
    Ok(v.to_string())
}

/// A camera name: 1 to 100 letters, digits, `-`, `_` or `.`.
pub fn check_camera(value: &str) -> Result<&str, String> {
    let ok = !value.is_empty()
        && value.len() <= MAX_DEVICE_TEXT
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(value)
    } else {
        Err("A camera name is 1 to 100 letters, digits, '-', '_' or '.'.".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_and_cameras_are_checked() {
        assert_eq!(check_text("Name", "  Bench 1 ", true).unwrap(), "Bench 1");
        assert_eq!(
            check_text("Name", " ", true).unwrap_err(),
            "Name is required!"
        );
        assert_eq!(check_text("Serial", "", false).unwrap(), "");
        assert!(check_text("Name", &"x".repeat(101), true).is_err());
        assert!(check_text("Name", "a\u{0}b", true).is_err());
        assert!(check_camera("cam-0.main_1").is_ok());
        for bad in ["", "cam 0", "cam/0", "+", "#", &"c".repeat(101)] {
            assert!(check_camera(bad).is_err(), "{bad:?}");
        }
    }
}
