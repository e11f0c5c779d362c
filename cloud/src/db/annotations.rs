//! Annotation images and their boxes (`annotation_images`, `annotation_objects`).
//!
//! Invariants: every query on images takes the organisation; a box's task object is a
//! task object of its image's task (the handlers check it; the foreign key drops a
//! box with its object). Changing an image's boxes keeps the list before the change
//! in `previous_objects`, in the same transaction, so `revert` brings it back whole.

use gemba_shared::api::v1::annotation::{
    AnnotationObject, AnnotationObjectWrite, ImageFilter, ImageOrdering,
};
use sqlx::FromRow;

use super::{Db, id_list, now_ms};

#[derive(FromRow, Clone, Debug)]
pub struct ImageRow {
    pub id: i64,
    pub organization_id: i64,
    pub task_id: i64,
    pub video_id: Option<i64>,
    pub frame_ms: i64,
    pub width: i64,
    pub height: i64,
    pub object_key: String,
    pub previous_objects: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLS: &str = "id, organization_id, task_id, video_id, frame_ms, width, height, \
    object_key, previous_objects, created_at, updated_at";

#[derive(FromRow)]
struct ObjectRow {
    id: i64,
    image_id: i64,
    task_object_id: i64,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    confidence: Option<f64>,
}

impl ObjectRow {
    fn api(self) -> (i64, AnnotationObject) {
        (
            self.image_id,
            AnnotationObject {
                id: self.id,
                task_object: self.task_object_id,
                x: self.x,
                y: self.y,
                width: self.width,
                height: self.height,
                confidence: self.confidence,
            },
        )
    }
}

const OBJECT_COLS: &str = "id, image_id, task_object_id, x, y, width, height, confidence";

/// A new image: the frame of `video_id` at `frame_ms`, stored at `object_key`.
pub struct NewImage<'a> {
    pub org: i64,
    pub task: i64,
    pub video: i64,
    pub frame_ms: i64,
    pub width: i64,
    pub height: i64,
    pub object_key: &'a str,
    pub created_by: i64,
}

pub async fn insert(db: &Db, n: &NewImage<'_>) -> sqlx::Result<i64> {
    let now = now_ms();
    sqlx::query_scalar(
        "INSERT INTO annotation_images (organization_id, task_id, video_id, frame_ms, width, \
         height, object_key, created_by, created_at, updated_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id",
    )
    .bind(n.org)
    .bind(n.task)
    .bind(n.video)
    .bind(n.frame_ms)
    .bind(n.width)
    .bind(n.height)
    .bind(n.object_key)
    .bind(n.created_by)
    .bind(now)
    .fetch_one(&db.pool)
    .await
}

/// Image `id` of `org`.
pub async fn get(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<ImageRow>> {
    sqlx::query_as::<_, ImageRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM annotation_images WHERE organization_id = $1 AND id = $2"
    )))
    .bind(org)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// The image already taken of `video` at `frame_ms`, if any.
pub async fn by_frame(
    db: &Db,
    org: i64,
    video: i64,
    frame_ms: i64,
) -> sqlx::Result<Option<ImageRow>> {
    sqlx::query_as::<_, ImageRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM annotation_images \
         WHERE organization_id = $1 AND video_id = $2 AND frame_ms = $3"
    )))
    .bind(org)
    .bind(video)
    .bind(frame_ms)
    .fetch_optional(&db.pool)
    .await
}

pub async fn count(db: &Db, org: i64, task: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM annotation_images WHERE organization_id = $1 AND task_id = $2",
    )
    .bind(org)
    .bind(task)
    .fetch_one(&db.pool)
    .await
}

fn filter_sql(f: ImageFilter) -> &'static str {
    match f {
        ImageFilter::All => "",
        ImageFilter::Annotated => {
            " AND EXISTS (SELECT 1 FROM annotation_objects o WHERE o.image_id = annotation_images.id)"
        }
        ImageFilter::NotAnnotated => {
            " AND NOT EXISTS (SELECT 1 FROM annotation_objects o WHERE o.image_id = annotation_images.id)"
        }
    }
}

fn order_sql(o: ImageOrdering) -> String {
    let d = if o.descending { " DESC" } else { "" };
    if o.by_frame {
        // Images of a deleted video (no video) last, whatever the direction.
        format!("CASE WHEN video_id IS NULL THEN 1 ELSE 0 END, video_id{d}, frame_ms{d}, id{d}")
    } else {
        format!("created_at{d}, id{d}")
    }
}

/// A page of task `task`'s images (`limit` from `offset`) and how many there are.
pub async fn page(
    db: &Db,
    org: i64,
    task: i64,
    filter: ImageFilter,
    ordering: ImageOrdering,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<ImageRow>, i64)> {
    let cond = format!(
        "organization_id = $1 AND task_id = $2{}",
        filter_sql(filter)
    );
    let rows = sqlx::query_as::<_, ImageRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM annotation_images WHERE {cond} ORDER BY {} LIMIT $3 OFFSET $4",
        order_sql(ordering)
    )))
    .bind(org)
    .bind(task)
    .bind(limit)
    .bind(offset)
    .fetch_all(&db.pool)
    .await?;
    let count = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT COUNT(*) FROM annotation_images WHERE {cond}"
    )))
    .bind(org)
    .bind(task)
    .fetch_one(&db.pool)
    .await?;
    Ok((rows, count))
}

/// The boxes of images `ids`, each with its image's id, in the order drawn.
pub async fn objects_of(db: &Db, ids: &[i64]) -> sqlx::Result<Vec<(i64, AnnotationObject)>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let rows = sqlx::query_as::<_, ObjectRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {OBJECT_COLS} FROM annotation_objects WHERE image_id IN ({}) ORDER BY image_id, id",
        id_list(ids)
    )))
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(ObjectRow::api).collect())
}

fn as_write(o: &AnnotationObject) -> AnnotationObjectWrite {
    AnnotationObjectWrite {
        task_object: o.task_object,
        x: o.x,
        y: o.y,
        width: o.width,
        height: o.height,
        confidence: o.confidence,
    }
}

type Tx<'c> = sqlx::Transaction<'c, sqlx::Any>;

async fn current(tx: &mut Tx<'_>, image: i64) -> sqlx::Result<Vec<AnnotationObject>> {
    let rows: Vec<ObjectRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {OBJECT_COLS} FROM annotation_objects WHERE image_id = $1 ORDER BY id"
    )))
    .bind(image)
    .fetch_all(&mut **tx)
    .await?;
    Ok(rows.into_iter().map(|r| r.api().1).collect())
}

/// Writes `objects` as image `image`'s boxes, the list before kept as `previous`.
async fn write(
    tx: &mut Tx<'_>,
    image: i64,
    objects: &[AnnotationObjectWrite],
    previous: Option<&[AnnotationObjectWrite]>,
) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM annotation_objects WHERE image_id = $1")
        .bind(image)
        .execute(&mut **tx)
        .await?;
    for o in objects {
        sqlx::query(
            "INSERT INTO annotation_objects (image_id, task_object_id, x, y, width, height, \
             confidence) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(image)
        .bind(o.task_object)
        .bind(o.x)
        .bind(o.y)
        .bind(o.width)
        .bind(o.height)
        .bind(o.confidence)
        .execute(&mut **tx)
        .await?;
    }
    let previous = previous.map(|p| serde_json::to_string(p).expect("boxes serialise"));
    sqlx::query(
        "UPDATE annotation_images SET previous_objects = $2, updated_at = $3 WHERE id = $1",
    )
    .bind(image)
    .bind(previous)
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Replaces image `image`'s boxes with `objects` (checked by the caller).
pub async fn replace_objects(
    db: &Db,
    image: i64,
    objects: &[AnnotationObjectWrite],
) -> sqlx::Result<()> {
    let mut tx = db.begin_write().await?;
    let before: Vec<_> = current(&mut tx, image)
        .await?
        .iter()
        .map(as_write)
        .collect();
    write(&mut tx, image, objects, Some(&before)).await?;
    tx.commit().await
}

/// Deletes boxes `ids` of image `image`; answers how many there were. Nothing changes
/// (and the list before stays) when none of them is the image's.
pub async fn delete_objects(db: &Db, image: i64, ids: &[i64]) -> sqlx::Result<usize> {
    let mut tx = db.begin_write().await?;
    let now = current(&mut tx, image).await?;
    let kept: Vec<_> = now
        .iter()
        .filter(|o| !ids.contains(&o.id))
        .map(as_write)
        .collect();
    let gone = now.len() - kept.len();
    if gone > 0 {
        let before: Vec<_> = now.iter().map(as_write).collect();
        write(&mut tx, image, &kept, Some(&before)).await?;
    }
    tx.commit().await?;
    Ok(gone)
}

/// Brings back image `image`'s boxes before their last change (those of task objects
/// since deleted left out); the list replaced becomes the one a second revert brings
/// back. `false` when there is nothing to revert to.
pub async fn revert(db: &Db, image: i64, task: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let previous: Option<String> =
        sqlx::query_scalar("SELECT previous_objects FROM annotation_images WHERE id = $1")
            .bind(image)
            .fetch_optional(&mut *tx)
            .await?
            .flatten();
    let Some(previous) = previous else {
        return Ok(false);
    };
    // Written only by `write`, from checked boxes.
    let previous: Vec<AnnotationObjectWrite> = serde_json::from_str(&previous).unwrap_or_default();
    let live: Vec<i64> = sqlx::query_scalar("SELECT id FROM task_objects WHERE task_id = $1")
        .bind(task)
        .fetch_all(&mut *tx)
        .await?;
    let back: Vec<_> = previous
        .into_iter()
        .filter(|o| live.contains(&o.task_object))
        .collect();
    let before: Vec<_> = current(&mut tx, image)
        .await?
        .iter()
        .map(as_write)
        .collect();
    write(&mut tx, image, &back, Some(&before)).await?;
    tx.commit().await?;
    Ok(true)
}

/// Deletes images `ids` of task `task` of `org` with their boxes, all or none: answers
/// the rows deleted (their files are the caller's to remove), or `None` when one of
/// `ids` (distinct) is not such an image (then nothing is deleted).
pub async fn delete_images(
    db: &Db,
    org: i64,
    task: i64,
    ids: &[i64],
) -> sqlx::Result<Option<Vec<ImageRow>>> {
    let mut tx = db.begin_write().await?;
    let rows: Vec<ImageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM annotation_images \
         WHERE organization_id = $1 AND task_id = $2 AND id IN ({})",
        id_list(ids)
    )))
    .bind(org)
    .bind(task)
    .fetch_all(&mut *tx)
    .await?;
    if rows.len() != ids.len() {
        return Ok(None);
    }
    if !rows.is_empty() {
        let found = id_list(rows.iter().map(|r| &r.id));
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM annotation_objects WHERE image_id IN ({found})"
        )))
        .execute(&mut *tx)
        .await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM annotation_images WHERE id IN ({found})"
        )))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(Some(rows))
}

/// The ids of task `task`'s images (of `org`) with a box of task object `object`.
pub async fn with_object(db: &Db, org: i64, task: i64, object: i64) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "SELECT i.id FROM annotation_images i WHERE i.organization_id = $1 AND i.task_id = $2 \
         AND EXISTS (SELECT 1 FROM annotation_objects o WHERE o.image_id = i.id \
         AND o.task_object_id = $3) ORDER BY i.id",
    )
    .bind(org)
    .bind(task)
    .bind(object)
    .fetch_all(&db.pool)
    .await
}

/// Makes `key` video `video`'s thumbnail (of `org`); answers the key it replaces.
pub async fn set_thumbnail(
    db: &Db,
    org: i64,
    video: i64,
    key: &str,
) -> sqlx::Result<Option<Option<String>>> {
    let mut tx = db.begin_write().await?;
    let old: Option<Option<String>> = sqlx::query_scalar(
        "SELECT thumbnail_key FROM videos WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(video)
    .fetch_optional(&mut *tx)
    .await?;
    if old.is_some() {
        sqlx::query("UPDATE videos SET thumbnail_key = $3 WHERE organization_id = $1 AND id = $2")
            .bind(org)
            .bind(video)
            .bind(key)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(old)
}
