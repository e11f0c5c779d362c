//! Production lines: an organisation's ordered stations (a task on a device each) and a
//! takt time. The stations are one JSON list, checked by the caller before it is
//! written (each task and device the organisation's, each station once); a station
//! whose task or device is later deleted stays, unnamed. The name is unique in the
//! organisation, case-folded (`live_name`).

use gemba_shared::api::v1::line::Station;

use super::{Db, now_ms};

/// A stored line.
#[derive(Debug, Clone)]
pub struct LineRow {
    pub id: i64,
    pub org: i64,
    pub name: String,
    pub takt_ms: Option<i64>,
    pub stations: Vec<Station>,
    pub created_at: i64,
    pub updated_at: i64,
}

type Raw = (i64, i64, String, Option<i64>, String, i64, i64);

const COLS: &str = "id, organization_id, name, takt_ms, stations, created_at, updated_at";

fn row((id, org, name, takt_ms, stations, created_at, updated_at): Raw) -> LineRow {
    LineRow {
        id,
        org,
        name,
        takt_ms,
        // Written by `create`/`update` from checked stations.
        stations: serde_json::from_str(&stations).unwrap_or_default(),
        created_at,
        updated_at,
    }
}

/// The organisation's lines, by name.
pub async fn list(db: &Db, org: i64) -> sqlx::Result<Vec<LineRow>> {
    let rows: Vec<Raw> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM lines WHERE organization_id = $1 ORDER BY live_name, id"
    )))
    .bind(org)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(row).collect())
}

/// Line `id` of `org`.
pub async fn get(db: &Db, org: i64, id: i64) -> sqlx::Result<Option<LineRow>> {
    let r: Option<Raw> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM lines WHERE id = $1 AND organization_id = $2"
    )))
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await?;
    Ok(r.map(row))
}

fn stations_json(s: &[Station]) -> String {
    serde_json::to_string(s).expect("stations serialise")
}

/// A new line of `org`; its id. A name taken already is a unique violation.
pub async fn create(
    db: &Db,
    org: i64,
    name: &str,
    takt_ms: Option<i64>,
    stations: &[Station],
) -> sqlx::Result<i64> {
    let now = now_ms();
    sqlx::query_scalar(
        "INSERT INTO lines (organization_id, name, live_name, takt_ms, stations, created_at, \
         updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
    )
    .bind(org)
    .bind(name)
    .bind(name.to_lowercase())
    .bind(takt_ms)
    .bind(stations_json(stations))
    .bind(now)
    .fetch_one(&db.pool)
    .await
}

/// Writes line `l` as it is now (name, takt, stations).
pub async fn update(db: &Db, l: &LineRow) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE lines SET name = $1, live_name = $2, takt_ms = $3, stations = $4, \
         updated_at = $5 WHERE id = $6 AND organization_id = $7",
    )
    .bind(&l.name)
    .bind(l.name.to_lowercase())
    .bind(l.takt_ms)
    .bind(stations_json(&l.stations))
    .bind(now_ms())
    .bind(l.id)
    .bind(l.org)
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Deletes line `id` of `org`; whether there was one.
pub async fn delete(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM lines WHERE id = $1 AND organization_id = $2")
        .bind(id)
        .bind(org)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// For tracing a part by time along a line: station `s`'s first cycle (not archived)
/// starting at or after `at` (`after`), or its last one ending at or before `at`.
/// Station `s`'s cycle whose metadata matches `patterns` ([`super::cycles::metadata_patterns`]),
/// the one starting nearest to `at` (unix ms).
pub async fn nearest_with(
    db: &Db,
    org: i64,
    s: Station,
    patterns: &(String, String),
    at: i64,
) -> sqlx::Result<Option<super::cycles::CycleRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {} FROM cycles WHERE organization_id = $1 AND task_id = $2 AND device_id = $3 \
         AND archived_at IS NULL AND (metadata LIKE $4 ESCAPE '\\' OR metadata LIKE $5 ESCAPE '\\') \
         ORDER BY ABS(start_ms - $6), id LIMIT 1",
        super::cycles::CYCLE_COLS
    )))
    .bind(org)
    .bind(s.task)
    .bind(s.device)
    .bind(&patterns.0)
    .bind(&patterns.1)
    .bind(at)
    .fetch_optional(&db.pool)
    .await
}

pub async fn neighbour(
    db: &Db,
    org: i64,
    s: Station,
    at: i64,
    after: bool,
) -> sqlx::Result<Option<super::cycles::CycleRow>> {
    let sql = if after {
        "start_ms >= $4 ORDER BY start_ms, id"
    } else {
        // By start, so that the (organisation, task, start) index is read backwards.
        "start_ms <= $4 AND end_ms <= $4 ORDER BY start_ms DESC, id DESC"
    };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {} FROM cycles WHERE organization_id = $1 AND task_id = $2 AND device_id = $3 \
         AND archived_at IS NULL AND {sql} LIMIT 1",
        super::cycles::CYCLE_COLS
    )))
    .bind(org)
    .bind(s.task)
    .bind(s.device)
    .bind(at)
    .fetch_optional(&db.pool)
    .await
}
