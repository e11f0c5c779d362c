//! A video's labels (`video_labels`): a person's, and those a trained model propagated
//! until someone reviews them.

use sqlx::FromRow;

use super::{COLS, VideoRow};
use crate::db::{Db, now_ms};

/// A video's saved labels.
#[derive(FromRow, Clone, Debug)]
pub struct LabelsRow {
    pub segments: String,
    #[sqlx(try_from = "crate::db::Flag")]
    pub reviewed: bool,
    pub updated_by: Option<i64>,
    pub updated_at: i64,
    /// Propagated labels: the model version that guessed them.
    pub propagated_from: Option<String>,
}

/// Labels a person trains on: a person's, or propagated ones once reviewed (SQL over
/// `video_labels l`).
pub const TRAINABLE: &str = "(l.propagated_from IS NULL OR l.reviewed = 1)";

pub async fn labels(db: &Db, video: i64) -> sqlx::Result<Option<LabelsRow>> {
    sqlx::query_as(
        "SELECT segments, reviewed, updated_by, updated_at, propagated_from FROM video_labels \
         WHERE video_id = $1",
    )
    .bind(video)
    .fetch_optional(&db.pool)
    .await
}

/// Saves video `v`'s labels as a person's (replacing any, propagated ones too), in one
/// transaction with moving its task from `new_task` to `in_annotation` when they hold a
/// segment; answers when.
pub async fn save_labels(
    db: &Db,
    v: &VideoRow,
    segments_json: &str,
    any: bool,
    reviewed: bool,
    by: i64,
) -> sqlx::Result<i64> {
    let at = now_ms();
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "INSERT INTO video_labels (video_id, organization_id, task_id, segments, reviewed, \
         updated_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
         ON CONFLICT (video_id) DO UPDATE SET segments = excluded.segments, \
         reviewed = excluded.reviewed, updated_by = excluded.updated_by, \
         updated_at = excluded.updated_at, propagated_from = NULL",
    )
    .bind(v.id)
    .bind(v.organization_id)
    .bind(v.task_id)
    .bind(segments_json)
    .bind(reviewed as i64)
    .bind(by)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    if any {
        sqlx::query(
            "UPDATE tasks SET train_status = 'in_annotation', version = version + 1 \
             WHERE id = $1 AND train_status = 'new_task'",
        )
        .bind(v.task_id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(at)
}

/// Each of `videos` that has labels: its id, whether they are reviewed, and the model
/// version that guessed them (propagated labels).
pub async fn label_states(
    db: &Db,
    videos: &[i64],
) -> sqlx::Result<Vec<(i64, bool, Option<String>)>> {
    if videos.is_empty() {
        return Ok(vec![]);
    }
    let rows: Vec<(i64, i64, Option<String>)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT video_id, reviewed, propagated_from FROM video_labels WHERE video_id IN ({})",
        crate::db::id_list(videos)
    )))
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(|(v, r, p)| (v, r != 0, p)).collect())
}

/// Up to `limit` ready training videos of `task` (newest first) a trained model may
/// label: those nobody has labelled, and those whose propagated labels nobody has
/// reviewed yet (a newer model's guesses replace them).
pub async fn to_propagate(db: &Db, org: i64, task: i64, limit: i64) -> sqlx::Result<Vec<VideoRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM videos WHERE organization_id = $1 AND task_id = $2 \
         AND status = 'ready' AND is_uploaded_video = 1 AND NOT EXISTS (SELECT 1 FROM \
         video_labels l WHERE l.video_id = videos.id AND (l.propagated_from IS NULL \
         OR l.reviewed = 1)) ORDER BY id DESC LIMIT $3"
    )))
    .bind(org)
    .bind(task)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
}

/// Saves propagated labels of video `v`, guessed by model `version`, unless a person
/// labelled it or reviewed its labels meanwhile; answers whether they were saved.
pub async fn propagate(
    db: &Db,
    v: &VideoRow,
    segments_json: &str,
    version: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO video_labels (video_id, organization_id, task_id, segments, reviewed, \
         updated_by, updated_at, propagated_from) VALUES ($1, $2, $3, $4, 0, NULL, $5, $6) \
         ON CONFLICT (video_id) DO UPDATE SET segments = excluded.segments, \
         updated_by = NULL, updated_at = excluded.updated_at, \
         propagated_from = excluded.propagated_from \
         WHERE video_labels.propagated_from IS NOT NULL AND video_labels.reviewed = 0",
    )
    .bind(v.id)
    .bind(v.organization_id)
    .bind(v.task_id)
    .bind(segments_json)
    .bind(now_ms())
    .bind(version)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Takes back the propagated labels model `version` of `task` guessed, where nobody has
/// reviewed them.
pub async fn unpropagate(db: &Db, task: i64, version: &str) -> sqlx::Result<()> {
    sqlx::query(
        "DELETE FROM video_labels WHERE task_id = $1 AND propagated_from = $2 AND reviewed = 0",
    )
    .bind(task)
    .bind(version)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Marks the propagated labels of `videos` of `task` reviewed by `by` (all of the
/// task's still to review when `None`), in one transaction: `Err(id)` names the first
/// of `videos` with none to review, and nothing changes. Answers how many.
pub async fn mark_reviewed(
    db: &Db,
    org: i64,
    task: i64,
    videos: Option<&[i64]>,
    by: i64,
) -> sqlx::Result<Result<u64, i64>> {
    let mut tx = db.begin_write().await?;
    let n = each_or_all(
        &mut tx,
        "UPDATE video_labels SET reviewed = 1, updated_by = $3, updated_at = $4 \
         WHERE organization_id = $1 AND task_id = $2 AND propagated_from IS NOT NULL \
         AND reviewed = 0",
        &[org, task, by, now_ms()],
        videos,
    )
    .await?;
    if n.is_ok() {
        tx.commit().await?;
    }
    Ok(n)
}

/// Runs `sql` over video labels (its binds `binds`, in order) once, or, with `videos`,
/// once per video (`AND video_id = ` the next bind): `Err(id)` names the first video it
/// touched no row of (the caller then drops the transaction). Answers the rows touched.
async fn each_or_all(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    sql: &str,
    binds: &[i64],
    videos: Option<&[i64]>,
) -> sqlx::Result<Result<u64, i64>> {
    let run = |sql: String, extra: Option<i64>| {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for b in binds.iter().copied().chain(extra) {
            q = q.bind(b);
        }
        q
    };
    let Some(ids) = videos else {
        return Ok(Ok(run(sql.to_string(), None)
            .execute(&mut **tx)
            .await?
            .rows_affected()));
    };
    let one = format!("{sql} AND video_id = ${}", binds.len() + 1);
    for &id in ids {
        if run(one.clone(), Some(id))
            .execute(&mut **tx)
            .await?
            .rows_affected()
            == 0
        {
            return Ok(Err(id));
        }
    }
    Ok(Ok(ids.len() as u64))
}

/// The labels of `task`'s ready videos: segments, reviewed, and the model version that
/// guessed them (propagated labels).
pub async fn task_labels(
    db: &Db,
    org: i64,
    task: i64,
) -> sqlx::Result<Vec<(String, bool, Option<String>)>> {
    let rows: Vec<(String, i64, Option<String>)> = sqlx::query_as(
        "SELECT l.segments, l.reviewed, l.propagated_from FROM video_labels l \
         JOIN videos v ON v.id = l.video_id WHERE l.organization_id = $1 AND l.task_id = $2 \
         AND v.status = 'ready'",
    )
    .bind(org)
    .bind(task)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(|(s, r, p)| (s, r != 0, p)).collect())
}

/// Deletes the labels of `videos` of `task` (all of the task's when `None`), in one
/// transaction with moving the task back from `in_annotation` to `new_task` when no
/// labelled segment is left: `Err(id)` names the first of `videos` without labels, and
/// nothing changes. Answers how many.
pub async fn delete_labels(
    db: &Db,
    org: i64,
    task: i64,
    videos: Option<&[i64]>,
) -> sqlx::Result<Result<u64, i64>> {
    let mut tx = db.begin_write().await?;
    let n = match each_or_all(
        &mut tx,
        "DELETE FROM video_labels WHERE organization_id = $1 AND task_id = $2",
        &[org, task],
        videos,
    )
    .await?
    {
        Ok(n) => n,
        Err(id) => return Ok(Err(id)),
    };
    sqlx::query(
        "UPDATE tasks SET train_status = 'new_task', version = version + 1 \
         WHERE id = $1 AND train_status = 'in_annotation' AND NOT EXISTS \
         (SELECT 1 FROM video_labels WHERE task_id = $1 AND segments <> '[]')",
    )
    .bind(task)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Ok(n))
}
