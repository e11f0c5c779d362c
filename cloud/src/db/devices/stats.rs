//! What devices did: a device's recent cycles, and counts over an organisation's devices.

use gemba_shared::api::v1::device::{DeviceStats, RecentCycle};

use crate::db::Db;

/// Device `device`'s latest `limit` cycles, newest first.
pub async fn recent_cycles(db: &Db, device: i64, limit: i64) -> sqlx::Result<Vec<RecentCycle>> {
    let rows: Vec<crate::db::cycles::CycleRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {} FROM cycles WHERE device_id = $1 AND archived_at IS NULL \
         ORDER BY start_ms DESC, id LIMIT $2",
        crate::db::cycles::CYCLE_COLS
    )))
    .bind(device)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(crate::db::cycles::to_api).collect())
}

/// Counts of organisation `org`'s devices, and of its cycles received since `since`.
pub async fn stats(db: &Db, org: i64, since: i64) -> sqlx::Result<DeviceStats> {
    let count = |cond: &str| {
        format!("CAST(COALESCE(SUM(CASE WHEN {cond} THEN 1 ELSE 0 END), 0) AS BIGINT)")
    };
    let (total, online, archived, enrolled): (i64, i64, i64, i64) =
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {}, {}, {}, {} FROM devices WHERE organization_id = $1",
            count("archived = 0"),
            count("archived = 0 AND online = 1"),
            count("archived = 1"),
            count("archived = 0 AND credential_key IS NOT NULL"),
        )))
        .bind(org)
        .fetch_one(&db.pool)
        .await?;
    let running_tasks: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM device_tasks dt JOIN devices d ON d.id = dt.device_id \
         WHERE d.organization_id = $1 AND d.archived = 0 AND dt.running = 1",
    )
    .bind(org)
    .fetch_one(&db.pool)
    .await?;
    let cycles_24h: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM cycles WHERE organization_id = $1 AND received_at >= $2 \
         AND archived_at IS NULL",
    )
    .bind(org)
    .bind(since)
    .fetch_one(&db.pool)
    .await?;
    Ok(DeviceStats {
        total,
        online,
        offline: total - online,
        archived,
        enrolled,
        running_tasks,
        cycles_24h,
    })
}
