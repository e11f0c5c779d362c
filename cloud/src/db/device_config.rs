//! What goes into a device's configuration (issue 29): its remote cameras, the blur
//! regions of its cameras, its schedules, and the configuration's version
//! (`devices.config_version`).
//!
//! Invariant: every write here happens in a transaction that also calls [`bump`] for
//! the device, so a change and its new version are one; the caller then sends the
//! configuration (`crate::device_config::send`).

use sqlx::{Any, FromRow, Transaction};

use super::{Db, now_ms};

pub type Tx = Transaction<'static, Any>;

/// Raises device `device`'s configuration version; answers the new one.
pub async fn bump(tx: &mut Tx, device: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "UPDATE devices SET config_version = config_version + 1 WHERE id = $1 \
         RETURNING config_version",
    )
    .bind(device)
    .fetch_one(&mut **tx)
    .await
}

/// Raises the configuration version of every device of `org` (its time zone changed);
/// answers their ids.
pub async fn bump_org(db: &Db, org: i64) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "UPDATE devices SET config_version = config_version + 1 WHERE organization_id = $1 \
         RETURNING id",
    )
    .bind(org)
    .fetch_all(&db.pool)
    .await
}

/// Raises the configuration version of every device with a schedule of `task` (its
/// settings changed), and of every device of its organisation when a barcode starts
/// it; answers their ids.
pub async fn bump_task(db: &Db, task: i64) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "UPDATE devices SET config_version = config_version + 1 WHERE id IN \
         (SELECT device_id FROM schedules WHERE task_id = $1) OR organization_id IN \
         (SELECT b.organization_id FROM barcode_tasks a JOIN barcodes b ON b.id = a.barcode_id \
          WHERE a.task_id = $1) RETURNING id",
    )
    .bind(task)
    .fetch_all(&db.pool)
    .await
}

/// Device `device`'s configuration version.
pub async fn version(db: &Db, device: i64) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT config_version FROM devices WHERE id = $1")
        .bind(device)
        .fetch_optional(&db.pool)
        .await
}

/// Whether device `device` sends its analytics now (`None`: the device is gone).
pub async fn fetch_analytics(db: &Db, device: i64) -> sqlx::Result<Option<bool>> {
    let v: Option<i64> = sqlx::query_scalar("SELECT fetch_analytics FROM devices WHERE id = $1")
        .bind(device)
        .fetch_optional(&db.pool)
        .await?;
    Ok(v.map(|v| v != 0))
}

/// Switches device `device`'s analytics `on` or off; answers whether that changed it.
pub async fn set_fetch_analytics(tx: &mut Tx, device: i64, on: bool) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE devices SET fetch_analytics = $2 WHERE id = $1 AND fetch_analytics <> $2",
    )
    .bind(device)
    .bind(i64::from(on))
    .execute(&mut **tx)
    .await?
    .rows_affected();
    Ok(n > 0)
}

// ----- remote cameras -----------------------------------------------------------------

#[derive(Debug, Clone, FromRow)]
pub struct RemoteCamRow {
    pub id: i64,
    pub device_id: i64,
    pub name: String,
    /// Without its login.
    pub url: String,
    pub username: String,
    pub password: String,
    pub created_at: i64,
    pub updated_at: i64,
}

const CAM_COLS: &str = "id, device_id, name, url, username, password, created_at, updated_at";

/// The remote cameras of `device`, by name.
pub async fn remote_cams(db: &Db, device: i64) -> sqlx::Result<Vec<RemoteCamRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {CAM_COLS} FROM remote_cameras WHERE device_id = $1 ORDER BY name"
    )))
    .bind(device)
    .fetch_all(&db.pool)
    .await
}

/// Remote camera `id` (of any device: the caller checks the device).
pub async fn remote_cam(db: &Db, id: i64) -> sqlx::Result<Option<RemoteCamRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {CAM_COLS} FROM remote_cameras WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// A remote camera to keep.
pub struct CamWrite<'a> {
    pub name: &'a str,
    pub url: &'a str,
    pub username: &'a str,
    pub password: &'a str,
}

pub async fn insert_remote_cam(tx: &mut Tx, device: i64, c: &CamWrite<'_>) -> sqlx::Result<i64> {
    let now = now_ms();
    sqlx::query_scalar(
        "INSERT INTO remote_cameras (device_id, name, url, username, password, created_at, \
         updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
    )
    .bind(device)
    .bind(c.name)
    .bind(c.url)
    .bind(c.username)
    .bind(c.password)
    .bind(now)
    .fetch_one(&mut **tx)
    .await
}

pub async fn update_remote_cam(tx: &mut Tx, id: i64, c: &CamWrite<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE remote_cameras SET name = $2, url = $3, username = $4, password = $5, \
         updated_at = $6 WHERE id = $1",
    )
    .bind(id)
    .bind(c.name)
    .bind(c.url)
    .bind(c.username)
    .bind(c.password)
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub async fn delete_remote_cam(tx: &mut Tx, id: i64) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM remote_cameras WHERE id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

// ----- blur regions -------------------------------------------------------------------

#[derive(Debug, Clone, FromRow)]
pub struct BlurRow {
    pub id: i64,
    pub device_id: i64,
    pub camera: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub created_at: i64,
}

const BLUR_COLS: &str = "id, device_id, camera, x, y, width, height, created_at";

/// The blur regions of `device` (of one camera when given), by camera and age.
pub async fn blur_regions(
    db: &Db,
    device: i64,
    camera: Option<&str>,
) -> sqlx::Result<Vec<BlurRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BLUR_COLS} FROM blur_regions WHERE device_id = $1 \
         AND ($2 IS NULL OR camera = $2) ORDER BY camera, id"
    )))
    .bind(device)
    .bind(camera)
    .fetch_all(&db.pool)
    .await
}

/// Blur regions by id (any device: the caller checks each one's device).
pub async fn blur_regions_by_id(db: &Db, ids: &[i64]) -> sqlx::Result<Vec<BlurRow>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {BLUR_COLS} FROM blur_regions WHERE id IN ({}) ORDER BY id",
        super::id_list(ids)
    )))
    .fetch_all(&db.pool)
    .await
}

/// Adds a region (x, y, width, height) to `camera` of `device`.
pub async fn insert_blur(tx: &mut Tx, device: i64, camera: &str, r: [f64; 4]) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO blur_regions (device_id, camera, x, y, width, height, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
    )
    .bind(device)
    .bind(camera)
    .bind(r[0])
    .bind(r[1])
    .bind(r[2])
    .bind(r[3])
    .bind(now_ms())
    .fetch_one(&mut **tx)
    .await
}

/// Deletes the regions of `camera` of `device`.
pub async fn clear_blur(tx: &mut Tx, device: i64, camera: &str) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM blur_regions WHERE device_id = $1 AND camera = $2")
        .bind(device)
        .bind(camera)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Deletes regions by id.
pub async fn delete_blur(tx: &mut Tx, ids: &[i64]) -> sqlx::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DELETE FROM blur_regions WHERE id IN ({})",
        super::id_list(ids)
    )))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

// ----- schedules ----------------------------------------------------------------------

#[derive(Debug, Clone, FromRow)]
pub struct ScheduleRow {
    pub id: i64,
    pub device_id: i64,
    pub camera: String,
    pub task_id: i64,
    /// A JSON list of weekdays.
    pub days: String,
    pub start_time: String,
    pub end_time: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl ScheduleRow {
    pub fn days(&self) -> Vec<u8> {
        serde_json::from_str(&self.days).unwrap_or_default()
    }
}

const SCHEDULE_COLS: &str =
    "id, device_id, camera, task_id, days, start_time, end_time, created_at, updated_at";

/// The schedules of `device`, by camera and start.
pub async fn schedules(db: &Db, device: i64) -> sqlx::Result<Vec<ScheduleRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SCHEDULE_COLS} FROM schedules WHERE device_id = $1 \
         ORDER BY camera, start_time, id"
    )))
    .bind(device)
    .fetch_all(&db.pool)
    .await
}

/// Schedule `id` (of any device: the caller checks the device).
pub async fn schedule(db: &Db, id: i64) -> sqlx::Result<Option<ScheduleRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SCHEDULE_COLS} FROM schedules WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// A schedule to keep.
pub struct ScheduleWrite<'a> {
    pub camera: &'a str,
    pub task: i64,
    pub days: &'a [u8],
    pub start: &'a str,
    pub end: &'a str,
}

pub async fn insert_schedule(tx: &mut Tx, device: i64, s: &ScheduleWrite<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO schedules (device_id, camera, task_id, days, start_time, end_time, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id",
    )
    .bind(device)
    .bind(s.camera)
    .bind(s.task)
    .bind(serde_json::to_string(s.days).expect("days serialise"))
    .bind(s.start)
    .bind(s.end)
    .bind(now_ms())
    .fetch_one(&mut **tx)
    .await
}

pub async fn update_schedule(tx: &mut Tx, id: i64, s: &ScheduleWrite<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE schedules SET camera = $2, task_id = $3, days = $4, start_time = $5, \
         end_time = $6, updated_at = $7 WHERE id = $1",
    )
    .bind(id)
    .bind(s.camera)
    .bind(s.task)
    .bind(serde_json::to_string(s.days).expect("days serialise"))
    .bind(s.start)
    .bind(s.end)
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

pub async fn delete_schedule(tx: &mut Tx, id: i64) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM schedules WHERE id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// [`schedules`] read inside `tx` (after [`bump`] locked the device, so two changes
/// of one device's schedules are checked one after the other).
pub async fn schedules_in(tx: &mut Tx, device: i64) -> sqlx::Result<Vec<ScheduleRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SCHEDULE_COLS} FROM schedules WHERE device_id = $1 \
         ORDER BY camera, start_time, id"
    )))
    .bind(device)
    .fetch_all(&mut **tx)
    .await
}
