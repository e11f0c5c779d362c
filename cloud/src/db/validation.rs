//! Validation groups, videos and runs (`validation_groups`, `validation_videos`,
//! `validation_runs`, `validation_run_videos`; docs/decisions.md "Validation").
//!
//! Invariants: a group's videos are of the group's task; a run's videos are fixed when
//! it is made (the group's checked videos then), each ending with a report or an
//! error; a run ends `succeeded` with its report, or `failed` with why. Every query is
//! scoped by organisation.

use gemba_shared::api::v1::validation::{
    ValidationReport, ValidationRunSummary, ValidationStatus, ValidationVideo, VideoEval,
};
use gemba_shared::cycle::Segment;
use sqlx::FromRow;

use super::{Db, Flag, now_ms};

#[derive(FromRow, Clone, Debug)]
pub struct GroupRow {
    pub id: i64,
    pub organization_id: i64,
    pub task_id: i64,
    pub task_name: String,
    pub name: String,
    pub videos: i64,
    pub checked_videos: i64,
    pub created_at: i64,
}

const GROUP_SELECT: &str = "SELECT g.id, g.organization_id, g.task_id, g.name, g.created_at, \
     COALESCE(t.task_name, '') AS task_name, \
     (SELECT COUNT(*) FROM validation_videos v WHERE v.group_id = g.id) AS videos, \
     (SELECT COUNT(*) FROM validation_videos v WHERE v.group_id = g.id AND v.reviewed = 1) \
       AS checked_videos \
     FROM validation_groups g LEFT JOIN tasks t ON t.id = g.task_id";

/// Organisation `org`'s groups, newest first.
pub async fn groups(db: &Db, org: i64) -> sqlx::Result<Vec<GroupRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{GROUP_SELECT} WHERE g.organization_id = $1 ORDER BY g.id DESC"
    )))
    .bind(org)
    .fetch_all(&db.pool)
    .await
}

pub async fn group(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<GroupRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{GROUP_SELECT} WHERE g.organization_id = $1 AND g.id = $2"
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// A new group; a name the organisation has is the database's unique violation.
pub async fn insert_group(db: &Db, org: i64, task: i64, name: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO validation_groups (organization_id, task_id, name, created_at) \
         VALUES ($1, $2, $3, $4) RETURNING id",
    )
    .bind(org)
    .bind(task)
    .bind(name)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// Deletes group `id` of `org` with its runs; its videos stay, in no group.
pub async fn delete_group(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let found: Option<i64> = sqlx::query_scalar(
        "SELECT id FROM validation_groups WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if found.is_none() {
        return Ok(false);
    }
    sqlx::query(
        "DELETE FROM validation_run_videos WHERE run_id IN \
         (SELECT id FROM validation_runs WHERE group_id = $1)",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM validation_runs WHERE group_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE validation_videos SET group_id = NULL WHERE group_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM validation_groups WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}

// ----- videos --------------------------------------------------------------------------

#[derive(FromRow, Clone, Debug)]
pub struct VideoRow {
    pub id: i64,
    pub organization_id: i64,
    pub task_id: i64,
    pub group_id: Option<i64>,
    pub name: String,
    pub video_id: Option<i64>,
    pub cycle_id: Option<String>,
    pub object_key: String,
    pub duration_ms: i64,
    pub segments: String,
    #[sqlx(try_from = "Flag")]
    pub reviewed: bool,
    pub created_at: i64,
}

impl VideoRow {
    pub fn segments(&self) -> Vec<Segment> {
        serde_json::from_str(&self.segments).unwrap_or_default()
    }

    pub fn into_api(self) -> ValidationVideo {
        ValidationVideo {
            segments: self.segments(),
            id: self.id,
            name: self.name,
            group: self.group_id,
            task: self.task_id,
            video: self.video_id,
            cycle: self.cycle_id,
            duration_ms: self.duration_ms,
            reviewed: self.reviewed,
            created_at: self.created_at,
        }
    }
}

const VIDEO_COLS: &str = "id, organization_id, task_id, group_id, name, video_id, cycle_id, \
     object_key, duration_ms, segments, reviewed, created_at";

/// Organisation `org`'s validation videos, of group `group` or all, oldest first.
pub async fn videos(db: &Db, org: i64, group: Option<i64>) -> sqlx::Result<Vec<VideoRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {VIDEO_COLS} FROM validation_videos WHERE organization_id = $1 \
         AND ($2 IS NULL OR group_id = $2) ORDER BY id"
    )))
    .bind(org)
    .bind(group)
    .fetch_all(&db.pool)
    .await
}

pub async fn video(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<VideoRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {VIDEO_COLS} FROM validation_videos WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub struct NewVideo<'a> {
    pub org: i64,
    pub task: i64,
    pub group: i64,
    pub name: &'a str,
    pub video: Option<i64>,
    pub cycle: Option<&'a str>,
    pub object_key: &'a str,
    pub duration_ms: i64,
    pub segments: &'a [Segment],
    pub reviewed: bool,
}

/// Adds `new` to their group, all or none; `None` when that would take the group past
/// `max` videos (then nothing is added).
pub async fn insert_videos(
    db: &Db,
    group: i64,
    new: &[NewVideo<'_>],
    max: usize,
) -> sqlx::Result<Option<Vec<i64>>> {
    let mut tx = db.begin_write().await?;
    let have: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM validation_videos WHERE group_id = $1")
            .bind(group)
            .fetch_one(&mut *tx)
            .await?;
    if have as usize + new.len() > max {
        return Ok(None);
    }
    let mut ids = vec![];
    for v in new {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO validation_videos (organization_id, task_id, group_id, name, video_id, \
             cycle_id, object_key, duration_ms, segments, reviewed, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        )
        .bind(v.org)
        .bind(v.task)
        .bind(v.group)
        .bind(v.name)
        .bind(v.video)
        .bind(v.cycle)
        .bind(v.object_key)
        .bind(v.duration_ms)
        .bind(serde_json::to_string(v.segments).expect("segments serialise"))
        .bind(i64::from(v.reviewed))
        .bind(now_ms())
        .fetch_one(&mut *tx)
        .await?;
        ids.push(id);
    }
    tx.commit().await?;
    Ok(Some(ids))
}

/// Renames video `id` and/or moves it into `group`.
pub async fn patch_video(
    db: &Db,
    org: i64,
    id: i64,
    name: Option<&str>,
    group: Option<i64>,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE validation_videos SET name = COALESCE($3, name), \
         group_id = COALESCE($4, group_id) WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .bind(name)
    .bind(group)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Video `id`'s labels as a person checked them.
pub async fn check_labels(db: &Db, org: i64, id: i64, segments: &[Segment]) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE validation_videos SET segments = $3, reviewed = 1 \
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .bind(serde_json::to_string(segments).expect("segments serialise"))
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Deletes video `id` of `org`; answers its row (for its object).
pub async fn delete_video(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<VideoRow>> {
    let mut tx = db.begin_write().await?;
    let row: Option<VideoRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {VIDEO_COLS} FROM validation_videos WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&mut *tx)
    .await?;
    if row.is_some() {
        sqlx::query(
            "UPDATE validation_run_videos SET validation_video_id = NULL \
             WHERE validation_video_id = $1",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM validation_videos WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(row)
}

// ----- runs ----------------------------------------------------------------------------

#[derive(FromRow, Clone, Debug)]
pub struct RunRow {
    pub id: i64,
    pub organization_id: i64,
    pub group_id: i64,
    pub group_name: String,
    pub task_id: i64,
    pub model_version_id: i64,
    pub model_version_name: String,
    pub status: String,
    pub error: Option<String>,
    pub report: Option<String>,
    pub done: i64,
    pub of: i64,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

impl RunRow {
    pub fn status(&self) -> ValidationStatus {
        ValidationStatus::parse(&self.status).unwrap_or(ValidationStatus::Failed)
    }

    pub fn report(&self) -> Option<ValidationReport> {
        self.report
            .as_deref()
            .and_then(|r| serde_json::from_str(r).ok())
    }

    pub fn summary(&self) -> ValidationRunSummary {
        ValidationRunSummary {
            id: self.id,
            model_version: self.model_version_id,
            model_version_name: self.model_version_name.clone(),
            status: self.status(),
            created_at: self.created_at,
        }
    }
}

const RUN_SELECT: &str = "SELECT r.id, r.organization_id, r.group_id, g.name AS group_name, \
     g.task_id, r.model_version_id, m.version AS model_version_name, r.status, r.error, \
     r.report, r.created_at, r.finished_at, \
     (SELECT COUNT(*) FROM validation_run_videos x WHERE x.run_id = r.id \
       AND (x.report IS NOT NULL OR x.error IS NOT NULL)) AS done, \
     (SELECT COUNT(*) FROM validation_run_videos x WHERE x.run_id = r.id) AS of \
     FROM validation_runs r JOIN validation_groups g ON g.id = r.group_id \
     JOIN model_versions m ON m.id = r.model_version_id";

/// Organisation `org`'s runs, newest first.
pub async fn runs(db: &Db, org: i64) -> sqlx::Result<Vec<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{RUN_SELECT} WHERE r.organization_id = $1 ORDER BY r.id DESC"
    )))
    .bind(org)
    .fetch_all(&db.pool)
    .await
}

/// Run `id`, of `org` (`None`: of any organisation, for the runner).
pub async fn run(db: &Db, org: Option<i64>, id: i64) -> sqlx::Result<Option<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{RUN_SELECT} WHERE r.id = $1 AND ($2 IS NULL OR r.organization_id = $2)"
    )))
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// A queued run of `model` over `videos` (id and name) of `group`.
pub async fn insert_run(
    db: &Db,
    org: i64,
    group: i64,
    model: i64,
    videos: &[(i64, String)],
) -> sqlx::Result<i64> {
    let mut tx = db.begin_write().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO validation_runs (organization_id, group_id, model_version_id, status, \
         created_at) VALUES ($1, $2, $3, 'queued', $4) RETURNING id",
    )
    .bind(org)
    .bind(group)
    .bind(model)
    .bind(now_ms())
    .fetch_one(&mut *tx)
    .await?;
    for (video, name) in videos {
        sqlx::query(
            "INSERT INTO validation_run_videos (run_id, validation_video_id, name) \
             VALUES ($1, $2, $3)",
        )
        .bind(id)
        .bind(video)
        .bind(name)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(id)
}

#[derive(FromRow, Clone, Debug)]
pub struct RunVideoRow {
    pub id: i64,
    pub validation_video_id: Option<i64>,
    pub name: String,
    pub report: Option<String>,
    pub error: Option<String>,
}

impl RunVideoRow {
    pub fn eval(&self) -> Option<VideoEval> {
        self.report
            .as_deref()
            .and_then(|r| serde_json::from_str(r).ok())
    }
}

/// Run `run`'s videos, in order.
pub async fn run_videos(db: &Db, run: i64) -> sqlx::Result<Vec<RunVideoRow>> {
    sqlx::query_as(
        "SELECT id, validation_video_id, name, report, error FROM validation_run_videos \
         WHERE run_id = $1 ORDER BY id",
    )
    .bind(run)
    .fetch_all(&db.pool)
    .await
}

/// Marks run `id` running (from queued, or running again after a restart).
pub async fn begin(db: &Db, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE validation_runs SET status = 'running' WHERE id = $1 \
         AND status IN ('queued', 'running')",
    )
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// One video's end: its report, or why it has none.
pub async fn video_done(db: &Db, id: i64, result: Result<&VideoEval, &str>) -> sqlx::Result<()> {
    let (report, error) = match result {
        Ok(r) => (
            Some(serde_json::to_string(r).expect("a report serialises")),
            None,
        ),
        Err(e) => (None, Some(e)),
    };
    sqlx::query("UPDATE validation_run_videos SET report = $2, error = $3 WHERE id = $1")
        .bind(id)
        .bind(report)
        .bind(error)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// The run's end: succeeded with `report`, or failed with why.
pub async fn finish(db: &Db, id: i64, result: Result<&ValidationReport, &str>) -> sqlx::Result<()> {
    let (status, report, error) = match result {
        Ok(r) => (
            "succeeded",
            Some(serde_json::to_string(r).expect("a report serialises")),
            None,
        ),
        Err(e) => ("failed", None, Some(e)),
    };
    sqlx::query(
        "UPDATE validation_runs SET status = $2, report = $3, error = $4, finished_at = $5 \
         WHERE id = $1",
    )
    .bind(id)
    .bind(status)
    .bind(report)
    .bind(error)
    .bind(now_ms())
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Runs not ended (a cloud that stopped left them): the runner takes them up again.
pub async fn unfinished(db: &Db) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "SELECT id FROM validation_runs WHERE status IN ('queued', 'running') ORDER BY id",
    )
    .fetch_all(&db.pool)
    .await
}

/// Cycle `id` of `org` as the trace shows it (not archived).
pub async fn cycle(
    db: &Db,
    org: i64,
    id: &str,
) -> sqlx::Result<Option<gemba_shared::api::v1::device::RecentCycle>> {
    let row: Option<super::cycles::CycleRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {} FROM cycles WHERE organization_id = $1 AND id = $2 AND archived_at IS NULL",
        super::cycles::CYCLE_COLS
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.map(super::cycles::to_api))
}
