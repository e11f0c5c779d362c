//! Defining and changing one task, and the 'Task Update' e-mail (cloning is
//! `clone_into.rs`).

use super::rules::*;
use super::*;
use gemba_shared::validate::Bounded;

// ----- one task --------------------------------------------------------------------------

/// Define a task: its name and operation (text or processes), and optionally its
/// parameters.
#[utoipa::path(post, path = "/organization/task/", tag = "tasks", request_body = TaskCreate,
    responses((status = 201, body = Task), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<TaskCreate>,
) -> ApiResult<(StatusCode, axum::Json<Task>)> {
    req.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let org = me.org()?;
    may_change(&state, &me, org).await?;
    // The name: given, or the text's first line (a text that does not read says so
    // first).
    let from_text = match req.task_detail.as_deref().map(operation::parse) {
        Some(Err(e)) => {
            return Err(ApiError::field(
                "task_detail",
                format!("Line {}: {}", e.line, e.message),
            ));
        }
        Some(Ok(o)) => Some(o.name),
        None => None,
    };
    let name = match req.task_name.as_deref().or(from_text.as_deref()) {
        Some(n) => check_name("taskName", "Task name", n)?,
        None => return Err(ApiError::field("taskName", "Task name is required!")),
    };
    let text = operation_text(&name, req.task_detail.as_deref(), req.processes.as_ref())?
        .ok_or_else(|| {
            ApiError::field(
                "task_detail",
                "An operation must contain atleast one process!",
            )
        })?;
    let mut s = TaskSettings::new(name, text);
    let defaults = s.task_parameters.clone();
    if let Some(p) = req.task_parameters {
        s.task_parameters = p;
    }
    // The default start steps name steps 0 and 1: a one-step task keeps what it has.
    // Indexes the caller gave are checked, not dropped.
    let steps = s.operation().step_count();
    let t = &mut s.task_parameters.telemetry_params;
    if t.required_steps_for_start == defaults.telemetry_params.required_steps_for_start {
        for v in t.required_steps_for_start.values_mut() {
            v.retain(|&i| (i as usize) < steps);
        }
    }
    check_settings(&s)?;
    let id = tasks::insert(&state.db, org, &s, "created", author(&me))
        .await
        .map_err(name_taken_or)?;
    let row = find(&state, &me, id).await?;
    Ok((StatusCode::CREATED, axum::Json(row.into_task())))
}

/// One task.
#[utoipa::path(get, path = "/organization/task/{id}/", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = Task), (status = 403), (status = 404)))]
pub async fn get(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Task>> {
    me.require(Permission::ViewTasks)?;
    Ok(axum::Json(find(&state, &me, id).await?.into_task()))
}

/// Change a task: any of its settings, its operation (text or processes), its deletion
/// (`is_deleted`), and the caller's star. Each change is kept in its history.
#[utoipa::path(patch, path = "/organization/task/{id}/", tag = "tasks", params(("id" = i64, Path)),
    request_body = TaskPatch,
    responses((status = 200, body = Task), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(p): Json<TaskPatch>,
) -> ApiResult<axum::Json<Task>> {
    p.check_lengths()?;
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    let star = p.starred;
    let changes = TaskPatch { starred: None, ..p };
    let is_empty =
        serde_json::to_value(&changes).ok() == serde_json::to_value(TaskPatch::default()).ok();
    if let Some(choice) = &changes.model_choice {
        check_model_choice(&state, choice).await?;
    }
    if !is_empty {
        change(&state, &me, row, None, |cur| apply(cur, changes.clone())).await?;
    }
    // The star last: a refused change leaves it as it was.
    if let Some(on) = star {
        tasks::star(&state.db, id, me.user.id, on).await?;
    }
    Ok(axum::Json(find(&state, &me, id).await?.into_task()))
}

/// A task's model choice is a model type's id (`organization/task/model_choices`), or
/// empty for the default type.
pub(super) async fn check_model_choice(state: &AppState, choice: &str) -> ApiResult<()> {
    let choice = choice.trim();
    if choice.is_empty() {
        return Ok(());
    }
    let known = match choice.parse::<i64>() {
        Ok(id) => crate::db::model_types::get_type(&state.db, id)
            .await?
            .is_some(),
        Err(_) => false,
    };
    if known {
        Ok(())
    } else {
        Err(ApiError::field(
            "model_choice",
            "Choose one of the model types.",
        ))
    }
}

/// Applies `f` to task `row`'s settings and writes the result with its history entry
/// (as `action`, else by what changed), reading again when another change came first.
/// Refused while the task trains. Answers the task after and the fields that changed;
/// tells the 'Task Update' recipients of changed steps.
pub(super) async fn change(
    state: &AppState,
    me: &AuthUser,
    mut row: TaskRow,
    action: Option<&str>,
    f: impl Fn(&TaskSettings) -> ApiResult<TaskSettings>,
) -> ApiResult<(TaskRow, Vec<String>)> {
    may_change(state, me, row.organization_id).await?;
    for _ in 0..10 {
        training_block(&row)?;
        let cur = row.settings();
        let new = f(&cur)?;
        let fields = changed_fields(&cur, &new);
        // A change that changes nothing is not blocked (a revert to the same state).
        if !fields.is_empty() {
            device_block(state, &row).await?;
        }
        let action = action.unwrap_or(match (cur.is_deleted, new.is_deleted) {
            (false, true) => "deleted",
            (true, false) => "restored",
            _ => "updated",
        });
        let written = tasks::write(
            &state.db,
            row.id,
            row.version,
            &new,
            action,
            &fields,
            author(me),
        )
        .await
        .map_err(name_taken_or)?;
        if written {
            if fields.iter().any(|f| f == "task_detail") {
                notify_steps_changed(state, row.organization_id, &cur, &new).await;
            }
            // Devices that run it on a schedule keep its cycle rules (issue 29).
            let engine = gemba_shared::cycle::EngineConfig::from_task;
            if engine(&cur) != engine(&new) || cur.is_deleted != new.is_deleted {
                let devices = crate::db::device_config::bump_task(&state.db, row.id).await?;
                crate::device_config::send_all(state, row.organization_id, &devices).await?;
            }
            return Ok((find(state, me, row.id).await?, fields));
        }
        row = find(state, me, row.id).await?;
    }
    Err(ApiError::Status(
        StatusCode::CONFLICT,
        "The task is being changed by someone else; please try again.".into(),
    ))
}

/// The steps of `s` with their indexes and sub-steps, for the 'Task Update' e-mail.
fn step_lines(s: &TaskSettings) -> Vec<(String, String)> {
    s.operation()
        .processes
        .iter()
        .flat_map(|p| &p.steps)
        .enumerate()
        .map(|(i, st)| {
            (
                st.name.clone(),
                format!("{i}: {} ({})", st.name, st.substeps.join("; ")),
            )
        })
        .collect()
}

/// E-mails the organisation's 'Task Update' recipients the steps removed and added
/// (spec section 9). Failure is logged: the change itself is made.
async fn notify_steps_changed(state: &AppState, org: i64, old: &TaskSettings, new: &TaskSettings) {
    let (before, after) = (step_lines(old), step_lines(new));
    let removed: Vec<&String> = before
        .iter()
        .filter(|b| !after.contains(b))
        .map(|b| &b.1)
        .collect();
    let added: Vec<&String> = after
        .iter()
        .filter(|a| !before.contains(a))
        .map(|a| &a.1)
        .collect();
    if removed.is_empty() && added.is_empty() {
        return;
    }
    let recipients = match features::notification_for(&state.db, org, TASK_UPDATE_EVENT).await {
        Ok(Some(n)) if !n.recipients.is_empty() => n.recipients,
        Ok(_) => return,
        Err(e) => {
            tracing::error!(error = %e, "task update notification lookup");
            return;
        }
    };
    let list = |items: &[&String]| {
        if items.is_empty() {
            "  (none)\n".to_string()
        } else {
            items.iter().map(|l| format!("  {l}\n")).collect()
        }
    };
    let body = format!(
        "The steps of the task \"{}\" changed.\n\nRemoved steps (index: description):\n{}\nAdded steps (index: description):\n{}",
        new.task_name,
        list(&removed),
        list(&added)
    );
    let subject = format!("Task Update: {}", new.task_name);
    if let Err(e) = state.mailer.send(&recipients, &subject, &body).await {
        tracing::error!(error = %e, "task update e-mail");
    }
    crate::push::notify(state, org, TASK_UPDATE_EVENT, &recipients, &subject, &body);
}
