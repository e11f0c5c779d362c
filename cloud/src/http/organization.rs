//! Tenancy: organisations (super admin CRUD, paging and search), departments,
//! linked organisations and switching between them.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::organization::{
    DepartmentCreate, LinkOrganization, OrganizationCreate, OrganizationLink, OrganizationPatch,
    OrganizationSwitch, SwitchOrganization, SwitchResult,
};
use gemba_shared::api::v1::{Msg, PAGE_SIZE, Page, page_offset};
use gemba_shared::validate::Bounded;
use gemba_shared::{Permission, validate};
use serde::Deserialize;

use crate::db::orgs::{Department, Organization};
use crate::db::{orgs, users};
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, Path, Query, reserved_subdomain};
use crate::state::AppState;

/// A sub-domain name made from a display name: "ACME Works GmbH" → "acme-works-gmbh".
pub fn slug(display: &str) -> String {
    let mut s = String::new();
    for c in display.trim().to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    s.trim_end_matches('-')
        .chars()
        .take(63)
        .collect::<String>()
        .trim_end_matches('-')
        .to_string()
}

fn check_display(display: &str) -> ApiResult<()> {
    let d = display.trim();
    if d.is_empty() {
        return Err(ApiError::field(
            "org_name_to_display",
            "This field may not be blank.",
        ));
    }
    Ok(())
}

/// A valid sub-domain name that no organisation and no special host uses.
fn check_name(state: &AppState, name: &str) -> ApiResult<()> {
    validate::subdomain(name).map_err(|m| ApiError::field("name", m))?;
    if reserved_subdomain(name, state) {
        return Err(ApiError::field("name", "This name is reserved."));
    }
    Ok(())
}

/// An IANA time zone name of the tz database (`Europe/Berlin`, `UTC`), as written there.
pub fn check_time_zone(tz: &str) -> ApiResult<String> {
    let tz = tz.trim();
    match tz.parse::<chrono_tz::Tz>() {
        Ok(z) if z.name() == tz => Ok(tz.to_string()),
        _ => Err(ApiError::field(
            "time_zone",
            format!("{tz:?} is not a time zone of the tz database (e.g. Europe/Berlin, UTC)."),
        )),
    }
}

fn unique_name(e: sqlx::Error) -> ApiError {
    ApiError::unique_as(e, "name", "organization with this name already exists.")
}

/// Organisations the user can act in: all for a super admin, else the linked ones.
#[utoipa::path(get, path = "/organization/", tag = "organization",
    responses((status = 200, body = Vec<Organization>)))]
pub async fn list(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<Vec<Organization>>> {
    me.require(Permission::ViewOrganizations)?;
    if me.is_admin() {
        let (rows, _) = orgs::page(&state.db, "", 0, i64::MAX).await?;
        return Ok(axum::Json(rows));
    }
    Ok(axum::Json(orgs::of_user(&state.db, me.user.id).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct PageQuery {
    #[serde(default)]
    pub page: Option<i64>,
    #[serde(default)]
    pub search: Option<String>,
}

/// Super admin: organisations, paged (10 a page), with a search.
#[utoipa::path(get, path = "/organization/get_organizations", tag = "organization", params(PageQuery),
    responses((status = 200, body = Page<Organization>), (status = 403)))]
pub async fn get_organizations(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<PageQuery>,
) -> ApiResult<axum::Json<Page<Organization>>> {
    me.require(Permission::ManageOrganizations)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let (results, count) = orgs::page(
        &state.db,
        q.search.as_deref().unwrap_or(""),
        offset,
        PAGE_SIZE,
    )
    .await?;
    Ok(axum::Json(Page { results, count }))
}

/// Super admin: create an organisation.
#[utoipa::path(post, path = "/organization/", tag = "organization", request_body = OrganizationCreate,
    responses((status = 201, body = Organization), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<OrganizationCreate>,
) -> ApiResult<(StatusCode, axum::Json<Organization>)> {
    req.check_lengths()?;
    me.require(Permission::ManageOrganizations)?;
    check_display(&req.org_name_to_display)?;
    let name = req
        .name
        .clone()
        .map(|n| n.trim().to_lowercase())
        .unwrap_or_else(|| slug(&req.org_name_to_display));
    check_name(&state, &name)?;
    let org = orgs::insert(
        &state.db,
        &name,
        req.org_name_to_display.trim(),
        req.use_proxy_server,
    )
    .await
    .map_err(unique_name)?;
    Ok((StatusCode::CREATED, axum::Json(org)))
}

/// Super admin: change an organisation (name, display name, `use_proxy_server`, its
/// time zone, which its devices' schedules are read in).
#[utoipa::path(patch, path = "/organization/{id}/", tag = "organization", params(("id" = i64, Path)),
    request_body = OrganizationPatch, responses((status = 200, body = Organization), (status = 400), (status = 403), (status = 404)))]
pub async fn patch(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<OrganizationPatch>,
) -> ApiResult<axum::Json<Organization>> {
    req.check_lengths()?;
    me.require(Permission::ManageOrganizations)?;
    let cur = orgs::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let name = req
        .name
        .map(|n| n.trim().to_lowercase())
        .unwrap_or(cur.name);
    check_name(&state, &name)?;
    let display = req.org_name_to_display.unwrap_or(cur.org_name_to_display);
    check_display(&display)?;
    let proxy = req.use_proxy_server.unwrap_or(cur.use_proxy_server);
    let time_zone = match &req.time_zone {
        Some(tz) => check_time_zone(tz)?,
        None => cur.time_zone.clone(),
    };
    let org = orgs::update(&state.db, id, &name, display.trim(), proxy, &time_zone)
        .await
        .map_err(unique_name)?
        .ok_or(ApiError::NotFound)?;
    if time_zone != cur.time_zone {
        // Schedules are read in it: every device is told.
        let devices = crate::db::device_config::bump_org(&state.db, id).await?;
        crate::device_config::send_all(&state, id, &devices).await?;
    }
    Ok(axum::Json(org))
}

/// Super admin: delete an organisation (its departments and links go with it).
#[utoipa::path(delete, path = "/organization/{id}/", tag = "organization", params(("id" = i64, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageOrganizations)?;
    if !orgs::delete(&state.db, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

async fn own_org(state: &AppState, me: &AuthUser, id: i64) -> ApiResult<()> {
    orgs::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    if !me.can_access_org(state, id).await? {
        return Err(ApiError::NotFound);
    }
    Ok(())
}

/// Departments of an organisation.
#[utoipa::path(get, path = "/organization/{id}/department/", tag = "organization", params(("id" = i64, Path)),
    responses((status = 200, body = Vec<Department>), (status = 404)))]
pub async fn departments(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<Department>>> {
    own_org(&state, &me, id).await?;
    Ok(axum::Json(orgs::departments(&state.db, id).await?))
}

/// Add a department.
#[utoipa::path(post, path = "/organization/{id}/department/", tag = "organization", params(("id" = i64, Path)),
    request_body = DepartmentCreate, responses((status = 201, body = Department), (status = 400), (status = 403), (status = 404)))]
pub async fn create_department(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<DepartmentCreate>,
) -> ApiResult<(StatusCode, axum::Json<Department>)> {
    req.check_lengths()?;
    own_org(&state, &me, id).await?;
    me.require(Permission::ManageDepartments)?;
    let name = req.name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(ApiError::field(
            "name",
            "Enter a name of 1 to 100 characters.",
        ));
    }
    match orgs::insert_department(&state.db, id, name).await {
        Ok(d) => Ok((StatusCode::CREATED, axum::Json(d))),
        Err(e) if is_unique_violation(&e) => Err(ApiError::field(
            "name",
            "department with this name already exists.",
        )),
        Err(e) => Err(e.into()),
    }
}

// ----- linked organisations and switching ------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UserIdQuery {
    #[serde(default)]
    pub user_id: Option<i64>,
}

fn link_of(o: Organization) -> OrganizationLink {
    OrganizationLink {
        organization: o.id,
        organization_name_to_display: o.org_name_to_display,
    }
}

/// Organisations linked to a user (oneself by default; others for the super admin).
#[utoipa::path(get, path = "/account/linked_organizations/", tag = "organization", params(UserIdQuery),
    responses((status = 200, body = Vec<OrganizationLink>), (status = 403), (status = 404)))]
pub async fn linked_organizations(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UserIdQuery>,
) -> ApiResult<axum::Json<Vec<OrganizationLink>>> {
    let uid = q.user_id.unwrap_or(me.user.id);
    if uid != me.user.id {
        me.require(Permission::ManageLinkedOrganizations)?;
        users::by_id(&state.db, uid)
            .await?
            .ok_or(ApiError::NotFound)?;
    }
    Ok(axum::Json(
        orgs::of_user(&state.db, uid)
            .await?
            .into_iter()
            .map(link_of)
            .collect(),
    ))
}

/// Super admin: link a user to another organisation.
#[utoipa::path(post, path = "/account/linked_organizations", tag = "organization", request_body = LinkOrganization,
    responses((status = 201, body = Msg), (status = 400), (status = 403)))]
pub async fn link_organization(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<LinkOrganization>,
) -> ApiResult<(StatusCode, axum::Json<Msg>)> {
    me.require(Permission::ManageLinkedOrganizations)?;
    users::by_id(&state.db, req.user_id)
        .await?
        .ok_or_else(|| ApiError::field("user_id", "Unknown user."))?;
    orgs::by_id(&state.db, req.organization)
        .await?
        .ok_or_else(|| ApiError::field("organization", "Unknown organization."))?;
    users::link(&state.db, req.user_id, req.organization).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(Msg::new("Data created successfully!")),
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UnlinkQuery {
    pub user_id: i64,
    pub organization: i64,
}

/// Super admin: remove a user's link to an organisation.
#[utoipa::path(delete, path = "/account/delete_linked_organizations", tag = "organization", params(UnlinkQuery),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn unlink_organization(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UnlinkQuery>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageLinkedOrganizations)?;
    if !users::unlink(&state.db, q.user_id, q.organization).await? {
        return Err(ApiError::NotFound);
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Makes `org` the user's current organisation; the user must be linked to it.
async fn switch_to(state: &AppState, user: i64, org: i64, admin: bool) -> ApiResult<Organization> {
    let o = orgs::by_id(&state.db, org)
        .await?
        .ok_or_else(|| ApiError::field("organization", "Unknown organization."))?;
    if !admin && !users::is_member(&state.db, user, org).await? {
        return Err(ApiError::field(
            "organization",
            "You are not linked to this organization.",
        ));
    }
    users::set(&state.db, user, "organization_id", org).await?;
    Ok(o)
}

fn org_url(state: &AppState, o: &Organization) -> String {
    let public = state.settings.public_url();
    let (scheme, rest) = public.split_once("://").unwrap_or(("http", &public));
    format!("{scheme}://{}.{rest}", o.name)
        .trim_end_matches('/')
        .to_string()
}

/// Switch to another linked organisation; `local_storage` is kept for the portal on the
/// organisation's sub-domain to fetch once (`fetch_local_storage_data`).
#[utoipa::path(patch, path = "/account/switch_user_organization", tag = "organization",
    request_body = SwitchOrganization, responses((status = 200, body = SwitchResult), (status = 400)))]
pub async fn switch_user_organization(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<SwitchOrganization>,
) -> ApiResult<axum::Json<SwitchResult>> {
    req.check_lengths()?;
    // Checked before anything is written.
    let stored = match req.local_storage {
        Some(v) => {
            let s = serde_json::Value::Object(v).to_string();
            if s.len() > 64 * 1024 {
                return Err(ApiError::field(
                    "local_storage",
                    "local_storage is too large.",
                ));
            }
            Some(s)
        }
        None => None,
    };
    let o = switch_to(&state, me.user.id, req.organization, me.is_admin()).await?;
    users::set(&state.db, me.user.id, "local_storage", stored).await?;
    Ok(axum::Json(SwitchResult {
        organization: o.id,
        url: org_url(&state, &o),
        organization_name_to_display: o.org_name_to_display,
    }))
}

/// The stored portal session of the last switch, once (it is cleared when read).
#[utoipa::path(get, path = "/account/fetch_local_storage_data", tag = "organization",
    responses((status = 200, description = "the stored JSON, or null")))]
pub async fn fetch_local_storage_data(
    State(state): State<AppState>,
    me: AuthUser,
) -> ApiResult<axum::Json<serde_json::Value>> {
    let raw: Option<String> = sqlx::query_scalar("SELECT local_storage FROM users WHERE id = $1")
        .bind(me.user.id)
        .fetch_one(&state.db.pool)
        .await?;
    users::set(&state.db, me.user.id, "local_storage", None::<String>).await?;
    let v = raw
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(serde_json::Value::Null);
    Ok(axum::Json(v))
}

/// Switch one's current organisation.
#[utoipa::path(patch, path = "/organization/organization-switch", tag = "organization",
    request_body = OrganizationSwitch, responses((status = 200, body = Organization), (status = 400)))]
pub async fn organization_switch(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<OrganizationSwitch>,
) -> ApiResult<axum::Json<Organization>> {
    Ok(axum::Json(
        switch_to(&state, me.user.id, req.organization, me.is_admin()).await?,
    ))
}

/// Super admin: set user `id`'s current organisation (linking it when needed).
#[utoipa::path(patch, path = "/organization/organization-switch/{id}/", tag = "organization",
    params(("id" = i64, Path)), request_body = OrganizationSwitch,
    responses((status = 200, body = Organization), (status = 400), (status = 403), (status = 404)))]
pub async fn organization_switch_user(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<i64>,
    Json(req): Json<OrganizationSwitch>,
) -> ApiResult<axum::Json<Organization>> {
    me.require(Permission::ManageLinkedOrganizations)?;
    users::by_id(&state.db, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    orgs::by_id(&state.db, req.organization)
        .await?
        .ok_or_else(|| ApiError::field("organization", "Unknown organization."))?;
    users::link(&state.db, id, req.organization).await?;
    Ok(axum::Json(
        switch_to(&state, id, req.organization, true).await?,
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn slugs() {
        assert_eq!(super::slug("ACME Works GmbH"), "acme-works-gmbh");
        assert_eq!(super::slug("  Über--Fab  "), "ber-fab");
        assert_eq!(super::slug("!!!"), "");
    }
}
