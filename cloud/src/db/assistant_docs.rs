//! The assistant's documents and their passages, full-text indexed (SQLite FTS5,
//! PostgreSQL `tsvector`; migration `assistant_documents`). A document and its passages
//! are written in one transaction; every query takes the organisation.

use gemba_shared::api::v1::assistant::AssistantDocument;

use super::{Backend, Db, now_ms};
use crate::assistant::rag;

/// A passage found for a question, in the index's rank order.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub document: i64,
    pub document_name: String,
    pub position: i64,
    pub text: String,
}

/// Stores a document of `org` with its passages; its id.
pub async fn create(
    db: &Db,
    org: i64,
    user: i64,
    name: &str,
    source: &str,
    chunks: &[String],
) -> sqlx::Result<i64> {
    let mut tx = db.begin_write().await?;
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO assistant_documents (organization_id, name, source, created_by, created_at) \
         VALUES ($1, $2, $3, $4, $5) RETURNING id",
    )
    .bind(org)
    .bind(name)
    .bind(source)
    .bind(user)
    .bind(now_ms())
    .fetch_one(&mut *tx)
    .await?;
    for (i, c) in chunks.iter().enumerate() {
        sqlx::query(
            "INSERT INTO assistant_chunks (organization_id, document_id, position, body) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(org)
        .bind(id)
        .bind(i as i64)
        .bind(c)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(id)
}

/// The organisation's documents, newest first.
pub async fn list(db: &Db, org: i64) -> sqlx::Result<Vec<AssistantDocument>> {
    let rows: Vec<(i64, String, String, i64, i64)> = sqlx::query_as(
        "SELECT d.id, d.name, d.source, d.created_at, \
         (SELECT COUNT(*) FROM assistant_chunks c WHERE c.document_id = d.id) \
         FROM assistant_documents d WHERE d.organization_id = $1 ORDER BY d.created_at DESC, d.id DESC",
    )
    .bind(org)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(id, name, source, created_at_ms, chunks)| AssistantDocument {
                id,
                name,
                source,
                chunks,
                created_at_ms,
            },
        )
        .collect())
}

/// Deletes document `id` of `org` and its passages; whether there was one.
pub async fn delete(db: &Db, org: i64, id: i64) -> sqlx::Result<bool> {
    let mut tx = db.begin_write().await?;
    sqlx::query("DELETE FROM assistant_chunks WHERE document_id = $1 AND organization_id = $2")
        .bind(id)
        .bind(org)
        .execute(&mut *tx)
        .await?;
    let n = sqlx::query("DELETE FROM assistant_documents WHERE id = $1 AND organization_id = $2")
        .bind(id)
        .bind(org)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    tx.commit().await?;
    Ok(n > 0)
}

/// The organisation's passages holding any of `terms`, best first, at most `limit`.
pub async fn search(db: &Db, org: i64, terms: &[String], limit: i64) -> sqlx::Result<Vec<Hit>> {
    if terms.is_empty() {
        return Ok(vec![]);
    }
    let rows: Vec<(i64, String, i64, String)> = match db.backend {
        Backend::Sqlite => {
            sqlx::query_as(
                "SELECT c.document_id, d.name, c.position, c.body \
                 FROM assistant_chunks_fts f \
                 JOIN assistant_chunks c ON c.id = f.rowid \
                 JOIN assistant_documents d ON d.id = c.document_id \
                 WHERE assistant_chunks_fts MATCH $1 AND c.organization_id = $2 \
                 ORDER BY bm25(assistant_chunks_fts), c.id LIMIT $3",
            )
            .bind(rag::fts5_query(terms))
            .bind(org)
            .bind(limit)
            .fetch_all(&db.pool)
            .await?
        }
        Backend::Postgres => {
            let q = rag::tsquery(terms);
            if q.is_empty() {
                return Ok(vec![]);
            }
            sqlx::query_as(
                "SELECT c.document_id, d.name, c.position, c.body \
                 FROM assistant_chunks c \
                 JOIN assistant_documents d ON d.id = c.document_id, \
                 to_tsquery('english', $1) q \
                 WHERE c.tsv @@ q AND c.organization_id = $2 \
                 ORDER BY ts_rank(c.tsv, q) DESC, c.id LIMIT $3",
            )
            .bind(q)
            .bind(org)
            .bind(limit)
            .fetch_all(&db.pool)
            .await?
        }
    };
    Ok(rows
        .into_iter()
        .map(|(document, document_name, position, text)| Hit {
            document,
            document_name,
            position,
            text,
        })
        .collect())
}
