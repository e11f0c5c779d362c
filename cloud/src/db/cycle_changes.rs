//! People's changes to stored cycles: a verdict (marked good or bad, with why), archiving
//! (out of every list and figure, kept), restoring, and deleting.
//!
//! Invariants:
//! - Each change runs in one transaction from [`rollups::begin_change`], which holds the
//!   roll-ups' write lock from its start; the cycle is read again inside it, and the
//!   roll-up rows the cycle counted in before and counts in after are made anew from the
//!   stored cycles ([`rollups::rebuild`]) before the commit. So the figures always equal
//!   the raw cycles', and a change either happens whole or not at all.
//! - Every verdict, archive and restore is a row of `cycle_changes` (who, when, why);
//!   deleting a cycle deletes its history with it and leaves its tombstone
//!   (`db::tombstones`), so that a device's replay of it is not stored again.
//! - `org` is the caller's organisation, `None` for the super admin (every one).

use std::collections::BTreeSet;

use chrono::DateTime;
use gemba_shared::api::v1::device::RecentCycle;
use gemba_shared::api::v1::telemetry::{ArchivedCycle, CycleChange, CycleDetails};

use super::cycles::{CYCLE_COLS, CycleRow, to_api};
use super::rollups::{self, Key};
use super::{Db, now_ms};

/// A stored cycle, with its organisation and whether it is archived.
struct Found {
    org: i64,
    archived_at: Option<i64>,
    cycle: RecentCycle,
    /// What its device said of the part (the stored JSON text).
    metadata: String,
}

impl Found {
    /// Its organisation and device, for the device stream's `cycles` event.
    fn station(&self) -> Vec<(i64, i64)> {
        self.cycle
            .device
            .map(|d| (self.org, d))
            .into_iter()
            .collect()
    }

    fn keys(&self) -> [Key; 2] {
        let c = &self.cycle;
        rollups::keys_of(self.org, c.task, c.device, c.start_ms, c.good)
    }
}

/// Reads cycles `ids` (of `org` when given), in the caller's transaction.
async fn find_in(
    conn: &mut sqlx::AnyConnection,
    org: Option<i64>,
    ids: &[String],
) -> sqlx::Result<Vec<Found>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 2)).collect();
    let sql = format!(
        "SELECT organization_id, archived_at, metadata, {CYCLE_COLS} FROM cycles \
         WHERE ($1 IS NULL OR organization_id = $1) AND id IN ({})",
        marks.join(", ")
    );
    let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(org);
    for id in ids {
        q = q.bind(id);
    }
    use sqlx::Row;
    let rows = q.fetch_all(&mut *conn).await?;
    rows.iter()
        .map(|r| {
            let cycle: CycleRow = (
                r.try_get("id")?,
                r.try_get("task_id")?,
                r.try_get("device_id")?,
                r.try_get("camera")?,
                r.try_get("start_ms")?,
                r.try_get("end_ms")?,
                r.try_get("idle_ms")?,
                r.try_get("good")?,
                r.try_get("reasons")?,
                r.try_get("segments")?,
            );
            Ok(Found {
                org: r.try_get("organization_id")?,
                archived_at: r.try_get("archived_at")?,
                cycle: to_api(cycle),
                metadata: r.try_get("metadata")?,
            })
        })
        .collect()
}

async fn record(
    conn: &mut sqlx::AnyConnection,
    f: &Found,
    user: i64,
    at: i64,
    change: &str,
    reason: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO cycle_changes (organization_id, cycle_id, user_id, at_ms, change, reason) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(f.org)
    .bind(&f.cycle.id)
    .bind(user)
    .bind(at)
    .bind(change)
    .bind(reason)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// What became of a change asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done: the (organisation, device) of each cycle changed that still has its device.
    Done(Vec<(i64, i64)>),
    /// No such cycle (of the caller's organisation), or (`ids`) this one.
    Unknown(String),
    /// Archived: a verdict waits until it is restored; archiving it again is refused.
    Archived(String),
    /// Not archived: nothing to restore.
    NotArchived,
    /// It is good (`true`) or bad already.
    Already(bool),
}

/// Marks cycle `id` good or bad for `reason`, as user `user`.
pub async fn set_verdict(
    db: &Db,
    org: Option<i64>,
    user: i64,
    id: &str,
    good: bool,
    reason: &str,
) -> sqlx::Result<Outcome> {
    let mut tx = rollups::begin_change(db).await?;
    let Some(f) = find_in(&mut tx, org, &[id.to_string()]).await?.pop() else {
        return Ok(Outcome::Unknown(id.to_string()));
    };
    if f.archived_at.is_some() {
        return Ok(Outcome::Archived(id.to_string()));
    }
    if f.cycle.good == good {
        return Ok(Outcome::Already(good));
    }
    sqlx::query("UPDATE cycles SET good = $1 WHERE id = $2")
        .bind(i64::from(good))
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let change = if good { "good" } else { "bad" };
    record(&mut tx, &f, user, now_ms(), change, reason).await?;
    let after = rollups::keys_of(f.org, f.cycle.task, f.cycle.device, f.cycle.start_ms, good);
    let keys: BTreeSet<Key> = f.keys().into_iter().chain(after).collect();
    rollups::rebuild(&mut tx, db.backend, &keys).await?;
    tx.commit().await?;
    Ok(Outcome::Done(f.station()))
}

/// Archives cycles `ids` (distinct), all or none: each must be one of `org`'s and not
/// archived already.
pub async fn archive(
    db: &Db,
    org: Option<i64>,
    user: i64,
    ids: &[String],
    reason: &str,
) -> sqlx::Result<Outcome> {
    let mut tx = rollups::begin_change(db).await?;
    let found = find_in(&mut tx, org, ids).await?;
    if let Some(missing) = ids
        .iter()
        .find(|id| !found.iter().any(|f| &f.cycle.id == *id))
    {
        return Ok(Outcome::Unknown(missing.clone()));
    }
    if let Some(f) = found.iter().find(|f| f.archived_at.is_some()) {
        return Ok(Outcome::Archived(f.cycle.id.clone()));
    }
    let now = now_ms();
    let mut keys = BTreeSet::new();
    for f in &found {
        sqlx::query("UPDATE cycles SET archived_at = $1, archived_by = $2 WHERE id = $3")
            .bind(now)
            .bind(user)
            .bind(&f.cycle.id)
            .execute(&mut *tx)
            .await?;
        record(&mut tx, f, user, now, "archived", reason).await?;
        keys.extend(f.keys());
    }
    rollups::rebuild(&mut tx, db.backend, &keys).await?;
    tx.commit().await?;
    Ok(Outcome::Done(
        found.iter().flat_map(Found::station).collect(),
    ))
}

/// Brings archived cycle `id` back into the lists and figures.
pub async fn restore(db: &Db, org: Option<i64>, user: i64, id: &str) -> sqlx::Result<Outcome> {
    let mut tx = rollups::begin_change(db).await?;
    let Some(f) = find_in(&mut tx, org, &[id.to_string()]).await?.pop() else {
        return Ok(Outcome::Unknown(id.to_string()));
    };
    if f.archived_at.is_none() {
        return Ok(Outcome::NotArchived);
    }
    sqlx::query("UPDATE cycles SET archived_at = NULL, archived_by = NULL WHERE id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    record(&mut tx, &f, user, now_ms(), "restored", "").await?;
    rollups::rebuild(&mut tx, db.backend, &f.keys().into_iter().collect()).await?;
    tx.commit().await?;
    Ok(Outcome::Done(f.station()))
}

/// Deletes cycle `id`, archived or not, and its history, for good.
pub async fn delete(db: &Db, org: Option<i64>, id: &str) -> sqlx::Result<Outcome> {
    let mut tx = rollups::begin_change(db).await?;
    let Some(f) = find_in(&mut tx, org, &[id.to_string()]).await?.pop() else {
        return Ok(Outcome::Unknown(id.to_string()));
    };
    for sql in [
        "DELETE FROM cycles WHERE id = $1",
        "DELETE FROM cycle_changes WHERE cycle_id = $1",
    ] {
        sqlx::query(sql).bind(id).execute(&mut *tx).await?;
    }
    // Its replay is refused from now on, not stored again.
    super::tombstones::leave(&mut tx, id, f.org, f.cycle.device).await?;
    if f.archived_at.is_none() {
        rollups::rebuild(&mut tx, db.backend, &f.keys().into_iter().collect()).await?;
    }
    tx.commit().await?;
    Ok(Outcome::Done(f.station()))
}

/// Cycle `id` (of `org` when given), archived or not, with its history and its
/// station's neighbouring cycles (the names are the caller's to fill).
pub async fn details(db: &Db, org: Option<i64>, id: &str) -> sqlx::Result<Option<CycleDetails>> {
    let mut conn = db.pool.acquire().await?;
    let Some(f) = find_in(&mut conn, org, &[id.to_string()]).await?.pop() else {
        return Ok(None);
    };
    let history: Vec<(i64, i64, String, String, Option<String>)> = sqlx::query_as(
        "SELECT h.id, h.at_ms, h.change, h.reason, u.email FROM cycle_changes h \
         LEFT JOIN users u ON u.id = h.user_id WHERE h.cycle_id = $1 AND h.organization_id = $2 \
         ORDER BY h.at_ms, h.id",
    )
    .bind(id)
    .bind(f.org)
    .fetch_all(&mut *conn)
    .await?;
    // The station's neighbours, by start (ties by id), not archived.
    let mut near = [None, None];
    if let Some(device) = f.cycle.device {
        for (k, (cond, order)) in [
            (
                "start_ms < $4 OR (start_ms = $4 AND id < $5)",
                "start_ms DESC, id DESC",
            ),
            (
                "start_ms > $4 OR (start_ms = $4 AND id > $5)",
                "start_ms, id",
            ),
        ]
        .into_iter()
        .enumerate()
        {
            near[k] = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT id FROM cycles WHERE organization_id = $1 AND task_id = $2 \
                 AND device_id = $3 AND archived_at IS NULL AND ({cond}) ORDER BY {order} \
                 LIMIT 1"
            )))
            .bind(f.org)
            .bind(f.cycle.task)
            .bind(device)
            .bind(f.cycle.start_ms)
            .bind(&f.cycle.id)
            .fetch_optional(&mut *conn)
            .await?;
        }
    }
    let [previous, next] = near;
    Ok(Some(CycleDetails {
        cycle: f.cycle,
        task_name: None,
        steps: vec![],
        device_name: None,
        previous,
        next,
        metadata: serde_json::from_str(&f.metadata).unwrap_or_default(),
        clip: None,
        archived_at_ms: f.archived_at,
        history: history
            .into_iter()
            .map(|(id, at_ms, change, reason, by)| CycleChange {
                id,
                at_ms,
                change,
                reason,
                by,
            })
            .collect(),
    }))
}

type ArchivedRow = (
    String,
    i64,
    Option<String>,
    i64,
    Option<String>,
    Option<i64>,
    Option<String>,
    i64,
    i64,
    i64,
    i64,
    Option<String>,
    Option<String>,
);

fn rfc3339(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// Archived cycles (of `org` when given), the most recently archived first: a page and
/// how many there are.
pub async fn archived(
    db: &Db,
    org: Option<i64>,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<ArchivedCycle>, i64)> {
    let rows: Vec<ArchivedRow> = sqlx::query_as(
        "SELECT c.id, c.organization_id, o.org_name_to_display, c.task_id, t.task_name, \
         c.device_id, d.display_name, c.start_ms, c.end_ms, c.good, c.archived_at, u.email, \
         (SELECT h.reason FROM cycle_changes h WHERE h.cycle_id = c.id \
          AND h.change = 'archived' ORDER BY h.at_ms DESC, h.id DESC LIMIT 1) \
         FROM cycles c LEFT JOIN organizations o ON o.id = c.organization_id \
         LEFT JOIN tasks t ON t.id = c.task_id LEFT JOIN devices d ON d.id = c.device_id \
         LEFT JOIN users u ON u.id = c.archived_by \
         WHERE c.archived_at IS NOT NULL AND ($1 IS NULL OR c.organization_id = $1) \
         ORDER BY c.archived_at DESC, c.id LIMIT $2 OFFSET $3",
    )
    .bind(org)
    .bind(limit)
    .bind(offset)
    .fetch_all(&db.pool)
    .await?;
    let count: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM cycles WHERE archived_at IS NOT NULL \
         AND ($1 IS NULL OR organization_id = $1)",
    )
    .bind(org)
    .fetch_one(&db.pool)
    .await?;
    let results = rows
        .into_iter()
        .map(
            |(
                id,
                organization,
                org_name,
                task,
                task_name,
                device,
                device_name,
                s,
                e,
                good,
                at,
                by,
                reason,
            )| {
                ArchivedCycle {
                    id,
                    organization,
                    organization_name: org_name,
                    task,
                    task_name,
                    device,
                    device_name,
                    start_datetime: rfc3339(s),
                    end_datetime: rfc3339(e),
                    good: good != 0,
                    archived_at_ms: at,
                    archived_by: by,
                    reason: reason.unwrap_or_default(),
                }
            },
        )
        .collect();
    Ok((results, count))
}
