//! What a device says of itself: its status messages, and whether it is online.
//!
//! A status is taken only when it is newer than what the cloud has, on the device's own
//! clock (`ts_ms`; never compared with the cloud's): an online one when later than the
//! newest status taken (`devices.status_ts`), an offline one when later than the last
//! offline one taken (`devices.offline_ts`). So a captured status published again
//! changes nothing, while the agent's last will still counts: the broker publishes it
//! after that connection's heartbeats, but it carries the time its connection began,
//! which is after any offline status taken before. Enrolment forgets both
//! (`credentials::enrol`). The check is part of the write, so replicas taking two
//! statuses at once keep the order. The status last taken, read again (the broker
//! retains it and gives it to the cloud's link each time it subscribes), is told apart
//! from an older one: it is no news, not a replay to count.

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

/// What became of a status.
pub enum Taken {
    /// Newer than what the cloud had: recorded; what the device had said before (boxed:
    /// a status is large beside the other answers).
    New(Box<Before>),
    /// The status last taken, again (online, or offline, as the device still is).
    Again,
    /// Older than what the cloud has: a replay, which changed nothing.
    Stale,
}

/// Records what device `id` said (`online`, at `ts` on its clock, `status` whole) if it
/// is newer than what the cloud has (see the module header).
pub async fn set_status(
    db: &Db,
    id: i64,
    online: bool,
    ts: i64,
    status: &str,
    now: i64,
) -> sqlx::Result<Taken> {
    type Row = (i64, Option<String>, Option<i64>, Option<i64>);
    let before: Option<Row> =
        sqlx::query_as("SELECT online, status, status_ts, offline_ts FROM devices WHERE id = $1")
            .bind(id)
            .fetch_optional(&db.pool)
            .await?;
    let taken = sqlx::query(
        "UPDATE devices SET status = $3, last_seen = $4, online_since = CASE \
         WHEN $2 = 0 THEN NULL WHEN online = 0 OR online_since IS NULL THEN $4 \
         ELSE online_since END, online = $2, \
         status_ts = CASE WHEN status_ts IS NULL OR status_ts < $5 THEN $5 ELSE status_ts END, \
         offline_ts = CASE WHEN $2 = 0 THEN $5 ELSE offline_ts END \
         WHERE id = $1 AND (($2 = 1 AND (status_ts IS NULL OR status_ts < $5)) \
         OR ($2 = 0 AND (offline_ts IS NULL OR offline_ts < $5)))",
    )
    .bind(id)
    .bind(i64::from(online))
    .bind(status)
    .bind(now)
    .bind(ts)
    .execute(&db.pool)
    .await?
    .rows_affected()
        > 0;
    if !taken {
        // The last status taken, again: online and its newest, or offline and its last
        // offline, as the device still is.
        let again = before
            .as_ref()
            .is_some_and(|(was, _, status_ts, offline_ts)| {
                (*was == 1) == online && Some(ts) == if online { *status_ts } else { *offline_ts }
            });
        return Ok(if again { Taken::Again } else { Taken::Stale });
    }
    Ok(Taken::New(Box::new(match before {
        Some((online, status, _, _)) => Before {
            online: online == 1,
            status: parse_status(status.as_deref()),
        },
        None => Before {
            online: false,
            status: None,
        },
    })))
}
