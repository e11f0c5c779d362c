//! The assistant's documents and their passages, full-text indexed (SQLite FTS5,
//! PostgreSQL `tsvector`; migration `assistant_documents`), each passage with its
//! embedding and the model that made it when there is one (migration
//! `assistant_embeddings`: f32 little-endian bytes, `crate::assistant::vector`). A
//! document and its passages are written in one transaction; every query of a user's
//! call takes the organisation.

use gemba_shared::api::v1::assistant::AssistantDocument;

use super::{Backend, Db, now_ms};
use crate::assistant::rag;

/// A passage found for a question, in the index's rank order.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The passage's id.
    pub id: i64,
    pub document: i64,
    pub document_name: String,
    pub position: i64,
    pub text: String,
}

/// Each passage's embedding (as [`crate::assistant::vector::encode`] writes it) and the
/// model's id.
pub struct Embedded<'a> {
    pub model: &'a str,
    pub vectors: &'a [Vec<u8>],
}

/// Stores a document of `org` with its passages (and their embeddings, one per passage,
/// when given); its id.
pub async fn create(
    db: &Db,
    org: i64,
    user: i64,
    name: &str,
    source: &str,
    chunks: &[String],
    embedded: Option<Embedded<'_>>,
) -> sqlx::Result<i64> {
    if let Some(e) = &embedded {
        assert_eq!(e.vectors.len(), chunks.len(), "one embedding per passage");
    }
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
            "INSERT INTO assistant_chunks \
             (organization_id, document_id, position, body, embedding, embedding_model) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(org)
        .bind(id)
        .bind(i as i64)
        .bind(c)
        .bind(embedded.as_ref().map(|e| e.vectors[i].clone()))
        .bind(embedded.as_ref().map(|e| e.model.to_string()))
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
    let rows: Vec<HitRow> = match db.backend {
        Backend::Sqlite => {
            sqlx::query_as(
                "SELECT c.id, c.document_id, d.name, c.position, c.body \
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
                "SELECT c.id, c.document_id, d.name, c.position, c.body \
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
    Ok(rows.into_iter().map(hit).collect())
}

type HitRow = (i64, i64, String, i64, String);

fn hit((id, document, document_name, position, text): HitRow) -> Hit {
    Hit {
        id,
        document,
        document_name,
        position,
        text,
    }
}

/// The organisation's passages `ids` (others' are left out), in `ids`' order.
pub async fn by_ids(db: &Db, org: i64, ids: &[i64]) -> sqlx::Result<Vec<Hit>> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 2)).collect();
    let sql = format!(
        "SELECT c.id, c.document_id, d.name, c.position, c.body \
         FROM assistant_chunks c JOIN assistant_documents d ON d.id = c.document_id \
         WHERE c.organization_id = $1 AND c.id IN ({})",
        marks.join(", ")
    );
    let mut q = sqlx::query_as::<_, HitRow>(sqlx::AssertSqlSafe(sql)).bind(org);
    for id in ids {
        q = q.bind(*id);
    }
    let mut rows: Vec<Hit> = q.fetch_all(&db.pool).await?.into_iter().map(hit).collect();
    rows.sort_by_key(|h| ids.iter().position(|i| *i == h.id));
    Ok(rows)
}

/// The organisation's passages embedded by `model`: (id, embedding bytes), by id.
pub async fn embeddings(db: &Db, org: i64, model: &str) -> sqlx::Result<Vec<(i64, Vec<u8>)>> {
    sqlx::query_as(
        "SELECT id, embedding FROM assistant_chunks \
         WHERE organization_id = $1 AND embedding_model = $2 AND embedding IS NOT NULL \
         ORDER BY id",
    )
    .bind(org)
    .bind(model)
    .fetch_all(&db.pool)
    .await
}

/// How many of the organisation's passages have no embedding of `model`.
pub async fn count_unembedded(db: &Db, org: i64, model: &str) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM assistant_chunks WHERE organization_id = $1 \
         AND (embedding_model IS NULL OR embedding_model <> $2)",
    )
    .bind(org)
    .bind(model)
    .fetch_one(&db.pool)
    .await
}

/// Passages of every organisation with no embedding of `model`, after id `after`, at
/// most `limit`: (id, text), by id (the embedder's backfill).
pub async fn unembedded(
    db: &Db,
    model: &str,
    after: i64,
    limit: i64,
) -> sqlx::Result<Vec<(i64, String)>> {
    sqlx::query_as(
        "SELECT id, body FROM assistant_chunks \
         WHERE id > $1 AND (embedding_model IS NULL OR embedding_model <> $2) \
         ORDER BY id LIMIT $3",
    )
    .bind(after)
    .bind(model)
    .bind(limit)
    .fetch_all(&db.pool)
    .await
}

/// Stores passages' embeddings by `model`, in one transaction.
pub async fn set_embeddings(db: &Db, model: &str, rows: &[(i64, Vec<u8>)]) -> sqlx::Result<()> {
    let mut tx = db.begin_write().await?;
    for (id, blob) in rows {
        sqlx::query(
            "UPDATE assistant_chunks SET embedding = $1, embedding_model = $2 WHERE id = $3",
        )
        .bind(blob.clone())
        .bind(model)
        .bind(*id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await
}
