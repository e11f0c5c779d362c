//! Task lists: the organisation's, paged, the super admin's, by training status.

use super::*;
use crate::http::organization::PageQuery;

// ----- lists -----------------------------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    #[serde(default)]
    pub search: Option<String>,
}

/// The organisation's tasks (not deleted), starred first.
#[utoipa::path(get, path = "/organization/task/", tag = "tasks", params(ListQuery),
    responses((status = 200, body = Vec<Task>), (status = 403)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<Vec<Task>>> {
    me.require(Permission::ViewTasks)?;
    let f = Filter {
        org: Some(me.org()?),
        search: q.search.as_deref().unwrap_or(""),
        ..Filter::default()
    };
    let (rows, _) = tasks::list(&state.db, me.user.id, &f, None).await?;
    Ok(axum::Json(
        rows.into_iter().map(TaskRow::into_task).collect(),
    ))
}

/// The organisation's tasks, 10 a page.
#[utoipa::path(get, path = "/organization/task/taskpage", tag = "tasks", params(PageQuery),
    responses((status = 200, body = Page<Task>), (status = 400), (status = 403)))]
pub async fn taskpage(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<PageQuery>,
) -> ApiResult<axum::Json<Page<Task>>> {
    me.require(Permission::ViewTasks)?;
    let org = Some(me.org()?);
    page_of(&state, &me, q.page, org, q.search.as_deref()).await
}

/// Page `page` of the tasks of `org` (of all when `None`) matching `search`.
async fn page_of(
    state: &AppState,
    me: &AuthUser,
    page: Option<i64>,
    org: Option<i64>,
    search: Option<&str>,
) -> ApiResult<axum::Json<Page<Task>>> {
    let offset = page_offset(page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let f = Filter {
        org,
        search: search.unwrap_or(""),
        ..Filter::default()
    };
    let (rows, count) = tasks::list(&state.db, me.user.id, &f, Some((offset, PAGE_SIZE))).await?;
    Ok(axum::Json(Page {
        results: rows.into_iter().map(TaskRow::into_task).collect(),
        count,
    }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AdminQuery {
    #[serde(default)]
    pub page: Option<i64>,
    #[serde(default)]
    pub search: Option<String>,
    /// One organisation's tasks.
    #[serde(default)]
    pub organization: Option<i64>,
}

/// Super admin: every organisation's tasks (All Operations), 10 a page.
#[utoipa::path(get, path = "/organization/tasks/admin", tag = "tasks", params(AdminQuery),
    responses((status = 200, body = Page<Task>), (status = 400), (status = 403)))]
pub async fn admin_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<AdminQuery>,
) -> ApiResult<axum::Json<Page<Task>>> {
    me.require(Permission::AdminArea)?;
    if let Some(o) = q.organization {
        orgs::by_id(&state.db, o).await?.ok_or(ApiError::NotFound)?;
    }
    page_of(&state, &me, q.page, q.organization, q.search.as_deref()).await
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct TrainedQuery {
    /// `new_task`, `in_annotation`, `training`, `failed` or `trained` (default).
    #[serde(default)]
    pub train_status: Option<String>,
}

/// The organisation's tasks with a training status (default `trained`).
#[utoipa::path(get, path = "/organization/task/get_all_trained_tasks_of_organization", tag = "tasks",
    params(TrainedQuery), responses((status = 200, body = Vec<Task>), (status = 400), (status = 403)))]
pub async fn trained_tasks(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<TrainedQuery>,
) -> ApiResult<axum::Json<Vec<Task>>> {
    me.require(Permission::ViewTasks)?;
    let status = match q.train_status.as_deref().map(str::trim) {
        None | Some("") => TrainStatus::Trained,
        Some(s) => TrainStatus::parse(s).ok_or_else(|| {
            ApiError::field(
                "train_status",
                "Choose one of new_task, in_annotation, training, failed, trained.",
            )
        })?,
    };
    let f = Filter {
        org: Some(me.org()?),
        train_status: Some(status),
        ..Filter::default()
    };
    let (rows, _) = tasks::list(&state.db, me.user.id, &f, None).await?;
    Ok(axum::Json(
        rows.into_iter().map(TaskRow::into_task).collect(),
    ))
}

/// The model kinds a task can use: the model types (value: the type's id as text).
#[utoipa::path(get, path = "/organization/task/model_choices", tag = "tasks",
    responses((status = 200, body = Vec<ModelChoice>), (status = 403)))]
pub async fn model_choices(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<ModelChoice>>> {
    me.require(Permission::ViewTasks)?;
    let types = crate::db::model_types::types(&state.db).await?;
    Ok(axum::Json(
        types
            .into_iter()
            .map(|t| ModelChoice {
                value: t.id.to_string(),
                label: t.name,
            })
            .collect(),
    ))
}
