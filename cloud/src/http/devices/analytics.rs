//! `POST device/set_fetch_analytics/{id}/` (spec section 7; docs/decisions.md
//! "set_fetch_analytics"): whether the device sends its analytics (cycles) to the cloud
//! now, or keeps them in its outbox until switched on again, when it sends what it kept,
//! in order. Part of the device's configuration (`crate::device_config`): a change bumps
//! its version in the change's transaction and the configuration goes to the device now
//! (or on its next status, when it is offline). `OperateDevices` and the "Devices"
//! subscription, as the device's other settings.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::{Device, FetchAnalytics};

use crate::db::device_config as cfg;
use crate::http::devices::{current, for_change};
use crate::http::error::ApiResult;
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

/// Switches whether the device sends its analytics to the cloud now, or keeps them on
/// the device until switched on again. Answers the device.
#[utoipa::path(post, path = "/device/set_fetch_analytics/{id}/", tag = "devices",
    params(("id" = i64, Path)), request_body = FetchAnalytics,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn set_fetch_analytics(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<FetchAnalytics>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::OperateDevices).await?;
    let mut tx = state.db.begin_write().await?;
    let changed = cfg::set_fetch_analytics(&mut tx, id, req.fetch_analytics).await?;
    if changed {
        cfg::bump(&mut tx, id).await?;
    }
    tx.commit().await?;
    if changed {
        crate::device_config::send(&state, row.organization_id, id).await?;
    }
    current(&state, &me, id).await
}
