//! Rectification steps (`rectification_steps`; `api::v1::rectification`): a task's
//! corrective steps, each for one step index. The callers find the task in the
//! request's organisation first (`http::tasks`); [`get`] takes the organisation too,
//! `None` for the super admin's calls.
//!
//! Invariant: a step never holds more than `MAX_PER_STEP` of them; the count and the
//! insert are one statement, so two adds side by side on SQLite cannot pass it.

use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(Debug, FromRow)]
pub struct Row {
    pub id: i64,
    pub task_id: i64,
    pub step_index: i64,
    pub description: String,
    pub created_at: i64,
    /// Its place among the step's (1 first).
    pub position: i64,
}

const SELECT: &str = "SELECT r.id, r.task_id, r.step_index, r.description, r.created_at, \
     (SELECT COUNT(*) FROM rectification_steps o \
      WHERE o.task_id = r.task_id AND o.step_index = r.step_index AND o.id <= r.id) AS position \
     FROM rectification_steps r JOIN tasks t ON t.id = r.task_id";

/// Task `task`'s rectification steps, by step, then in the order they were added.
pub async fn list(db: &Db, task: i64) -> sqlx::Result<Vec<Row>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE r.task_id = $1 ORDER BY r.step_index, r.id"
    )))
    .bind(task)
    .fetch_all(&db.pool)
    .await
}

/// One, if its task is organisation `org`'s (any organisation's for `None`).
pub async fn get(db: &Db, org: Option<i64>, id: i64) -> sqlx::Result<Option<Row>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE r.id = $1 AND ($2 IS NULL OR t.organization_id = $2)"
    )))
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// Appends one after step `step`'s others: its id, or `None` when the step holds
/// `max` already.
pub async fn add(
    db: &Db,
    task: i64,
    step: u32,
    description: &str,
    user: i64,
    max: usize,
) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "INSERT INTO rectification_steps (task_id, step_index, description, created_by, created_at) \
         SELECT $1, $2, $3, $4, $5 \
         WHERE (SELECT COUNT(*) FROM rectification_steps WHERE task_id = $1 AND step_index = $2) < $6 \
         RETURNING id",
    )
    .bind(task)
    .bind(i64::from(step))
    .bind(description)
    .bind(user)
    .bind(now_ms())
    .bind(max as i64)
    .fetch_optional(&db.pool)
    .await
}

/// Deletes one; false when there is none with this id (deleted meanwhile).
pub async fn delete(db: &Db, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM rectification_steps WHERE id = $1")
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}
