//! A task's training (spec section 7 `organization/trained_task/{id}`,
//! `organization/train/stop/`): start it, follow it, stop it. Starting needs
//! `ManageTasks` and at least one labelled video; the run waits in the job queue for a
//! worker ([`crate::jobs`]), which trains ([`crate::training`]).

use gemba_shared::api::v1::training::{DEFAULT_EPOCHS, MAX_EPOCHS, TrainedTask, TrainedTaskPatch};
use gemba_shared::validate::Bounded;

use super::*;
use crate::db::training;
use crate::jobs::TrainJob;

/// A task's training: its status, its latest run and the model that run made.
#[utoipa::path(get, path = "/organization/trained_task/{id}", tag = "training", params(("id" = i64, Path)),
    responses((status = 200, body = TrainedTask), (status = 403), (status = 404)))]
pub async fn get_trained_task(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<TrainedTask>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(trained_task(&state, row).await?))
}

async fn trained_task(state: &AppState, row: TaskRow) -> ApiResult<TrainedTask> {
    let org = row.organization_id;
    let run = training::latest_run(&state.db, org, row.id).await?;
    let model_version = match run.as_ref().and_then(|r| r.model_version_id) {
        Some(m) => training::model(&state.db, org, m)
            .await?
            .map(|m| m.into_api()),
        None => None,
    };
    Ok(TrainedTask {
        id: row.id,
        task_name: row.settings().task_name,
        train_status: row.train_status(),
        labelled_videos: training::labelled_videos(&state.db, org, row.id)
            .await?
            .len() as i64,
        ready_videos: training::ready_videos(&state.db, org, row.id).await?,
        run: run.map(|r| r.into_api()),
        model_version,
    })
}

/// Start training the task on its labelled videos: `{"train_status": "training"}`
/// (optionally `epochs`). The task moves to `training` and a run is queued; it ends
/// `trained` with a model version, or `failed` with the reason.
#[utoipa::path(patch, path = "/organization/trained_task/{id}", tag = "training", params(("id" = i64, Path)),
    request_body = TrainedTaskPatch,
    responses((status = 200, body = TrainedTask), (status = 400), (status = 403), (status = 404)))]
pub async fn start_training(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<TrainedTaskPatch>,
) -> ApiResult<axum::Json<TrainedTask>> {
    req.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let row = find(&state, &me, id).await?;
    if row.settings().is_deleted {
        return Err(ApiError::NotFound);
    }
    if req.train_status != TrainStatus::Training.as_str() {
        return Err(ApiError::field(
            "train_status",
            "Only 'training' can be set: it starts training; the status moves on by itself.",
        ));
    }
    let epochs = req.epochs.unwrap_or(DEFAULT_EPOCHS);
    if !(1..=MAX_EPOCHS).contains(&epochs) {
        return Err(ApiError::field(
            "epochs",
            format!("Ensure this value is between 1 and {MAX_EPOCHS}."),
        ));
    }
    if row.train_status() == TrainStatus::Training {
        return Err(ApiError::non_field(format!(
            "{} is already being trained.",
            row.settings().task_name
        )));
    }
    let org = row.organization_id;
    let labelled = training::labelled_videos(&state.db, org, row.id).await?;
    if labelled.is_empty() {
        return Err(ApiError::non_field(
            "This task has no labelled video: label the steps of at least one video before training.",
        ));
    }
    let (train, holdout) = crate::training::split(&labelled);
    let run = training::start(
        &state.db,
        training::NewRun {
            org,
            task: row.id,
            task_version: row.version,
            epochs,
            train_videos: &train,
            holdout_videos: &holdout,
            by: me.user.id,
        },
    )
    .await?
    .ok_or_else(|| {
        ApiError::non_field("The task changed while training was being started; try again.")
    })?;
    if let Err(e) = state.jobs.push(TrainJob { run: run.id }).await {
        training::fail(&state.db, &run, "The training job could not be queued.").await?;
        return Err(ApiError::Internal(e));
    }
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(trained_task(&state, row).await?))
}

/// Stop a task's training: the run ends `stopped` (a running training is killed within
/// a second) and the task goes back to `in_annotation`, its labels kept.
#[utoipa::path(put, path = "/organization/train/stop/", tag = "training", request_body = StopTraining,
    responses((status = 200, body = Task), (status = 400), (status = 403), (status = 404)))]
pub async fn stop_training(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<StopTraining>,
) -> ApiResult<axum::Json<Task>> {
    me.require(Permission::ManageTasks)?;
    let row = find(&state, &me, req.task).await?;
    if !training::stop(&state.db, row.organization_id, row.id).await? {
        return Err(ApiError::field("task", "This task is not being trained."));
    }
    Ok(axum::Json(find(&state, &me, row.id).await?.into_task()))
}
