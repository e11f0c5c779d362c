//! The mails of device health events (issue 30): once per event the cloud opened
//! (`db::camera_events::note_status`), to the recipients of the organisation's 'Device
//! Health' event notification. A model unsure of what it sees is shown on the device
//! page but not mailed (it is drift, for whoever trains; the rest need someone at the
//! device).

use gemba_shared::api::v1::device::CameraEventKind;

use crate::db::camera_events::New;
use crate::db::features;
use crate::state::AppState;

/// The event type of an event notification that gets these mails.
pub const DEVICE_HEALTH_EVENT: &str = gemba_shared::validate::EVENT_TYPES[1];

/// The subject and body of the mail of event `e` of device `device` (named `name`).
pub fn mail_text(device: i64, name: &str, e: &New) -> (String, String) {
    let what = e.kind.describe();
    let on = if e.camera.is_empty() {
        format!("{name} (device {device})")
    } else {
        format!("camera {} of {name} (device {device})", e.camera)
    };
    let since = chrono::DateTime::from_timestamp_millis(e.started_at)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_default();
    let subject = format!("Device Health: {what} on {name}");
    let mut body = format!("{what} on {on}, since {since}.\n");
    if let Some(d) = &e.detail {
        body.push_str(&format!("\nThe device says: {d}\n"));
    }
    body.push_str("\nThe device page shows when it ends.\n");
    (subject, body)
}

/// Mails the events `opened` of device `device` of organisation `org`. Failure is
/// logged: the events are kept anyway.
pub async fn mail_opened(state: &AppState, org: i64, device: i64, opened: &[New]) {
    let opened: Vec<&New> = opened
        .iter()
        .filter(|e| e.kind != CameraEventKind::Unsure)
        .collect();
    if opened.is_empty() {
        return;
    }
    let recipients = match features::notification_for(&state.db, org, DEVICE_HEALTH_EVENT).await {
        Ok(Some(n)) if !n.recipients.is_empty() => n.recipients,
        Ok(_) => return,
        Err(e) => {
            tracing::error!(error = %e, "device health notification lookup");
            return;
        }
    };
    let name: String = sqlx::query_scalar("SELECT display_name FROM devices WHERE id = $1")
        .bind(device)
        .fetch_optional(&state.db.pool)
        .await
        .ok()
        .flatten()
        .unwrap_or_else(|| format!("device {device}"));
    for e in opened {
        let (subject, body) = mail_text(device, &name, e);
        if let Err(err) = state.mailer.send(&recipients, &subject, &body).await {
            tracing::error!(error = %err, "device health e-mail");
        }
        crate::push::notify(
            state,
            org,
            DEVICE_HEALTH_EVENT,
            &recipients,
            &subject,
            &body,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mail_names_the_event_the_device_and_camera_and_what_the_device_said() {
        let e = New {
            camera: "cam0".into(),
            kind: CameraEventKind::Offline,
            device_since: 1,
            started_at: 1_764_288_000_000,
            unsure_share: None,
            brightness: None,
            sure_share: None,
            sure_brightness: None,
            detail: Some("camera cam0 (rtsp://…): Could not open resource".into()),
        };
        let (subject, body) = mail_text(4, "Bench", &e);
        assert_eq!(subject, "Device Health: camera offline on Bench");
        assert!(
            body.starts_with(
                "camera offline on camera cam0 of Bench (device 4), since 2025-11-28 00:00:00 UTC."
            ),
            "{body}"
        );
        assert!(body.contains("The device says: camera cam0"));
        let device_own = New {
            camera: String::new(),
            kind: CameraEventKind::DiskLow,
            detail: None,
            ..e
        };
        let (_, body) = mail_text(4, "Bench", &device_own);
        assert!(body.starts_with("disk low on Bench (device 4)"), "{body}");
    }
}
