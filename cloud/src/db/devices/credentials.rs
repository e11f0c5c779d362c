//! A device's credentials: enrolment codes, the key a code gives, revoking it, and what
//! ingestion reads to check a device's messages.

use sqlx::FromRow;

use crate::db::{Db, now_ms};

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
/// for an unknown, spent or expired code. The times of the device's last statuses are
/// forgotten (`status`): the new key signed nothing older, and a new computer's clock
/// may be behind the old one's.
pub async fn enrol(
    db: &Db,
    code_hash: &str,
    key: &str,
) -> sqlx::Result<Option<(i64, i64, String, i64)>> {
    let now = now_ms();
    sqlx::query_as(
        "UPDATE devices SET credential_id = credential_id + 1, credential_key = $2, \
         enrolled_at = $3, enrol_code_hash = NULL, enrol_expires_at = NULL, \
         status_ts = NULL, offline_ts = NULL \
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

/// Every device with credentials: id, organisation and key (base64), for the broker's
/// list of logins (`mqtt::dynsec`).
pub async fn enrolled(db: &Db) -> sqlx::Result<Vec<(i64, i64, String)>> {
    sqlx::query_as(
        "SELECT id, organization_id, credential_key FROM devices \
         WHERE credential_key IS NOT NULL ORDER BY id",
    )
    .fetch_all(&db.pool)
    .await
}
