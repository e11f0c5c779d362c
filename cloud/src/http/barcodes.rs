//! Barcodes (spec section 7 "Barcodes"): an organisation's barcode values and the tasks
//! they start (docs/decisions.md "Barcodes").
//!
//! The admin Barcode screen is the super admin's, so every call needs
//! `Permission::AdminArea` and reaches any organisation's barcodes:
//! - `GET account/barcode/{id}`: organisation `{id}`'s barcodes;
//! - `POST account/barcode/{id}`: a new barcode of organisation `{id}` with a value the
//!   server makes up (`GB-` and 8 letters or digits), to print;
//! - `DELETE account/barcode/{id}`: deletes barcode `{id}` (and its association);
//! - `PUT account/create_custom_barcode/`: a barcode with the value given;
//! - `PATCH account/update_barcode_value/`: another value for barcode `id`;
//! - `GET account/associate_barcode/?task={id}`, `POST account/associate_barcode/`,
//!   `PATCH` and `DELETE account/associate_barcode/{id}/`: a barcode associated with a
//!   task of its organisation (at most one task per barcode).
//!
//! Values are unique per organisation. An association change, and a value change or
//! deletion of an associated barcode, is sent to every device of the organisation in
//! its configuration (`mqtt::v1::TaskBarcode`).

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::barcode::{
    AssociateBarcode, AssociateBarcodePatch, AssociatedBarcode, Barcode, BarcodeCreate,
    BarcodeValuePatch, MAX_ASSOCIATED_BARCODES, MAX_BARCODES, check_value,
};
use gemba_shared::validate::Bounded;
use rand::Rng;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::barcodes as db;
use crate::db::{orgs, tasks};
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, generate, delete))
        .routes(routes!(create_custom))
        .routes(routes!(update_value))
        .routes(routes!(associations, associate))
        .routes(routes!(reassociate, dissociate))
}

pub const DELETED: &str = "Barcode deleted successfully";
pub const REMOVED: &str = "Barcode removed successfully";
const TAKEN: &str = "This organization already has a barcode with this value.";

/// An id in the path: anything that is not one is simply not found.
fn path_id(raw: &str) -> ApiResult<i64> {
    raw.parse().map_err(|_| ApiError::NotFound)
}

fn value_of(v: &str) -> ApiResult<String> {
    check_value(v).map_err(|m| ApiError::field("barcode_value", m))
}

async fn barcode(state: &AppState, id: i64) -> ApiResult<Barcode> {
    db::get(&state.db, id).await?.ok_or(ApiError::NotFound)
}

async fn send(state: &AppState, org: i64, devices: &[i64]) -> ApiResult<()> {
    crate::device_config::send_all(state, org, devices).await?;
    Ok(())
}

async fn room_for_one(state: &AppState, org: i64) -> ApiResult<()> {
    if db::count(&state.db, org).await? >= MAX_BARCODES as i64 {
        return Err(ApiError::non_field(format!(
            "An organization has at most {MAX_BARCODES} barcodes: delete one first."
        )));
    }
    Ok(())
}

/// Organisation `{id}`'s barcodes, oldest first, each with the task it starts.
#[utoipa::path(get, path = "/account/barcode/{id}", tag = "barcodes",
    params(("id" = i64, Path, description = "the organisation's id")),
    responses((status = 200, body = Vec<Barcode>), (status = 403), (status = 404)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Vec<Barcode>>> {
    me.require(Permission::AdminArea)?;
    let org = path_id(&id)?;
    orgs::by_id(&state.db, org)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(db::list(&state.db, org).await?))
}

/// A value made up for a new barcode: `GB-` and 8 of an alphabet without look-alikes
/// (no 0/O, 1/I/L), which Code 128, QR codes and DataMatrix all carry.
pub fn made_up_value() -> String {
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
    let mut rng = rand::thread_rng();
    let tail: String = (0..8)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect();
    format!("GB-{tail}")
}

/// A new barcode of organisation `{id}` with a value the server makes up, unique in it.
#[utoipa::path(post, path = "/account/barcode/{id}", tag = "barcodes",
    params(("id" = i64, Path, description = "the organisation's id")),
    responses((status = 201, body = Barcode), (status = 400), (status = 403), (status = 404)))]
pub async fn generate(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, axum::Json<Barcode>)> {
    me.require(Permission::AdminArea)?;
    let org = path_id(&id)?;
    orgs::by_id(&state.db, org)
        .await?
        .ok_or(ApiError::NotFound)?;
    room_for_one(&state, org).await?;
    // 31^8 values: a clash is rare, two in a row rarer still.
    for _ in 0..5 {
        match db::insert(&state.db, org, &made_up_value()).await {
            Ok(id) => return Ok((StatusCode::CREATED, axum::Json(barcode(&state, id).await?))),
            Err(e) if is_unique_violation(&e) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::non_field("Unable to add barcode"))
}

/// Deletes barcode `{id}`, and its association with a task.
#[utoipa::path(delete, path = "/account/barcode/{id}", tag = "barcodes",
    params(("id" = i64, Path, description = "the barcode's id")),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::AdminArea)?;
    let b = barcode(&state, path_id(&id)?).await?;
    let devices = db::delete(&state.db, b.organization, b.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    send(&state, b.organization, &devices).await?;
    Ok(axum::Json(Msg::new(DELETED)))
}

/// A barcode with the value given (trimmed; 1 to 100 characters, no control
/// characters), unique in its organisation.
#[utoipa::path(put, path = "/account/create_custom_barcode/", tag = "barcodes",
    request_body = BarcodeCreate,
    responses((status = 201, body = Barcode), (status = 400), (status = 403)))]
pub async fn create_custom(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<BarcodeCreate>,
) -> ApiResult<(StatusCode, axum::Json<Barcode>)> {
    req.check_lengths()?;
    me.require(Permission::AdminArea)?;
    let value = value_of(&req.barcode_value)?;
    let org = match req.organization.or(me.org) {
        Some(o) => o,
        None => return Err(ApiError::field("organization", "This field is required.")),
    };
    if orgs::by_id(&state.db, org).await?.is_none() {
        return Err(ApiError::field("organization", "Unknown organization."));
    }
    room_for_one(&state, org).await?;
    let id = db::insert(&state.db, org, &value)
        .await
        .map_err(|e| ApiError::unique_as(e, "barcode_value", TAKEN))?;
    Ok((StatusCode::CREATED, axum::Json(barcode(&state, id).await?)))
}

/// Another value for barcode `id`; the task it starts reads the new value.
#[utoipa::path(patch, path = "/account/update_barcode_value/", tag = "barcodes",
    request_body = BarcodeValuePatch,
    responses((status = 200, body = Barcode), (status = 400), (status = 403), (status = 404)))]
pub async fn update_value(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<BarcodeValuePatch>,
) -> ApiResult<axum::Json<Barcode>> {
    req.check_lengths()?;
    me.require(Permission::AdminArea)?;
    let value = value_of(&req.barcode_value)?;
    let b = barcode(&state, req.id).await?;
    let devices = db::set_value(&state.db, b.organization, b.id, &value)
        .await
        .map_err(|e| ApiError::unique_as(e, "barcode_value", TAKEN))?
        .ok_or(ApiError::NotFound)?;
    send(&state, b.organization, &devices).await?;
    Ok(axum::Json(barcode(&state, b.id).await?))
}

// ----- associations ---------------------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct TaskQuery {
    /// The task's id.
    #[serde(default)]
    #[param(value_type = i64)]
    pub task: Option<String>,
}

/// A task that is not deleted: (its organisation, its name), or a 400 on `task`.
async fn live_task(state: &AppState, task: i64) -> ApiResult<(i64, String)> {
    match tasks::get(&state.db, 0, None, task).await? {
        Some(t) if !t.settings().is_deleted => {
            let name = t.settings().task_name;
            Ok((t.organization_id, name))
        }
        _ => Err(ApiError::field("task", "Unknown operation.")),
    }
}

/// Barcode `barcode` for task `task` of organisation `org`: it must be the
/// organisation's and associated with no other task than `except`'s.
async fn free_barcode(
    state: &AppState,
    org: i64,
    barcode_id: i64,
    except: Option<i64>,
) -> ApiResult<()> {
    let b = db::get(&state.db, barcode_id)
        .await?
        .ok_or_else(|| ApiError::field("barcode_id", "Unknown barcode."))?;
    if b.organization != org {
        return Err(ApiError::field(
            "barcode_id",
            "The barcode belongs to another organization than the operation.",
        ));
    }
    if let Some(t) = b.tasks.iter().find(|t| Some(t.id) != except) {
        return Err(ApiError::field(
            "barcode_id",
            format!("This barcode already starts the operation {}.", t.task_name),
        ));
    }
    Ok(())
}

/// The barcodes associated with task `?task=`.
#[utoipa::path(get, path = "/account/associate_barcode/", tag = "barcodes", params(TaskQuery),
    responses((status = 200, body = Vec<AssociatedBarcode>), (status = 400), (status = 403), (status = 404)))]
pub async fn associations(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<TaskQuery>,
) -> ApiResult<axum::Json<Vec<AssociatedBarcode>>> {
    me.require(Permission::AdminArea)?;
    let task = match q.task.as_deref().map(str::trim) {
        None | Some("") => return Err(ApiError::field("task", "This field is required.")),
        Some(v) => v
            .parse::<i64>()
            .map_err(|_| ApiError::field("task", "A valid integer is required."))?,
    };
    tasks::get(&state.db, 0, None, task)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(axum::Json(db::of_task(&state.db, task).await?))
}

/// Associates a barcode with a task of its organisation: a camera that reads it
/// starts the task.
#[utoipa::path(post, path = "/account/associate_barcode/", tag = "barcodes",
    request_body = AssociateBarcode,
    responses((status = 201, body = AssociatedBarcode), (status = 400), (status = 403)))]
pub async fn associate(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AssociateBarcode>,
) -> ApiResult<(StatusCode, axum::Json<AssociatedBarcode>)> {
    me.require(Permission::AdminArea)?;
    let (org, _) = live_task(&state, req.task).await?;
    free_barcode(&state, org, req.barcode_id, None).await?;
    if db::associated_count(&state.db, org).await? >= MAX_ASSOCIATED_BARCODES as i64 {
        return Err(ApiError::non_field(format!(
            "An organization has at most {MAX_ASSOCIATED_BARCODES} barcodes that start \
             operations: remove one first."
        )));
    }
    let (id, devices) = db::associate(&state.db, org, req.task, req.barcode_id)
        .await
        .map_err(|e| {
            ApiError::unique_as(e, "barcode_id", "This barcode already starts an operation.")
        })?;
    send(&state, org, &devices).await?;
    let (_, a) = db::association(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok((StatusCode::CREATED, axum::Json(a)))
}

async fn association(state: &AppState, raw: &str) -> ApiResult<(i64, AssociatedBarcode)> {
    db::association(&state.db, path_id(raw)?)
        .await?
        .ok_or(ApiError::NotFound)
}

/// Another barcode or task for an association (both of one organisation).
#[utoipa::path(patch, path = "/account/associate_barcode/{id}/", tag = "barcodes",
    params(("id" = i64, Path)), request_body = AssociateBarcodePatch,
    responses((status = 200, body = AssociatedBarcode), (status = 400), (status = 403), (status = 404)))]
pub async fn reassociate(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
    Json(req): Json<AssociateBarcodePatch>,
) -> ApiResult<axum::Json<AssociatedBarcode>> {
    me.require(Permission::AdminArea)?;
    let (org, cur) = association(&state, &id).await?;
    let task = req.task.unwrap_or(cur.task);
    let barcode_id = req.barcode_id.unwrap_or(cur.barcode_id);
    if task != cur.task {
        let (task_org, _) = live_task(&state, task).await?;
        if task_org != org {
            return Err(ApiError::field(
                "task",
                "The operation belongs to another organization than the barcode.",
            ));
        }
    }
    if barcode_id != cur.barcode_id {
        free_barcode(&state, org, barcode_id, Some(cur.id)).await?;
    }
    let devices = db::reassociate(&state.db, org, cur.id, task, barcode_id)
        .await
        .map_err(|e| {
            ApiError::unique_as(e, "barcode_id", "This barcode already starts an operation.")
        })?
        .ok_or(ApiError::NotFound)?;
    send(&state, org, &devices).await?;
    let (_, a) = association(&state, &cur.id.to_string()).await?;
    Ok(axum::Json(a))
}

/// Removes an association: the barcode stays, and starts no task.
#[utoipa::path(delete, path = "/account/associate_barcode/{id}/", tag = "barcodes",
    params(("id" = i64, Path)),
    responses((status = 200, body = Msg), (status = 403), (status = 404)))]
pub async fn dissociate(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::AdminArea)?;
    let (org, cur) = association(&state, &id).await?;
    let devices = db::dissociate(&state.db, org, cur.id)
        .await?
        .ok_or(ApiError::NotFound)?;
    send(&state, org, &devices).await?;
    Ok(axum::Json(Msg::new(REMOVED)))
}
