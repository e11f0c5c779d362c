//! User lists, roles, approval of pending users and their organisation.

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::account::{
    ApproveUser, AssignUserOrg, LinkedUser, LinkedUserRef, RoleCreate, UserSummary, messages,
};
use gemba_shared::api::v1::{Msg, PAGE_SIZE, Page, page_offset};
use gemba_shared::validate::Bounded;
use gemba_shared::{Permission, Role};
use serde::Deserialize;

use crate::db::users::{RoleRecord, UserFilter};
use crate::db::{UserRow, orgs, users};
use crate::http::error::{ApiError, ApiResult, is_unique_violation};
use crate::http::extract::{AuthUser, Json, Query};
use crate::state::AppState;

pub(crate) fn summary(u: &UserRow) -> UserSummary {
    UserSummary {
        id: u.id,
        email: u.email.clone(),
        name: u.name.clone(),
        lastname: u.lastname.clone(),
        username: u.name.clone(),
        role: u.role.clone(),
        is_active: u.is_active,
        is_email_verified: u.is_email_verified,
        is_approved: u.is_approved,
        organization: u.organization_id,
        created_at: u.created_at,
    }
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UsersQuery {
    /// true: every user of every organisation (super admin only).
    #[serde(default)]
    pub is_admin: Option<bool>,
    /// false lists accounts awaiting approval or deactivated.
    #[serde(default)]
    pub is_active: Option<bool>,
    #[serde(default)]
    pub page: Option<i64>,
    #[serde(default)]
    #[serde(rename = "role__name")]
    pub role_name: Option<String>,
    /// true: only users whose current organisation is this one.
    #[serde(default)]
    pub is_org_switch: Option<bool>,
    #[serde(default)]
    pub search: Option<String>,
}

fn filter(me: &AuthUser, q: &UsersQuery) -> ApiResult<UserFilter> {
    let all = q.is_admin.unwrap_or(false);
    if all {
        me.require(Permission::ManageAllUsers)?;
    } else {
        me.require(Permission::ViewOrgUsers)?;
    }
    // An empty value (a cleared filter in the portal) filters nothing.
    let role = q
        .role_name
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty());
    if let Some(r) = role
        && Role::parse(r).is_none()
    {
        return Err(ApiError::field(
            "role__name",
            format!("Unknown role {r:?}."),
        ));
    }
    Ok(UserFilter {
        org: if all { None } else { Some(me.org()?) },
        current_only: q.is_org_switch.unwrap_or(false),
        is_active: q.is_active,
        role: role.map(str::to_string),
        search: q.search.clone(),
    })
}

/// Users, paged (10 a page) with filters and a search over name and e-mail.
#[utoipa::path(get, path = "/account/users_list/v2", tag = "account", params(UsersQuery),
    responses((status = 200, body = Page<UserSummary>), (status = 403)))]
pub async fn users_list_v2(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UsersQuery>,
) -> ApiResult<axum::Json<Page<UserSummary>>> {
    let f = filter(&me, &q)?;
    let offset = page_offset(q.page).ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    let (rows, count) = users::list(&state.db, &f, offset, Some(PAGE_SIZE)).await?;
    Ok(axum::Json(Page {
        results: rows.iter().map(summary).collect(),
        count,
    }))
}

/// Users with the same filters, unpaged.
#[utoipa::path(get, path = "/account/users_list", tag = "account", params(UsersQuery),
    responses((status = 200, body = Vec<UserSummary>), (status = 403)))]
pub async fn users_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UsersQuery>,
) -> ApiResult<axum::Json<Vec<UserSummary>>> {
    let f = filter(&me, &q)?;
    let (rows, _) = users::list(&state.db, &f, 0, None).await?;
    Ok(axum::Json(rows.iter().map(summary).collect()))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct OrgQuery {
    pub organization: i64,
}

/// Users linked to an organisation.
#[utoipa::path(get, path = "/account/linked_users_list/", tag = "account", params(OrgQuery),
    responses((status = 200, body = Vec<LinkedUser>), (status = 403), (status = 404)))]
pub async fn linked_users_list(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<OrgQuery>,
) -> ApiResult<axum::Json<Vec<LinkedUser>>> {
    me.require(Permission::ViewOrgUsers)?;
    if !me.can_access_org(&state, q.organization).await? {
        return Err(ApiError::Forbidden);
    }
    orgs::by_id(&state.db, q.organization)
        .await?
        .ok_or(ApiError::NotFound)?;
    let f = UserFilter {
        org: Some(q.organization),
        ..Default::default()
    };
    let (rows, _) = users::list(&state.db, &f, 0, None).await?;
    Ok(axum::Json(
        rows.into_iter()
            .map(|u| LinkedUser {
                user: LinkedUserRef {
                    id: u.id,
                    username: u.name,
                    lastname: u.lastname,
                },
            })
            .collect(),
    ))
}

/// The roles.
#[utoipa::path(get, path = "/account/roles/", tag = "account",
    responses((status = 200, body = Vec<RoleRecord>)))]
pub async fn roles(
    State(state): State<AppState>,
    _me: AuthUser,
) -> ApiResult<axum::Json<Vec<RoleRecord>>> {
    Ok(axum::Json(users::roles(&state.db).await?))
}

/// Super admin: add a role. Only the spec's nine role names exist; this restores one
/// that was removed.
#[utoipa::path(post, path = "/account/roles/", tag = "account", request_body = RoleCreate,
    responses((status = 201, body = RoleRecord), (status = 400), (status = 403)))]
pub async fn create_role(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<RoleCreate>,
) -> ApiResult<(StatusCode, axum::Json<RoleRecord>)> {
    req.check_lengths()?;
    me.require(Permission::ManageRoles)?;
    let role = Role::parse(req.name.trim())
        .ok_or_else(|| ApiError::field("name", format!("Unknown role {:?}.", req.name)))?;
    match users::insert_role(&state.db, role.as_str()).await {
        Ok(r) => Ok((StatusCode::CREATED, axum::Json(r))),
        Err(e) if is_unique_violation(&e) => Err(ApiError::field(
            "name",
            "role with this name already exists.",
        )),
        Err(e) => Err(e.into()),
    }
}

/// Super admin: approve a pending user with a role (step one of two).
#[utoipa::path(put, path = "/account/approve_user", tag = "account", request_body = ApproveUser,
    responses((status = 200, body = Msg), (status = 400), (status = 403)))]
pub async fn approve_user(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ApproveUser>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    me.require(Permission::ApproveUsers)?;
    let user = users::by_email(&state.db, &req.email)
        .await?
        .ok_or_else(|| ApiError::field("email", "No user with this e-mail."))?;
    // Approval is the pending user's first step; it does not change an account's role
    // later (nor mail "approved" again).
    if user.is_approved {
        return Err(ApiError::field("email", "This user is already approved."));
    }
    let role = users::role_by_id(&state.db, req.role_id)
        .await?
        .and_then(|r| Role::parse(&r.name))
        .ok_or_else(|| ApiError::field("roleId", "Unknown role."))?;
    users::approve(&state.db, user.id, role).await?;
    let body = format!(
        "Hello {},\n\nyour gemba account has been approved as {}. You can sign in at {}/login once \
         an organisation is assigned to you.\n",
        user.name,
        role.label(),
        state.settings.public_url()
    );
    state
        .mailer
        .send(
            std::slice::from_ref(&user.email),
            "Your gemba account is approved",
            &body,
        )
        .await?;
    Ok(axum::Json(Msg::new(messages::USER_APPROVED)))
}

/// Super admin: assign an organisation to a user (step two of approval).
#[utoipa::path(put, path = "/account/assign_user_org", tag = "account", request_body = AssignUserOrg,
    responses((status = 200, body = Msg), (status = 400), (status = 403)))]
pub async fn assign_user_org(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<AssignUserOrg>,
) -> ApiResult<axum::Json<Msg>> {
    req.check_lengths()?;
    me.require(Permission::ApproveUsers)?;
    let user = users::by_email(&state.db, &req.email)
        .await?
        .ok_or_else(|| ApiError::field("email", "No user with this e-mail."))?;
    orgs::by_id(&state.db, req.organization)
        .await?
        .ok_or_else(|| ApiError::field("organization", "Unknown organization."))?;
    users::link(&state.db, user.id, req.organization).await?;
    Ok(axum::Json(Msg::new("Organization assigned successfully!")))
}
