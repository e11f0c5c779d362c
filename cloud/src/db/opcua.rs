//! A device's OPC UA node bindings (issue 32, `opcua_bindings`): part of its
//! configuration, so every write here happens in a transaction that also bumps the
//! device's configuration version (`device_config::bump`), as the module there says.

use gemba_shared::mqtt::v1::{OpcuaBinding, OpcuaRole};
use sqlx::FromRow;

use super::device_config::Tx;
use super::{Db, now_ms};

#[derive(Debug, Clone, FromRow)]
pub struct BindingRow {
    pub id: i64,
    pub device_id: i64,
    pub endpoint: String,
    pub node_id: String,
    pub camera: String,
    pub task_id: Option<i64>,
    /// `start_cycle`, `end_cycle` or `metadata`.
    pub role: String,
    /// The metadata key of a `metadata` binding; empty otherwise.
    pub metadata_key: String,
    pub created_at: i64,
}

impl BindingRow {
    /// Its role as the contract has it (`None` for a role this version does not know).
    pub fn role(&self) -> Option<OpcuaRole> {
        match self.role.as_str() {
            "start_cycle" => Some(OpcuaRole::StartCycle),
            "end_cycle" => Some(OpcuaRole::EndCycle),
            "metadata" => Some(OpcuaRole::Metadata {
                key: self.metadata_key.clone(),
            }),
            _ => None,
        }
    }

    /// The binding as the device's configuration carries it.
    pub fn binding(&self) -> Option<OpcuaBinding> {
        Some(OpcuaBinding {
            endpoint: self.endpoint.clone(),
            node_id: self.node_id.clone(),
            camera: self.camera.clone(),
            task: self.task_id,
            role: self.role()?,
        })
    }
}

/// The stored form of `role`: its name and its metadata key (empty when none).
pub fn role_columns(role: &OpcuaRole) -> (&'static str, &str) {
    match role {
        OpcuaRole::StartCycle => ("start_cycle", ""),
        OpcuaRole::EndCycle => ("end_cycle", ""),
        OpcuaRole::Metadata { key } => ("metadata", key),
    }
}

const COLS: &str =
    "id, device_id, endpoint, node_id, camera, task_id, role, metadata_key, created_at";

/// The bindings of `device`, oldest first.
pub async fn bindings(db: &Db, device: i64) -> sqlx::Result<Vec<BindingRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM opcua_bindings WHERE device_id = $1 ORDER BY id"
    )))
    .bind(device)
    .fetch_all(&db.pool)
    .await
}

/// [`bindings`] read inside `tx` (after `bump` locked the device, so two changes of one
/// device's bindings are checked one after the other).
pub async fn bindings_in(tx: &mut Tx, device: i64) -> sqlx::Result<Vec<BindingRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM opcua_bindings WHERE device_id = $1 ORDER BY id"
    )))
    .bind(device)
    .fetch_all(&mut **tx)
    .await
}

/// Binding `id` (of any device: the caller checks the device).
pub async fn binding(db: &Db, id: i64) -> sqlx::Result<Option<BindingRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM opcua_bindings WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(&db.pool)
    .await
}

pub async fn insert(tx: &mut Tx, device: i64, b: &OpcuaBinding) -> sqlx::Result<i64> {
    let (role, key) = role_columns(&b.role);
    sqlx::query_scalar(
        "INSERT INTO opcua_bindings (device_id, endpoint, node_id, camera, task_id, role, \
         metadata_key, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(device)
    .bind(&b.endpoint)
    .bind(&b.node_id)
    .bind(&b.camera)
    .bind(b.task)
    .bind(role)
    .bind(key)
    .bind(now_ms())
    .fetch_one(&mut **tx)
    .await
}

pub async fn delete(tx: &mut Tx, id: i64) -> sqlx::Result<()> {
    sqlx::query("DELETE FROM opcua_bindings WHERE id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
