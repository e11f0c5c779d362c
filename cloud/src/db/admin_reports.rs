//! The super admin's reports: who uses the portal (activity sessions and sign-ins over a
//! period), the labelers and the operations requested of them, and labelling progress
//! per operation. Read-only SQL over tables other modules write.

use std::collections::BTreeMap;

use sqlx::{AssertSqlSafe, FromRow};

use super::videos::TRAINABLE;
use super::{Backend, Db, id_list};

/// Which users the user report covers, and over which period (`[from, to)`, unix ms).
#[derive(Debug, Clone)]
pub struct ReportFilter {
    pub from: i64,
    pub to: i64,
    /// Only users linked to this organisation.
    pub org: Option<i64>,
    /// Only users with this role (its name).
    pub role: Option<String>,
    /// Only users whose name or e-mail contains this.
    pub search: Option<String>,
}

/// The user report's sort keys (`ordering=`, `-` first for descending).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKey {
    Name,
    Email,
    Role,
    Sessions,
    SignIns,
    Time,
    LastActive,
}

impl ReportKey {
    pub const ALL: [(&'static str, ReportKey); 7] = [
        ("name", ReportKey::Name),
        ("email", ReportKey::Email),
        ("role", ReportKey::Role),
        ("sessions", ReportKey::Sessions),
        ("sign_ins", ReportKey::SignIns),
        ("time", ReportKey::Time),
        ("last_active", ReportKey::LastActive),
    ];

    /// `name` or `-name` etc.; `None` for anything else.
    pub fn parse(s: &str) -> Option<(ReportKey, bool)> {
        let (desc, key) = match s.strip_prefix('-') {
            Some(k) => (true, k),
            None => (false, s),
        };
        ReportKey::ALL
            .iter()
            .find(|(n, _)| *n == key)
            .map(|(_, k)| (*k, desc))
    }

    fn sql(self) -> &'static str {
        match self {
            ReportKey::Name => "LOWER(t.name) {d}, LOWER(t.lastname) {d}",
            ReportKey::Email => "LOWER(t.email) {d}",
            ReportKey::Role => "COALESCE(t.role, '') {d}",
            ReportKey::Sessions => "t.sessions {d}",
            ReportKey::SignIns => "t.sign_ins {d}",
            ReportKey::Time => "t.time_ms {d}",
            // Never active sorts as the oldest.
            ReportKey::LastActive => "COALESCE(t.last_active, -1) {d}",
        }
    }
}

#[derive(FromRow, Debug, Clone)]
pub struct ReportRow {
    pub id: i64,
    pub name: String,
    pub lastname: String,
    pub email: String,
    pub role: Option<String>,
    #[sqlx(try_from = "super::Flag")]
    pub is_active: bool,
    pub sessions: i64,
    pub sign_ins: i64,
    pub time_ms: i64,
    pub last_active: Option<i64>,
    pub total: i64,
}

/// A page of the user report (`limit` None: every row) and the number of rows in all.
pub async fn user_report(
    db: &Db,
    f: &ReportFilter,
    order: (ReportKey, bool),
    offset: i64,
    limit: Option<i64>,
) -> sqlx::Result<(Vec<ReportRow>, i64)> {
    // Sessions that overlap the period, each counted for its part inside it.
    let overlap = "a.user_id = u.id AND a.created_at < $2 AND a.end_time >= $1";
    let search_cond = if f.search.is_some() {
        "(LOWER(u.email) LIKE $5 ESCAPE '\\' OR LOWER(u.name) LIKE $5 ESCAPE '\\' \
         OR LOWER(u.lastname) LIKE $5 ESCAPE '\\')"
    } else {
        "$5 IS NULL"
    };
    let (key, desc) = order;
    let order_sql = key.sql().replace("{d}", if desc { "DESC" } else { "ASC" });
    // Numbers the server computed are written into the statement (see `users::list`).
    let limit = limit.unwrap_or(i64::MAX);
    let q = format!(
        "SELECT t.*, COUNT(*) OVER () AS total FROM (\
         SELECT u.id, u.name, u.lastname, u.email, r.name AS role, u.is_active, \
         (SELECT COUNT(*) FROM activity_sessions a WHERE {overlap}) AS sessions, \
         (SELECT COUNT(*) FROM auth_sessions s WHERE s.user_id = u.id AND s.otp_verified = 1 \
          AND s.created_at >= $1 AND s.created_at < $2) AS sign_ins, \
         (SELECT CAST(COALESCE(SUM(\
            (CASE WHEN a.end_time > $2 THEN $2 ELSE a.end_time END) - \
            (CASE WHEN a.created_at < $1 THEN $1 ELSE a.created_at END)), 0) AS BIGINT) \
          FROM activity_sessions a WHERE {overlap}) AS time_ms, \
         (SELECT MAX(a.end_time) FROM activity_sessions a WHERE a.user_id = u.id) AS last_active \
         FROM users u LEFT JOIN roles r ON r.id = u.role_id \
         WHERE ($3 IS NULL OR EXISTS (SELECT 1 FROM user_organizations uo \
                WHERE uo.user_id = u.id AND uo.organization_id = $3)) \
         AND ($4 IS NULL OR r.name = $4) AND {search_cond}\
         ) t ORDER BY {order_sql}, t.id LIMIT {limit} OFFSET {offset}"
    );
    let rows: Vec<ReportRow> = sqlx::query_as(AssertSqlSafe(q))
        .bind(f.from)
        .bind(f.to)
        .bind(f.org)
        .bind(f.role.clone())
        .bind(f.search.as_deref().map(super::contains_pattern))
        .fetch_all(&db.pool)
        .await?;
    let count = match rows.first() {
        Some(r) => r.total,
        None if offset == 0 => 0,
        // A page past the end: count on its own.
        None => Box::pin(user_report(db, f, order, 0, None)).await?.1,
    };
    Ok((rows, count))
}

/// The display names of the organisations each of `users` is linked to, by name.
pub async fn organizations_of(db: &Db, users: &[i64]) -> sqlx::Result<BTreeMap<i64, Vec<String>>> {
    let mut out: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    if users.is_empty() {
        return Ok(out);
    }
    let rows: Vec<(i64, String)> = sqlx::query_as(AssertSqlSafe(format!(
        "SELECT uo.user_id, o.org_name_to_display FROM user_organizations uo \
         JOIN organizations o ON o.id = uo.organization_id WHERE uo.user_id IN ({}) \
         ORDER BY LOWER(o.org_name_to_display), o.id",
        id_list(users)
    )))
    .fetch_all(&db.pool)
    .await?;
    for (u, name) in rows {
        out.entry(u).or_default().push(name);
    }
    Ok(out)
}

/// The browsers (`Chrome 131`) of each of `users`' sessions that overlap `[from, to)`.
pub async fn browsers_of(
    db: &Db,
    users: &[i64],
    from: i64,
    to: i64,
) -> sqlx::Result<BTreeMap<i64, Vec<String>>> {
    let mut out: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    if users.is_empty() {
        return Ok(out);
    }
    let rows: Vec<(i64, String, String)> = sqlx::query_as(AssertSqlSafe(format!(
        "SELECT DISTINCT a.user_id, a.browser, a.browser_version FROM activity_sessions a \
         WHERE a.user_id IN ({}) AND a.created_at < $2 AND a.end_time >= $1 \
         ORDER BY a.user_id, a.browser, a.browser_version",
        id_list(users)
    )))
    .bind(from)
    .bind(to)
    .fetch_all(&db.pool)
    .await?;
    for (u, browser, version) in rows {
        let b = format!("{browser} {version}").trim().to_string();
        out.entry(u).or_default().push(b);
    }
    Ok(out)
}

// ----- labelers ----------------------------------------------------------------------

#[derive(FromRow, Debug, Clone)]
pub struct LabelerRow {
    pub id: i64,
    pub name: String,
    pub lastname: String,
    pub email: String,
    #[sqlx(try_from = "super::Flag")]
    pub is_active: bool,
    pub last_label_at: Option<i64>,
    pub total: i64,
}

/// A page of the users with the role `labeler` (by name), optionally searched.
pub async fn labelers(
    db: &Db,
    search: Option<&str>,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<LabelerRow>, i64)> {
    let search_cond = if search.is_some() {
        "(LOWER(u.email) LIKE $1 ESCAPE '\\' OR LOWER(u.name) LIKE $1 ESCAPE '\\' \
         OR LOWER(u.lastname) LIKE $1 ESCAPE '\\')"
    } else {
        "$1 IS NULL"
    };
    let rows: Vec<LabelerRow> = sqlx::query_as(AssertSqlSafe(format!(
        "SELECT u.id, u.name, u.lastname, u.email, u.is_active, \
         (SELECT MAX(l.updated_at) FROM video_labels l WHERE l.updated_by = u.id) AS last_label_at, \
         COUNT(*) OVER () AS total \
         FROM users u JOIN roles r ON r.id = u.role_id \
         WHERE r.name = 'labeler' AND {search_cond} \
         ORDER BY LOWER(u.name), LOWER(u.lastname), u.id LIMIT {limit} OFFSET {offset}"
    )))
    .bind(search.map(super::contains_pattern))
    .fetch_all(&db.pool)
    .await?;
    let count = match rows.first() {
        Some(r) => r.total,
        None if offset == 0 => 0,
        None => Box::pin(labelers(db, search, 0, i64::MAX)).await?.1,
    };
    Ok((rows, count))
}

#[derive(FromRow, Debug, Clone)]
pub struct AssignmentRow {
    pub labeler_id: i64,
    pub task_id: i64,
    pub task_name: String,
    pub organization_id: i64,
    pub org_name_to_display: String,
    pub created_at: i64,
    pub ready_videos: i64,
    pub labelled_videos: i64,
    pub labelled_by_labeler: i64,
}

/// The operations (not deleted) requested of each of `labelers`, newest request first.
pub async fn assignments_of(db: &Db, labelers: &[i64]) -> sqlx::Result<Vec<AssignmentRow>> {
    if labelers.is_empty() {
        return Ok(Vec::new());
    }
    let labelled = "FROM video_labels l JOIN videos v ON v.id = l.video_id \
                    WHERE l.task_id = t.id AND v.status = 'ready' AND l.segments <> '[]'";
    sqlx::query_as(AssertSqlSafe(format!(
        "SELECT r.labeler_id, t.id AS task_id, t.task_name, t.organization_id, \
         o.org_name_to_display, r.created_at, \
         (SELECT COUNT(*) FROM videos v WHERE v.task_id = t.id AND v.status = 'ready') AS ready_videos, \
         (SELECT COUNT(*) {labelled} AND {TRAINABLE}) AS labelled_videos, \
         (SELECT COUNT(*) {labelled} AND l.updated_by = r.labeler_id) AS labelled_by_labeler \
         FROM label_requests r JOIN tasks t ON t.id = r.task_id \
         JOIN organizations o ON o.id = t.organization_id \
         WHERE r.labeler_id IN ({}) AND t.is_deleted = 0 ORDER BY r.id DESC",
        id_list(labelers)
    )))
    .fetch_all(&db.pool)
    .await
}

// ----- annotations -------------------------------------------------------------------

#[derive(FromRow, Debug, Clone)]
pub struct ProgressRow {
    pub task_id: i64,
    pub task_name: String,
    pub organization_id: i64,
    pub org_name_to_display: String,
    pub videos: i64,
    pub labelled_videos: i64,
    pub reviewed_videos: i64,
    pub to_review: i64,
    pub segments: i64,
    pub labelers: i64,
    pub last_change: Option<i64>,
    pub total: i64,
}

/// A page of the operations (not deleted) with their labelling progress, the latest
/// label change first (operations never labelled last, newest first).
pub async fn annotations(
    db: &Db,
    org: Option<i64>,
    search: Option<&str>,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<ProgressRow>, i64)> {
    let labels = "FROM video_labels l JOIN videos v ON v.id = l.video_id \
                  WHERE l.task_id = t.id AND v.status = 'ready'";
    // `segments` is a JSON array on both databases (a text column).
    let length = match db.backend {
        Backend::Sqlite => "json_array_length(l.segments)",
        Backend::Postgres => "json_array_length(l.segments::json)",
    };
    let search_cond = if search.is_some() {
        "LOWER(t.task_name) LIKE $2 ESCAPE '\\'"
    } else {
        "$2 IS NULL"
    };
    let rows: Vec<ProgressRow> = sqlx::query_as(AssertSqlSafe(format!(
        "SELECT x.*, COUNT(*) OVER () AS total FROM (\
         SELECT t.id AS task_id, t.task_name, t.organization_id, o.org_name_to_display, \
         (SELECT COUNT(*) FROM videos v WHERE v.task_id = t.id AND v.status = 'ready') AS videos, \
         (SELECT COUNT(*) {labels} AND l.segments <> '[]' AND {TRAINABLE}) AS labelled_videos, \
         (SELECT COUNT(*) {labels} AND l.segments <> '[]' AND l.reviewed = 1) AS reviewed_videos, \
         (SELECT COUNT(*) {labels} AND l.propagated_from IS NOT NULL AND l.reviewed = 0) AS to_review, \
         (SELECT CAST(COALESCE(SUM({length}), 0) AS BIGINT) {labels}) AS segments, \
         (SELECT COUNT(*) FROM label_requests q WHERE q.task_id = t.id) AS labelers, \
         (SELECT MAX(l.updated_at) FROM video_labels l WHERE l.task_id = t.id) AS last_change \
         FROM tasks t JOIN organizations o ON o.id = t.organization_id \
         WHERE t.is_deleted = 0 AND ($1 IS NULL OR t.organization_id = $1) AND {search_cond}\
         ) x ORDER BY COALESCE(x.last_change, -1) DESC, x.task_id DESC LIMIT {limit} OFFSET {offset}"
    )))
    .bind(org)
    .bind(search.map(super::contains_pattern))
    .fetch_all(&db.pool)
    .await?;
    let count = match rows.first() {
        Some(r) => r.total,
        None if offset == 0 => 0,
        None => Box::pin(annotations(db, org, search, 0, i64::MAX)).await?.1,
    };
    Ok((rows, count))
}
