//! Device monitoring (spec section 7 "Devices": "Two GETs to an external monitoring
//! service for device status and monitoring, keyed by organisation"): the cloud's own
//! device-health endpoints, `monitoring/{org}/device_status/` and
//! `monitoring/{org}/device_monitoring/`.

use serde::{Deserialize, Serialize};

use super::device::CameraEvent;

/// `GET monitoring/{org}/device_status/`: the organisation's devices, online or not.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MonitoringStatus {
    pub organization: i64,
    /// Devices not archived.
    pub total: i64,
    pub online: i64,
    pub offline: i64,
    pub devices: Vec<MonitoredDevice>,
}

/// One device of [`MonitoringStatus`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MonitoredDevice {
    pub id: i64,
    pub display_name: String,
    pub online: bool,
    /// When the cloud last heard of it (ms since the epoch).
    pub last_seen: Option<i64>,
}

/// `GET monitoring/{org}/device_monitoring/`: each device's health events still
/// open (a camera offline, a disk low, a model unsure…), the unhealthy first.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceMonitoring {
    pub organization: i64,
    /// Devices offline or with an open event.
    pub unhealthy: i64,
    pub devices: Vec<DeviceHealth>,
}

/// One device of [`DeviceMonitoring`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceHealth {
    pub id: i64,
    pub display_name: String,
    pub online: bool,
    pub last_seen: Option<i64>,
    /// Offline, or an event open.
    pub healthy: bool,
    /// Its open health events (`ended_at` null), the newest first.
    pub open_events: Vec<CameraEvent>,
}
