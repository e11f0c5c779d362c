//! What a device's cameras run: setting, starting and stopping a task on a camera (a
//! signed command to the device), the commands sent and their acknowledgements, whether
//! a task is associated with a device, and which tasks run where.

use axum::extract::State;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::{
    self as d, Device, DeviceCommand, DeviceTask, DeviceTaskAssociation, DeviceTaskUpsert,
    StartTask, StopTask, TaskInferenceStatus,
};
use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::Command;
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use crate::db::devices::{self, DeviceRow};
use crate::db::{camera_tasks, tasks};
use crate::http::devices::{camera_tasks, current, find, for_change, may_change, send_command};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;

/// What the cameras of device `id` are set to run.
#[utoipa::path(get, path = "/device/get_device_tasks/{id}", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Vec<DeviceTask>), (status = 403), (status = 404)))]
pub async fn get_device_tasks(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<DeviceTask>>> {
    me.require(Permission::ViewDevices)?;
    find(&state, &me, id).await?;
    Ok(axum::Json(camera_tasks(&state, id).await?))
}

/// A task of the device's organisation, live (404 otherwise).
async fn task_of(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    task: i64,
) -> ApiResult<tasks::TaskRow> {
    match tasks::get(&state.db, me.user.id, Some(org), task).await? {
        Some(t) if !t.settings().is_deleted => Ok(t),
        _ => Err(ApiError::field("task", "No such task.")),
    }
}

/// Sets (and starts) the task of one of a device's cameras.
#[utoipa::path(post, path = "/device/device_tasks_upsert/", tag = "devices",
    request_body = DeviceTaskUpsert,
    responses((status = 200, body = Vec<DeviceTask>), (status = 400), (status = 403), (status = 404)))]
pub async fn device_tasks_upsert(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<DeviceTaskUpsert>,
) -> ApiResult<axum::Json<Vec<DeviceTask>>> {
    req.check_lengths()?;
    me.require(Permission::OperateDevices)?;
    let row = find(&state, &me, req.device).await?;
    run_task(&state, &me, row, &req.camera, req.task).await?;
    Ok(axum::Json(camera_tasks(&state, req.device).await?))
}

async fn run_task(
    state: &AppState,
    me: &AuthUser,
    row: DeviceRow,
    camera: &str,
    task: i64,
) -> ApiResult<()> {
    may_change(state, me, row.organization_id, Permission::OperateDevices).await?;
    let camera = d::check_camera(camera).map_err(|m| ApiError::field("camera", m))?;
    let task = task_of(state, me, row.organization_id, task).await?;
    if row.archived {
        return Err(ApiError::non_field("An archived device cannot run tasks."));
    }
    devices::set_camera_task(&state.db, row.id, camera, Some(task.id)).await?;
    let generation = camera_tasks::generation(&state.db, row.id, camera).await?;
    send_command(
        state,
        &row,
        Command::StartTask {
            camera: camera.to_string(),
            task: task.id,
            engine: EngineConfig::from_task(&task.settings()),
            generation: generation.unwrap_or(0),
        },
    )
    .await?;
    Ok(())
}

/// Starts a task on one of the device's cameras (a command to the device).
#[utoipa::path(post, path = "/device/{id}/start_task/", tag = "devices",
    params(("id" = i64, Path)), request_body = StartTask,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn start_task(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<StartTask>,
) -> ApiResult<axum::Json<Device>> {
    req.check_lengths()?;
    me.require(Permission::OperateDevices)?;
    let row = find(&state, &me, id).await?;
    run_task(&state, &me, row, &req.camera, req.task).await?;
    current(&state, &me, id).await
}

/// Stops what one of the device's cameras runs.
#[utoipa::path(post, path = "/device/{id}/stop_task/", tag = "devices",
    params(("id" = i64, Path)), request_body = StopTask,
    responses((status = 200, body = Device), (status = 400), (status = 403), (status = 404)))]
pub async fn stop_task(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<StopTask>,
) -> ApiResult<axum::Json<Device>> {
    req.check_lengths()?;
    let row = for_change(&state, &me, id, Permission::OperateDevices).await?;
    let camera = d::check_camera(&req.camera).map_err(|m| ApiError::field("camera", m))?;
    if !devices::set_camera_task(&state.db, id, camera, None).await? {
        return Err(ApiError::field("camera", "This camera runs no task."));
    }
    let set = camera_tasks::of_device(&state.db, id).await?;
    let set = set.iter().find(|t| t.camera == camera);
    send_command(
        &state,
        &row,
        Command::StopTask {
            camera: camera.to_string(),
            task: set.map(|t| t.task),
            generation: set.map_or(0, |t| t.generation),
        },
    )
    .await?;
    current(&state, &me, id).await
}

/// The commands last sent to a device, newest first, with their acknowledgements.
#[utoipa::path(get, path = "/device/{id}/commands/", tag = "devices",
    params(("id" = i64, Path)),
    responses((status = 200, body = Vec<DeviceCommand>), (status = 403), (status = 404)))]
pub async fn commands(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<DeviceCommand>>> {
    me.require(Permission::ViewDevices)?;
    find(&state, &me, id).await?;
    Ok(axum::Json(devices::commands(&state.db, id, 50).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AssociationQuery {
    pub task: i64,
    pub device: i64,
}

/// Whether a device's cameras are set to run a task, and which.
#[utoipa::path(get, path = "/device/get_device_tasks_association/", tag = "devices",
    params(AssociationQuery),
    responses((status = 200, body = DeviceTaskAssociation), (status = 400), (status = 403), (status = 404)))]
pub async fn task_association(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<AssociationQuery>,
) -> ApiResult<axum::Json<DeviceTaskAssociation>> {
    me.require(Permission::ViewDevices)?;
    let row = find(&state, &me, q.device).await?;
    if tasks::get(&state.db, me.user.id, Some(row.organization_id), q.task)
        .await?
        .is_none()
    {
        return Err(ApiError::NotFound);
    }
    let mine: Vec<DeviceTask> = camera_tasks(&state, row.id)
        .await?
        .into_iter()
        .filter(|t| t.task == q.task)
        .collect();
    Ok(axum::Json(DeviceTaskAssociation {
        task: q.task,
        device: q.device,
        associated: !mine.is_empty(),
        running: mine.iter().any(|t| t.running),
        cameras: mine.into_iter().map(|t| t.camera).collect(),
    }))
}

/// Which of the organisation's tasks run on which device and camera now.
#[utoipa::path(get, path = "/organization/task/task_inference_status", tag = "tasks",
    responses((status = 200, body = Vec<TaskInferenceStatus>), (status = 403)))]
pub async fn task_inference_status(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<TaskInferenceStatus>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    Ok(axum::Json(
        devices::running_in_org(&state.db, org)
            .await?
            .into_iter()
            .map(|r| TaskInferenceStatus {
                task: r.0,
                task_name: r.1,
                device: r.2,
                device_name: r.3,
                camera: r.4,
                online: r.5,
            })
            .collect(),
    ))
}
