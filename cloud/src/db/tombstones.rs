//! Tombstones of deleted cycles (issue 28): a cycle a person deleted leaves its id (with
//! its organisation, device and when), so that a device replaying it (its
//! acknowledgement lost in the seconds before, or a captured message sent again) is
//! refused and acknowledged `refused` instead of being stored again
//! (`db::cycles::insert_cycles`). Written in the delete's transaction
//! (`db::cycle_changes::delete`); deleted after [`KEEP_DAYS`].

use super::{Backend, Db, now_ms};

/// Days a tombstone is kept: longer than any outbox holds a cycle. An agent keeps a
/// cycle until the cloud acknowledges it, so a device switched off for months may
/// still send one; 400 days cover a station stored away for over a year.
pub const KEEP_DAYS: i64 = 400;

/// Leaves the tombstone of cycle `id` of `org` (from `device`), in `tx`.
pub async fn leave(
    tx: &mut sqlx::AnyConnection,
    id: &str,
    org: i64,
    device: Option<i64>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO cycle_tombstones (cycle_id, organization_id, device_id, deleted_at) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (cycle_id) DO NOTHING",
    )
    .bind(id)
    .bind(org)
    .bind(device)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Which of `ids` have a tombstone.
pub async fn of(db: &Db, ids: &[&str]) -> sqlx::Result<Vec<String>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    // One JSON parameter, whatever the batch's size.
    let sql = match db.backend {
        Backend::Sqlite => {
            "SELECT cycle_id FROM cycle_tombstones \
             WHERE cycle_id IN (SELECT value FROM json_each($1))"
        }
        Backend::Postgres => {
            "SELECT cycle_id FROM cycle_tombstones \
             WHERE cycle_id IN (SELECT json_array_elements_text($1::json))"
        }
    };
    sqlx::query_scalar(sql)
        .bind(serde_json::to_string(ids).expect("ids serialise"))
        .fetch_all(&db.pool)
        .await
}

/// Deletes the tombstones older than [`KEEP_DAYS`]; answers how many.
pub async fn prune(db: &Db) -> sqlx::Result<u64> {
    let r = sqlx::query("DELETE FROM cycle_tombstones WHERE deleted_at < $1")
        .bind(now_ms() - KEEP_DAYS * 86_400_000)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected())
}
