//! Tasks (operations), their stars and their history.
//!
//! A task row holds its [`TaskSettings`] as JSON; `task_name`, `live_name` and
//! `is_deleted` repeat what queries need of them. Every write of the settings goes
//! through [`write`]: it applies only to the version the caller read (so two changes at
//! once cannot lose one) and records a history entry in the same transaction.

use gemba_shared::api::v1::task::{
    Task, TaskHistoryEntry, TaskOrganization, TaskSettings, TrainStatus,
};
use sqlx::FromRow;

use super::{Db, now_ms};

/// A task row with its organisation's display name.
#[derive(FromRow, Clone)]
pub struct TaskRow {
    pub id: i64,
    pub organization_id: i64,
    pub org_name_to_display: String,
    pub train_status: String,
    pub settings: String,
    pub created_at: i64,
    pub last_update: Option<i64>,
    pub version: i64,
    #[sqlx(try_from = "super::Flag")]
    pub starred: bool,
}

impl TaskRow {
    pub fn settings(&self) -> TaskSettings {
        serde_json::from_str(&self.settings).unwrap_or_default()
    }

    pub fn train_status(&self) -> TrainStatus {
        TrainStatus::parse(&self.train_status).unwrap_or_default()
    }

    pub fn into_task(self) -> Task {
        Task::new(
            self.id,
            self.settings(),
            TaskOrganization {
                id: self.organization_id,
                org_name_to_display: self.org_name_to_display.clone(),
            },
            self.starred,
            self.train_status(),
            self.created_at,
            self.last_update,
        )
    }
}

/// The columns of [`TaskRow`] for the user `$1` (stars are per user).
const COLS: &str = "t.id, t.organization_id, o.org_name_to_display, t.train_status, t.settings, \
     t.created_at, t.last_update, t.version, \
     CAST(CASE WHEN EXISTS (SELECT 1 FROM task_stars s WHERE s.task_id = t.id AND s.user_id = $1) \
     THEN 1 ELSE 0 END AS BIGINT) AS starred";
const FROM: &str = "FROM tasks t JOIN organizations o ON o.id = t.organization_id";

/// Who made a change, for the history.
#[derive(Clone, Copy)]
pub struct Author<'a> {
    pub id: i64,
    pub name: &'a str,
}

fn live_name(s: &TaskSettings) -> Option<String> {
    (!s.is_deleted).then(|| s.task_name.trim().to_lowercase())
}

fn json(s: &TaskSettings) -> String {
    serde_json::to_string(s).expect("settings serialise")
}

/// Task `id` of organisation `org` (any organisation when `None`: the super admin's
/// admin views), deleted or not, as `user` sees it.
pub async fn get(db: &Db, user: i64, org: Option<i64>, id: i64) -> sqlx::Result<Option<TaskRow>> {
    sqlx::query_as::<_, TaskRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} {FROM} WHERE t.id = $2 AND ($3 IS NULL OR t.organization_id = $3)"
    )))
    .bind(user)
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// Which tasks a list shows.
#[derive(Default)]
pub struct Filter<'a> {
    /// One organisation, or all (the super admin's list).
    pub org: Option<i64>,
    pub search: &'a str,
    pub train_status: Option<TrainStatus>,
    pub with_deleted: bool,
}

/// A page of tasks (starred first, then newest) and the total count; all when `limit`
/// is `None`.
pub async fn list(
    db: &Db,
    user: i64,
    f: &Filter<'_>,
    page: Option<(i64, i64)>,
) -> sqlx::Result<(Vec<TaskRow>, i64)> {
    let pattern = (!f.search.trim().is_empty()).then(|| super::contains_pattern(f.search));
    let cond = format!(
        "($2 IS NULL OR t.organization_id = $2) AND {} AND {} AND {}",
        if pattern.is_some() {
            "LOWER(t.task_name) LIKE $3 ESCAPE '\\'"
        } else {
            "$3 IS NULL"
        },
        if f.train_status.is_some() {
            "t.train_status = $4"
        } else {
            "$4 IS NULL"
        },
        if f.with_deleted {
            "1 = 1"
        } else {
            "t.is_deleted = 0"
        },
    );
    let limit = page.map_or(String::new(), |(offset, limit)| {
        format!(" LIMIT {limit} OFFSET {offset}")
    });
    let status = f.train_status.map(TrainStatus::as_str);
    let rows = sqlx::query_as::<_, TaskRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} {FROM} WHERE {cond} ORDER BY starred DESC, t.id DESC{limit}"
    )))
    .bind(user)
    .bind(f.org)
    .bind(&pattern)
    .bind(status)
    .fetch_all(&db.pool)
    .await?;
    let count = match page {
        None => rows.len() as i64,
        Some(_) => {
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM tasks t WHERE $1 IS NULL AND {cond}"
            )))
            .bind(None::<i64>)
            .bind(f.org)
            .bind(&pattern)
            .bind(status)
            .fetch_one(&db.pool)
            .await?
        }
    };
    Ok((rows, count))
}

/// Inserts a task with its first history entry (`action`: `created` or `cloned`);
/// answers its id. A live task of the same name in `org` is a unique violation.
pub async fn insert(
    db: &Db,
    org: i64,
    s: &TaskSettings,
    action: &str,
    by: Author<'_>,
) -> sqlx::Result<i64> {
    let now = now_ms();
    let mut tx = db.begin_write().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO tasks (organization_id, task_name, live_name, is_deleted, train_status, \
         settings, created_at, updated_at) VALUES ($1, $2, $3, $4, 'new_task', $5, $6, $6) RETURNING id",
    )
    .bind(org)
    .bind(s.task_name.trim())
    .bind(live_name(s))
    .bind(s.is_deleted as i64)
    .bind(json(s))
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    history(&mut tx, id, action, &[], by, s, now).await?;
    tx.commit().await?;
    Ok(id)
}

async fn history(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    task: i64,
    action: &str,
    fields: &[String],
    by: Author<'_>,
    s: &TaskSettings,
    now: i64,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO task_history (task_id, action, changed_fields, user_id, user_name, snapshot, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(task)
    .bind(action)
    .bind(serde_json::to_string(fields).expect("names serialise"))
    .bind(by.id)
    .bind(by.name)
    .bind(json(s))
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Writes `s` over task `id` if it is still at `version`, with a history entry for
/// `fields`; `Ok(false)` when another change came first (read again and retry). A
/// write with no changed field records nothing.
pub async fn write(
    db: &Db,
    id: i64,
    version: i64,
    s: &TaskSettings,
    action: &str,
    fields: &[String],
    by: Author<'_>,
) -> sqlx::Result<bool> {
    let now = now_ms();
    let mut tx = db.begin_write().await?;
    // The first statement writes, so SQLite takes the write lock at once (a read first
    // could fail to upgrade under load).
    let r = sqlx::query(
        "UPDATE tasks SET task_name = $1, live_name = $2, is_deleted = $3, settings = $4, \
         updated_at = $5, version = version + 1 WHERE id = $6 AND version = $7",
    )
    .bind(s.task_name.trim())
    .bind(live_name(s))
    .bind(s.is_deleted as i64)
    .bind(json(s))
    .bind(now)
    .bind(id)
    .bind(version)
    .execute(&mut *tx)
    .await?;
    if r.rows_affected() == 0 {
        return Ok(false);
    }
    if !fields.is_empty() {
        history(&mut tx, id, action, fields, by, s, now).await?;
    }
    tx.commit().await?;
    Ok(true)
}

pub async fn star(db: &Db, task: i64, user: i64, on: bool) -> sqlx::Result<()> {
    let sql = if on {
        "INSERT INTO task_stars (task_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
    } else {
        "DELETE FROM task_stars WHERE task_id = $1 AND user_id = $2"
    };
    sqlx::query(sql)
        .bind(task)
        .bind(user)
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub async fn touch_last_update(db: &Db, id: i64) -> sqlx::Result<i64> {
    let now = now_ms();
    sqlx::query("UPDATE tasks SET last_update = $1 WHERE id = $2")
        .bind(now)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(now)
}

#[derive(FromRow)]
struct HistoryRow {
    id: i64,
    task_id: i64,
    action: String,
    changed_fields: String,
    user_id: Option<i64>,
    user_name: String,
    snapshot: String,
    created_at: i64,
}

impl From<HistoryRow> for TaskHistoryEntry {
    fn from(r: HistoryRow) -> Self {
        TaskHistoryEntry {
            id: r.id,
            task: r.task_id,
            action: r.action,
            changed_fields: serde_json::from_str(&r.changed_fields).unwrap_or_default(),
            user: r.user_id,
            user_name: r.user_name,
            created_at: r.created_at,
            snapshot: serde_json::from_str(&r.snapshot).unwrap_or_default(),
        }
    }
}

/// Task `task`'s history, newest first; only entry `entry` when given.
pub async fn history_of(
    db: &Db,
    task: i64,
    entry: Option<i64>,
) -> sqlx::Result<Vec<TaskHistoryEntry>> {
    sqlx::query_as::<_, HistoryRow>(
        "SELECT id, task_id, action, changed_fields, user_id, user_name, snapshot, created_at \
         FROM task_history WHERE task_id = $1 AND ($2 IS NULL OR id = $2) ORDER BY id DESC",
    )
    .bind(task)
    .bind(entry)
    .fetch_all(&db.pool)
    .await
    .map(|rows| rows.into_iter().map(Into::into).collect())
}
