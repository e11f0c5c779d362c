//! Agent releases and their roll-outs (issue 30): `releases` (one binary of one target in
//! an environment, its state and latest roll-out's times) and `release_devices` (each
//! device of a roll-out: wave, progress, the command last sent). The platform's, not an
//! organisation's: only the super admin reaches them, and a roll-out spans every
//! organisation's devices that follow its environment.
//!
//! Changes that more than one replica or status may race on are conditional updates
//! (a state it must still be in, the command it replaces), so each happens once.
//!
//! Past 600 lines because it is one job: the two tables' queries, whose conditional
//! updates read each other's conditions (a roll-out's state and its devices' sends);
//! apart, a change to one condition would have to be mirrored in a second file.

use gemba_shared::api::v1::release::{Instance, Release, ReleaseDevice, state};
use gemba_shared::mqtt::v1::UpdateState;
use sqlx::FromRow;

use super::{Db, Flag, contains_pattern, now_ms};
use crate::rollout::Member;

/// A release as stored.
#[derive(Debug, Clone, FromRow)]
pub struct ReleaseRow {
    pub id: i64,
    pub environment: String,
    pub branch: String,
    pub version: String,
    pub target: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub signature: String,
    pub object_key: String,
    pub uploaded_at: i64,
    pub entered_at: i64,
    pub state: String,
    pub reason: Option<String>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub devices_total: i64,
    pub devices_done: i64,
    pub devices_failed: i64,
}

impl ReleaseRow {
    pub fn into_api(self) -> Release {
        Release {
            id: self.id,
            running_environment: self.environment,
            branch: self.branch,
            version_number: self.version,
            target: self.target,
            size_bytes: self.size_bytes,
            sha256: self.sha256,
            signature: self.signature,
            uploaded_at: self.uploaded_at,
            start_time: self.start_time,
            end_time: self.end_time,
            current_state: self.state,
            reason: self.reason,
            devices_total: self.devices_total,
            devices_done: self.devices_done,
            devices_failed: self.devices_failed,
        }
    }
}

const COLS: &str = "r.id, r.environment, r.branch, r.version, r.target, r.size_bytes, r.sha256, \
     r.signature, r.object_key, r.uploaded_at, r.entered_at, r.state, r.reason, r.start_time, \
     r.end_time, \
     (SELECT COUNT(*) FROM release_devices m WHERE m.release_id = r.id) AS devices_total, \
     (SELECT COUNT(*) FROM release_devices m WHERE m.release_id = r.id AND m.state = 'done') \
     AS devices_done, \
     (SELECT COUNT(*) FROM release_devices m WHERE m.release_id = r.id \
     AND m.state IN ('failed', 'rolled_back')) AS devices_failed";

/// A release to store.
pub struct NewRelease<'a> {
    pub environment: &'a str,
    pub branch: &'a str,
    pub version: &'a str,
    pub target: &'a str,
    pub size_bytes: i64,
    pub sha256: &'a str,
    pub signature: &'a str,
    pub object_key: &'a str,
    pub by: i64,
}

/// Stores a release (state `uploaded`); a version already uploaded for its target is a
/// unique violation.
pub async fn insert(db: &Db, r: &NewRelease<'_>) -> sqlx::Result<i64> {
    let now = now_ms();
    sqlx::query_scalar(
        "INSERT INTO releases (environment, branch, version, target, size_bytes, sha256, \
         signature, object_key, uploaded_by, uploaded_at, entered_at, state) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11) RETURNING id",
    )
    .bind(r.environment)
    .bind(r.branch)
    .bind(r.version)
    .bind(r.target)
    .bind(r.size_bytes)
    .bind(r.sha256)
    .bind(r.signature)
    .bind(r.object_key)
    .bind(r.by)
    .bind(now)
    .bind(state::UPLOADED)
    .fetch_one(&db.pool)
    .await
}

pub async fn get(db: &Db, id: i64) -> sqlx::Result<Option<ReleaseRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM releases r WHERE r.id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

/// Whether `version` of `target` was uploaded.
pub async fn exists(db: &Db, target: &str, version: &str) -> sqlx::Result<bool> {
    let n: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM releases WHERE target = $1 AND version = $2")
            .bind(target)
            .bind(version)
            .fetch_one(&db.pool)
            .await?;
    Ok(n > 0)
}

/// A page of releases, newest upload first, and how many there are.
pub async fn page(db: &Db, offset: i64, limit: i64) -> sqlx::Result<(Vec<ReleaseRow>, i64)> {
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM releases r ORDER BY r.uploaded_at DESC, r.id DESC \
         LIMIT {limit} OFFSET {offset}"
    )))
    .fetch_all(&db.pool)
    .await?;
    let count = sqlx::query_scalar("SELECT COUNT(*) FROM releases")
        .fetch_one(&db.pool)
        .await?;
    Ok((rows, count))
}

/// The releases of `version` (one per target).
pub async fn of_version(db: &Db, version: &str) -> sqlx::Result<Vec<ReleaseRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM releases r WHERE r.version = $1 ORDER BY r.target"
    )))
    .bind(version)
    .fetch_all(&db.pool)
    .await
}

/// The release of `environment`, `branch` and `target`: of `version`, or the newest of
/// the branch there (`version` `None`).
pub async fn find(
    db: &Db,
    environment: &str,
    branch: &str,
    target: &str,
    version: Option<&str>,
) -> sqlx::Result<Option<ReleaseRow>> {
    let by_version = if version.is_some() {
        "AND r.version = $4"
    } else {
        ""
    };
    let mut q = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM releases r WHERE r.environment = $1 AND r.branch = $2 \
         AND r.target = $3 {by_version} ORDER BY r.entered_at DESC, r.id DESC LIMIT 1"
    )))
    .bind(environment)
    .bind(branch)
    .bind(target);
    if let Some(v) = version {
        q = q.bind(v);
    }
    q.fetch_optional(&db.pool).await
}

/// The newest release of each branch, environment and target.
pub async fn latest_of_branches(db: &Db) -> sqlx::Result<Vec<ReleaseRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM releases r WHERE NOT EXISTS (SELECT 1 FROM releases n \
         WHERE n.branch = r.branch AND n.environment = r.environment AND n.target = r.target \
         AND (n.entered_at > r.entered_at OR (n.entered_at = r.entered_at AND n.id > r.id))) \
         ORDER BY r.branch, r.environment, r.target"
    )))
    .fetch_all(&db.pool)
    .await
}

/// The release devices of `channel` running `target` are to be brought to: the newest
/// to enter that environment that is not superseded.
pub async fn newest(db: &Db, channel: &str, target: &str) -> sqlx::Result<Option<ReleaseRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM releases r WHERE r.environment = $1 AND r.target = $2 \
         AND r.state <> 'superseded' ORDER BY r.entered_at DESC, r.id DESC LIMIT 1"
    )))
    .bind(channel)
    .bind(target)
    .fetch_optional(&db.pool)
    .await
}

/// Release `id` enters `environment` now: it becomes the environment's newest for its
/// target, the older ones of that environment and target not yet deployed become
/// superseded, and its roll-out begins over `members` (device, wave) in state
/// `entering` (`crate::rollout::entering`). One transaction.
pub async fn enter(
    db: &Db,
    id: i64,
    environment: &str,
    target: &str,
    members: &[(i64, i32)],
    entering: &str,
) -> sqlx::Result<()> {
    let now = now_ms();
    let mut tx = db.begin_write().await?;
    sqlx::query(
        "UPDATE releases SET state = 'superseded', end_time = COALESCE(end_time, $4) \
         WHERE environment = $1 AND target = $2 AND id <> $3 \
         AND state IN ('uploaded', 'rolling_out', 'stopped')",
    )
    .bind(environment)
    .bind(target)
    .bind(id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let start = (entering == state::ROLLING_OUT).then_some(now);
    sqlx::query(
        "UPDATE releases SET environment = $2, entered_at = $3, state = $4, reason = NULL, \
         start_time = $5, end_time = NULL WHERE id = $1",
    )
    .bind(id)
    .bind(environment)
    .bind(now)
    .bind(entering)
    .bind(start)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM release_devices WHERE release_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await?;
    for (device, wave) in members {
        sqlx::query(
            "INSERT INTO release_devices (release_id, device_id, wave, state, updated_at) \
             VALUES ($1, $2, $3, 'pending', $4)",
        )
        .bind(id)
        .bind(device)
        .bind(i64::from(*wave))
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await
}

/// Adds `device` to the roll-out of `release` in `wave` (a device that joined its
/// environment later); a release not yet rolling out begins to. False when it was a
/// member already.
pub async fn join(db: &Db, release: i64, device: i64, wave: i32) -> sqlx::Result<bool> {
    let now = now_ms();
    let n = sqlx::query(
        "INSERT INTO release_devices (release_id, device_id, wave, state, updated_at) \
         VALUES ($1, $2, $3, 'pending', $4) ON CONFLICT (release_id, device_id) DO NOTHING",
    )
    .bind(release)
    .bind(device)
    .bind(i64::from(wave))
    .bind(now)
    .execute(&db.pool)
    .await?
    .rows_affected();
    if n == 1 {
        // Uploaded with no device yet, or deployed before this one came: under way.
        sqlx::query(
            "UPDATE releases SET state = 'rolling_out', start_time = COALESCE(start_time, $2), \
             end_time = NULL WHERE id = $1 AND state IN ('uploaded', 'deployed')",
        )
        .bind(release)
        .bind(now)
        .execute(&db.pool)
        .await?;
    }
    Ok(n == 1)
}

/// Removes `device` from the roll-out of `release` unless it is done with it (it left
/// the environment, or its agent can no longer update itself).
pub async fn leave(db: &Db, release: i64, device: i64) -> sqlx::Result<()> {
    sqlx::query(
        "DELETE FROM release_devices WHERE release_id = $1 AND device_id = $2 \
         AND state <> 'done'",
    )
    .bind(release)
    .bind(device)
    .execute(&db.pool)
    .await?;
    Ok(())
}

#[derive(FromRow)]
struct MemberRow {
    device_id: i64,
    display_name: String,
    organization_id: i64,
    wave: i64,
    state: String,
    detail: Option<String>,
    sent_at: Option<i64>,
    #[sqlx(try_from = "Flag")]
    acked: bool,
    #[sqlx(try_from = "Flag")]
    online: bool,
    status: Option<String>,
    updated_at: i64,
}

impl MemberRow {
    fn member(&self) -> Member {
        Member {
            device: self.device_id,
            name: self.display_name.clone(),
            wave: self.wave as i32,
            state: UpdateState::parse(&self.state).unwrap_or(UpdateState::Pending),
            detail: self.detail.clone(),
            sent_at: self.sent_at,
            acked: self.acked,
            online: self.online,
        }
    }
}

const MEMBER_COLS: &str = "m.device_id, d.display_name, d.organization_id, m.wave, m.state, \
     m.detail, m.sent_at, m.acked, d.online, d.status, m.updated_at";

/// The devices of release `release`'s roll-out, in wave and id order.
pub async fn members(db: &Db, release: i64) -> sqlx::Result<Vec<Member>> {
    let rows: Vec<MemberRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {MEMBER_COLS} FROM release_devices m JOIN devices d ON d.id = m.device_id \
         WHERE m.release_id = $1 ORDER BY m.wave, m.device_id"
    )))
    .bind(release)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.iter().map(MemberRow::member).collect())
}

/// [`members`] as the API answers them (`ReleaseDevice`).
pub async fn devices_of(db: &Db, release: i64) -> sqlx::Result<Vec<ReleaseDevice>> {
    let rows: Vec<MemberRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {MEMBER_COLS} FROM release_devices m JOIN devices d ON d.id = m.device_id \
         WHERE m.release_id = $1 ORDER BY m.wave, m.device_id"
    )))
    .bind(release)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let m = r.member();
            ReleaseDevice {
                device: r.device_id,
                display_name: r.display_name,
                organization: r.organization_id,
                wave: m.wave,
                state: m.state,
                detail: m.detail,
                agent_version: super::devices::parse_status(r.status.as_deref())
                    .map(|s| s.agent_version)
                    .unwrap_or_default(),
                updated_at: r.updated_at,
            }
        })
        .collect())
}

/// One member of a roll-out.
pub async fn member(db: &Db, release: i64, device: i64) -> sqlx::Result<Option<Member>> {
    let row: Option<MemberRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {MEMBER_COLS} FROM release_devices m JOIN devices d ON d.id = m.device_id \
         WHERE m.release_id = $1 AND m.device_id = $2"
    )))
    .bind(release)
    .bind(device)
    .fetch_optional(&db.pool)
    .await?;
    Ok(row.as_ref().map(MemberRow::member))
}

/// A member's progress: its new state and detail, over the state it was read in
/// (false when something else changed it meanwhile).
pub async fn set_progress(
    db: &Db,
    release: i64,
    device: i64,
    from: UpdateState,
    to: UpdateState,
    detail: Option<&str>,
) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE release_devices SET state = $4, detail = $5, updated_at = $6 \
         WHERE release_id = $1 AND device_id = $2 AND state = $3",
    )
    .bind(release)
    .bind(device)
    .bind(from.as_str())
    .bind(to.as_str())
    .bind(detail)
    .bind(now_ms())
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Claims the sending of the release to `device`: pending, or sent and still not
/// acknowledged (its command `previous`), it becomes sent with command `command`.
/// False when another status or replica claimed it first.
pub async fn claim_send(db: &Db, release: i64, device: i64, command: &str) -> sqlx::Result<bool> {
    let now = now_ms();
    let n = sqlx::query(
        "UPDATE release_devices SET state = 'sent', command_id = $3, sent_at = $4, acked = 0, \
         detail = NULL, updated_at = $4 WHERE release_id = $1 AND device_id = $2 \
         AND (state = 'pending' OR (state = 'sent' AND acked = 0 \
         AND (sent_at IS NULL OR sent_at <= $5)))",
    )
    .bind(release)
    .bind(device)
    .bind(command)
    .bind(now)
    // A resend claimed by another since this one read the member is newer than this.
    .bind(now - 1_000)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// The device acknowledged command `command` of release `release`: accepted, or
/// refused with `message` (the member fails). False when it is not the member's
/// latest command.
pub async fn acked(
    db: &Db,
    release: i64,
    device: i64,
    command: &str,
    ok: bool,
    message: &str,
) -> sqlx::Result<bool> {
    let n = if ok {
        sqlx::query(
            "UPDATE release_devices SET acked = 1, updated_at = $4 \
             WHERE release_id = $1 AND device_id = $2 AND command_id = $3",
        )
        .bind(release)
        .bind(device)
        .bind(command)
        .bind(now_ms())
        .execute(&db.pool)
        .await?
    } else {
        sqlx::query(
            "UPDATE release_devices SET acked = 1, state = 'failed', detail = $4, \
             updated_at = $5 WHERE release_id = $1 AND device_id = $2 AND command_id = $3 \
             AND state <> 'done'",
        )
        .bind(release)
        .bind(device)
        .bind(command)
        .bind(message)
        .bind(now_ms())
        .execute(&db.pool)
        .await?
    };
    Ok(n.rows_affected() == 1)
}

/// Moves release `id` from state `from` to `to` (with `reason`, and its end time when
/// it is deployed); false when it was no longer in `from`.
pub async fn set_state(
    db: &Db,
    id: i64,
    from: &str,
    to: &str,
    reason: Option<&str>,
) -> sqlx::Result<bool> {
    let now = now_ms();
    let end = (to == state::DEPLOYED).then_some(now);
    let n = sqlx::query(
        "UPDATE releases SET state = $3, reason = $4, end_time = $5, \
         start_time = COALESCE(start_time, $6) WHERE id = $1 AND state = $2",
    )
    .bind(id)
    .bind(from)
    .bind(to)
    .bind(reason)
    .bind(end)
    .bind(now)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Going on with the roll-out of `id`: its failed devices back to pending, to be sent
/// the release again.
pub async fn retry_failed(db: &Db, id: i64) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE release_devices SET state = 'pending', acked = 0, updated_at = $2 \
         WHERE release_id = $1 AND state IN ('failed', 'rolled_back')",
    )
    .bind(id)
    .bind(now_ms())
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// Deletes release `id` (its roll-out with it); answers its object key.
pub async fn delete(db: &Db, id: i64) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("DELETE FROM releases WHERE id = $1 RETURNING object_key")
        .bind(id)
        .fetch_optional(&db.pool)
        .await
}

/// A device as the roll-outs see it.
#[derive(Debug, Clone, FromRow)]
pub struct FleetRow {
    pub id: i64,
    pub organization_id: i64,
    pub display_name: String,
    pub organization_name: String,
    #[sqlx(try_from = "Flag")]
    pub online: bool,
    pub status: Option<String>,
    pub update_channel: String,
}

impl FleetRow {
    pub fn into_api(self) -> Instance {
        let s = super::devices::parse_status(self.status.as_deref());
        Instance {
            device: self.id,
            display_name: self.display_name,
            organization: self.organization_id,
            organization_name: self.organization_name,
            online: self.online,
            agent_version: s
                .as_ref()
                .map(|s| s.agent_version.clone())
                .unwrap_or_default(),
            target: s.as_ref().map(|s| s.target.clone()).unwrap_or_default(),
            update_channel: self.update_channel,
            updatable: s.as_ref().is_some_and(|s| s.updatable),
            update: s.and_then(|s| s.update),
        }
    }
}

const FLEET_COLS: &str = "d.id, d.organization_id, d.display_name, o.org_name_to_display AS organization_name, \
     d.online, d.status, d.update_channel";

/// Every enrolled, unarchived device following `channel` (their statuses say which can
/// take a release).
pub async fn following(db: &Db, channel: &str) -> sqlx::Result<Vec<FleetRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FLEET_COLS} FROM devices d JOIN organizations o ON o.id = d.organization_id \
         WHERE d.update_channel = $1 AND d.archived = 0 AND d.credential_key IS NOT NULL \
         ORDER BY d.id"
    )))
    .bind(channel)
    .fetch_all(&db.pool)
    .await
}

/// A page of every organisation's devices (unarchived), by organisation and name, with
/// `search` in the device's or the organisation's name.
pub async fn instances(
    db: &Db,
    search: &str,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<FleetRow>, i64)> {
    let filter = if search.trim().is_empty() {
        ""
    } else {
        "AND (LOWER(d.display_name) LIKE $1 ESCAPE '\\' OR LOWER(o.org_name_to_display) LIKE $1 ESCAPE '\\')"
    };
    let from = format!(
        "FROM devices d JOIN organizations o ON o.id = d.organization_id \
         WHERE d.archived = 0 {filter}"
    );
    let pattern = contains_pattern(search);
    let mut rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FLEET_COLS} {from} ORDER BY o.org_name_to_display, d.display_name, d.id \
         LIMIT {limit} OFFSET {offset}"
    )));
    let mut count = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) {from}")));
    if !filter.is_empty() {
        rows = rows.bind(pattern.clone());
        count = count.bind(pattern);
    }
    Ok((
        rows.fetch_all(&db.pool).await?,
        count.fetch_one(&db.pool).await?,
    ))
}

/// The channel device `id` of `org` follows; `None` when it is not the organisation's.
pub async fn channel(db: &Db, device: i64) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT update_channel FROM devices WHERE id = $1")
        .bind(device)
        .fetch_optional(&db.pool)
        .await
}

/// Sets the channel device `device` of `org` follows; false when it is not the
/// organisation's.
pub async fn set_channel(db: &Db, org: i64, device: i64, channel: &str) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE devices SET update_channel = $3 WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(device)
    .bind(channel)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// The roll-outs under way or stopped that `device` is a member of but not done with.
pub async fn open_memberships(db: &Db, device: i64) -> sqlx::Result<Vec<(i64, String, String)>> {
    sqlx::query_as(
        "SELECT r.id, r.environment, r.target FROM release_devices m \
         JOIN releases r ON r.id = m.release_id WHERE m.device_id = $1 AND m.state <> 'done' \
         AND r.state IN ('rolling_out', 'stopped')",
    )
    .bind(device)
    .fetch_all(&db.pool)
    .await
}

/// The organisation of device `device`.
pub async fn org_of(db: &Db, device: i64) -> sqlx::Result<Option<i64>> {
    sqlx::query_scalar("SELECT organization_id FROM devices WHERE id = $1")
        .bind(device)
        .fetch_optional(&db.pool)
        .await
}
