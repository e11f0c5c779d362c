//! A task's history and revert; the devices' last update.

use super::edit::change;
use super::*;

// ----- history ---------------------------------------------------------------------------

/// A task's history, newest first.
#[utoipa::path(get, path = "/organization/task/{id}/history/", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = Vec<TaskHistoryEntry>), (status = 403), (status = 404)))]
pub async fn history(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<TaskHistoryEntry>>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(
        tasks::history_of(&state.db, row.id, None).await?,
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct HistoryQuery {
    /// Only this entry.
    #[serde(default)]
    pub history_id: Option<i64>,
}

/// A task's history, or one entry of it (`?history_id=`).
#[utoipa::path(get, path = "/organization/task_history/{id}/", tag = "tasks",
    params(("id" = i64, Path), HistoryQuery),
    responses((status = 200, body = Vec<TaskHistoryEntry>), (status = 403), (status = 404)))]
pub async fn task_history(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Query(q): Query<HistoryQuery>,
) -> ApiResult<axum::Json<Vec<TaskHistoryEntry>>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    let entries = tasks::history_of(&state.db, row.id, q.history_id).await?;
    if q.history_id.is_some() && entries.is_empty() {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(entries))
}

/// Revert a task to a history entry: every setting but its deletion goes back to what
/// it was after that change. Recorded in the history as `reverted`.
#[utoipa::path(patch, path = "/organization/task/{id}/revert/", tag = "tasks", params(("id" = i64, Path)),
    request_body = RevertTask,
    responses((status = 200, body = RevertResult), (status = 400), (status = 403), (status = 404)))]
pub async fn revert(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<RevertTask>,
) -> ApiResult<axum::Json<RevertResult>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    let entry = tasks::history_of(&state.db, row.id, Some(req.history_id))
        .await?
        .pop()
        .ok_or_else(|| ApiError::field("history_id", "No such history entry of this task."))?;
    let (row, fields) = change(&state, &me, row, Some("reverted"), |cur| {
        let mut target = entry.snapshot.clone();
        target.is_deleted = cur.is_deleted;
        Ok(target)
    })
    .await?;
    Ok(axum::Json(RevertResult {
        msg: revert_message(&fields),
        reverted_fields_count: fields.len(),
        reverted_fields: fields,
        task: row.into_task(),
    }))
}

// ----- devices --------------------------------------------------------------

/// Mark that the task's latest settings were taken (by a device): answers the time.
#[utoipa::path(patch, path = "/organization/task/last_update/{id}", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = LastUpdate), (status = 403), (status = 404)))]
pub async fn last_update(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<LastUpdate>> {
    me.require(Permission::ManageTasks)?;
    let row = find(&state, &me, id).await?;
    let at = tasks::touch_last_update(&state.db, row.id).await?;
    Ok(axum::Json(LastUpdate { last_update: at }))
}
