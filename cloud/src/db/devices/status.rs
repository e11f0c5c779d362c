//! What a device says of itself: its status messages, and whether it is online.

use gemba_shared::mqtt::v1::StatusMessage;

use super::parse_status;
use crate::db::Db;

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
