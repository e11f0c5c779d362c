//! A task's videos (`videos`): created with their size, filled part by part, then made
//! ready with what GStreamer read of them. Every query takes the organisation.

use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(FromRow, Clone, Debug)]
pub struct VideoRow {
    pub id: i64,
    pub organization_id: i64,
    pub task_id: i64,
    pub file_name: String,
    #[sqlx(try_from = "super::Flag")]
    pub is_uploaded_video: bool,
    pub status: String,
    pub size_bytes: i64,
    pub received_bytes: i64,
    pub object_key: String,
    pub thumbnail_key: Option<String>,
    pub duration_ms: Option<i64>,
    pub fps: Option<f64>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub no_of_comments: i64,
    pub created_by: Option<i64>,
    pub created_at: i64,
    pub device_id: Option<i64>,
    pub camera: Option<String>,
    pub message: String,
}

const COLS: &str = "id, organization_id, task_id, file_name, is_uploaded_video, status, \
    size_bytes, received_bytes, object_key, thumbnail_key, duration_ms, fps, width, height, \
    no_of_comments, created_by, created_at, device_id, camera, message";

pub const UPLOADING: &str = "uploading";
pub const READY: &str = "ready";
/// A device records it; its upload makes it ready.
pub const RECORDING: &str = "recording";
/// The device could not record or upload it (`message` says why).
pub const FAILED: &str = "failed";

/// A video a device is to record: its device, camera and the command asking for it.
pub struct Recording<'a> {
    pub device: i64,
    pub camera: &'a str,
    pub command: &'a str,
}

pub struct NewVideo<'a> {
    pub org: i64,
    pub task: i64,
    pub file_name: &'a str,
    /// Of the object's key (`mp4`, `webm`, …).
    pub extension: &'a str,
    pub is_uploaded_video: bool,
    pub size_bytes: i64,
    pub created_by: i64,
    /// Recorded on a device (then `recording`, else `uploading`).
    pub recording: Option<Recording<'a>>,
}

/// Creates a video in `uploading` (or `recording`); its object key is
/// `videos/{id}/video.{extension}` of the organisation (set once the id is known).
pub async fn create(db: &Db, v: NewVideo<'_>) -> sqlx::Result<VideoRow> {
    let mut tx = db.begin_write().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO videos (organization_id, task_id, file_name, is_uploaded_video, status, \
         size_bytes, object_key, created_by, created_at, device_id, camera, command_id) \
         VALUES ($1, $2, $3, $4, $5, $6, '', $7, $8, $9, $10, $11) RETURNING id",
    )
    .bind(v.org)
    .bind(v.task)
    .bind(v.file_name)
    .bind(v.is_uploaded_video as i64)
    .bind(if v.recording.is_some() {
        RECORDING
    } else {
        UPLOADING
    })
    .bind(v.size_bytes)
    .bind(v.created_by)
    .bind(now_ms())
    .bind(v.recording.as_ref().map(|r| r.device))
    .bind(v.recording.as_ref().map(|r| r.camera))
    .bind(v.recording.as_ref().map(|r| r.command))
    .fetch_one(&mut *tx)
    .await?;
    let row: VideoRow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE videos SET object_key = $1 WHERE id = $2 RETURNING {COLS}"
    )))
    .bind(format!("videos/{id}/video.{}", v.extension))
    .bind(id)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

/// A video by id alone (the labeler area checks its task's request itself).
pub async fn by_id(db: &Db, id: i64) -> sqlx::Result<Option<VideoRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM videos WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub async fn get(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<VideoRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM videos WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// Records that the bytes up to `received` arrived, if the upload was still at `from`.
/// False when another part moved it first.
pub async fn advance(db: &Db, id: i64, from: i64, received: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE videos SET received_bytes = $1 WHERE id = $2 AND status = $3 AND received_bytes = $4",
    )
    .bind(received)
    .bind(id)
    .bind(UPLOADING)
    .bind(from)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

pub struct Ready<'a> {
    pub thumbnail_key: &'a str,
    pub duration_ms: i64,
    pub fps: f64,
    pub width: i64,
    pub height: i64,
}

pub async fn make_ready(db: &Db, id: i64, r: Ready<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE videos SET status = $1, received_bytes = size_bytes, thumbnail_key = $2, \
         duration_ms = $3, fps = $4, width = $5, height = $6, ready_at = $7 WHERE id = $8",
    )
    .bind(READY)
    .bind(r.thumbnail_key)
    .bind(r.duration_ms)
    .bind(r.fps)
    .bind(r.width)
    .bind(r.height)
    .bind(now_ms())
    .bind(id)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// A recording arrived whole (`size` bytes, in the staging file): it is read next.
/// False when the video is not (or no longer) `recording`.
pub async fn recording_arrived(db: &Db, id: i64, size: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE videos SET size_bytes = $1, received_bytes = $1 WHERE id = $2 AND status = $3",
    )
    .bind(size)
    .bind(id)
    .bind(RECORDING)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// A recording failed: by video, or by the command that asked for it (its
/// acknowledgement said so). Only a video still `recording` changes.
pub async fn fail_recording(
    db: &Db,
    video: Option<i64>,
    command: Option<&str>,
    message: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE videos SET status = $1, message = $2 \
         WHERE status = $3 AND (id = $4 OR command_id = $5)",
    )
    .bind(FAILED)
    .bind(message)
    .bind(RECORDING)
    .bind(video)
    .bind(command)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Deletes videos `ids` of `org`, all or none: answers the rows deleted (for their
/// objects), or `Err(id)` with the first id that is not a video of `org` (then nothing
/// is deleted).
pub async fn delete(db: &Db, org: i64, ids: &[i64]) -> sqlx::Result<Result<Vec<VideoRow>, i64>> {
    if ids.is_empty() {
        return Ok(Ok(vec![]));
    }
    let list = super::id_list(ids);
    let mut tx = db.begin_write().await?;
    let gone: Vec<VideoRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "DELETE FROM videos WHERE organization_id = $1 AND id IN ({list}) RETURNING {COLS}"
    )))
    .bind(org)
    .fetch_all(&mut *tx)
    .await?;
    if let Some(&missing) = ids.iter().find(|&&id| !gone.iter().any(|r| r.id == id)) {
        // Dropping the transaction rolls the delete back.
        return Ok(Err(missing));
    }
    tx.commit().await?;
    Ok(Ok(gone))
}

/// The list's filters (spec section 7: page, isUploadedVideo, datetime_start,
/// datetime_end, ordering by no_of_comments).
#[derive(Debug, Default)]
pub struct Filter {
    pub uploaded: Option<bool>,
    /// Created at or after, unix ms.
    pub start: Option<i64>,
    /// Created before, unix ms.
    pub end: Option<i64>,
    /// `Some(true)`: most comments first; `Some(false)`: fewest first; else newest first.
    pub by_comments: Option<bool>,
    /// Only videos that are whole and read (the labeler area).
    pub ready_only: bool,
}

/// A page of `task`'s videos and how many match.
pub async fn page(
    db: &Db,
    org: i64,
    task: i64,
    f: &Filter,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<VideoRow>, i64)> {
    // Every filter is a parameter; an absent one is NULL and matches everything.
    let cond = "organization_id = $1 AND task_id = $2 \
        AND ($3 IS NULL OR is_uploaded_video = $3) \
        AND ($4 IS NULL OR created_at >= $4) AND ($5 IS NULL OR created_at < $5) \
        AND ($6 = 0 OR status = 'ready')";
    let order = match f.by_comments {
        Some(true) => "no_of_comments DESC, id DESC",
        Some(false) => "no_of_comments ASC, id DESC",
        None => "created_at DESC, id DESC",
    };
    let rows: Vec<VideoRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM videos WHERE {cond} ORDER BY {order} LIMIT {limit} OFFSET {offset}"
    )))
    .bind(org)
    .bind(task)
    .bind(f.uploaded.map(i64::from))
    .bind(f.start)
    .bind(f.end)
    .bind(i64::from(f.ready_only))
    .fetch_all(&db.pool)
    .await?;
    let count: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM videos WHERE {cond}"
    )))
    .bind(org)
    .bind(task)
    .bind(f.uploaded.map(i64::from))
    .bind(f.start)
    .bind(f.end)
    .bind(i64::from(f.ready_only))
    .fetch_one(&db.pool)
    .await?;
    Ok((rows, count))
}

/// A video's saved labels.
#[derive(FromRow, Clone, Debug)]
pub struct LabelsRow {
    pub segments: String,
    #[sqlx(try_from = "super::Flag")]
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
        super::id_list(videos)
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

// ----- tags and comments -----------------------------------------------------------------

/// The organisation's tags, by name.
pub async fn org_tags(db: &Db, org: i64) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as(
        "SELECT id, tag_name FROM org_tags WHERE organization_id = $1 ORDER BY tag_name, id",
    )
    .bind(org)
    .fetch_all(&db.pool)
    .await
}

/// A new tag; `None` when the organisation has one of that name.
pub async fn create_tag(db: &Db, org: i64, name: &str) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar(
        "INSERT INTO org_tags (organization_id, tag_name, created_at) VALUES ($1, $2, $3) \
         ON CONFLICT (organization_id, tag_name) DO NOTHING RETURNING id",
    )
    .bind(org)
    .bind(name)
    .bind(now_ms())
    .fetch_optional(&db.pool)
    .await
}

pub async fn delete_tag(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM org_tags WHERE organization_id = $1 AND id = $2")
        .bind(org)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// The tag names of each of `videos`.
pub async fn tags_of(db: &Db, videos: &[i64]) -> sqlx::Result<Vec<(i64, String)>> {
    if videos.is_empty() {
        return Ok(vec![]);
    }
    // Ids the server read from its own rows, written into the statement.
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT vt.video_id, t.tag_name FROM video_tags vt JOIN org_tags t ON t.id = vt.tag_id \
         WHERE vt.video_id IN ({}) ORDER BY t.tag_name",
        super::id_list(videos)
    )))
    .fetch_all(&db.pool)
    .await
}

/// Changes video `v`: name, type, and its tags (all of the organisation's, else
/// `Err(id)` with the first that is not, and nothing changes).
pub async fn patch(
    db: &Db,
    v: &VideoRow,
    file_name: Option<&str>,
    uploaded: Option<bool>,
    tags: Option<&[i64]>,
) -> sqlx::Result<Result<(), i64>> {
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "UPDATE videos SET file_name = COALESCE($1, file_name), \
         is_uploaded_video = COALESCE($2, is_uploaded_video) WHERE id = $3",
    )
    .bind(file_name)
    .bind(uploaded.map(i64::from))
    .bind(v.id)
    .execute(&mut *tx)
    .await?;
    if let Some(tags) = tags {
        sqlx::query("DELETE FROM video_tags WHERE video_id = $1")
            .bind(v.id)
            .execute(&mut *tx)
            .await?;
        for &t in tags {
            let n = sqlx::query(
                "INSERT INTO video_tags (video_id, tag_id) SELECT $1, id FROM org_tags \
                 WHERE id = $2 AND organization_id = $3 ON CONFLICT DO NOTHING",
            )
            .bind(v.id)
            .bind(t)
            .bind(v.organization_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            // Nothing inserted: not one of the organisation's tags (callers pass each id
            // once), and dropping the transaction undoes the rest.
            if n == 0 {
                return Ok(Err(t));
            }
        }
    }
    tx.commit().await?;
    Ok(Ok(()))
}

#[derive(FromRow, Clone, Debug)]
pub struct CommentRow {
    pub id: i64,
    pub video_id: i64,
    pub user_id: Option<i64>,
    pub user_name: String,
    pub text: String,
    pub created_at: i64,
}

pub async fn comments(db: &Db, org: i64, video: i64) -> sqlx::Result<Vec<CommentRow>> {
    sqlx::query_as(
        "SELECT id, video_id, user_id, user_name, text, created_at FROM video_comments \
         WHERE organization_id = $1 AND video_id = $2 ORDER BY created_at, id",
    )
    .bind(org)
    .bind(video)
    .fetch_all(&db.pool)
    .await
}

/// Adds a comment and counts it on the video, in one transaction.
pub async fn add_comment(
    db: &Db,
    v: &VideoRow,
    user: i64,
    user_name: &str,
    text: &str,
) -> sqlx::Result<CommentRow> {
    let mut tx = db.begin_write().await?;
    let row: CommentRow = sqlx::query_as(
        "INSERT INTO video_comments (organization_id, video_id, user_id, user_name, text, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6) \
         RETURNING id, video_id, user_id, user_name, text, created_at",
    )
    .bind(v.organization_id)
    .bind(v.id)
    .bind(user)
    .bind(user_name)
    .bind(text)
    .bind(now_ms())
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("UPDATE videos SET no_of_comments = no_of_comments + 1 WHERE id = $1")
        .bind(v.id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(row)
}

pub async fn comment(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<CommentRow>> {
    sqlx::query_as(
        "SELECT id, video_id, user_id, user_name, text, created_at FROM video_comments \
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// Deletes a comment and uncounts it, in one transaction.
pub async fn delete_comment(db: &Db, c: &CommentRow) -> sqlx::Result<()> {
    let mut tx = db.begin_write().await?;
    let n = sqlx::query("DELETE FROM video_comments WHERE id = $1")
        .bind(c.id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if n > 0 {
        sqlx::query("UPDATE videos SET no_of_comments = no_of_comments - 1 WHERE id = $1")
            .bind(c.video_id)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

// ----- time-stamp tags -------------------------------------------------------------------

#[derive(FromRow, Clone, Debug)]
pub struct TimeTagRow {
    pub id: i64,
    pub video_id: i64,
    pub tag_id: i64,
    pub tag_name: String,
    pub time_ms: i64,
    pub created_by: Option<i64>,
    pub created_at: i64,
}

const TIME_TAG_COLS: &str = "tt.id, tt.video_id, tt.tag_id, t.tag_name, tt.time_ms, \
    tt.created_by, tt.created_at FROM video_time_tags tt JOIN org_tags t ON t.id = tt.tag_id";

pub async fn time_tags(db: &Db, org: i64, video: i64) -> sqlx::Result<Vec<TimeTagRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TIME_TAG_COLS} WHERE tt.organization_id = $1 AND tt.video_id = $2 \
         ORDER BY tt.time_ms, tt.id"
    )))
    .bind(org)
    .bind(video)
    .fetch_all(&db.pool)
    .await
}

/// Tags video `v` with `tag` at `time_ms`; `None` when the tag is not the organisation's.
pub async fn add_time_tag(
    db: &Db,
    v: &VideoRow,
    tag: i64,
    time_ms: i64,
    by: i64,
) -> sqlx::Result<Option<TimeTagRow>> {
    let id: Option<i64> = sqlx::query_scalar(
        "INSERT INTO video_time_tags (organization_id, video_id, tag_id, time_ms, created_by, \
         created_at) SELECT $1, $2, id, $3, $4, $5 FROM org_tags \
         WHERE id = $6 AND organization_id = $1 RETURNING id",
    )
    .bind(v.organization_id)
    .bind(v.id)
    .bind(time_ms)
    .bind(by)
    .bind(now_ms())
    .bind(tag)
    .fetch_optional(&db.pool)
    .await?;
    let Some(id) = id else { return Ok(None) };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TIME_TAG_COLS} WHERE tt.id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub async fn delete_time_tag(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM video_time_tags WHERE organization_id = $1 AND id = $2")
        .bind(org)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}
