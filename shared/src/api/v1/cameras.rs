//! A device's cameras beyond what it runs (spec section 7 "Devices", issue 29): remote
//! cameras (`device/remote_cam/{id}/`), privacy blur regions (`device/blur_regions`,
//! `device/delete_blur_regions`), schedules (`device/get_schedules`,
//! `device/add_schedules`, `device/schedules/{id}`) and screenshots
//! (`organization/get_screenshot`, `organization/get_screenshot_intervals`). What the
//! device keeps of them travels as `mqtt::v1::DeviceConfig`.

use serde::{Deserialize, Serialize};

/// The spec's message for a schedule without a proper time range (section 5).
pub const SCHEDULE_TIME_MESSAGE: &str = "Schedule time is not properly selected!";

/// Shortest interval between screenshots taken at intervals, in seconds.
pub const MIN_SCREENSHOT_INTERVAL_SECS: i64 = 60;
/// Longest interval between screenshots taken at intervals, in seconds (a day).
pub const MAX_SCREENSHOT_INTERVAL_SECS: i64 = 86_400;
/// The device setting (`device_settings_update`) that turns screenshots at intervals
/// on: seconds between two, 0 or absent off.
pub const SCREENSHOT_INTERVAL_SETTING: &str = "screenshot_interval_secs";

/// The device a remote camera is attached to (the spec's "id plus device details").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CameraDevice {
    pub id: i64,
    pub display_name: String,
    #[serde(rename = "Serial_number")]
    pub serial_number: String,
    #[serde(rename = "Type")]
    pub device_type: String,
    pub online: bool,
}

/// A remote (network) camera of a device. Its password is never answered: `url` shows
/// the login's user name at most, `has_password` whether one is kept.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RemoteCam {
    pub id: i64,
    pub device: CameraDevice,
    /// The camera's name on the device (as its own cameras are named).
    pub name: String,
    /// `rtsp://`, `rtsps://`, `http(s)://`, without the password.
    pub url: String,
    pub username: String,
    pub has_password: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `POST device/remote_cam/{device}/`: a camera to attach. A login may be given in the
/// URL (`rtsp://user:password@host/…`) or as `username` and `password`, not both.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct RemoteCamCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub url: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub username: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub password: Option<String>,
}

/// `PATCH device/remote_cam/{id}/`: what changes. A new `url` without a login keeps the
/// kept one; `password: ""` removes it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct RemoteCamPatch {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 1000))]
    pub url: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub username: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 128))]
    pub password: Option<String>,
}

/// A rectangle of a frame: fractions 0–1 of its width and height from its top-left
/// corner.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// A blur region of one of a device's cameras.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceBlurRegion {
    pub id: i64,
    pub device: i64,
    pub camera: String,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub created_at: i64,
}

/// `POST device/blur_regions` (adds `regions` to the camera's) and `PUT` (replaces the
/// camera's regions with `regions`; an empty list removes them all).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct BlurRegionsWrite {
    pub device: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: String,
    pub regions: Vec<Rect>,
}

/// A schedule: `task` runs on `camera` of `device` on `days` (0 = Monday … 6 =
/// Sunday) from `start` to `end` (`HH:MM`, the organisation's `time_zone`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceSchedule {
    pub id: i64,
    pub device: i64,
    pub camera: String,
    pub task: i64,
    pub task_name: String,
    pub days: Vec<u8>,
    pub start: String,
    pub end: String,
    /// The organisation's time zone, in which `start` and `end` are read.
    pub time_zone: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `POST device/add_schedules`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ScheduleCreate {
    pub device: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: String,
    pub task: i64,
    pub days: Vec<u8>,
    /// `HH:MM`; missing, empty or not before `end`: 'Schedule time is not properly
    /// selected!'.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub start: Option<String>,
    /// `HH:MM` after `start`, or `24:00`.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub end: Option<String>,
}

/// `PATCH device/schedules/{id}`: what changes (the device stays).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct SchedulePatch {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub camera: Option<String>,
    pub task: Option<i64>,
    pub days: Option<Vec<u8>>,
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub start: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub end: Option<String>,
}

/// How a screenshot came to be taken.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ScreenshotKind {
    /// Asked for (`get_screenshot`).
    OnDemand,
    /// Taken at the device's interval.
    Interval,
}

/// A JPEG of a camera (blur applied on the device), kept in the object store.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Screenshot {
    pub id: i64,
    pub device: i64,
    pub camera: String,
    pub kind: ScreenshotKind,
    /// When it arrived (the cloud's clock).
    pub taken_at: i64,
    pub size_bytes: i64,
    /// A signed media URL of the JPEG.
    pub url: String,
}
