//! Commands sent to devices (`device_commands`) and their acknowledgements.

use gemba_shared::api::v1::device::DeviceCommand;

use crate::db::{Db, now_ms};

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
