//! Agent releases (spec section 7 "Binary deployment", issue 30): the super admin
//! uploads signed agent builds, lists, downloads, moves and deletes them, follows and
//! stops their roll-outs (`crate::releases`), and sees the fleet (Instances). Every call
//! but the devices' download needs `ManageReleases` (the super admin's only).
//!
//! A binary is the request body of its upload, streamed into the object store
//! (`platform/releases/…`) while its SHA-256 and size are counted; refused (its
//! signature does not hold for the release key, its version already uploaded, too
//! large), nothing of it stays. Devices download a release through the signed URL of
//! their update command (`binary_deployment/binary/{token}`), with no other
//! credentials.
//!
//! Past 600 lines because it is one resource: the spec's ten calls on releases share
//! their checks (`checked`, environment, target, the object path) and answer shapes;
//! split, each half would import the other's helpers.

use std::pin::Pin;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use gemba_shared::Permission;
use gemba_shared::api::v1::release::{
    Instance, LatestBranch, MoveRelease, Release, ReleaseDeployment, ReleasePatch, state,
};
use gemba_shared::api::v1::{Msg, PAGE_SIZE, Page, page_offset};
use gemba_shared::release::{ENVIRONMENTS, TARGETS, check_branch, check_version, verify};
use object_store::{ObjectStoreExt, WriteMultipart};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::releases::{self as db, ReleaseRow};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query, drain};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(upload))
        .routes(routes!(previous_releases))
        .routes(routes!(download_binaries))
        .routes(routes!(latest_deployment))
        .routes(routes!(get_latest_deployable_branch))
        .routes(routes!(delete_branch))
        .routes(routes!(move_binaries_to_prod))
        .routes(routes!(patch))
        .routes(routes!(instances))
        .routes(routes!(binary))
}

/// Where a release's binary lives: among the platform's objects, no organisation's.
fn object(key: &str) -> object_store::path::Path {
    crate::http::model_types::file_key(key)
}

fn internal(e: object_store::Error, what: &'static str) -> ApiError {
    ApiError::Internal(anyhow::Error::new(e).context(what))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UploadQuery {
    /// `dev` or `prod`.
    pub environment: Option<String>,
    pub branch: Option<String>,
    pub version: Option<String>,
    /// `x86_64` or `aarch64`.
    pub target: Option<String>,
    /// Ed25519 over the target, version, size and SHA-256 (`gemba-cloud sign-release`),
    /// base64.
    pub signature: Option<String>,
}

/// A required query parameter, or 400 on it.
fn required<'a>(v: &'a Option<String>, field: &str) -> ApiResult<&'a str> {
    v.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::field(field, "This field is required."))
}

fn environment(v: &str) -> ApiResult<()> {
    if ENVIRONMENTS.contains(&v) {
        Ok(())
    } else {
        Err(ApiError::field(
            "environment",
            format!("Choose one of {}.", ENVIRONMENTS.join(", ")),
        ))
    }
}

fn target(v: &str) -> ApiResult<()> {
    if TARGETS.contains(&v) {
        Ok(())
    } else {
        Err(ApiError::field(
            "target",
            format!("Choose one of {}.", TARGETS.join(", ")),
        ))
    }
}

/// The upload's fields, checked: (environment, branch, version, target, signature).
async fn checked(
    state: &AppState,
    q: &UploadQuery,
) -> ApiResult<(String, String, String, String, String)> {
    let env = required(&q.environment, "environment")?;
    environment(env)?;
    let branch = required(&q.branch, "branch")?;
    check_branch(branch).map_err(|m| ApiError::field("branch", m))?;
    let version = required(&q.version, "version")?;
    check_version(version).map_err(|m| ApiError::field("version", m))?;
    let t = required(&q.target, "target")?;
    target(t)?;
    let signature = required(&q.signature, "signature")?;
    if signature.len() > 200 {
        return Err(ApiError::field(
            "signature",
            "The signature is not an Ed25519 signature (64 bytes, base64).",
        ));
    }
    if db::exists(&state.db, t, version).await? {
        return Err(already(version, t));
    }
    Ok((
        env.into(),
        branch.into(),
        version.into(),
        t.into(),
        signature.into(),
    ))
}

fn already(version: &str, target: &str) -> ApiError {
    ApiError::field("version", already_said(version, target))
}

fn already_said(version: &str, target: &str) -> String {
    format!("Version {version} for {target} is already uploaded.")
}

/// Streams `body` into the object store at `key`, counting its SHA-256 and size, up to
/// `limit` bytes; nothing stays when it fails or is over the limit.
async fn store(
    state: &AppState,
    key: &object_store::path::Path,
    mut body: Body,
    limit: i64,
) -> ApiResult<(String, i64)> {
    use axum::body::HttpBody;
    let upload = state
        .objects
        .put_multipart(key)
        .await
        .map_err(|e| internal(e, "starting a release's upload"))?;
    let mut w = WriteMultipart::new(upload);
    let mut sha = Sha256::new();
    let mut size: i64 = 0;
    loop {
        let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
        let Some(frame) = frame else { break };
        let Ok(frame) = frame else {
            w.abort().await.ok();
            return Err(ApiError::non_field("The request body could not be read."));
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        size += data.len() as i64;
        if size > limit {
            w.abort().await.ok();
            drain(body).await;
            return Err(ApiError::TooLarge);
        }
        sha.update(&data);
        if let Err(e) = w.wait_for_capacity(4).await {
            return Err(internal(e, "writing a release"));
        }
        w.write(&data);
    }
    if size == 0 {
        w.abort().await.ok();
        return Err(ApiError::field("file", "The binary is empty."));
    }
    w.finish()
        .await
        .map_err(|e| internal(e, "finishing a release's upload"))?;
    Ok((gemba_shared::hex(&sha.finalize()), size))
}

/// Super admin: an agent binary, the request body, as a release of `version` for
/// `target` on `branch`, in `environment`. Its signature must hold for the release key
/// (`gemba-cloud release-key`); a version is uploaded once per target. It becomes its
/// environment's newest release for its target, whose roll-out begins.
#[utoipa::path(post, path = "/binary_deployment/", tag = "releases", params(UploadQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 201, body = Release), (status = 400), (status = 403), (status = 413)))]
pub async fn upload(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UploadQuery>,
    body: Body,
) -> ApiResult<(StatusCode, axum::Json<Release>)> {
    if let Err(e) = me.require(Permission::ManageReleases) {
        drain(body).await;
        return Err(e);
    }
    let (env, branch, version, t, signature) = match checked(&state, &q).await {
        Ok(f) => f,
        Err(e) => {
            drain(body).await;
            return Err(e);
        }
    };
    let name = format!("releases/{}.bin", uuid::Uuid::new_v4().simple());
    let key = object(&name);
    let (sha256, size) = store(&state, &key, body, state.settings.max_release_bytes).await?;
    let refuse = async |e: ApiError| {
        state.objects.delete(&key).await.ok();
        Err(e)
    };
    if verify(&state.release_key, &signature, &t, &version, size, &sha256).is_err() {
        return refuse(ApiError::field(
            "signature",
            "The signature does not match the release key.",
        ))
        .await;
    }
    let id = match db::insert(
        &state.db,
        &db::NewRelease {
            environment: &env,
            branch: &branch,
            version: &version,
            target: &t,
            size_bytes: size,
            sha256: &sha256,
            signature: &signature,
            object_key: &name,
            by: me.user.id,
        },
    )
    .await
    {
        Ok(id) => id,
        Err(e) => {
            return refuse(ApiError::unique_as(
                e,
                "version",
                already_said(&version, &t),
            ))
            .await;
        }
    };
    let row = find(&state, id).await?;
    crate::releases::begin(&state, &row, &env).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(find(&state, id).await?.into_api()),
    ))
}

async fn find(state: &AppState, id: i64) -> ApiResult<ReleaseRow> {
    db::get(&state.db, id).await?.ok_or(ApiError::NotFound)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct PageQuery {
    #[serde(default)]
    pub page: Option<i64>,
}

/// Every release, newest upload first, a page at a time.
#[utoipa::path(get, path = "/binary_deployment/previous_releases/", tag = "releases",
    params(PageQuery),
    responses((status = 200, body = Page<Release>), (status = 400), (status = 403)))]
pub async fn previous_releases(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<PageQuery>,
) -> ApiResult<axum::Json<Page<Release>>> {
    me.require(Permission::ManageReleases)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let (rows, count) = db::page(&state.db, offset, PAGE_SIZE).await?;
    Ok(axum::Json(Page {
        results: rows.into_iter().map(ReleaseRow::into_api).collect(),
        count,
    }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct DownloadQuery {
    pub environment: Option<String>,
    pub branch: Option<String>,
    /// Not needed with `isLatestBranch=true`.
    pub version: Option<String>,
    /// The branch's newest release in the environment, whatever its version.
    #[serde(default)]
    pub is_latest_branch: Option<bool>,
    /// Default `x86_64`.
    pub target: Option<String>,
}

/// A release's binary, as an attachment: of `version`, or the branch's newest in the
/// environment (`isLatestBranch=true`). 404 when none matches.
#[utoipa::path(get, path = "/binary_deployment/download_binaries/", tag = "releases",
    params(DownloadQuery),
    responses((status = 200, content_type = "application/octet-stream"), (status = 400),
        (status = 403), (status = 404)))]
pub async fn download_binaries(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<DownloadQuery>,
) -> ApiResult<Response> {
    me.require(Permission::ManageReleases)?;
    let env = required(&q.environment, "environment")?;
    environment(env)?;
    let branch = required(&q.branch, "branch")?;
    let t = q.target.as_deref().unwrap_or(TARGETS[0]);
    target(t)?;
    let version = if q.is_latest_branch.unwrap_or(false) {
        None
    } else {
        Some(required(&q.version, "version")?)
    };
    let r = db::find(&state.db, env, branch, t, version)
        .await?
        .ok_or_else(|| {
            ApiError::Status(
                StatusCode::NOT_FOUND,
                format!(
                    "No release of {branch}{} for {t} in {env}.",
                    version.map(|v| format!(" {v}")).unwrap_or_default()
                ),
            )
        })?;
    let file = format!("gemba-agent-{}-{}", r.version, r.target);
    stream(&state, &r.object_key, r.size_bytes, Some(&file)).await
}

/// The object at `key` (of `size` bytes) as the answer's body; an attachment named
/// `file` when given.
async fn stream(state: &AppState, key: &str, size: i64, file: Option<&str>) -> ApiResult<Response> {
    let got = state.objects.get(&object(key)).await.map_err(|e| match e {
        object_store::Error::NotFound { .. } => ApiError::NotFound,
        e => internal(e, "reading a release"),
    })?;
    let mut resp = Response::new(Body::from_stream(got.into_stream()));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    h.insert(header::CONTENT_LENGTH, size.into());
    if let Some(f) = file
        && let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{f}\""))
    {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(resp)
}

/// A release's binary for a device, through the signed URL of its update command
/// (`crate::releases::download_url`): no sign-in, the URL is the permission for its
/// hours.
#[utoipa::path(get, path = "/binary_deployment/binary/{token}", tag = "releases", security(()),
    params(("token" = String, Path)),
    responses((status = 200, content_type = "application/octet-stream"), (status = 404)))]
pub async fn binary(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> ApiResult<Response> {
    let claims = state
        .keys
        .verify_release(&token)
        .ok_or(ApiError::NotFound)?;
    let meta = state
        .objects
        .head(&object(&claims.key))
        .await
        .map_err(|e| match e {
            object_store::Error::NotFound { .. } => ApiError::NotFound,
            e => internal(e, "reading a release"),
        })?;
    stream(&state, &claims.key, meta.size as i64, None).await
}

/// A release and its roll-out's devices: wave, where each is, its last words.
#[utoipa::path(get, path = "/binary_deployment/{id}/latest_deployment/", tag = "releases",
    params(("id" = i64, Path)),
    responses((status = 200, body = ReleaseDeployment), (status = 403), (status = 404)))]
pub async fn latest_deployment(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<ReleaseDeployment>> {
    me.require(Permission::ManageReleases)?;
    let r = find(&state, id).await?;
    Ok(axum::Json(ReleaseDeployment {
        devices: db::devices_of(&state.db, id).await?,
        release: r.into_api(),
    }))
}

/// The newest release of each branch, environment and target.
#[utoipa::path(get, path = "/binary_deployment/get_latest_deployable_branch/", tag = "releases",
    responses((status = 200, body = Vec<LatestBranch>), (status = 403)))]
pub async fn get_latest_deployable_branch(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<LatestBranch>>> {
    me.require(Permission::ManageReleases)?;
    Ok(axum::Json(
        db::latest_of_branches(&state.db)
            .await?
            .into_iter()
            .map(|r| LatestBranch {
                id: r.id,
                branch: r.branch,
                running_environment: r.environment,
                target: r.target,
                version_number: r.version,
            })
            .collect(),
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct DeleteQuery {
    pub environment: Option<String>,
    pub branch: Option<String>,
    pub id: Option<i64>,
}

/// Deletes release `id`, which must be of `environment` and `branch`: its binary and
/// its roll-out with it (devices keep what they run).
#[utoipa::path(delete, path = "/binary_deployment/delete_branch/", tag = "releases",
    params(DeleteQuery),
    responses((status = 200, body = Msg), (status = 400), (status = 403), (status = 404)))]
pub async fn delete_branch(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<DeleteQuery>,
) -> ApiResult<axum::Json<Msg>> {
    me.require(Permission::ManageReleases)?;
    let env = required(&q.environment, "environment")?;
    let branch = required(&q.branch, "branch")?;
    let id =
        q.id.ok_or_else(|| ApiError::field("id", "This field is required."))?;
    let r = find(&state, id).await?;
    if r.environment != env {
        return Err(ApiError::field(
            "environment",
            format!("Release {id} is in {}, not {env}.", r.environment),
        ));
    }
    if r.branch != branch {
        return Err(ApiError::field(
            "branch",
            format!("Release {id} is of branch {}, not {branch}.", r.branch),
        ));
    }
    if let Some(key) = db::delete(&state.db, id).await? {
        state.objects.delete(&object(&key)).await.ok();
    }
    Ok(axum::Json(Msg::new(format!(
        "Release {} for {} deleted.",
        r.version, r.target
    ))))
}

/// The releases of `version` go to `environment` (`prod`, or back to `dev`): each
/// becomes that environment's newest for its target, and its roll-out to the devices
/// following it begins. Answers them.
#[utoipa::path(patch, path = "/binary_deployment/move_binaries_to_prod/", tag = "releases",
    request_body = MoveRelease,
    responses((status = 200, body = Vec<Release>), (status = 400), (status = 403)))]
pub async fn move_binaries_to_prod(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<MoveRelease>,
) -> ApiResult<axum::Json<Vec<Release>>> {
    me.require(Permission::ManageReleases)?;
    environment(&req.environment)?;
    check_version(&req.version).map_err(|m| ApiError::field("version", m))?;
    let rows = db::of_version(&state.db, &req.version).await?;
    if rows.is_empty() {
        return Err(ApiError::field(
            "version",
            format!("No release of version {}.", req.version),
        ));
    }
    let moving: Vec<&ReleaseRow> = rows
        .iter()
        .filter(|r| r.environment != req.environment)
        .collect();
    if moving.is_empty() {
        return Err(ApiError::field(
            "environment",
            format!(
                "The releases of version {} are in {} already.",
                req.version, req.environment
            ),
        ));
    }
    for r in moving {
        crate::releases::begin(&state, r, &req.environment).await?;
    }
    let mut out = vec![];
    for r in &rows {
        out.push(find(&state, r.id).await?.into_api());
    }
    Ok(axum::Json(out))
}

/// Stops release `id`'s roll-out (`stopped`) or goes on with it (`rolling_out`: its
/// failed devices are sent the release again).
#[utoipa::path(patch, path = "/binary_deployment/{id}/", tag = "releases",
    params(("id" = i64, Path)), request_body = ReleasePatch,
    responses((status = 200, body = Release), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<ReleasePatch>,
) -> ApiResult<axum::Json<Release>> {
    me.require(Permission::ManageReleases)?;
    let r = find(&state, id).await?;
    let field = "currentState";
    match (req.current_state.as_str(), r.state.as_str()) {
        (state::STOPPED, state::STOPPED) | (state::ROLLING_OUT, state::ROLLING_OUT) => {}
        (state::STOPPED, state::ROLLING_OUT) => {
            let reason = format!("Stopped by {}.", me.user.email);
            db::set_state(
                &state.db,
                id,
                state::ROLLING_OUT,
                state::STOPPED,
                Some(&reason),
            )
            .await?;
        }
        (state::ROLLING_OUT, state::STOPPED) => {
            db::retry_failed(&state.db, id).await?;
            if db::set_state(&state.db, id, state::STOPPED, state::ROLLING_OUT, None).await? {
                crate::releases::advance(&state, id, None).await?;
            }
        }
        (state::STOPPED, _) => {
            return Err(ApiError::field(
                field,
                format!(
                    "Only a roll-out under way can be stopped; this one is {}.",
                    r.state
                ),
            ));
        }
        (state::ROLLING_OUT, _) => {
            return Err(ApiError::field(
                field,
                format!(
                    "Only a stopped roll-out can go on; this one is {}.",
                    r.state
                ),
            ));
        }
        _ => {
            return Err(ApiError::field(field, "Choose stopped or rolling_out."));
        }
    }
    Ok(axum::Json(find(&state, id).await?.into_api()))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct InstancesQuery {
    #[serde(default)]
    pub page: Option<i64>,
    /// In the device's or its organisation's name.
    #[serde(default)]
    pub search: Option<String>,
}

/// Every organisation's devices (not archived) as the fleet sees them: version,
/// target, channel, whether they can update themselves and their latest update.
#[utoipa::path(get, path = "/binary_deployment/instances/", tag = "releases",
    params(InstancesQuery),
    responses((status = 200, body = Page<Instance>), (status = 400), (status = 403)))]
pub async fn instances(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<InstancesQuery>,
) -> ApiResult<axum::Json<Page<Instance>>> {
    me.require(Permission::ManageReleases)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let (rows, count) = db::instances(
        &state.db,
        q.search.as_deref().unwrap_or(""),
        offset,
        PAGE_SIZE,
    )
    .await?;
    Ok(axum::Json(Page {
        results: rows.into_iter().map(db::FleetRow::into_api).collect(),
        count,
    }))
}
