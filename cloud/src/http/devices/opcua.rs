//! A device's OPC UA node bindings (`device/{id}/opcua_bindings/`, issue 32; our paths,
//! the spec names none): nodes of OPC UA servers the device reaches, bound to one of its
//! cameras (while it runs a task, or any) to start or end cycles or to put their value
//! on the cycles' metadata. Part of the device's configuration: every change bumps its
//! version and sends it.
//!
//! Reading needs `ViewDevices`; binding and unbinding `ExploreOpcua` and the
//! organisation's "OPCUA Explorer" subscription (spec section 6), the OPC screen's. A
//! binding is checked field by field (the contract's rules, a camera of the device, a
//! task of the organisation), then with the device's others as a whole
//! (`check_bindings`: none twice, one node a camera's metadata key, the bounds), and
//! the configuration must still fit in one command; nothing is written otherwise.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::feature_control::Gated;
use gemba_shared::api::v1::opcua::{OpcuaBindingCreate, OpcuaBindingRecord, OpcuaRoleName};
use gemba_shared::mqtt::v1::{self, OpcuaBinding, OpcuaRole};
use gemba_shared::validate::Bounded;

use crate::db::device_config as cfg;
use crate::db::devices::DeviceRow;
use crate::db::opcua::{self as db, BindingRow};
use crate::db::tasks;
use crate::device_config::{build, fits, send};
use crate::http::devices::blur::check_device_camera;
use crate::http::devices::find;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path};
use crate::state::AppState;

/// The name of a task of `org` (none when it is gone).
async fn task_name(state: &AppState, org: i64, task: i64) -> ApiResult<Option<String>> {
    Ok(tasks::get(&state.db, 0, Some(org), task)
        .await?
        .map(|t| t.settings().task_name))
}

async fn record(state: &AppState, org: i64, r: BindingRow) -> ApiResult<OpcuaBindingRecord> {
    let task_name = match r.task_id {
        Some(t) => task_name(state, org, t).await?,
        None => None,
    };
    let (role, key) = match r.role() {
        Some(OpcuaRole::StartCycle) => (OpcuaRoleName::StartCycle, None),
        Some(OpcuaRole::EndCycle) => (OpcuaRoleName::EndCycle, None),
        Some(OpcuaRole::Metadata { key }) => (OpcuaRoleName::Metadata, Some(key)),
        None => return Err(anyhow::anyhow!("binding {} has role {:?}", r.id, r.role).into()),
    };
    Ok(OpcuaBindingRecord {
        id: r.id,
        device: r.device_id,
        endpoint: r.endpoint,
        node_id: r.node_id,
        camera: r.camera,
        task: r.task_id,
        task_name,
        role,
        key,
        created_at: r.created_at,
    })
}

/// Device `id` for a change of its bindings by `me`: the permission first (403 whatever
/// the id), then the device (404), then the subscription (403 saying so).
async fn for_change(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<DeviceRow> {
    me.require(Permission::ExploreOpcua)?;
    let row = find(state, me, id).await?;
    me.require_subscribed(
        state,
        row.organization_id,
        Permission::ExploreOpcua,
        Gated::OpcuaExplorer,
    )
    .await?;
    Ok(row)
}

/// The node bindings of device `id`, oldest first.
#[utoipa::path(get, path = "/device/{id}/opcua_bindings/", tag = "devices",
    params(("id" = i64, Path, description = "The device")),
    responses((status = 200, body = Vec<OpcuaBindingRecord>), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<OpcuaBindingRecord>>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, id).await?;
    let mut out = vec![];
    for r in db::bindings(&state.db, row.id).await? {
        out.push(record(&state, row.organization_id, r).await?);
    }
    Ok(axum::Json(out))
}

/// The binding asked for, its fields checked one by one (a 400 on the field).
async fn check_fields(
    state: &AppState,
    row: &DeviceRow,
    req: &OpcuaBindingCreate,
) -> ApiResult<OpcuaBinding> {
    let mut b = req.binding().map_err(|(f, m)| ApiError::field(f, m))?;
    b.endpoint = b.endpoint.trim().to_string();
    b.node_id = b.node_id.trim().to_string();
    v1::check_endpoint(&b.endpoint).map_err(|m| ApiError::field("endpoint", m))?;
    v1::check_node_id(&b.node_id).map_err(|m| ApiError::field("node_id", m))?;
    b.camera = check_device_camera(state, row, &b.camera, false).await?;
    if let OpcuaRole::Metadata { key } = &b.role {
        v1::check_key(key).map_err(|m| ApiError::field("key", m))?;
    }
    if let Some(t) = b.task {
        match tasks::get(&state.db, 0, Some(row.organization_id), t).await? {
            Some(task) if !task.settings().is_deleted => {}
            _ => return Err(ApiError::field("task", "No such task.")),
        }
    }
    b.check().map_err(ApiError::non_field)?;
    Ok(b)
}

/// Binds a node to a camera of device `id` and sends the device its configuration.
#[utoipa::path(post, path = "/device/{id}/opcua_bindings/", tag = "devices",
    params(("id" = i64, Path, description = "The device")), request_body = OpcuaBindingCreate,
    responses((status = 201, body = OpcuaBindingRecord), (status = 400), (status = 403), (status = 404)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<OpcuaBindingCreate>,
) -> ApiResult<(StatusCode, axum::Json<OpcuaBindingRecord>)> {
    req.check_lengths()?;
    let row = for_change(&state, &me, id).await?;
    if row.archived {
        return Err(ApiError::non_field(
            "An archived device cannot have OPC UA bindings added.",
        ));
    }
    let binding = check_fields(&state, &row, &req).await?;
    let Some(mut config) = build(&state, row.organization_id, row.id).await? else {
        return Err(ApiError::NotFound);
    };
    let mut tx = state.db.begin_write().await?;
    // The device's row locked by the bump: its bindings are read after any other
    // change's commit.
    cfg::bump(&mut tx, row.id).await?;
    let mut all: Vec<OpcuaBinding> = db::bindings_in(&mut tx, row.id)
        .await?
        .iter()
        .filter_map(BindingRow::binding)
        .collect();
    all.push(binding.clone());
    v1::check_bindings(&all).map_err(ApiError::non_field)?;
    config.opcua = all;
    if !fits(&config) {
        return Err(ApiError::non_field(
            "The device's configuration would be over the largest message: remove other \
             bindings or schedules first.",
        ));
    }
    let new = db::insert(&mut tx, row.id, &binding).await?;
    tx.commit().await?;
    send(&state, row.organization_id, row.id).await?;
    let r = db::binding(&state.db, new)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok((
        StatusCode::CREATED,
        axum::Json(record(&state, row.organization_id, r).await?),
    ))
}

/// Removes binding `binding` of device `id` and sends the device its configuration.
#[utoipa::path(delete, path = "/device/{id}/opcua_bindings/{binding}/", tag = "devices",
    params(("id" = i64, Path, description = "The device"),
        ("binding" = i64, Path, description = "The binding")),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path((id, binding)): Path<(i64, i64)>,
) -> ApiResult<axum::Json<Msg>> {
    let row = for_change(&state, &me, id).await?;
    let found = db::binding(&state.db, binding).await?;
    if found.is_none_or(|b| b.device_id != row.id) {
        return Err(ApiError::NotFound);
    }
    let mut tx = state.db.begin_write().await?;
    db::delete(&mut tx, binding).await?;
    cfg::bump(&mut tx, row.id).await?;
    tx.commit().await?;
    send(&state, row.organization_id, row.id).await?;
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}
