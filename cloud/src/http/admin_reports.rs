//! The super admin's reports, our own calls for three screens the spec names without
//! calls (docs/decisions.md, "Organisations, roles and feature control"):
//! - `GET admin/user-report/` (and `…/csv/`): each user's sessions, sign-ins, time in
//!   the portal, last activity and browsers over a period, filtered, sorted and paged;
//! - `GET admin/labelers/`: the users with the role `labeler`, the operations requested
//!   of them and their progress (requests are made and withdrawn through
//!   `organization/task/{id}/labelers/` with the task's organisation in `Organization`);
//! - `GET admin/annotations/`: labelling progress per operation across organisations.
//!
//! All need `Permission::AdminArea` (the super admin). The file passes 500 lines only with
//! the unit tests of its pure parts (period, paging, CSV), kept beside them.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use chrono::{DateTime, NaiveDate};
use gemba_shared::Permission;
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::admin_report::{
    AdminLabeler, AnnotationProgress, LabelerAssignment, UserReport, UserReportRow,
};
use gemba_shared::roles::Role;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::admin_reports::{self as db, ReportFilter, ReportKey};
use crate::db::{now_ms, orgs};
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{AuthUser, Query};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(user_report))
        .routes(routes!(user_report_csv))
        .routes(routes!(labelers))
        .routes(routes!(annotations))
}

/// The default period of the user report: the last 30 days.
pub const DEFAULT_DAYS: i64 = 30;
const DAY_MS: i64 = 86_400_000;
const MAX_PAGE_SIZE: i64 = 100;

// ----- pure helpers ------------------------------------------------------------------

/// A date (`YYYY-MM-DD`, UTC) or an RFC 3339 date-time as unix ms; `end` makes a bare
/// date mean the end of its day (the next midnight). `Err` carries the message.
fn parse_when(s: &str, end: bool) -> Result<i64, &'static str> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.timestamp_millis());
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        let day = if end { d.succ_opt().unwrap_or(d) } else { d };
        let t = day.and_hms_opt(0, 0, 0).expect("midnight exists");
        return Ok(t.and_utc().timestamp_millis());
    }
    Err("Enter a date (YYYY-MM-DD) or a date and time (RFC 3339, e.g. 2026-11-24T08:00:00Z).")
}

/// The period `[from, to)` from the query: `to` defaults to `now`, `from` to
/// [`DEFAULT_DAYS`] before `to`.
fn period(from: Option<&str>, to: Option<&str>, now: i64) -> ApiResult<(i64, i64)> {
    fn given(s: Option<&str>) -> Option<&str> {
        s.map(str::trim).filter(|s| !s.is_empty())
    }
    let to = match given(to) {
        Some(s) => parse_when(s, true).map_err(|m| ApiError::field("to", m))?,
        None => now,
    };
    let from = match given(from) {
        Some(s) => parse_when(s, false).map_err(|m| ApiError::field("from", m))?,
        None => to.saturating_sub(DEFAULT_DAYS * DAY_MS),
    };
    if from >= to {
        return Err(ApiError::field(
            "to",
            "The end of the period must be after its start.",
        ));
    }
    Ok((from, to))
}

/// `(offset, limit)` of a 1-based page of `page_size` rows (1–100, default 10).
fn paging(page: Option<i64>, page_size: Option<i64>) -> ApiResult<(i64, i64)> {
    let limit = page_size.unwrap_or(gemba_shared::api::v1::PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&limit) {
        return Err(ApiError::field(
            "page_size",
            format!("Choose a page size from 1 to {MAX_PAGE_SIZE}."),
        ));
    }
    let offset = match page.unwrap_or(1) {
        n if n >= 1 => (n - 1).checked_mul(limit),
        _ => None,
    }
    .ok_or_else(|| ApiError::field("page", "Invalid page."))?;
    Ok((offset, limit))
}

/// A search text, or none when blank.
fn search(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// One CSV field: quoted when it holds a comma, quote or line break; a text a
/// spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a `'`.
fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// Milliseconds as `h:mm:ss`.
fn hms(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Unix ms as an RFC 3339 UTC date-time to the second.
fn utc(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

const CSV_HEADER: [&str; 10] = [
    "Name",
    "E-mail",
    "Organizations",
    "Role",
    "Active",
    "Sessions",
    "Sign-ins",
    "Time in portal (h:mm:ss)",
    "Last active (UTC)",
    "Browsers",
];

/// The report's rows as CSV (CRLF line ends, RFC 4180).
fn to_csv(rows: &[UserReportRow]) -> String {
    let mut out = CSV_HEADER.join(",");
    out.push_str("\r\n");
    for r in rows {
        let name = format!("{} {}", r.name, r.lastname);
        let fields = [
            name.trim().to_string(),
            r.email.clone(),
            r.organizations.join("; "),
            r.role
                .as_deref()
                .and_then(Role::parse)
                .map(|r| r.label().to_string())
                .unwrap_or_default(),
            if r.is_active { "yes" } else { "no" }.to_string(),
            r.sessions.to_string(),
            r.sign_ins.to_string(),
            hms(r.time_ms),
            r.last_active.map(utc).unwrap_or_default(),
            r.browsers.join("; "),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out
}

// ----- user report -------------------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UserReportQuery {
    /// Start of the period: a date (`YYYY-MM-DD`, UTC) or an RFC 3339 date-time
    /// (default: 30 days before `to`).
    #[serde(default)]
    pub from: Option<String>,
    /// End of the period, exclusive: a date (the whole day counts) or a date-time
    /// (default: now).
    #[serde(default)]
    pub to: Option<String>,
    /// Only users linked to this organisation (an unknown one: 404).
    #[serde(default)]
    pub organization: Option<i64>,
    /// Only users with this role (`org_admin`, `labeler`, …).
    #[serde(default)]
    pub role: Option<String>,
    /// Only users whose name or e-mail contains this.
    #[serde(default)]
    pub search: Option<String>,
    /// `name`, `email`, `role`, `sessions`, `sign_ins`, `time`, `last_active`; `-`
    /// first for descending (default `-last_active`).
    #[serde(default)]
    pub ordering: Option<String>,
    #[serde(default)]
    pub page: Option<i64>,
    /// Rows a page, 1 to 100 (default 10).
    #[serde(default)]
    pub page_size: Option<i64>,
}

/// The filter, sort order and period of a user-report query, checked.
async fn report_filter(
    state: &AppState,
    me: &AuthUser,
    q: &UserReportQuery,
) -> ApiResult<(ReportFilter, (ReportKey, bool))> {
    me.require(Permission::AdminArea)?;
    let (from, to) = period(q.from.as_deref(), q.to.as_deref(), now_ms())?;
    let role = match q.role.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(r) => Some(
            Role::parse(r)
                .ok_or_else(|| ApiError::field("role", format!("\"{r}\" is not a valid choice.")))?
                .as_str()
                .to_string(),
        ),
        None => None,
    };
    let order = match q
        .ordering
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(o) => ReportKey::parse(o).ok_or_else(|| {
            let keys: Vec<&str> = ReportKey::ALL.iter().map(|(n, _)| *n).collect();
            ApiError::field(
                "ordering",
                format!(
                    "Sort by one of: {} (\"-\" first for descending).",
                    keys.join(", ")
                ),
            )
        })?,
        None => (ReportKey::LastActive, true),
    };
    if let Some(o) = q.organization
        && orgs::by_id(&state.db, o).await?.is_none()
    {
        return Err(ApiError::NotFound);
    }
    Ok((
        ReportFilter {
            from,
            to,
            org: q.organization,
            role,
            search: search(&q.search).map(str::to_string),
        },
        order,
    ))
}

/// The report's rows with their organisations and browsers.
async fn report_rows(
    state: &AppState,
    f: &ReportFilter,
    rows: Vec<db::ReportRow>,
) -> ApiResult<Vec<UserReportRow>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut orgs = db::organizations_of(&state.db, &ids).await?;
    let mut browsers = db::browsers_of(&state.db, &ids, f.from, f.to).await?;
    Ok(rows
        .into_iter()
        .map(|r| UserReportRow {
            organizations: orgs.remove(&r.id).unwrap_or_default(),
            browsers: browsers.remove(&r.id).unwrap_or_default(),
            id: r.id,
            name: r.name,
            lastname: r.lastname,
            email: r.email,
            role: r.role,
            is_active: r.is_active,
            sessions: r.sessions,
            sign_ins: r.sign_ins,
            time_ms: r.time_ms,
            last_active: r.last_active,
        })
        .collect())
}

/// Super admin: who uses the portal. Every user matching the filters, with their
/// activity sessions overlapping the period (time counted inside it), completed
/// sign-ins in it, the end of their latest session and the period's browsers.
#[utoipa::path(get, path = "/admin/user-report/", tag = "admin", params(UserReportQuery),
    responses((status = 200, body = UserReport), (status = 400), (status = 403), (status = 404)))]
pub async fn user_report(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UserReportQuery>,
) -> ApiResult<axum::Json<UserReport>> {
    let (f, order) = report_filter(&state, &me, &q).await?;
    let (offset, limit) = paging(q.page, q.page_size)?;
    let (rows, count) = db::user_report(&state.db, &f, order, offset, Some(limit)).await?;
    Ok(axum::Json(UserReport {
        results: report_rows(&state, &f, rows).await?,
        count,
        from: f.from,
        to: f.to,
    }))
}

/// Super admin: the user report's rows (every page, same filters and order) as a CSV
/// file.
#[utoipa::path(get, path = "/admin/user-report/csv/", tag = "admin", params(UserReportQuery),
    responses((status = 200, content_type = "text/csv", body = String), (status = 400),
        (status = 403), (status = 404)))]
pub async fn user_report_csv(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<UserReportQuery>,
) -> ApiResult<impl IntoResponse> {
    let (f, order) = report_filter(&state, &me, &q).await?;
    let (rows, _) = db::user_report(&state.db, &f, order, 0, None).await?;
    let rows = report_rows(&state, &f, rows).await?;
    let day = |ms: i64| utc(ms).get(..10).unwrap_or_default().to_string();
    let name = format!("user-report-{}-{}.csv", day(f.from), day(f.to - 1));
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        to_csv(&rows),
    ))
}

// ----- labelers ----------------------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct LabelersQuery {
    /// Only labelers whose name or e-mail contains this.
    #[serde(default)]
    pub search: Option<String>,
    #[serde(default)]
    pub page: Option<i64>,
    /// Rows a page, 1 to 100 (default 10).
    #[serde(default)]
    pub page_size: Option<i64>,
}

/// Super admin: every user with the role `labeler` (by name), the operations requested
/// of them (newest first) and their progress.
#[utoipa::path(get, path = "/admin/labelers/", tag = "admin", params(LabelersQuery),
    responses((status = 200, body = Page<AdminLabeler>), (status = 400), (status = 403)))]
pub async fn labelers(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<LabelersQuery>,
) -> ApiResult<axum::Json<Page<AdminLabeler>>> {
    me.require(Permission::AdminArea)?;
    let (offset, limit) = paging(q.page, q.page_size)?;
    let (rows, count) = db::labelers(&state.db, search(&q.search), offset, limit).await?;
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut assignments = db::assignments_of(&state.db, &ids).await?;
    let results = rows
        .into_iter()
        .map(|r| AdminLabeler {
            assignments: assignments
                .extract_if(.., |a| a.labeler_id == r.id)
                .map(|a| LabelerAssignment {
                    task: a.task_id,
                    task_name: a.task_name,
                    organization: a.organization_id,
                    org_name_to_display: a.org_name_to_display,
                    requested_at: a.created_at,
                    ready_videos: a.ready_videos,
                    labelled_videos: a.labelled_videos,
                    labelled_by_labeler: a.labelled_by_labeler,
                })
                .collect(),
            id: r.id,
            name: r.name,
            lastname: r.lastname,
            email: r.email,
            is_active: r.is_active,
            last_label_at: r.last_label_at,
        })
        .collect();
    Ok(axum::Json(Page { results, count }))
}

// ----- annotations -------------------------------------------------------------------

#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct AnnotationsQuery {
    /// One organisation's operations (an unknown one: 404).
    #[serde(default)]
    pub organization: Option<i64>,
    /// Only operations whose name contains this.
    #[serde(default)]
    pub search: Option<String>,
    #[serde(default)]
    pub page: Option<i64>,
    /// Rows a page, 1 to 100 (default 10).
    #[serde(default)]
    pub page_size: Option<i64>,
}

/// Super admin: labelling progress of every organisation's operations (or
/// `organization`'s), the latest label change first.
#[utoipa::path(get, path = "/admin/annotations/", tag = "admin", params(AnnotationsQuery),
    responses((status = 200, body = Page<AnnotationProgress>), (status = 400), (status = 403),
        (status = 404)))]
pub async fn annotations(
    State(state): State<AppState>,
    me: AuthUser,
    Query(q): Query<AnnotationsQuery>,
) -> ApiResult<axum::Json<Page<AnnotationProgress>>> {
    me.require(Permission::AdminArea)?;
    let (offset, limit) = paging(q.page, q.page_size)?;
    if let Some(o) = q.organization
        && orgs::by_id(&state.db, o).await?.is_none()
    {
        return Err(ApiError::NotFound);
    }
    let (rows, count) =
        db::annotations(&state.db, q.organization, search(&q.search), offset, limit).await?;
    let results = rows
        .into_iter()
        .map(|r| AnnotationProgress {
            task: r.task_id,
            task_name: r.task_name,
            organization: r.organization_id,
            org_name_to_display: r.org_name_to_display,
            videos: r.videos,
            labelled_videos: r.labelled_videos,
            reviewed_videos: r.reviewed_videos,
            to_review: r.to_review,
            segments: r.segments,
            labelers: r.labelers,
            last_change: r.last_change,
        })
        .collect();
    Ok(axum::Json(Page { results, count }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_defaults_to_the_last_30_days() {
        let now = 1_800_000_000_000;
        assert_eq!(period(None, None, now).unwrap(), (now - 30 * DAY_MS, now));
        assert_eq!(
            period(Some(" "), Some(""), now).unwrap(),
            (now - 30 * DAY_MS, now)
        );
    }

    #[test]
    fn a_bare_end_date_counts_its_whole_day() {
        let (from, to) = period(Some("2026-11-01"), Some("2026-11-01"), 0).unwrap();
        assert_eq!(to - from, DAY_MS);
        assert_eq!(utc(from), "2026-11-01T00:00:00Z");
        let (_, to) = period(None, Some("2026-11-02T08:00:00+01:00"), 0).unwrap();
        assert_eq!(utc(to), "2026-11-02T07:00:00Z");
    }

    #[test]
    fn a_period_must_run_forwards_and_parse() {
        assert!(period(Some("2026-11-02"), Some("2026-11-01"), 0).is_err());
        assert!(period(Some("yesterday"), None, 0).is_err());
        assert!(period(None, Some("2026-13-01"), 0).is_err());
    }

    #[test]
    fn sort_keys_parse_with_their_direction() {
        assert_eq!(ReportKey::parse("time"), Some((ReportKey::Time, false)));
        assert_eq!(
            ReportKey::parse("-last_active"),
            Some((ReportKey::LastActive, true))
        );
        assert_eq!(ReportKey::parse("--time"), None);
        assert_eq!(ReportKey::parse("password_hash"), None);
    }

    #[test]
    fn csv_fields_are_quoted_and_never_formulas() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a, b"), "\"a, b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_field("-1,2"), "\"'-1,2\"");
    }

    #[test]
    fn durations_read_as_hours_minutes_seconds() {
        assert_eq!(hms(0), "0:00:00");
        assert_eq!(hms(3_725_999), "1:02:05");
        assert_eq!(hms(-5), "0:00:00");
        assert_eq!(hms(30 * 3_600_000), "30:00:00");
    }

    #[test]
    fn the_csv_has_a_header_and_one_line_a_user() {
        let row = UserReportRow {
            id: 1,
            name: "Ada".into(),
            lastname: "Lovelace".into(),
            email: "ada@example.test".into(),
            role: Some("org_admin".into()),
            is_active: true,
            organizations: vec!["ACME".into(), "Globex, Inc".into()],
            sessions: 3,
            sign_ins: 2,
            time_ms: 90_000,
            last_active: Some(0),
            browsers: vec!["Chrome 131".into(), "Firefox 133".into()],
        };
        let csv = to_csv(&[row]);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert!(lines[0].starts_with("Name,E-mail,Organizations,Role,"));
        assert_eq!(
            lines[1],
            format!(
                "Ada Lovelace,ada@example.test,\"ACME; Globex, Inc\",{},yes,3,2,0:01:30,\
                 1970-01-01T00:00:00Z,Chrome 131; Firefox 133",
                Role::OrgAdmin.label()
            )
        );
        assert_eq!(lines[2], "");
    }
}
