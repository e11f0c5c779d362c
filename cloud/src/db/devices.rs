//! Devices, their credentials and enrolment codes, what their cameras run, the commands
//! sent to them, and the cycles they report.
//!
//! Every query of a user's call takes the organisation (`None` only for the super
//! admin's views); ingestion looks devices up by id and then checks the organisation
//! the topic names.

use gemba_shared::api::v1::device::{Device, DeviceCommand, DeviceStats, DeviceTask, RecentCycle};
use gemba_shared::mqtt::v1::StatusMessage;
use sqlx::FromRow;

use super::{Db, now_ms};

#[derive(FromRow, Clone)]
pub struct DeviceRow {
    pub id: i64,
    pub organization_id: i64,
    pub department_id: Option<i64>,
    pub display_name: String,
    pub serial_number: String,
    pub device_type: String,
    #[sqlx(try_from = "super::Flag")]
    pub active: bool,
    #[sqlx(try_from = "super::Flag")]
    pub archived: bool,
    pub settings: String,
    #[sqlx(try_from = "super::Flag")]
    pub enrolled: bool,
    #[sqlx(try_from = "super::Flag")]
    pub online: bool,
    pub status: Option<String>,
    pub last_seen: Option<i64>,
    pub created_at: i64,
    #[sqlx(try_from = "super::Flag")]
    pub starred: bool,
}

/// A device's last status message as stored (`None` when it has sent none, or it does
/// not read).
pub fn parse_status(stored: Option<&str>) -> Option<StatusMessage> {
    stored.and_then(|s| serde_json::from_str(s).ok())
}

impl DeviceRow {
    /// The cameras its last status names.
    pub fn cameras(&self) -> Vec<String> {
        parse_status(self.status.as_deref())
            .map(|s| s.cameras.into_iter().map(|c| c.camera).collect())
            .unwrap_or_default()
    }

    pub fn into_device(self, tasks: Vec<DeviceTask>) -> Device {
        Device {
            id: self.id,
            display_name: self.display_name,
            serial_number: self.serial_number,
            device_type: self.device_type,
            starred: self.starred,
            active: self.active,
            is_archived: self.archived,
            organization: self.organization_id,
            department: self.department_id,
            enrolled: self.enrolled,
            online: self.online,
            last_seen: self.last_seen,
            status: parse_status(self.status.as_deref()),
            settings: serde_json::from_str(&self.settings)
                .unwrap_or_else(|_| serde_json::json!({})),
            tasks,
            created_at: self.created_at,
        }
    }
}

/// The columns of [`DeviceRow`] for the user `$1` (stars are per user).
const COLS: &str = "d.id, d.organization_id, d.department_id, d.display_name, d.serial_number, \
     d.device_type, d.active, d.archived, d.settings, \
     CAST(CASE WHEN d.credential_key IS NULL THEN 0 ELSE 1 END AS BIGINT) AS enrolled, \
     d.online, d.status, d.last_seen, d.created_at, \
     CAST(CASE WHEN EXISTS (SELECT 1 FROM device_stars s WHERE s.device_id = d.id AND s.user_id = $1) \
     THEN 1 ELSE 0 END AS BIGINT) AS starred";

pub struct NewDevice<'a> {
    pub org: i64,
    pub department: Option<i64>,
    pub display_name: &'a str,
    pub serial_number: &'a str,
    pub device_type: &'a str,
    pub code_hash: &'a str,
    pub code_expires_at: i64,
}

pub async fn insert(db: &Db, d: &NewDevice<'_>) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO devices (organization_id, department_id, display_name, serial_number, \
         device_type, enrol_code_hash, enrol_expires_at, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(d.org)
    .bind(d.department)
    .bind(d.display_name)
    .bind(d.serial_number)
    .bind(d.device_type)
    .bind(d.code_hash)
    .bind(d.code_expires_at)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

/// Device `id` of `org` (any organisation when `None`), as `user` sees it.
pub async fn get(db: &Db, user: i64, org: Option<i64>, id: i64) -> sqlx::Result<Option<DeviceRow>> {
    sqlx::query_as::<_, DeviceRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM devices d WHERE d.id = $2 AND ($3 IS NULL OR d.organization_id = $3)"
    )))
    .bind(user)
    .bind(id)
    .bind(org)
    .fetch_optional(&db.pool)
    .await
}

/// Which devices a list shows.
#[derive(Default)]
pub struct Filter {
    pub org: Option<i64>,
    pub archived: bool,
    pub hide_departmental: bool,
    /// Only devices in no department.
    pub without_department: bool,
    pub active_only: bool,
    /// Only devices that said they are online.
    pub online_only: bool,
    pub search: String,
}

/// Devices (starred first, then by name) and their total count.
pub async fn list(
    db: &Db,
    user: i64,
    f: &Filter,
    page: Option<(i64, i64)>,
) -> sqlx::Result<(Vec<DeviceRow>, i64)> {
    let pattern = (!f.search.trim().is_empty()).then(|| super::contains_pattern(&f.search));
    let mut cond = vec![
        "($2 IS NULL OR d.organization_id = $2)".to_string(),
        format!("d.archived = {}", i64::from(f.archived)),
        if pattern.is_some() {
            "(LOWER(d.display_name) LIKE $3 ESCAPE '\\' OR LOWER(d.serial_number) LIKE $3 ESCAPE '\\')"
                .into()
        } else {
            "$3 IS NULL".into()
        },
        "d.device_type <> $4".into(),
    ];
    if f.without_department {
        cond.push("d.department_id IS NULL".into());
    }
    if f.active_only {
        cond.push("d.active = 1".into());
    }
    if f.online_only {
        cond.push("d.online = 1".into());
    }
    let cond = cond.join(" AND ");
    // Hiding departmental devices compares with their type; showing them compares with
    // the empty type, which no device has.
    let hidden = if f.hide_departmental {
        gemba_shared::api::v1::device::DEPARTMENTAL
    } else {
        ""
    };
    let limit = page.map_or(String::new(), |(offset, limit)| {
        format!(" LIMIT {limit} OFFSET {offset}")
    });
    let rows = sqlx::query_as::<_, DeviceRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM devices d WHERE {cond} \
         ORDER BY starred DESC, LOWER(d.display_name), d.id{limit}"
    )))
    .bind(user)
    .bind(f.org)
    .bind(&pattern)
    .bind(hidden)
    .fetch_all(&db.pool)
    .await?;
    let count = match page {
        None => rows.len() as i64,
        Some(_) => {
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM devices d WHERE $1 = $1 AND {cond}"
            )))
            .bind(user)
            .bind(f.org)
            .bind(&pattern)
            .bind(hidden)
            .fetch_one(&db.pool)
            .await?
        }
    };
    Ok((rows, count))
}

/// What the cameras of these devices are set to run.
pub async fn tasks_of(db: &Db, devices: &[i64]) -> sqlx::Result<Vec<(i64, DeviceTask)>> {
    if devices.is_empty() {
        return Ok(vec![]);
    }
    let ids = devices
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    type Row = (i64, String, i64, String, i64, Option<String>, Option<i64>);
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT dt.device_id, dt.camera, dt.task_id, t.task_name, dt.running, dt.refused, \
         dt.refused_at FROM device_tasks dt JOIN tasks t ON t.id = dt.task_id \
         WHERE dt.device_id IN ({ids}) ORDER BY dt.device_id, dt.camera"
    )))
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(d, camera, task, task_name, running, refused, refused_at)| {
                (
                    d,
                    DeviceTask {
                        camera,
                        task,
                        task_name,
                        running: running != 0,
                        refused,
                        refused_at,
                    },
                )
            },
        )
        .collect())
}

/// Rows with their camera tasks.
pub async fn with_tasks(db: &Db, rows: Vec<DeviceRow>) -> sqlx::Result<Vec<Device>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let mut by_device: std::collections::HashMap<i64, Vec<DeviceTask>> = Default::default();
    for (d, t) in tasks_of(db, &ids).await? {
        by_device.entry(d).or_default().push(t);
    }
    Ok(rows
        .into_iter()
        .map(|r| {
            let tasks = by_device.remove(&r.id).unwrap_or_default();
            r.into_device(tasks)
        })
        .collect())
}

/// The fields a change sets (`None`: unchanged).
#[derive(Default)]
pub struct Change {
    pub display_name: Option<String>,
    pub serial_number: Option<String>,
    pub device_type: Option<String>,
    pub active: Option<bool>,
    pub archived: Option<bool>,
    pub department: Option<Option<i64>>,
    pub settings: Option<String>,
}

impl Change {
    pub fn is_empty(&self) -> bool {
        let Change {
            display_name,
            serial_number,
            device_type,
            active,
            archived,
            department,
            settings,
        } = self;
        display_name.is_none()
            && serial_number.is_none()
            && device_type.is_none()
            && active.is_none()
            && archived.is_none()
            && department.is_none()
            && settings.is_none()
    }
}

/// Applies `c` to device `id` of `org`; false when there is no such device. Archiving
/// revokes the device's credentials and any enrolment code.
pub async fn update(db: &Db, org: i64, id: i64, c: &Change) -> sqlx::Result<bool> {
    let (set_dept, dept) = match c.department {
        Some(d) => (1i64, d),
        None => (0, None),
    };
    let n = sqlx::query(
        "UPDATE devices SET \
         display_name = COALESCE($3, display_name), \
         serial_number = COALESCE($4, serial_number), \
         device_type = COALESCE($5, device_type), \
         active = COALESCE($6, active), \
         archived = COALESCE($7, archived), \
         department_id = CASE WHEN $8 = 1 THEN $9 ELSE department_id END, \
         settings = COALESCE($10, settings), \
         credential_key = CASE WHEN $7 = 1 THEN NULL ELSE credential_key END, \
         enrol_code_hash = CASE WHEN $7 = 1 THEN NULL ELSE enrol_code_hash END, \
         enrol_expires_at = CASE WHEN $7 = 1 THEN NULL ELSE enrol_expires_at END, \
         online = CASE WHEN $7 = 1 THEN 0 ELSE online END \
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .bind(&c.display_name)
    .bind(&c.serial_number)
    .bind(&c.device_type)
    .bind(c.active.map(i64::from))
    .bind(c.archived.map(i64::from))
    .bind(set_dept)
    .bind(dept)
    .bind(&c.settings)
    .execute(&db.pool)
    .await?
    .rows_affected();
    Ok(n > 0)
}

pub async fn set_star(db: &Db, user: i64, id: i64, on: bool) -> sqlx::Result<()> {
    if on {
        sqlx::query(
            "INSERT INTO device_stars (device_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(id)
        .bind(user)
        .execute(&db.pool)
        .await?;
    } else {
        sqlx::query("DELETE FROM device_stars WHERE device_id = $1 AND user_id = $2")
            .bind(id)
            .bind(user)
            .execute(&db.pool)
            .await?;
    }
    Ok(())
}

/// Deletes device `id` of `org`. Its cycles stay, no longer naming a device (they have
/// no foreign keys: migration 20261126000001).
pub async fn delete(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    let gone = sqlx::query("DELETE FROM devices WHERE organization_id = $1 AND id = $2")
        .bind(org)
        .bind(id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
        > 0;
    if gone {
        sqlx::query(
            "UPDATE cycles SET device_id = NULL WHERE organization_id = $1 AND device_id = $2",
        )
        .bind(org)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        super::rollups::forget_device(&mut tx, db.backend, org, id).await?;
    }
    tx.commit().await?;
    Ok(gone)
}

// ----- credentials -----------------------------------------------------------------------

/// A new enrolment code for device `id` of `org` (the old code and credentials keep
/// working until the code is used).
pub async fn set_code(
    db: &Db,
    org: i64,
    id: i64,
    hash: &str,
    expires_at: i64,
) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE devices SET enrol_code_hash = $3, enrol_expires_at = $4 \
         WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .bind(hash)
    .bind(expires_at)
    .execute(&db.pool)
    .await?
    .rows_affected()
        > 0)
}

/// Uses an enrolment code: the device gets the new key under a new credential id, and
/// the code is spent. `(organisation, device, display name, credential id)`, or `None`
/// for an unknown, spent or expired code.
pub async fn enrol(
    db: &Db,
    code_hash: &str,
    key: &str,
) -> sqlx::Result<Option<(i64, i64, String, i64)>> {
    let now = now_ms();
    sqlx::query_as(
        "UPDATE devices SET credential_id = credential_id + 1, credential_key = $2, \
         enrolled_at = $3, enrol_code_hash = NULL, enrol_expires_at = NULL \
         WHERE enrol_code_hash = $1 AND enrol_expires_at > $3 AND archived = 0 \
         RETURNING organization_id, id, display_name, credential_id",
    )
    .bind(code_hash)
    .bind(key)
    .bind(now)
    .fetch_optional(&db.pool)
    .await
}

/// Revokes the device's credentials (and any code not used yet).
pub async fn revoke(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    Ok(sqlx::query(
        "UPDATE devices SET credential_key = NULL, enrol_code_hash = NULL, enrol_expires_at = NULL, \
         online = 0 WHERE organization_id = $1 AND id = $2",
    )
    .bind(org)
    .bind(id)
    .execute(&db.pool)
    .await?
    .rows_affected()
        > 0)
}

/// What ingestion needs to check a device's messages.
#[derive(Debug, Clone, FromRow)]
pub struct DeviceAuth {
    pub organization_id: i64,
    pub credential_id: i64,
    pub credential_key: Option<String>,
}

pub async fn auth(db: &Db, id: i64) -> sqlx::Result<Option<DeviceAuth>> {
    sqlx::query_as(
        "SELECT organization_id, credential_id, credential_key FROM devices WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

// ----- status, tasks, commands -----------------------------------------------------------

/// What a device had said before its newest status.
pub struct Before {
    /// It was online (false for a device that was offline or never heard).
    pub online: bool,
    /// Its previous status, if it sent one that reads.
    pub status: Option<StatusMessage>,
}

/// Records what device `id` said; answers what it had said before.
pub async fn set_status(
    db: &Db,
    id: i64,
    online: bool,
    status: &str,
    now: i64,
) -> sqlx::Result<Before> {
    let before: Option<(i64, Option<String>)> =
        sqlx::query_as("SELECT online, status FROM devices WHERE id = $1")
            .bind(id)
            .fetch_optional(&db.pool)
            .await?;
    sqlx::query(
        "UPDATE devices SET status = $3, last_seen = $4, online_since = CASE \
         WHEN $2 = 0 THEN NULL WHEN online = 0 OR online_since IS NULL THEN $4 \
         ELSE online_since END, online = $2 WHERE id = $1",
    )
    .bind(id)
    .bind(i64::from(online))
    .bind(status)
    .bind(now)
    .execute(&db.pool)
    .await?;
    Ok(match before {
        Some((online, status)) => Before {
            online: online == 1,
            status: parse_status(status.as_deref()),
        },
        None => Before {
            online: false,
            status: None,
        },
    })
}

/// Sets what `camera` of device `id` runs (`None`: stops it, keeping the task); false
/// when stopping a camera that runs nothing. A new setting forgets an old refusal, and
/// its `updated_at` is the camera's new generation (see [`super::camera_tasks`]).
pub async fn set_camera_task(
    db: &Db,
    id: i64,
    camera: &str,
    task: Option<i64>,
) -> sqlx::Result<bool> {
    let now = now_ms();
    let n = match task {
        Some(task) => sqlx::query(
            "INSERT INTO device_tasks (device_id, camera, task_id, running, updated_at) \
             VALUES ($1, $2, $3, 1, $4) ON CONFLICT (device_id, camera) \
             DO UPDATE SET task_id = excluded.task_id, running = 1, \
             updated_at = CASE WHEN excluded.updated_at > device_tasks.updated_at \
             THEN excluded.updated_at ELSE device_tasks.updated_at + 1 END, \
             refused = NULL, refused_at = NULL",
        )
        .bind(id)
        .bind(camera)
        .bind(task)
        .bind(now)
        .execute(&db.pool)
        .await?
        .rows_affected(),
        None => sqlx::query(
            "UPDATE device_tasks SET running = 0, \
             updated_at = CASE WHEN $3 > updated_at THEN $3 ELSE updated_at + 1 END, \
             refused = NULL, refused_at = NULL WHERE device_id = $1 AND camera = $2 AND running = 1",
        )
        .bind(id)
        .bind(camera)
        .bind(now)
        .execute(&db.pool)
        .await?
        .rows_affected(),
    };
    Ok(n > 0)
}

/// Devices running task `task` (set running from the portal): `(device, name, camera,
/// online)`.
pub async fn running_task(db: &Db, task: i64) -> sqlx::Result<Vec<(i64, String, String, bool)>> {
    let rows: Vec<(i64, String, String, i64)> = sqlx::query_as(
        "SELECT d.id, d.display_name, dt.camera, d.online FROM device_tasks dt \
         JOIN devices d ON d.id = dt.device_id \
         WHERE dt.task_id = $1 AND dt.running = 1 AND d.archived = 0 ORDER BY d.id, dt.camera",
    )
    .bind(task)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(d, n, c, o)| (d, n, c, o != 0))
        .collect())
}

/// What runs in organisation `org`: `(task, task name, device, device name, camera,
/// online)`.
#[allow(clippy::type_complexity)]
pub async fn running_in_org(
    db: &Db,
    org: i64,
) -> sqlx::Result<Vec<(i64, String, i64, String, String, bool)>> {
    let rows: Vec<(i64, String, i64, String, String, i64)> = sqlx::query_as(
        "SELECT t.id, t.task_name, d.id, d.display_name, dt.camera, d.online FROM device_tasks dt \
         JOIN devices d ON d.id = dt.device_id JOIN tasks t ON t.id = dt.task_id \
         WHERE d.organization_id = $1 AND dt.running = 1 AND d.archived = 0 \
         ORDER BY t.id, d.id, dt.camera",
    )
    .bind(org)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(t, tn, d, dn, c, o)| (t, tn, d, dn, c, o != 0))
        .collect())
}

pub async fn insert_command(db: &Db, id: &str, device: i64, command: &str) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO device_commands (id, device_id, command, created_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(id)
    .bind(device)
    .bind(command)
    .bind(now_ms())
    .execute(&db.pool)
    .await?;
    Ok(())
}

/// The latest `n` times command `command` (its JSON) was sent to device `device`,
/// newest first: when, and whether the device acknowledged it.
pub async fn same_commands(
    db: &Db,
    device: i64,
    command: &str,
    n: i64,
) -> sqlx::Result<Vec<(i64, bool)>> {
    let rows: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT created_at, CASE WHEN acked_at IS NULL THEN 0 ELSE 1 END FROM device_commands \
         WHERE device_id = $1 AND command = $2 ORDER BY created_at DESC LIMIT $3",
    )
    .bind(device)
    .bind(command)
    .bind(n)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(at, acked)| (at, acked == 1))
        .collect())
}

/// Records a command's acknowledgement; only the device it was sent to can. Answers
/// the command (its JSON), or `None` when no such command waited.
pub async fn ack_command(
    db: &Db,
    device: i64,
    id: &str,
    ok: bool,
    message: &str,
) -> sqlx::Result<Option<String>> {
    let n = sqlx::query(
        "UPDATE device_commands SET acked_at = $3, ok = $4, message = $5 \
         WHERE device_id = $1 AND id = $2 AND acked_at IS NULL",
    )
    .bind(device)
    .bind(id)
    .bind(now_ms())
    .bind(i64::from(ok))
    .bind(message)
    .execute(&db.pool)
    .await?
    .rows_affected();
    if n == 0 {
        return Ok(None);
    }
    sqlx::query_scalar("SELECT command FROM device_commands WHERE device_id = $1 AND id = $2")
        .bind(device)
        .bind(id)
        .fetch_optional(&db.pool)
        .await
}

/// A `device_commands` row: id, command, created, acknowledged, ok, message.
type CommandRow = (
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

pub async fn commands(db: &Db, device: i64, limit: i64) -> sqlx::Result<Vec<DeviceCommand>> {
    let rows: Vec<CommandRow> = sqlx::query_as(
        "SELECT id, command, created_at, acked_at, ok, message FROM device_commands \
             WHERE device_id = $1 ORDER BY created_at DESC, id LIMIT $2",
    )
    .bind(device)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    // Stored by `insert_command` from a `Command`: every row reads back (one written by
    // another version that does not is left out).
    Ok(rows
        .into_iter()
        .filter_map(|(id, command, created_at, acked_at, ok, message)| {
            Some(DeviceCommand {
                id,
                command: serde_json::from_str(&command).ok()?,
                created_at,
                acked_at,
                ok: ok.map(|o| o != 0),
                message,
            })
        })
        .collect())
}

// ----- cycles ----------------------------------------------------------------------------

/// Device `device`'s latest `limit` cycles, newest first.
pub async fn recent_cycles(db: &Db, device: i64, limit: i64) -> sqlx::Result<Vec<RecentCycle>> {
    let rows: Vec<super::cycles::CycleRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {} FROM cycles WHERE device_id = $1 AND archived_at IS NULL \
         ORDER BY start_ms DESC, id LIMIT $2",
        super::cycles::CYCLE_COLS
    )))
    .bind(device)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(super::cycles::to_api).collect())
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
