//! Model versions (spec section 7 "Model versions, types and files": `organization/
//! model_version`, with the soft delete) and deploying one to devices (the `deploy`
//! screen): the version's bundle goes to each chosen device by a signed `deploy`
//! command carrying a signed download URL; the device's acknowledgement says how it
//! went.
//!
//! Reading needs `ViewTasks`; the soft delete `ManageTasks`; deploying `OperateDevices`
//! and the organisation's "Deploy Model" subscription (spec section 6).

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::training::{
    DeployRequest, Deployment, DeploymentStatus, MAX_DEPLOY_DEVICES, ModelVersion,
    ModelVersionCreate, ModelVersionPatch,
};
use gemba_shared::mqtt::v1::Command;
use object_store::ObjectStoreExt;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::training::{self, DeploymentRow, ModelRow, NewDeployment};
use crate::db::{devices, model_types, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;
use gemba_shared::api::v1::feature_control::Gated;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get, patch))
        .routes(routes!(deploy))
        .routes(routes!(deployments))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ModelQuery {
    /// Only this task's model versions.
    #[serde(default)]
    pub task: Option<i64>,
}

/// The organisation's model versions, newest first (soft-deleted ones too, marked).
#[utoipa::path(get, path = "/organization/model_version", tag = "models", params(ModelQuery),
    responses((status = 200, body = Vec<ModelVersion>), (status = 403)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<ModelQuery>,
) -> ApiResult<axum::Json<Vec<ModelVersion>>> {
    me.require(Permission::ViewTasks)?;
    let org = me.org()?;
    if let Some(t) = q.task {
        task_of(&state, &me, org, t).await?;
    }
    let rows = training::models(&state.db, org, q.task).await?;
    Ok(axum::Json(
        rows.into_iter().map(ModelRow::into_api).collect(),
    ))
}

/// Register a model file (spec section 3 "Model type") as a model version of a task:
/// its labels must be the task's steps in order, then background. The version is named
/// as the file's metadata names it (the agent reports that name), and keeps its own copy
/// of the bundle. Deployed like a trained one; it has no held-out metrics.
#[utoipa::path(post, path = "/organization/model_version", tag = "models",
    request_body = ModelVersionCreate,
    responses((status = 201, body = ModelVersion), (status = 400), (status = 403), (status = 404)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ModelVersionCreate>,
) -> ApiResult<(StatusCode, axum::Json<ModelVersion>)> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    let task = tasks::get(&state.db, me.user.id, Some(org), req.task)
        .await?
        .ok_or_else(|| ApiError::field("task", "Choose one of this organisation's tasks."))?;
    let file = model_types::file(&state.db, req.model_file)
        .await?
        .ok_or_else(|| ApiError::field("model_file", "Choose one of the model files."))?;
    let mut steps: Vec<String> = task.settings().operation().step_names();
    let labels = file.labels();
    let mut model_steps = labels.clone();
    model_steps.pop(); // background
    if model_steps != steps {
        steps.push("background".into());
        return Err(ApiError::field(
            "model_file",
            format!(
                "The model's labels ({}) are not this task's steps then background ({}).",
                labels.join(", "),
                steps.join(", ")
            ),
        ));
    }
    // Read again: a file kept before the upload checked the graph may not run.
    let source = crate::http::model_types::file_key(&file.object_key);
    runs_on_devices(&state, &source)
        .await?
        .map_err(|m| ApiError::field("model_file", m))?;
    // The version's own copy, named by its bytes (so it never overwrites another
    // version's bundle): deleting the model file leaves it deployable.
    let name = format!("models/sha-{}/model.onnx", file.sha256);
    let key = crate::objects::key(org, &name);
    state
        .objects
        .copy(&source, &key)
        .await
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("copying a model file")))?;
    let row = training::register(
        &state.db,
        org,
        task.id,
        &training::NewModel {
            model_type_id: Some(file.model_type_id),
            version: &file.version,
            object_key: &name,
            sha256: &file.sha256,
            size_bytes: file.size_bytes,
            metrics: None,
        },
    )
    .await
    .map_err(|e| {
        ApiError::unique_as(
            e,
            "model_file",
            format!(
                "This organisation already has a model version named {}.",
                file.version
            ),
        )
    });
    match row {
        Ok(row) => Ok((StatusCode::CREATED, axum::Json(row.into_api()))),
        Err(e) => {
            // A taken name may be this very bundle's version: its copy stays.
            if !matches!(e, ApiError::Field { .. }) {
                state.objects.delete(&key).await.ok();
            }
            Err(e)
        }
    }
}

/// Whether the bundle at `key` is a model the agent can run (`crate::onnx::read`), or
/// why not.
async fn runs_on_devices(
    state: &AppState,
    key: &object_store::path::Path,
) -> ApiResult<Result<(), String>> {
    let bytes = async { state.objects.get(key).await?.bytes().await }
        .await
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("reading a model bundle")))?;
    Ok(crate::onnx::read(&bytes).map(|_| ()))
}

/// Task `id` of `org` (404 otherwise): a filter by another organisation's task is
/// answered as for an unknown one.
async fn task_of(state: &AppState, me: &AuthUser, org: i64, id: i64) -> ApiResult<()> {
    tasks::get(&state.db, me.user.id, Some(org), id)
        .await?
        .map(|_| ())
        .ok_or(ApiError::NotFound)
}

async fn find(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<ModelRow> {
    training::model(&state.db, me.org()?, id)
        .await?
        .ok_or(ApiError::NotFound)
}

/// One model version with its metrics.
#[utoipa::path(get, path = "/organization/model_version/{id}", tag = "models", params(("id" = i64, Path)),
    responses((status = 200, body = ModelVersion), (status = 403), (status = 404)))]
pub async fn get(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<ModelVersion>> {
    me.require(Permission::ViewTasks)?;
    Ok(axum::Json(find(&state, &me, id).await?.into_api()))
}

/// The soft delete: `{"is_deleted": true}` hides a model version from deploying (and
/// `false` brings it back); nothing is removed.
#[utoipa::path(patch, path = "/organization/model_version/{id}", tag = "models", params(("id" = i64, Path)),
    request_body = ModelVersionPatch,
    responses((status = 200, body = ModelVersion), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<ModelVersionPatch>,
) -> ApiResult<axum::Json<ModelVersion>> {
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    if !training::set_model_deleted(&state.db, org, id, req.is_deleted).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(find(&state, &me, id).await?.into_api()))
}

/// Send model version `id` to devices: each downloads it (checksum checked), swaps it
/// into its cameras running the task without a restart, and acknowledges. Every device
/// must be the organisation's and online, or none is sent.
#[utoipa::path(post, path = "/organization/model_version/{id}/deploy/", tag = "models",
    params(("id" = i64, Path)), request_body = DeployRequest,
    responses((status = 201, body = Vec<Deployment>), (status = 400), (status = 403), (status = 404)))]
pub async fn deploy(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<DeployRequest>,
) -> ApiResult<(StatusCode, axum::Json<Vec<Deployment>>)> {
    me.require(Permission::OperateDevices)?;
    let org = me.org()?;
    me.require_subscribed(&state, org, Permission::OperateDevices, Gated::DeployModel)
        .await?;
    let model = find(&state, &me, id).await?;
    if model.is_deleted {
        return Err(ApiError::non_field(
            "This model version is deleted: restore it to deploy it.",
        ));
    }
    let task = model
        .task_id
        .ok_or_else(|| ApiError::non_field("This model version belongs to no task."))?;
    tasks::get(&state.db, me.user.id, Some(org), task)
        .await?
        .filter(|t| !t.settings().is_deleted)
        .ok_or_else(|| ApiError::non_field("The task of this model version is deleted."))?;
    let mut ids = req.devices.clone();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Err(ApiError::field("devices", "Choose at least one device."));
    }
    if ids.len() > MAX_DEPLOY_DEVICES {
        return Err(ApiError::field(
            "devices",
            format!("Deploy to at most {MAX_DEPLOY_DEVICES} devices at once."),
        ));
    }
    // All checked before anything is sent.
    let mut chosen = vec![];
    for d in &ids {
        chosen.push(crate::http::devices::online_device(&state, &me, org, *d, "devices").await?);
    }
    // Versions kept before model files' graphs were checked may not run.
    runs_on_devices(&state, &crate::objects::key(org, &model.object_key))
        .await?
        .map_err(|m| {
            ApiError::non_field(format!("This model version cannot run on a device: {m}"))
        })?;
    let url = format!(
        "{}{}",
        state.settings.public_url(),
        crate::media::urls::media_url(
            &state,
            crate::media::urls::Viewer::Device,
            org,
            &model.object_key
        )?
    );
    for d in &chosen {
        let command = state
            .mqtt
            .command(
                &state.db,
                org,
                d.id,
                Command::Deploy {
                    task,
                    version: model.version.clone(),
                    url: url.clone(),
                    sha256: model.sha256.clone(),
                    size_bytes: model.size_bytes,
                },
            )
            .await?;
        training::add_deployment(
            &state.db,
            NewDeployment {
                org,
                model: model.id,
                task,
                device: d.id,
                command: &command,
                by: me.user.id,
            },
        )
        .await?;
    }
    let rows = training::deployments(&state.db, org, Some(model.id), None).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(rows.into_iter().take(chosen.len()).map(to_api).collect()),
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DeploymentQuery {
    #[serde(default)]
    pub model_version: Option<i64>,
    #[serde(default)]
    pub task: Option<i64>,
}

/// The organisation's deployments, newest first (at most 200), of one model version or
/// task when asked: how each went and what the device's cameras run now.
#[utoipa::path(get, path = "/organization/deployments/", tag = "models", params(DeploymentQuery),
    responses((status = 200, body = Vec<Deployment>), (status = 403)))]
pub async fn deployments(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<DeploymentQuery>,
) -> ApiResult<axum::Json<Vec<Deployment>>> {
    me.require(Permission::ViewDevices)?;
    let org = me.org()?;
    if let Some(m) = q.model_version {
        find(&state, &me, m).await?;
    }
    if let Some(t) = q.task {
        task_of(&state, &me, org, t).await?;
    }
    let rows = training::deployments(&state.db, org, q.model_version, q.task).await?;
    Ok(axum::Json(rows.into_iter().map(to_api).collect()))
}

/// A deployment as `organization/deployments/` answers it: installing until the device
/// acknowledges, then installed or failed with the device's words.
pub fn to_api(r: DeploymentRow) -> Deployment {
    let status = match (r.acked_at, r.ok) {
        (None, _) => DeploymentStatus::Installing,
        (Some(_), Some(1)) => DeploymentStatus::Installed,
        (Some(_), _) => DeploymentStatus::Failed,
    };
    let running_versions = devices::parse_status(r.device_status.as_deref())
        .map(|s| {
            let mut v: Vec<String> = s
                .cameras
                .into_iter()
                .filter_map(|c| c.model_version)
                .collect();
            v.sort();
            v.dedup();
            v
        })
        .unwrap_or_default();
    Deployment {
        id: r.id,
        model_version: r.model_version_id,
        version: r.version,
        task: r.task_id,
        device: r.device_id,
        device_name: r.display_name,
        status,
        message: r.message.unwrap_or_default(),
        created_at: r.created_at,
        finished_at: r.acked_at,
        running_versions,
    }
}
