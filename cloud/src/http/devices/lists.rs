//! Lists of devices: an organisation's (departmental devices hidden), those in no
//! department, putting one in a department, and the super admin's list of all.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::{AdminDevice, CameraEvent, Device};
use gemba_shared::api::v1::{PAGE_SIZE, Page, page_offset};
use serde::Deserialize;

use crate::db::devices::{self, Change, Filter};
use crate::db::{camera_events, orgs};
use crate::http::devices::{current, for_change, own_org};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Path, Query};
use crate::state::AppState;

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DeviceQuery {
    /// Archived devices instead of the others.
    #[serde(default)]
    pub archived: Option<bool>,
    #[serde(default)]
    pub search: Option<String>,
}

pub(super) async fn list_of(
    state: &AppState,
    me: &AuthUser,
    f: Filter,
) -> ApiResult<axum::Json<Vec<Device>>> {
    let (rows, _) = devices::list(&state.db, me.user.id, &f, None).await?;
    Ok(axum::Json(devices::with_tasks(&state.db, rows).await?))
}

/// The devices of organisation `id` (departmental devices hidden), starred first.
#[utoipa::path(get, path = "/device/device_org/{id}/", tag = "devices",
    params(("id" = i64, Path), DeviceQuery),
    responses((status = 200, body = Vec<Device>), (status = 403), (status = 404)))]
pub async fn device_org(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Query(q): Query<DeviceQuery>,
) -> ApiResult<axum::Json<Vec<Device>>> {
    me.require(Permission::ViewDevices)?;
    let org = own_org(&state, &me, id).await?;
    let f = Filter {
        org: Some(org),
        archived: q.archived.unwrap_or(false),
        hide_departmental: true,
        search: q.search.unwrap_or_default(),
        ..Filter::default()
    };
    list_of(&state, &me, f).await
}

/// Devices of organisation `id` in no department.
#[utoipa::path(get, path = "/device/{id}/get_department_less_devices/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Vec<Device>), (status = 403), (status = 404)))]
pub async fn department_less(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<Device>>> {
    me.require(Permission::ViewDevices)?;
    let f = Filter {
        org: Some(own_org(&state, &me, id).await?),
        without_department: true,
        ..Filter::default()
    };
    list_of(&state, &me, f).await
}

/// Puts device `id` in department `dept` of its organisation.
#[utoipa::path(patch, path = "/device/{id}/assign_device_to_department/{dept}/", tag = "devices",
    params(("id" = i64, Path), ("dept" = i64, Path)),
    responses((status = 200, body = Device), (status = 403), (status = 404)))]
pub async fn assign_department(
    State(state): State<AppState>,
    me: AuthUser,
    Path((id, dept)): Path<(i64, i64)>,
) -> ApiResult<axum::Json<Device>> {
    let row = for_change(&state, &me, id, Permission::ManageDevices).await?;
    if !orgs::departments(&state.db, row.organization_id)
        .await?
        .iter()
        .any(|x| x.id == dept)
    {
        return Err(ApiError::NotFound);
    }
    let c = Change {
        department: Some(Some(dept)),
        ..Change::default()
    };
    devices::update(&state.db, row.organization_id, id, &c).await?;
    current(&state, &me, id).await
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AdminQuery {
    #[serde(default)]
    pub page: Option<i64>,
    #[serde(default)]
    pub query: Option<String>,
    #[serde(default)]
    pub archived: Option<bool>,
}

/// Every organisation's devices, 10 a page (the super admin's All Devices), each with its
/// health: its events that have not ended (issue 30), read for the whole page at once.
#[utoipa::path(get, path = "/device/devicelistadminview", tag = "devices", params(AdminQuery),
    responses((status = 200, body = Page<AdminDevice>), (status = 400), (status = 403)))]
pub async fn admin_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<AdminQuery>,
) -> ApiResult<axum::Json<Page<AdminDevice>>> {
    me.require(Permission::AdminArea)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let f = Filter {
        archived: q.archived.unwrap_or(false),
        search: q.query.unwrap_or_default(),
        ..Filter::default()
    };
    let (rows, count) = devices::list(&state.db, me.user.id, &f, Some((offset, PAGE_SIZE))).await?;
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut health: std::collections::HashMap<i64, Vec<CameraEvent>> = Default::default();
    for (d, e) in camera_events::open_of(&state.db, &ids).await? {
        health.entry(d).or_default().push(e);
    }
    let results = devices::with_tasks(&state.db, rows)
        .await?
        .into_iter()
        .map(|device| AdminDevice {
            health: health.remove(&device.id).unwrap_or_default(),
            device,
        })
        .collect();
    Ok(axum::Json(Page { results, count }))
}
