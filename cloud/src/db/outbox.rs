//! The e-mail and SMS outbox.

use serde::Serialize;

use super::{Db, now_ms};

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct OutboxMessage {
    pub id: i64,
    pub channel: String,
    pub recipients: String,
    pub subject: String,
    pub body: String,
    pub created_at: i64,
    pub file_name: Option<String>,
    #[sqlx(try_from = "super::Flag")]
    pub delivered: bool,
    pub error: Option<String>,
}

pub async fn insert(
    db: &Db,
    channel: &str,
    recipients: &str,
    subject: &str,
    body: &str,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "INSERT INTO outbox (channel, recipients, subject, body, created_at) \
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(channel)
    .bind(recipients)
    .bind(subject)
    .bind(body)
    .bind(now_ms())
    .fetch_one(&db.pool)
    .await
}

pub async fn set_file(db: &Db, id: i64, file: &str) -> sqlx::Result<()> {
    sqlx::query("UPDATE outbox SET file_name = $1 WHERE id = $2")
        .bind(file)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

pub async fn set_delivery(db: &Db, id: i64, error: Option<&str>) -> sqlx::Result<()> {
    sqlx::query("UPDATE outbox SET delivered = $1, error = $2 WHERE id = $3")
        .bind(error.is_none() as i64)
        .bind(error)
        .bind(id)
        .execute(&db.pool)
        .await?;
    Ok(())
}

/// Newest first; optionally only messages to `recipient`.
pub async fn list(
    db: &Db,
    recipient: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<OutboxMessage>> {
    let pattern = recipient.map(|r| format!("%{}%", r.to_lowercase()));
    sqlx::query_as(
        "SELECT id, channel, recipients, subject, body, created_at, file_name, delivered, error \
         FROM outbox WHERE ($1 IS NULL OR LOWER(recipients) LIKE $1) ORDER BY id DESC LIMIT $2",
    )
    .bind(pattern)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
}
