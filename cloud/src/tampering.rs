//! Tampering requests (issue 31): when a device says a camera is covered or moved (an
//! event of those kinds opened by `db::camera_events::note_status`), the cloud asks it
//! for a screenshot of that camera at once, so the person reviewing the request sees
//! what the camera saw (`db::tampering`, `http::telemetry::tampering`).

use gemba_shared::api::v1::device::CameraEventKind;

use crate::db::camera_events::New;
use crate::db::{devices, tampering};
use crate::state::AppState;

/// The kind of the screenshots asked for here (not listed with those at intervals).
pub const SCREENSHOT_KIND: &str = "tampering";

/// Asks device `device` of `org` for a screenshot of each camera of the tampering
/// events in `opened`, noted as its request's. Failure is logged: the request stands
/// without a picture.
pub async fn on_opened(state: &AppState, org: i64, device: i64, opened: &[New]) {
    for e in opened
        .iter()
        .filter(|e| CameraEventKind::TAMPERING.contains(&e.kind) && !e.camera.is_empty())
    {
        if let Err(err) = screenshot(state, org, device, e).await {
            tracing::warn!(device, camera = e.camera, error = %format!("{err:#}"),
                "asking for a tampering request's screenshot");
        }
    }
}

async fn screenshot(state: &AppState, org: i64, device: i64, e: &New) -> anyhow::Result<()> {
    let Some(event) = tampering::open_event(&state.db, device, &e.camera, e.kind).await? else {
        return Ok(());
    };
    let Some(row) = devices::get(&state.db, 0, Some(org), device).await? else {
        return Ok(());
    };
    let (shot, _) = crate::screenshots::request(state, &row, &e.camera, SCREENSHOT_KIND).await?;
    tampering::set_screenshot(&state.db, event, shot).await?;
    Ok(())
}
