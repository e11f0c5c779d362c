//! What a task's object detector works with (spec section 7 "Tasks"): task objects,
//! plane objects, one detection rule per step (the default step rule where none is
//! stored), and the task's regions of interest. Reading needs `ViewTasks`; changing
//! needs what changing the task does, and is refused while it trains.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::task::{
    BulkDelete, DetectionRule, DetectionRuleWrite, PlaneObject, PlaneObjectWrite, RegionJson,
    StepRule, TaskObject, TaskObjectCreate, TaskObjectPatch, generated_color, is_hex_color,
};
use gemba_shared::validate::Bounded;

use super::rules::check_name;
use super::*;
use crate::db::task_objects as objs;

/// The task, for a change: in scope, changeable by `me`, neither in training nor
/// running on a device.
async fn for_change(state: &AppState, me: &AuthUser, task: i64) -> ApiResult<TaskRow> {
    me.require(Permission::ManageTasks)?;
    let row = find(state, me, task).await?;
    may_change(state, me, row.organization_id).await?;
    training_block(&row)?;
    device_block(state, &row).await?;
    Ok(row)
}

fn steps_of(row: &TaskRow) -> usize {
    row.settings().operation().step_count()
}

fn check_step(field: &str, step: Option<u32>, steps: usize) -> ApiResult<()> {
    match step {
        Some(s) if s as usize >= steps => Err(ApiError::field(
            field,
            format!("Step index {s} is out of range: the task has {steps} step(s)."),
        )),
        _ => Ok(()),
    }
}

/// The colour to store: the given one when valid (with `#`), else a new one.
async fn colour(state: &AppState, task: i64, given: Option<&str>) -> ApiResult<String> {
    match given.map(str::trim) {
        Some(c) if is_hex_color(c) => Ok(format!("#{}", c.trim_start_matches('#').to_lowercase())),
        _ => {
            let n = objs::object_count(&state.db, task).await?;
            Ok(generated_color(n as u64))
        }
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct ObjectsQuery {
    /// Only static (`true`) or only moving (`false`) objects.
    #[serde(default)]
    pub is_static: Option<bool>,
}

/// A task's objects.
#[utoipa::path(get, path = "/organization/task/list_task_objects/{id}/", tag = "tasks",
    params(("id" = i64, Path), ObjectsQuery),
    responses((status = 200, body = Vec<TaskObject>), (status = 403), (status = 404)))]
pub async fn list_task_objects(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Query(q): Query<ObjectsQuery>,
) -> ApiResult<axum::Json<Vec<TaskObject>>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(
        objs::objects(&state.db, row.id, q.is_static).await?,
    ))
}

/// Add an object to a task. A missing or invalid colour gets a generated one.
#[utoipa::path(post, path = "/organization/task/task_object/", tag = "tasks", request_body = TaskObjectCreate,
    responses((status = 201, body = TaskObject), (status = 400), (status = 403), (status = 404)))]
pub async fn create_task_object(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<TaskObjectCreate>,
) -> ApiResult<(StatusCode, axum::Json<TaskObject>)> {
    req.check_lengths()?;
    let row = for_change(&state, &me, req.task).await?;
    let name = check_name("name", "The object name", &req.name)?;
    check_step("step_id", req.step_id, steps_of(&row))?;
    let o = TaskObject {
        id: 0,
        task: row.id,
        name,
        outline_color: colour(&state, row.id, req.outline_color.as_deref()).await?,
        is_static: req.is_static,
        step_id: req.step_id,
    };
    Ok((
        StatusCode::CREATED,
        axum::Json(objs::save_object(&state.db, &o).await?),
    ))
}

/// The object `id` and its task, for a change.
async fn object_for_change(
    state: &AppState,
    me: &AuthUser,
    id: i64,
) -> ApiResult<(TaskObject, TaskRow)> {
    me.require(Permission::ManageTasks)?;
    let o = objs::object(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let row = for_change(state, me, o.task).await?;
    Ok((o, row))
}

/// Change a task object.
#[utoipa::path(patch, path = "/organization/task/task_object/{id}/", tag = "tasks", params(("id" = i64, Path)),
    request_body = TaskObjectPatch,
    responses((status = 200, body = TaskObject), (status = 400), (status = 403), (status = 404)))]
pub async fn patch_task_object(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(p): Json<TaskObjectPatch>,
) -> ApiResult<axum::Json<TaskObject>> {
    p.check_lengths()?;
    let (mut o, row) = object_for_change(&state, &me, id).await?;
    if let Some(n) = &p.name {
        o.name = check_name("name", "The object name", n)?;
    }
    if p.step_id.is_some() {
        check_step("step_id", p.step_id, steps_of(&row))?;
        o.step_id = p.step_id;
    }
    if let Some(s) = p.is_static {
        o.is_static = s;
    }
    if let Some(c) = &p.outline_color {
        o.outline_color = colour(&state, row.id, Some(c)).await?;
    }
    Ok(axum::Json(objs::save_object(&state.db, &o).await?))
}

/// Delete a task object; the task's rules forget it.
#[utoipa::path(delete, path = "/organization/task/task_object/{id}/", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete_task_object(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Msg>> {
    let (o, row) = object_for_change(&state, &me, id).await?;
    if !objs::delete_object(&state.db, row.id, o.id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

// ----- plane objects -----------------------------------------------------------------------

/// A task's plane objects.
#[utoipa::path(get, path = "/organization/task/list_plane_objects/{id}/", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = Vec<PlaneObject>), (status = 403), (status = 404)))]
pub async fn list_plane_objects(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<PlaneObject>>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(objs::planes(&state.db, row.id).await?))
}

fn check_plane(w: &PlaneObjectWrite) -> ApiResult<(String, Vec<[f64; 2]>)> {
    let name = check_name("name", "The plane name", &w.name)?;
    if w.points.len() < 3 || w.points.len() > 1000 {
        return Err(ApiError::field("points", "A plane needs 3 to 1000 points."));
    }
    if w.points.iter().flatten().any(|v| !(0.0..=1.0).contains(v)) {
        return Err(ApiError::field(
            "points",
            "Points are image coordinates scaled to 0..1.",
        ));
    }
    Ok((name, w.points.clone()))
}

/// Add a plane object to a task (`task` names it).
#[utoipa::path(post, path = "/organization/task/plane_objects/", tag = "tasks", request_body = PlaneObjectWrite,
    responses((status = 201, body = PlaneObject), (status = 400), (status = 403), (status = 404)))]
pub async fn create_plane_object(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<PlaneObjectWrite>,
) -> ApiResult<(StatusCode, axum::Json<PlaneObject>)> {
    req.check_lengths()?;
    let task = req
        .task
        .ok_or_else(|| ApiError::field("task", "This field is required."))?;
    let row = for_change(&state, &me, task).await?;
    let (name, points) = check_plane(&req)?;
    let p = PlaneObject {
        id: 0,
        task: row.id,
        name,
        points,
    };
    Ok((
        StatusCode::CREATED,
        axum::Json(objs::save_plane(&state.db, &p).await?),
    ))
}

async fn plane_for_change(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<PlaneObject> {
    me.require(Permission::ManageTasks)?;
    let p = objs::plane(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    for_change(state, me, p.task).await?;
    Ok(p)
}

/// Replace a plane object.
#[utoipa::path(put, path = "/organization/task/plane_objects/{id}/", tag = "tasks", params(("id" = i64, Path)),
    request_body = PlaneObjectWrite,
    responses((status = 200, body = PlaneObject), (status = 400), (status = 403), (status = 404)))]
pub async fn put_plane_object(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<PlaneObjectWrite>,
) -> ApiResult<axum::Json<PlaneObject>> {
    req.check_lengths()?;
    let cur = plane_for_change(&state, &me, id).await?;
    let (name, points) = check_plane(&req)?;
    let p = PlaneObject {
        name,
        points,
        ..cur
    };
    Ok(axum::Json(objs::save_plane(&state.db, &p).await?))
}

/// Delete a plane object.
#[utoipa::path(delete, path = "/organization/task/plane_objects/{id}/", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete_plane_object(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Msg>> {
    let p = plane_for_change(&state, &me, id).await?;
    if !objs::delete_plane(&state.db, p.task, p.id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

// ----- detection rules ---------------------------------------------------------------------

/// The rule of every step of task `row`: the stored one, else the default step rule.
async fn rules_of(state: &AppState, row: &TaskRow) -> ApiResult<Vec<DetectionRule>> {
    let stored = objs::rules(&state.db, row.id).await?;
    Ok((0..steps_of(row) as u32)
        .map(|step| {
            stored
                .iter()
                .find(|r| r.step == step)
                .cloned()
                .unwrap_or(DetectionRule {
                    id: None,
                    task: row.id,
                    step,
                    static_object: vec![],
                    non_static_object: vec![],
                    verify: false,
                    rule: StepRule::default(),
                })
        })
        .collect())
}

/// Applies `w` to `r` and checks it: its step is the task's, its objects are the task's
/// (static ones as static, moving ones as moving), its related steps exist.
async fn apply_rule(
    state: &AppState,
    row: &TaskRow,
    mut r: DetectionRule,
    w: DetectionRuleWrite,
) -> ApiResult<DetectionRule> {
    if let Some(s) = w.step {
        r.step = s;
    }
    let steps = steps_of(row);
    check_step("step", Some(r.step), steps)?;
    if let Some(v) = w.static_object {
        r.static_object = v;
    }
    if let Some(v) = w.non_static_object {
        r.non_static_object = v;
    }
    if let Some(v) = w.verify {
        r.verify = v;
    }
    if let Some(v) = w.rule {
        r.rule = v;
    }
    let objects = objs::objects(&state.db, row.id, None).await?;
    let kind = |id: &i64| objects.iter().find(|o| o.id == *id).map(|o| o.is_static);
    for (field, ids, want) in [
        ("static_object", &r.static_object, Some(true)),
        ("non_static_object", &r.non_static_object, Some(false)),
        ("rule", &r.rule.objects_present, None),
    ] {
        for id in ids {
            match (kind(id), want) {
                (None, _) => {
                    return Err(ApiError::field(
                        field,
                        format!("Object {id} is not an object of this task."),
                    ));
                }
                (Some(k), Some(w)) if k != w => {
                    let what = if w { "a static" } else { "a moving" };
                    return Err(ApiError::field(
                        field,
                        format!("Object {id} is not {what} object."),
                    ));
                }
                _ => {}
            }
        }
    }
    let rel = &r.rule.step_relations;
    for s in [&rel.anchor, &rel.similar].iter().flat_map(|x| {
        x.key_steps
            .iter()
            .chain(&x.before_anchor)
            .chain(&x.after_anchor)
    }) {
        check_step("rule", Some(*s), steps)?;
    }
    if r.rule.boolean_expr.chars().count() > 1000 {
        return Err(ApiError::field(
            "rule",
            "The boolean expression is too long.",
        ));
    }
    Ok(r)
}

fn step_taken() -> ApiError {
    ApiError::field("step", "This step already has a rule.")
}

/// The detection rule of every step of task `id`.
#[utoipa::path(get, path = "/organization/task/object_detection_rule/{id}/", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = Vec<DetectionRule>), (status = 403), (status = 404)))]
pub async fn list_rules(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<DetectionRule>>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(rules_of(&state, &row).await?))
}

/// Store the rule of a step of task `id` (`step` required); unset parts take the
/// default step rule's values.
#[utoipa::path(post, path = "/organization/task/object_detection_rule/{id}/", tag = "tasks", params(("id" = i64, Path)),
    request_body = DetectionRuleWrite,
    responses((status = 201, body = DetectionRule), (status = 400), (status = 403), (status = 404)))]
pub async fn create_rule(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(w): Json<DetectionRuleWrite>,
) -> ApiResult<(StatusCode, axum::Json<DetectionRule>)> {
    w.check_lengths()?;
    let row = for_change(&state, &me, id).await?;
    let step = w
        .step
        .ok_or_else(|| ApiError::field("step", "This field is required."))?;
    let base = DetectionRule {
        id: None,
        task: row.id,
        step,
        static_object: vec![],
        non_static_object: vec![],
        verify: false,
        rule: StepRule::default(),
    };
    let r = apply_rule(&state, &row, base, w).await?;
    let saved = objs::save_rule(&state.db, &r).await.map_err(|e| {
        if is_unique_violation(&e) {
            step_taken()
        } else {
            e.into()
        }
    })?;
    Ok((StatusCode::CREATED, axum::Json(saved)))
}

/// Change rule `id`.
#[utoipa::path(patch, path = "/organization/task/object_detection_rule/{id}/", tag = "tasks", params(("id" = i64, Path)),
    request_body = DetectionRuleWrite,
    responses((status = 200, body = DetectionRule), (status = 400), (status = 403), (status = 404)))]
pub async fn patch_rule(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(w): Json<DetectionRuleWrite>,
) -> ApiResult<axum::Json<DetectionRule>> {
    w.check_lengths()?;
    me.require(Permission::ManageTasks)?;
    let cur = objs::rule(&state.db, id).await?.ok_or(ApiError::NotFound)?;
    let row = for_change(&state, &me, cur.task).await?;
    let r = apply_rule(&state, &row, cur, w).await?;
    let saved = objs::save_rule(&state.db, &r).await.map_err(|e| {
        if is_unique_violation(&e) {
            step_taken()
        } else {
            e.into()
        }
    })?;
    Ok(axum::Json(saved))
}

/// Deletes the rules `ids` after checking each is a changeable task's: all or none.
async fn delete_rule_ids(state: &AppState, me: &AuthUser, ids: &[i64]) -> ApiResult<()> {
    me.require(Permission::ManageTasks)?;
    if ids.is_empty() || ids.len() > 1000 {
        return Err(ApiError::field("ids", "Name 1 to 1000 rules."));
    }
    for id in ids {
        let r = objs::rule(&state.db, *id)
            .await?
            .ok_or(ApiError::NotFound)?;
        for_change(state, me, r.task).await?;
    }
    objs::delete_rules(&state.db, None, ids).await?;
    Ok(())
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct RuleIdQuery {
    /// The rule.
    pub id: i64,
}

/// Delete one rule (`?id=`): its step falls back to the default step rule.
#[utoipa::path(delete, path = "/organization/task/object_detection_rule/delete/", tag = "tasks",
    params(RuleIdQuery), responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn delete_rule(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<RuleIdQuery>,
) -> ApiResult<axum::Json<Msg>> {
    delete_rule_ids(&state, &me, &[q.id]).await?;
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

/// Delete several rules at once: all or, when one is not found, none.
#[utoipa::path(patch, path = "/organization/task/object_detection_rule/bulk_delete", tag = "tasks",
    request_body = BulkDelete,
    responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn bulk_delete_rules(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<BulkDelete>,
) -> ApiResult<axum::Json<Msg>> {
    delete_rule_ids(&state, &me, &req.ids).await?;
    Ok(axum::Json(Msg::new("Data deleted successfully!")))
}

// ----- regions -----------------------------------------------------------------------------

/// Largest region JSON, serialised.
const MAX_REGION_BYTES: usize = 256 * 1024;

/// A task's regions of interest.
#[utoipa::path(get, path = "/generic/list_region_json/{id}/", tag = "tasks", params(("id" = i64, Path)),
    responses((status = 200, body = RegionJson), (status = 403), (status = 404)))]
pub async fn get_regions(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<RegionJson>> {
    me.require(Permission::ViewTasks)?;
    let row = find(&state, &me, id).await?;
    Ok(axum::Json(RegionJson {
        region_json: objs::regions(&state.db, row.id).await?,
    }))
}

/// Replace a task's regions of interest.
#[utoipa::path(patch, path = "/generic/list_region_json/{id}/", tag = "tasks", params(("id" = i64, Path)),
    request_body = RegionJson,
    responses((status = 200, body = RegionJson), (status = 400), (status = 403), (status = 404)))]
pub async fn set_regions(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<RegionJson>,
) -> ApiResult<axum::Json<RegionJson>> {
    let row = for_change(&state, &me, id).await?;
    if serde_json::to_string(&req.region_json).map_or(0, |s| s.len()) > MAX_REGION_BYTES {
        return Err(ApiError::field(
            "region_json",
            "The regions are too large (256 KiB at most).",
        ));
    }
    objs::set_regions(&state.db, row.id, &req.region_json).await?;
    Ok(axum::Json(req))
}
