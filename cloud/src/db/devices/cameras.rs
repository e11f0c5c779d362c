//! What devices' cameras are set to run (`device_tasks`), and what runs where.

use gemba_shared::api::v1::device::{Device, DeviceTask};

use super::DeviceRow;
use crate::db::{Db, now_ms};

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
/// Sets what `camera` of device `id` runs (`None`: stops it, keeping the task); false
/// when stopping a camera that runs nothing. A new setting forgets an old refusal, and
/// its `updated_at` is the camera's new generation (see [`crate::db::camera_tasks`]).
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
