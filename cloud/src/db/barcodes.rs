//! Barcodes and their tasks (`barcodes`, `barcode_tasks`; spec section 7 "Barcodes").
//!
//! Invariant: every write that changes what a device's configuration carries (an
//! association made, moved or removed, the value or the deletion of an associated
//! barcode) bumps the configuration version of every device of the organisation in
//! the same transaction, and answers those devices, which the caller then sends their
//! configuration (`crate::device_config::send_all`).

use gemba_shared::api::v1::barcode::{AssociatedBarcode, Barcode, BarcodeTask};
use sqlx::FromRow;

use super::device_config::Tx;
use super::{Db, now_ms};

#[derive(FromRow)]
struct Row {
    id: i64,
    organization_id: i64,
    barcode_value: String,
    association: Option<i64>,
    task_id: Option<i64>,
    task_name: Option<String>,
}

const SELECT: &str = "SELECT b.id, b.organization_id, b.barcode_value, a.id AS association, \
     a.task_id, t.task_name \
     FROM barcodes b LEFT JOIN barcode_tasks a ON a.barcode_id = b.id \
     LEFT JOIN tasks t ON t.id = a.task_id";

fn gather(rows: Vec<Row>) -> Vec<Barcode> {
    let mut out: Vec<Barcode> = vec![];
    for r in rows {
        if out.last().is_none_or(|b| b.id != r.id) {
            out.push(Barcode {
                id: r.id,
                barcode_value: r.barcode_value,
                organization: r.organization_id,
                tasks: vec![],
            });
        }
        if let (Some(id), Some(task), Some(task_name)) = (r.association, r.task_id, r.task_name)
            && let Some(b) = out.last_mut()
        {
            b.tasks.push(BarcodeTask {
                id,
                task,
                task_name,
            });
        }
    }
    out
}

/// Organisation `org`'s barcodes, oldest first, with their tasks.
pub async fn list(db: &Db, org: i64) -> sqlx::Result<Vec<Barcode>> {
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE b.organization_id = $1 ORDER BY b.id, a.id"
    )))
    .bind(org)
    .fetch_all(&db.pool)
    .await?;
    Ok(gather(rows))
}

/// One barcode, with its tasks.
pub async fn get(db: &Db, id: i64) -> sqlx::Result<Option<Barcode>> {
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE b.id = $1 ORDER BY a.id"
    )))
    .bind(id)
    .fetch_all(&db.pool)
    .await?;
    Ok(gather(rows).pop())
}

pub async fn count(db: &Db, org: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar("SELECT COUNT(*) FROM barcodes WHERE organization_id = $1")
        .bind(org)
        .fetch_one(&db.pool)
        .await
}

/// A new barcode of `org`; a value the organisation has is a unique violation.
pub async fn insert(db: &Db, org: i64, value: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO barcodes (organization_id, barcode_value, created_at) \
         VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(org)
    .bind(value)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// Raises the configuration version of every device of `org`; answers their ids.
async fn bump_org(tx: &mut Tx, org: i64) -> sqlx::Result<Vec<i64>> {
    sqlx::query_scalar(
        "UPDATE devices SET config_version = config_version + 1 WHERE organization_id = $1 \
         RETURNING id",
    )
    .bind(org)
    .fetch_all(&mut **tx)
    .await
}

/// The end of a change to one of `org`'s barcodes or associations that touched `rows`
/// rows: `None` when it matched none (rolled back); else committed, with the devices
/// whose configuration changed (every device of `org` when `devices_change`).
async fn finish(
    mut tx: Tx,
    org: i64,
    rows: u64,
    devices_change: bool,
) -> sqlx::Result<Option<Vec<i64>>> {
    if rows == 0 {
        return Ok(None);
    }
    let devices = if devices_change {
        bump_org(&mut tx, org).await?
    } else {
        vec![]
    };
    tx.commit().await?;
    Ok(Some(devices))
}

async fn is_associated(tx: &mut Tx, barcode: i64) -> sqlx::Result<bool> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM barcode_tasks WHERE barcode_id = $1")
        .bind(barcode)
        .fetch_one(&mut **tx)
        .await?;
    Ok(n > 0)
}

/// Sets barcode `id` (of `org`)'s value; answers the devices to send their
/// configuration (none when the barcode starts no task). `None`: it is gone.
pub async fn set_value(db: &Db, org: i64, id: i64, value: &str) -> sqlx::Result<Option<Vec<i64>>> {
    let mut tx = db.begin_write().await?;
    let n = sqlx::query("UPDATE barcodes SET barcode_value = $1 WHERE id = $2")
        .bind(value)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    let associated = is_associated(&mut tx, id).await?;
    finish(tx, org, n, associated).await
}

/// Deletes barcode `id` (of `org`) with its association; as [`set_value`].
pub async fn delete(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<Vec<i64>>> {
    let mut tx = db.begin_write().await?;
    let associated = is_associated(&mut tx, id).await?;
    sqlx::query("DELETE FROM barcode_tasks WHERE barcode_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let n = sqlx::query("DELETE FROM barcodes WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    finish(tx, org, n, associated).await
}

// ----- associations ---------------------------------------------------------------------

#[derive(FromRow)]
struct AssociationRow {
    id: i64,
    task_id: i64,
    barcode_value: String,
    barcode_id: i64,
    organization_id: i64,
}

impl AssociationRow {
    fn into_api(self) -> (i64, AssociatedBarcode) {
        (
            self.organization_id,
            AssociatedBarcode {
                id: self.id,
                task: self.task_id,
                barcode: self.barcode_value,
                barcode_id: self.barcode_id,
            },
        )
    }
}

const A_SELECT: &str = "SELECT a.id, a.task_id, b.barcode_value, a.barcode_id, b.organization_id \
     FROM barcode_tasks a JOIN barcodes b ON b.id = a.barcode_id";

/// Task `task`'s barcodes, oldest association first.
pub async fn of_task(db: &Db, task: i64) -> sqlx::Result<Vec<AssociatedBarcode>> {
    let rows: Vec<AssociationRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{A_SELECT} WHERE a.task_id = $1 ORDER BY a.id"
    )))
    .bind(task)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(|r| r.into_api().1).collect())
}

/// One association and its organisation.
pub async fn association(db: &Db, id: i64) -> sqlx::Result<Option<(i64, AssociatedBarcode)>> {
    let row: Option<AssociationRow> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("{A_SELECT} WHERE a.id = $1")))
            .bind(id)
            .fetch_optional(&db.pool)
            .await?;
    Ok(row.map(AssociationRow::into_api))
}

/// The association of barcode `barcode`, if it has one.
pub async fn association_of(db: &Db, barcode: i64) -> sqlx::Result<Option<(i64, i64)>> {
    sqlx::query_as("SELECT id, task_id FROM barcode_tasks WHERE barcode_id = $1")
        .bind(barcode)
        .fetch_optional(&db.pool)
        .await
}

/// How many of `org`'s barcodes are associated with a task.
pub async fn associated_count(db: &Db, org: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM barcode_tasks a JOIN barcodes b ON b.id = a.barcode_id \
         WHERE b.organization_id = $1",
    )
    .bind(org)
    .fetch_one(&db.pool)
    .await
}

/// Associates `barcode` (of `org`) with `task`; a barcode already associated is a
/// unique violation. Answers the association's id and the devices to send.
pub async fn associate(
    db: &Db,
    org: i64,
    task: i64,
    barcode: i64,
) -> sqlx::Result<(i64, Vec<i64>)> {
    let mut tx = db.begin_write().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO barcode_tasks (barcode_id, task_id, created_at) VALUES ($1, $2, $3) \
         RETURNING id",
    )
    .bind(barcode)
    .bind(task)
    .bind(now_ms())
    .fetch_one(&mut *tx)
    .await?;
    let devices = bump_org(&mut tx, org).await?;
    tx.commit().await?;
    Ok((id, devices))
}

/// Moves association `id` (of `org`) to `task` and `barcode`; as [`set_value`].
pub async fn reassociate(
    db: &Db,
    org: i64,
    id: i64,
    task: i64,
    barcode: i64,
) -> sqlx::Result<Option<Vec<i64>>> {
    let mut tx = db.begin_write().await?;
    let n = sqlx::query("UPDATE barcode_tasks SET task_id = $1, barcode_id = $2 WHERE id = $3")
        .bind(task)
        .bind(barcode)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    finish(tx, org, n, true).await
}

/// Removes association `id` (of `org`); as [`set_value`].
pub async fn dissociate(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<Vec<i64>>> {
    let mut tx = db.begin_write().await?;
    let n = sqlx::query("DELETE FROM barcode_tasks WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    finish(tx, org, n, true).await
}

/// `org`'s associated barcodes for its devices' configuration: (value, task), oldest
/// association first.
pub async fn task_barcodes(db: &Db, org: i64) -> sqlx::Result<Vec<(String, i64)>> {
    sqlx::query_as(
        "SELECT b.barcode_value, a.task_id FROM barcode_tasks a \
         JOIN barcodes b ON b.id = a.barcode_id WHERE b.organization_id = $1 ORDER BY a.id",
    )
    .bind(org)
    .fetch_all(&db.pool)
    .await
}
