//! Retrieval over the organisation's documents, the I/O: the full-text index's best
//! passages and, with an embedding model ([`super::embed`]), the passages nearest the
//! question in meaning (brute force over the organisation's embeddings), fused by
//! reciprocal rank; the semantic ranker (`use_semantic_ranker`) then orders them by
//! similarity to the question. Without a model, or when it fails, full-text search alone
//! with the lexical re-ranker ([`rag::rerank`]). The answer says which ([`Retrieved::how`]).

use std::collections::HashMap;

use super::embed::Semantic;
use super::{rag, vector};
use crate::db::Db;
use crate::db::assistant_docs::{self, Hit};

/// The least cosine a passage found by meaning alone needs: under it the nearest passage
/// of an unrelated question would still be shown (unrelated sentences score about
/// −0.1…0.15 with all-MiniLM-L6-v2, paraphrases 0.35 and more; `models/embedder`).
pub const MIN_SIMILARITY: f32 = 0.25;

/// The passages for a question, best first, and the sentence saying how they were found.
#[derive(Debug)]
pub struct Retrieved {
    pub hits: Vec<Hit>,
    pub how: String,
    /// Whether the embedding model was used.
    pub semantic: bool,
}

/// The [`rag::PASSAGES`] passages of `org`'s documents answering `question`.
pub async fn passages(
    db: &Db,
    semantic: &Semantic,
    org: i64,
    question: &str,
    ranker: bool,
) -> sqlx::Result<Retrieved> {
    let terms = rag::terms(question);
    let lexical = assistant_docs::search(db, org, &terms, rag::CANDIDATES as i64).await?;
    let (model, query) = match semantic.embed(vec![question.to_string()]).await {
        Ok(Some((m, mut v))) => (m, v.pop().unwrap_or_default()),
        Ok(None) => {
            return Ok(full_text(
                lexical,
                &terms,
                ranker,
                "Retrieval: full-text search alone (no embedding model is configured)",
            ));
        }
        Err(why) => {
            tracing::warn!(%why, "the embedding model failed: retrieval is full-text alone");
            return Ok(full_text(
                lexical,
                &terms,
                ranker,
                "Retrieval: full-text search alone: the embedding model could not be used \
                 (the server's log says why)",
            ));
        }
    };
    let stored: Vec<(i64, Vec<f32>)> = assistant_docs::embeddings(db, org, &model.id)
        .await?
        .into_iter()
        .filter_map(|(id, b)| vector::decode(&b, model.dims).map(|v| (id, v)))
        .collect();
    let near: Vec<i64> = vector::nearest(&query, &stored, rag::CANDIDATES)
        .into_iter()
        .filter(|(_, s)| *s >= MIN_SIMILARITY)
        .map(|(id, _)| id)
        .collect();
    let by_text: Vec<i64> = lexical.iter().map(|h| h.id).collect();
    let mut order = vector::fuse(&[&by_text, &near]);
    if ranker {
        let similar: HashMap<i64, f32> = stored
            .iter()
            .filter(|(id, _)| order.contains(id))
            .map(|(id, v)| (*id, vector::cosine(&query, v)))
            .collect();
        // Stable: a passage not embedded yet keeps its fused place after the others.
        order.sort_by(|a, b| match (similar.get(a), similar.get(b)) {
            (Some(x), Some(y)) => y.total_cmp(x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
    }
    order.truncate(rag::PASSAGES);
    let mut found: HashMap<i64, Hit> = lexical.into_iter().map(|h| (h.id, h)).collect();
    let missing: Vec<i64> = order
        .iter()
        .copied()
        .filter(|id| !found.contains_key(id))
        .collect();
    found.extend(
        assistant_docs::by_ids(db, org, &missing)
            .await?
            .into_iter()
            .map(|h| (h.id, h)),
    );
    let hits = order.iter().filter_map(|id| found.remove(id)).collect();
    let mut how = format!(
        "Retrieval: full-text and semantic search ({} embeddings), fused by reciprocal rank{}.",
        model.name,
        if ranker {
            ", then ordered by similarity in meaning to the question"
        } else {
            ""
        }
    );
    let waiting = assistant_docs::count_unembedded(db, org, &model.id).await?;
    if waiting > 0 {
        how.push_str(&format!(
            " {waiting} passage{} not embedded yet: found by full-text search alone.",
            if waiting == 1 { " is" } else { "s are" }
        ));
    }
    Ok(Retrieved {
        hits,
        how,
        semantic: true,
    })
}

fn full_text(mut hits: Vec<Hit>, terms: &[String], ranker: bool, how: &str) -> Retrieved {
    if ranker {
        hits = rag::rerank(hits, |h| h.text.as_str(), terms);
    }
    hits.truncate(rag::PASSAGES);
    Retrieved {
        hits,
        how: format!(
            "{how}{}.",
            if ranker {
                ", re-ranked by the share of the question's words each passage holds"
            } else {
                ""
            }
        ),
        semantic: false,
    }
}

/// A new document's passages embedded for storing (the model's id and each passage's
/// bytes); `None` without a model, or when it fails: the document is then stored for
/// full-text search, and [`super::embed::backfill`] embeds it at the next start.
pub async fn embed_passages(
    semantic: &Semantic,
    chunks: &[String],
) -> Option<(String, Vec<Vec<u8>>)> {
    match semantic.embed(chunks.to_vec()).await {
        Ok(Some((m, v))) => Some((m.id.clone(), v.iter().map(|x| vector::encode(x)).collect())),
        Ok(None) => None,
        Err(why) => {
            tracing::warn!(
                %why,
                "the embedding model failed: the document is stored for full-text search alone"
            );
            None
        }
    }
}
