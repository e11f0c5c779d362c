//! Model types and model files (spec section 7 "Model versions, types and files":
//! `organization/model_types`, `organization/model_type/{id}`, `organization/model_files`).
//!
//! The catalogue is the platform's (docs/decisions.md "Model types are the platform's"):
//! every role of the user area reads it (a task chooses its type from it); only the
//! super admin changes it. A model file is an ONNX bundle made to its type's recipe,
//! sent as the request body (`POST organization/model_files?model_type=ID&name=FILE`);
//! it is read before anything is kept, and a file the agent could not run is refused.
//! A model made elsewhere (a PyTorch export says nothing of gemba) is registered with
//! what the file does not say declared as parameters of the upload (its labels, version,
//! and the frame it takes: layout, element type, scale, mean, std, colour order), which
//! the cloud writes into the stored file's metadata (`crate::onnx::with_declared`), so
//! the file alone tells the agent how to feed it. Every file of a type takes the type's
//! frame size, one made elsewhere too (docs/decisions.md "A model made elsewhere").

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::training::{
    MAX_MODEL_FILE_BYTES, MODEL_HIDDEN, MODEL_INPUT_SIDE, ModelFile, ModelFilesPatch, ModelType,
    ModelTypeCreate, ModelTypePatch,
};
use gemba_shared::validate::Bounded;
use object_store::ObjectStoreExt;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::model_types::{self as db, FileRow, Recipe, TypeRow};
use crate::http::error::{ApiError, ApiResult, count_of};
use crate::http::extract::{AuthUser, Json, Path, Query, read_body};
use crate::http::tasks::check_name;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get))
        .routes(routes!(patch))
        .routes(routes!(upload_file, patch_files, delete_files))
}

/// Where model files live in the object store: outside every organisation's keys,
/// because the catalogue is the platform's.
pub fn file_key(name: &str) -> object_store::path::Path {
    object_store::path::Path::from(format!("platform/{name}"))
}

/// Every model type with its files, oldest first.
#[utoipa::path(get, path = "/organization/model_types", tag = "models",
    responses((status = 200, body = Vec<ModelType>), (status = 403)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<ModelType>>> {
    me.require(Permission::ViewTasks)?;
    let files = db::all_files(&state.db).await?;
    Ok(axum::Json(
        db::types(&state.db)
            .await?
            .into_iter()
            .map(|t| t.into_api(&files))
            .collect(),
    ))
}

async fn find(state: &AppState, id: i64) -> ApiResult<TypeRow> {
    db::get_type(&state.db, id).await?.ok_or(ApiError::NotFound)
}

async fn answer(state: &AppState, t: TypeRow) -> ApiResult<ModelType> {
    let files = db::files_of(&state.db, t.id).await?;
    Ok(t.into_api(&files))
}

/// One model type with its files.
#[utoipa::path(get, path = "/organization/model_types/{id}", tag = "models",
    params(("id" = i64, Path)),
    responses((status = 200, body = ModelType), (status = 403), (status = 404)))]
pub async fn get(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<ModelType>> {
    me.require(Permission::ViewTasks)?;
    let t = find(&state, id).await?;
    Ok(axum::Json(answer(&state, t).await?))
}

fn check_recipe(width: u32, height: u32, hidden: u32) -> ApiResult<()> {
    for (field, v) in [("input_width", width), ("input_height", height)] {
        if !MODEL_INPUT_SIDE.contains(&v) {
            return Err(ApiError::field(
                field,
                format!(
                    "Ensure this value is between {} and {} pixels.",
                    MODEL_INPUT_SIDE.start(),
                    MODEL_INPUT_SIDE.end()
                ),
            ));
        }
    }
    if !MODEL_HIDDEN.contains(&hidden) {
        return Err(ApiError::field(
            "hidden",
            format!(
                "Ensure this value is between {} and {} units.",
                MODEL_HIDDEN.start(),
                MODEL_HIDDEN.end()
            ),
        ));
    }
    Ok(())
}

const MAX_DESCRIPTION: usize = gemba_shared::validate::MAX_DESCRIPTION_CHARS;

fn check_description(d: &str) -> ApiResult<String> {
    let d = d.trim();
    if d.chars().count() > MAX_DESCRIPTION {
        return Err(ApiError::field(
            "description",
            format!("A description must be at most {MAX_DESCRIPTION} characters."),
        ));
    }
    Ok(d.to_string())
}

fn name_taken_or(e: sqlx::Error) -> ApiError {
    ApiError::unique_as(e, "name", "A model type with this name already exists.")
}

/// Super admin: a new model type (its recipe: frame size and hidden width).
#[utoipa::path(post, path = "/organization/model_types", tag = "models",
    request_body = ModelTypeCreate,
    responses((status = 201, body = ModelType), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ModelTypeCreate>,
) -> ApiResult<(StatusCode, axum::Json<ModelType>)> {
    req.check_lengths()?;
    me.require(Permission::ManageModelTypes)?;
    let name = check_name("name", "The name", &req.name)?;
    let description = check_description(&req.description)?;
    check_recipe(req.input_width, req.input_height, req.hidden)?;
    let t = db::create_type(
        &state.db,
        &Recipe {
            name: &name,
            description: &description,
            input_width: req.input_width,
            input_height: req.input_height,
            hidden: req.hidden,
        },
    )
    .await
    .map_err(name_taken_or)?;
    Ok((StatusCode::CREATED, axum::Json(t.into_api(&[]))))
}

/// Super admin: rename or describe a model type; change its recipe while nothing has
/// been made to it (no model file, no model version).
#[utoipa::path(patch, path = "/organization/model_type/{id}", tag = "models",
    params(("id" = i64, Path)), request_body = ModelTypePatch,
    responses((status = 200, body = ModelType), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<ModelTypePatch>,
) -> ApiResult<axum::Json<ModelType>> {
    req.check_lengths()?;
    me.require(Permission::ManageModelTypes)?;
    let mut t = find(&state, id).await?;
    if let Some(n) = &req.name {
        t.name = check_name("name", "The name", n)?;
    }
    if let Some(d) = &req.description {
        t.description = check_description(d)?;
    }
    let (w, h, hid) = (
        req.input_width.unwrap_or(t.input_width as u32),
        req.input_height.unwrap_or(t.input_height as u32),
        req.hidden.unwrap_or(t.hidden as u32),
    );
    check_recipe(w, h, hid)?;
    let recipe_changes =
        (i64::from(w), i64::from(h), i64::from(hid)) != (t.input_width, t.input_height, t.hidden);
    if recipe_changes && db::type_in_use(&state.db, id).await? {
        return Err(ApiError::non_field(
            "Model files or model versions were made to this type's recipe: make a new type \
             for another recipe.",
        ));
    }
    (t.input_width, t.input_height, t.hidden) = (i64::from(w), i64::from(h), i64::from(hid));
    db::update_type(&state.db, &t)
        .await
        .map_err(name_taken_or)?;
    Ok(axum::Json(answer(&state, t).await?))
}

/// What the upload adds to a refusal of a file that may have been made elsewhere.
pub const MADE_ELSEWHERE: &str = "If it was made elsewhere, declare what the file does not say \
    with the upload's parameters: labels, version, input_layout, input_type, input_scale, \
    input_mean, input_std, input_format.";

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UploadQuery {
    /// The model type the file is made to.
    pub model_type: i64,
    /// The file's name (default `model.onnx`).
    #[serde(default)]
    pub name: Option<String>,
    /// For a file that does not say them itself (one made elsewhere), written into its
    /// metadata: its labels, a JSON list of the steps in order, then background.
    #[serde(default)]
    pub labels: Option<String>,
    /// Its version name.
    #[serde(default)]
    pub version: Option<String>,
    /// The frame width it takes (default: the type's).
    #[serde(default)]
    pub input_width: Option<String>,
    /// The frame height it takes (default: the type's).
    #[serde(default)]
    pub input_height: Option<String>,
    /// `NHWC` (default) or `NCHW`.
    #[serde(default)]
    pub input_layout: Option<String>,
    /// `uint8` (default: the frame's bytes as they are) or `float32`.
    #[serde(default)]
    pub input_type: Option<String>,
    /// float32: each value becomes (x · scale − mean) / std; the scale is a number
    /// greater than 0, such as `1/255` (default 1).
    #[serde(default)]
    pub input_scale: Option<String>,
    /// float32: three numbers, one per channel in the model's channel order,
    /// comma-separated or a JSON list (default 0,0,0).
    #[serde(default)]
    pub input_mean: Option<String>,
    /// float32: three numbers greater than 0, one per channel (default 1,1,1).
    #[serde(default)]
    pub input_std: Option<String>,
    /// The channels' order, `RGB` (default) or `BGR`.
    #[serde(default)]
    pub input_format: Option<String>,
}

impl UploadQuery {
    /// What the upload declares of the file: (parameter, value).
    fn declared(&self) -> Vec<(&'static str, &str)> {
        crate::onnx::DECLARABLE
            .into_iter()
            .zip([
                &self.labels,
                &self.version,
                &self.input_width,
                &self.input_height,
                &self.input_layout,
                &self.input_type,
                &self.input_scale,
                &self.input_mean,
                &self.input_std,
                &self.input_format,
            ])
            .filter_map(|(k, v)| Some((k, v.as_deref()?)))
            .collect()
    }
}

/// Super admin: a model file (the ONNX bundle as the request body). Its metadata must
/// say what the agent needs, with the type's frame size, and its graph take the frames
/// it declares and answer one value per label (`crate::onnx::read`). What a file made
/// elsewhere does not say, the upload declares: the cloud writes it into the stored
/// file's metadata, whose SHA-256 the file then has.
#[utoipa::path(post, path = "/organization/model_files", tag = "models", params(UploadQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 201, body = ModelFile), (status = 400), (status = 403), (status = 413)))]
pub async fn upload_file(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UploadQuery>,
    body: Body,
) -> ApiResult<(StatusCode, axum::Json<ModelFile>)> {
    me.require(Permission::ManageModelTypes)?;
    // Read first: a client is answered once it has sent its file.
    let bytes = read_body(body, MAX_MODEL_FILE_BYTES).await?;
    let name = check_name(
        "name",
        "The file name",
        q.name.as_deref().unwrap_or("model.onnx"),
    )?;
    if name.contains('/') || name.contains('\\') {
        return Err(ApiError::field(
            "name",
            "The file name cannot contain a slash.",
        ));
    }
    let t = db::get_type(&state.db, q.model_type)
        .await?
        .ok_or_else(|| ApiError::field("model_type", "Choose one of the model types."))?;
    let declared = q.declared();
    let bytes = crate::onnx::with_declared(
        &bytes,
        &declared,
        (t.input_width as u32, t.input_height as u32),
    )
    .map_err(|(field, m)| ApiError::field(field, m))?;
    let bundle = crate::onnx::read(&bytes).map_err(|m| {
        // A file made elsewhere: say how to declare what it does not say.
        let hint = declared.is_empty()
            && (m.starts_with("The model's input is")
                || m.starts_with("The model's metadata has no"));
        ApiError::field(
            "file",
            if hint {
                format!("{m} {MADE_ELSEWHERE}")
            } else {
                m
            },
        )
    })?;
    if (
        i64::from(bundle.input_width),
        i64::from(bundle.input_height),
    ) != (t.input_width, t.input_height)
    {
        return Err(ApiError::field(
            "file",
            format!(
                "The model takes {}×{} frames; the type {} takes {}×{}.",
                bundle.input_width, bundle.input_height, t.name, t.input_width, t.input_height
            ),
        ));
    }
    let sha256 = gemba_shared::hex(&Sha256::digest(&bytes));
    // The same bytes twice in one type (a second click, a re-upload) would be two
    // files that can only ever be registered once.
    if let Some(same) = db::files_of(&state.db, t.id)
        .await?
        .into_iter()
        .find(|f| f.sha256 == sha256)
    {
        return Err(ApiError::field(
            "file",
            format!("This model is already a file of {}: {}.", t.name, same.name),
        ));
    }
    let object_key = format!("model_files/{sha256}.onnx");
    let size = bytes.len() as i64;
    state
        .objects
        .put(&file_key(&object_key), bytes.into())
        .await
        .map_err(|e| ApiError::Internal(anyhow::Error::new(e).context("storing a model file")))?;
    let row = db::insert_file(
        &state.db,
        &db::NewFile {
            model_type_id: t.id,
            name: &name,
            object_key: &object_key,
            version: &bundle.version,
            labels: &bundle.labels,
            sha256: &sha256,
            size_bytes: size,
        },
    )
    .await?;
    Ok((StatusCode::CREATED, axum::Json(row.into_api())))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct IdsQuery {
    /// Model file ids, comma-separated.
    pub ids: String,
}

/// The ids of `?ids=1,2,3`: at least one, at most 100, each a model file id.
fn parse_ids(s: &str) -> ApiResult<Vec<i64>> {
    let bad = || ApiError::field("ids", "Give the model files' ids, comma-separated.");
    let mut ids = s
        .split(',')
        .map(|p| p.trim().parse::<i64>().map_err(|_| bad()))
        .collect::<ApiResult<Vec<i64>>>()?;
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() || ids.len() > 100 {
        return Err(ApiError::field("ids", "Choose 1 to 100 model files."));
    }
    Ok(ids)
}

/// Every one of `ids`, or 400 naming one that is not a model file.
async fn all_of(state: &AppState, ids: &[i64]) -> ApiResult<Vec<FileRow>> {
    let rows = db::files(&state.db, ids).await?;
    if let Some(missing) = ids.iter().find(|&&id| !rows.iter().any(|r| r.id == id)) {
        return Err(ApiError::field(
            "ids",
            format!("Model file {missing} does not exist; nothing was changed."),
        ));
    }
    Ok(rows)
}

/// Super admin: move model files to another type of the same frame size.
#[utoipa::path(patch, path = "/organization/model_files", tag = "models", params(IdsQuery),
    request_body = ModelFilesPatch,
    responses((status = 200, body = Vec<ModelFile>), (status = 400), (status = 403)))]
pub async fn patch_files(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<IdsQuery>,
    Json(req): Json<ModelFilesPatch>,
) -> ApiResult<axum::Json<Vec<ModelFile>>> {
    me.require(Permission::ManageModelTypes)?;
    let ids = parse_ids(&q.ids)?;
    let to = db::get_type(&state.db, req.model_type)
        .await?
        .ok_or_else(|| ApiError::field("model_type", "Choose one of the model types."))?;
    let rows = all_of(&state, &ids).await?;
    let types = db::types(&state.db).await?;
    for f in &rows {
        let Some(from) = types.iter().find(|t| t.id == f.model_type_id) else {
            continue; // a file's type is never deleted
        };
        if (from.input_width, from.input_height) != (to.input_width, to.input_height) {
            return Err(ApiError::field(
                "model_type",
                format!(
                    "{} takes {}×{} frames; {} takes {}×{}.",
                    f.name,
                    from.input_width,
                    from.input_height,
                    to.name,
                    to.input_width,
                    to.input_height
                ),
            ));
        }
    }
    db::move_files(&state.db, &ids, to.id).await.map_err(|e| {
        ApiError::unique_as(
            e,
            "model_type",
            format!(
                "{} already has a file of the same bytes; nothing was moved.",
                to.name
            ),
        )
    })?;
    Ok(axum::Json(
        db::files(&state.db, &ids)
            .await?
            .into_iter()
            .map(FileRow::into_api)
            .collect(),
    ))
}

/// Super admin: delete model files, all or none. Model versions registered from them
/// keep their own copy.
#[utoipa::path(delete, path = "/organization/model_files", tag = "models", params(IdsQuery),
    responses((status = 200, body = Msg), (status = 400), (status = 403)))]
pub async fn delete_files(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<IdsQuery>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageModelTypes)?;
    let ids = parse_ids(&q.ids)?;
    let gone = db::delete_files(&state.db, &ids)
        .await?
        .map_err(|missing| {
            ApiError::field(
                "ids",
                format!("Model file {missing} does not exist; nothing was deleted."),
            )
        })?;
    // Files of the same bytes share an object: it goes with the last of them.
    let left = db::all_files(&state.db).await?;
    for f in &gone {
        if !left.iter().any(|o| o.object_key == f.object_key)
            && let Err(e) = state.objects.delete(&file_key(&f.object_key)).await
            && !matches!(e, object_store::Error::NotFound { .. })
        {
            tracing::warn!(file = f.id, error = %e, "deleting a model file's object");
        }
    }
    Ok(axum::Json(Msg::new(format!(
        "{} deleted.",
        count_of(gone.len(), "model file")
    ))))
}
