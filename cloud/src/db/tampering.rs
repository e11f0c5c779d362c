//! Tampering requests (issue 31): the device events of kinds `covered` and `moved`
//! (`camera_events`), each with its review in `tampering_reviews`: the screenshot asked
//! for when it opened, and what a person decided (accept the new view, or dismiss), who,
//! when and why.
//!
//! Invariants: a request is open while its review has no `action` (no row is an open
//! request too); a review is decided once ([`decide`] changes only an open one), so two
//! people deciding at once cannot both win.

use gemba_shared::api::v1::device::CameraEventKind;

use super::Db;

/// The event kinds that are tampering requests, as stored.
pub const KINDS: &str = "('covered', 'moved')";

/// Which requests [`list`] answers.
#[derive(Debug, Default)]
pub struct Filter {
    /// One organisation's, or every one's.
    pub org: Option<i64>,
    /// `Some(true)`: open only; `Some(false)`: resolved only.
    pub open: Option<bool>,
}

/// A request as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Row {
    pub id: i64,
    pub organization_id: i64,
    pub organization_name: String,
    pub device_id: i64,
    pub device_name: String,
    pub camera: String,
    pub kind: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub detail: Option<String>,
    pub action: Option<String>,
    pub note: Option<String>,
    pub reviewer_email: Option<String>,
    pub reviewed_at: Option<i64>,
    pub screenshot_key: Option<String>,
    pub screenshot_taken_at: Option<i64>,
}

fn select() -> String {
    format!(
        "SELECT e.id, d.organization_id, o.org_name_to_display AS organization_name, \
         e.device_id, d.display_name AS device_name, e.camera, e.kind, e.started_at, \
         e.ended_at, e.detail, r.action, r.note, r.reviewer_email, r.reviewed_at, \
         s.object_key AS screenshot_key, s.taken_at AS screenshot_taken_at \
         FROM device_camera_events e \
         JOIN devices d ON d.id = e.device_id \
         JOIN organizations o ON o.id = d.organization_id \
         LEFT JOIN tampering_reviews r ON r.event_id = e.id \
         LEFT JOIN screenshots s ON s.id = r.screenshot_id AND s.taken_at IS NOT NULL \
         WHERE e.kind IN {KINDS}"
    )
}

/// The requests `f` names: open ones first, then newest first; a page (`offset`,
/// `limit`) and the count.
pub async fn list(db: &Db, f: &Filter, offset: i64, limit: i64) -> sqlx::Result<(Vec<Row>, i64)> {
    let cond = " AND ($1 IS NULL OR d.organization_id = $1) \
         AND ($2 IS NULL OR (r.action IS NULL) = ($2 = 1))";
    let open = f.open.map(i64::from);
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{}{cond} ORDER BY CASE WHEN r.action IS NULL THEN 0 ELSE 1 END, e.started_at DESC, \
         e.id DESC LIMIT {limit} OFFSET {offset}",
        select()
    )))
    .bind(f.org)
    .bind(open)
    .fetch_all(&db.pool)
    .await?;
    let count = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM device_camera_events e \
         JOIN devices d ON d.id = e.device_id \
         LEFT JOIN tampering_reviews r ON r.event_id = e.id \
         WHERE e.kind IN {KINDS}{cond}"
    )))
    .bind(f.org)
    .bind(open)
    .fetch_one(&db.pool)
    .await?;
    Ok((rows, count))
}

/// Request `id`, of organisation `org` when given.
pub async fn get(db: &Db, org: Option<i64>, id: i64) -> sqlx::Result<Option<Row>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{} AND e.id = $1 AND ($2 IS NULL OR d.organization_id = $2)",
        select()
    )))
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// The open event of `kind` of `device`'s `camera`, if any.
pub async fn open_event(
    db: &Db,
    device: i64,
    camera: &str,
    kind: CameraEventKind,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "SELECT id FROM device_camera_events WHERE device_id = $1 AND camera = $2 \
         AND kind = $3 AND ended_at IS NULL",
    )
    .bind(device)
    .bind(camera)
    .bind(kind.as_str())
    .fetch_optional(&db.pool)
    .await
}

/// Notes screenshot `screenshot` as event `event`'s (its review made if need be).
pub async fn set_screenshot(db: &Db, event: i64, screenshot: i64) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO tampering_reviews (event_id, screenshot_id) VALUES ($1, $2) \
         ON CONFLICT (event_id) DO UPDATE SET screenshot_id = $2",
    )
    .bind(event)
    .bind(screenshot)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// A decision on a request.
#[derive(Debug)]
pub struct Decision<'a> {
    pub action: &'a str,
    pub note: &'a str,
    pub user: i64,
    pub email: &'a str,
    pub at: i64,
    /// The `rebaseline` command sent, for an accepted view.
    pub command: Option<&'a str>,
}

/// Decides request `event` if it is open: whether this call did.
pub async fn decide(db: &Db, event: i64, d: &Decision<'_>) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    sqlx::query("INSERT INTO tampering_reviews (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(event)
        .execute(&mut *tx)
        .await?;
    let done = sqlx::query(
        "UPDATE tampering_reviews SET action = $2, note = $3, reviewed_by = $4, \
         reviewer_email = $5, reviewed_at = $6, command_id = $7 \
         WHERE event_id = $1 AND action IS NULL",
    )
    .bind(event)
    .bind(d.action)
    .bind(d.note)
    .bind(d.user)
    .bind(d.email)
    .bind(d.at)
    .bind(d.command)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}

/// The device's answer to command `command`, once it came: (ok, message).
pub async fn answer_of(
    db: &Db,
    device: i64,
    command: &str,
) -> sqlx::Result<Option<(bool, String)>> {
    let row: Option<(Option<i64>, Option<String>)> = sqlx::query_as(
        "SELECT ok, message FROM device_commands WHERE device_id = $1 AND id = $2 \
         AND acked_at IS NOT NULL",
    )
    .bind(device)
    .bind(command)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(|(ok, m)| (ok == Some(1), m.unwrap_or_default())))
}
