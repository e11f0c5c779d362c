//! People's changes to cycles (spec section 7 "Telemetry"): `PATCH telemetry/cycle/{id}`
//! marks a cycle good or bad with a reason, `DELETE telemetry/cycle/{id}/` deletes it,
//! `POST telemetry/archive_cycle/` archives cycles (out of every list and figure, kept),
//! `GET telemetry/archive_cycle/` lists the archived ones and
//! `DELETE telemetry/archived_cycle/{id}` restores one; `GET
//! telemetry/trace/trace_single_cycle_details/` answers a cycle with its history.
//! Changing needs `ManageCycles`, reading `ViewCycles`. An organisation's users reach
//! its cycles only (another's are unknown); the super admin reaches every one's
//! (the admin's Archived Cycles). The figures follow each change at once
//! ([`crate::db::cycle_changes`]).

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::Permission;
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::telemetry::{
    ARCHIVE_MAX, ArchiveCycles, Archived, ArchivedCycle, CycleDetails, CycleVerdict, REASON_MAX,
};
use gemba_shared::validate::Bounded;
use serde::Deserialize;

use crate::db::cycle_changes::{self, Outcome};
use crate::db::{devices, tasks};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Json, Path, Query};
use crate::http::telemetry::paging;
use crate::media::urls::Viewer;
use crate::state::AppState;

/// The organisation whose cycles `me` reaches: theirs, or every one for the super admin.
fn scope(me: &AuthUser) -> ApiResult<Option<i64>> {
    if me.is_admin() {
        Ok(None)
    } else {
        me.org().map(Some)
    }
}

/// A person's reason: trimmed, 1 to [`REASON_MAX`] characters.
fn reason_of(r: Option<&str>) -> ApiResult<String> {
    let r = r.map(str::trim).unwrap_or_default();
    if r.is_empty() || r.chars().count() > REASON_MAX {
        return Err(ApiError::field(
            "reason",
            format!("Say why, in 1 to {REASON_MAX} characters."),
        ));
    }
    Ok(r.to_string())
}

/// A cycle id as it may be echoed in a message.
fn shown(id: &str) -> String {
    if id.chars().count() <= 64 {
        id.to_string()
    } else {
        format!("{}…", id.chars().take(64).collect::<String>())
    }
}

/// Turns what became of a change into the answer, telling the device stream of the
/// cycles that changed (the dashboard and Analytics ask again). `field`: the body's
/// field naming the cycles, `None` for the one in the path (404 when unknown).
fn done(state: &AppState, o: Outcome, field: Option<&str>) -> ApiResult<()> {
    let refuse = |message: String| match field {
        Some(f) => ApiError::field(f, message),
        None => ApiError::non_field(message),
    };
    match o {
        Outcome::Done(stations) => {
            for (org, device) in stations {
                state.events.cycles_stored(&state.mqtt, org, device);
            }
            Ok(())
        }
        Outcome::Unknown(_) | Outcome::NotArchived if field.is_none() => Err(ApiError::NotFound),
        Outcome::Unknown(id) => Err(refuse(format!(
            "Cycle {} is not one of the organisation's.",
            shown(&id)
        ))),
        Outcome::NotArchived => Err(refuse("The cycle is not archived.".into())),
        Outcome::Archived(id) => Err(refuse(format!(
            "Cycle {} is archived: restore it first (Archived Cycles).",
            shown(&id)
        ))),
        Outcome::Already(good) => Err(ApiError::field(
            "good",
            format!(
                "The cycle is {} already.",
                if good { "good" } else { "bad" }
            ),
        )),
    }
}

async fn details_of(state: &AppState, me: &AuthUser, id: &str) -> ApiResult<CycleDetails> {
    let org = scope(me)?;
    let mut d = cycle_changes::details(&state.db, org, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    if let Some(t) = tasks::get(&state.db, me.user.id, org, d.cycle.task).await? {
        let s = t.settings();
        d.steps = s.operation().step_names();
        d.task_name = Some(s.task_name);
    }
    if let Some(device) = d.cycle.device {
        d.device_name = devices::get(&state.db, me.user.id, org, device)
            .await?
            .map(|r| r.display_name);
    }
    d.clip = crate::http::clips::of_cycle(state, Viewer::Session(&me.session), org, id).await?;
    Ok(d)
}

/// Mark cycle `id` good or bad, with why; kept in its history. The figures count it as
/// marked from now on.
#[utoipa::path(patch, path = "/telemetry/cycle/{id}", tag = "telemetry",
    params(("id" = String, Path)), request_body = CycleVerdict,
    responses((status = 200, body = CycleDetails), (status = 400), (status = 403), (status = 404)))]
pub async fn patch_cycle(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
    Json(req): Json<CycleVerdict>,
) -> ApiResult<axum::Json<CycleDetails>> {
    req.check_lengths()?;
    me.require(Permission::ManageCycles)?;
    let org = scope(&me)?;
    let good = req
        .good
        .ok_or_else(|| ApiError::field("good", "Choose good (true) or bad (false)."))?;
    let reason = reason_of(req.reason.as_deref())?;
    let o = cycle_changes::set_verdict(&state.db, org, me.user.id, &id, good, &reason).await?;
    done(&state, o, None)?;
    Ok(axum::Json(details_of(&state, &me, &id).await?))
}

/// Delete cycle `id`, archived or not, with its history, for good.
#[utoipa::path(delete, path = "/telemetry/cycle/{id}/", tag = "telemetry",
    params(("id" = String, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn delete_cycle(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageCycles)?;
    let org = scope(&me)?;
    let o = cycle_changes::delete(&state.db, org, &id).await?;
    done(&state, o, None)?;
    crate::http::clips::forget(&state, org, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DetailsParams {
    /// The cycle's id.
    pub cycle_id: Option<String>,
}

/// A cycle, archived or not, with the changes people made to it.
#[utoipa::path(get, path = "/telemetry/trace/trace_single_cycle_details/", tag = "telemetry",
    params(DetailsParams),
    responses((status = 200, body = CycleDetails), (status = 400), (status = 403), (status = 404)))]
pub async fn cycle_details(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<DetailsParams>,
) -> ApiResult<axum::Json<CycleDetails>> {
    me.require(Permission::ViewCycles)?;
    let id = p
        .cycle_id
        .filter(|id| !id.trim().is_empty())
        .ok_or_else(|| ApiError::field("cycle_id", "Choose a cycle."))?;
    Ok(axum::Json(details_of(&state, &me, &id).await?))
}

/// Archive cycles: they leave every list and figure, kept with who archived them and
/// why, until restored. All of them or none.
#[utoipa::path(post, path = "/telemetry/archive_cycle/", tag = "telemetry",
    request_body = ArchiveCycles,
    responses((status = 200, body = Archived), (status = 400), (status = 403)))]
pub async fn archive(
    State(state): State<AppState>,
    me: AuthUser,
    Json(req): Json<ArchiveCycles>,
) -> ApiResult<axum::Json<Archived>> {
    req.check_lengths()?;
    me.require(Permission::ManageCycles)?;
    let org = scope(&me)?;
    let mut ids: Vec<String> = Vec::new();
    for id in req.ids.unwrap_or_default() {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.is_empty() || ids.len() > ARCHIVE_MAX {
        return Err(ApiError::field(
            "ids",
            format!("Choose 1 to {ARCHIVE_MAX} cycles."),
        ));
    }
    let reason = reason_of(req.reason.as_deref())?;
    let o = cycle_changes::archive(&state.db, org, me.user.id, &ids, &reason).await?;
    done(&state, o, Some("ids"))?;
    Ok(axum::Json(Archived {
        archived: ids.len() as i64,
    }))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ArchivedParams {
    /// Super admin: one organisation's (default: every one's). Others see their own.
    pub organization: Option<i64>,
    /// 1-based page.
    pub page: Option<i64>,
    /// Cycles a page, 1 to 100 (default 10).
    pub page_size: Option<i64>,
}

/// The archived cycles, the most recently archived first, a page at a time.
#[utoipa::path(get, path = "/telemetry/archive_cycle/", tag = "telemetry",
    params(ArchivedParams),
    responses((status = 200, body = Page<ArchivedCycle>), (status = 400), (status = 403)))]
pub async fn archived(
    State(state): State<AppState>,
    me: AuthUser,
    Query(p): Query<ArchivedParams>,
) -> ApiResult<axum::Json<Page<ArchivedCycle>>> {
    me.require(Permission::ManageCycles)?;
    let org = match scope(&me)? {
        None => p.organization,
        Some(mine) if p.organization.is_none_or(|o| o == mine) => Some(mine),
        Some(_) => {
            return Err(ApiError::field(
                "organization",
                "Choose your own organization.",
            ));
        }
    };
    let (offset, limit) = paging(p.page, p.page_size)?;
    let (results, count) = cycle_changes::archived(&state.db, org, offset, limit).await?;
    Ok(axum::Json(Page { results, count }))
}

/// Restore archived cycle `id`: back in the lists and figures.
#[utoipa::path(delete, path = "/telemetry/archived_cycle/{id}", tag = "telemetry",
    params(("id" = String, Path)),
    responses((status = 204), (status = 403), (status = 404)))]
pub async fn restore(
    State(state): State<AppState>,
    me: AuthUser,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    me.require(Permission::ManageCycles)?;
    let o = cycle_changes::restore(&state.db, scope(&me)?, me.user.id, &id).await?;
    done(&state, o, None)?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_trimmed_and_bounded() {
        assert_eq!(reason_of(Some("  miscounted  ")).unwrap(), "miscounted");
        for bad in [None, Some(""), Some("   ")] {
            assert!(reason_of(bad).is_err(), "{bad:?}");
        }
        let long = "é".repeat(REASON_MAX);
        assert_eq!(reason_of(Some(&long)).unwrap(), long);
        assert!(reason_of(Some(&format!("{long}x"))).is_err());
    }

    #[test]
    fn long_ids_are_cut_when_shown() {
        assert_eq!(shown("abc"), "abc");
        assert_eq!(shown(&"x".repeat(100)).chars().count(), 65);
    }
}
