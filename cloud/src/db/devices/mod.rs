//! Devices, their credentials and enrolment codes, what their cameras run, the commands
//! sent to them, and the cycles they report.
//!
//! Every query of a user's call takes the organisation (`None` only for the super
//! admin's views); ingestion looks devices up by id and then checks the organisation
//! the topic names.
//!
//! By job: `records` (adding, reading, listing, changing, starring, deleting),
//! `credentials` (enrolment codes and the keys they give), `status` (what a device
//! says of itself), `cameras` (what their cameras run), `commands` (sent to them and
//! acknowledged), `stats` (their cycles and counts). Every item is re-exported here, so
//! callers name `db::devices::X`.

mod cameras;
mod commands;
mod credentials;
mod records;
mod stats;
mod status;

pub use cameras::{running_in_org, running_task, set_camera_task, tasks_of, with_tasks};
pub use commands::{ack_command, commands, insert_command, same_commands};
pub use credentials::{DeviceAuth, auth, enrol, enrolled, revoke, set_code};
pub use records::{Change, Filter, NewDevice, delete, get, insert, list, set_star, update};
pub use stats::{recent_cycles, stats};
pub use status::{Before, Taken, set_status};

use gemba_shared::api::v1::device::{Device, DeviceTask};
use gemba_shared::mqtt::v1::StatusMessage;
use sqlx::FromRow;

#[derive(FromRow, Clone)]
pub struct DeviceRow {
    pub id: i64,
    pub organization_id: i64,
    pub department_id: Option<i64>,
    pub display_name: String,
    pub serial_number: String,
    pub device_type: String,
    #[sqlx(try_from = "super::Flag")]
    pub active: bool,
    #[sqlx(try_from = "super::Flag")]
    pub archived: bool,
    pub settings: String,
    #[sqlx(try_from = "super::Flag")]
    pub enrolled: bool,
    #[sqlx(try_from = "super::Flag")]
    pub online: bool,
    pub status: Option<String>,
    pub last_seen: Option<i64>,
    pub created_at: i64,
    #[sqlx(try_from = "super::Flag")]
    pub starred: bool,
    pub update_channel: String,
    #[sqlx(try_from = "super::Flag")]
    pub fetch_analytics: bool,
}

/// A device's last status message as stored (`None` when it has sent none, or it does
/// not read).
pub fn parse_status(stored: Option<&str>) -> Option<StatusMessage> {
    stored.and_then(|s| serde_json::from_str(s).ok())
}

impl DeviceRow {
    /// The cameras its last status names.
    pub fn cameras(&self) -> Vec<String> {
        parse_status(self.status.as_deref())
            .map(|s| s.cameras.into_iter().map(|c| c.camera).collect())
            .unwrap_or_default()
    }

    pub fn into_device(self, tasks: Vec<DeviceTask>) -> Device {
        Device {
            id: self.id,
            display_name: self.display_name,
            serial_number: self.serial_number,
            device_type: self.device_type,
            starred: self.starred,
            active: self.active,
            is_archived: self.archived,
            organization: self.organization_id,
            department: self.department_id,
            enrolled: self.enrolled,
            online: self.online,
            last_seen: self.last_seen,
            status: parse_status(self.status.as_deref()),
            settings: serde_json::from_str(&self.settings)
                .unwrap_or_else(|_| serde_json::json!({})),
            tasks,
            created_at: self.created_at,
            update_channel: self.update_channel,
            fetch_analytics: self.fetch_analytics,
        }
    }
}

/// The columns of [`DeviceRow`] for the user `$1` (stars are per user).
const COLS: &str = "d.id, d.organization_id, d.department_id, d.display_name, d.serial_number, \
     d.device_type, d.active, d.archived, d.settings, \
     CAST(CASE WHEN d.credential_key IS NULL THEN 0 ELSE 1 END AS BIGINT) AS enrolled, \
     d.online, d.status, d.last_seen, d.created_at, \
     CAST(CASE WHEN EXISTS (SELECT 1 FROM device_stars s WHERE s.device_id = d.id AND s.user_id = $1) \
     THEN 1 ELSE 0 END AS BIGINT) AS starred, d.update_channel, d.fetch_analytics";
