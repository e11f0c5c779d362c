//! The assistant's retrieval with the passage embedder (issue 32): passages embedded a
//! second (batches of 16 passages of about 800 characters, as documents are added), then
//! a question's retrieval (`crate::assistant::retrieve::passages`: the question
//! embedded, the full-text search, the brute-force nearest over the organisation's
//! stored embeddings, the fusion and the semantic ranker) with 1,000 and 10,000 passages
//! stored, p50/p95 of 20 questions, and the part of it that is the vector search alone.
//! On SQLite.
//!
//! Run by `bench/assistant.sh`:
//! `cargo run [--release] -p gemba-cloud --example assistant_retrieval_bench -- EMBEDDER_DIR`

use std::time::Instant;

use gemba_cloud::assistant::{retrieve, vector};
use gemba_cloud::db::assistant_docs;

mod common;
use common::{Seed, Seeded, seeded};

const WORDS: &[&str] = &[
    "torque", "housing", "screw", "operator", "station", "fixture", "gloves", "glasses",
    "conveyor", "sensor", "label", "scanner", "pallet", "bin", "oven", "coat", "paint", "inspect",
    "record", "shift", "lead", "board", "wrench", "bolt", "cover", "cable", "press", "cycle",
    "step", "check", "replace", "clean", "store", "measure", "gauge",
];

/// A deterministic passage of about 800 characters.
fn passage(i: usize) -> String {
    let mut s = String::new();
    let mut x = i as u64 * 2_654_435_761 + 1;
    while s.len() < 780 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(WORDS[(x % WORDS.len() as u64) as usize]);
        s.push(if x.is_multiple_of(9) { '.' } else { ' ' });
        if x.is_multiple_of(9) {
            s.push(' ');
        }
    }
    s
}

fn pct(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir_arg = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: assistant_retrieval_bench EMBEDDER_DIR"))?;
    let dir = tempfile::tempdir()?;
    let seed = Seed {
        embedding_model: Some(dir_arg.into()),
        ..Seed::default()
    };
    let Seeded {
        state, org, admin, ..
    } = seeded(&dir, seed).await?;
    let model = state
        .semantic
        .model()
        .await
        .map_err(anyhow::Error::msg)?
        .ok_or_else(|| anyhow::anyhow!("no model"))?;

    let texts: Vec<String> = (0..128).map(passage).collect();
    state
        .semantic
        .embed(texts[..16].to_vec())
        .await
        .map_err(anyhow::Error::msg)?;
    let t = Instant::now();
    let (_, vectors) = state
        .semantic
        .embed(texts.clone())
        .await
        .map_err(anyhow::Error::msg)?
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "embedding: {} passages of ~800 characters in {secs:.2} s: {:.1} passages/s",
        texts.len(),
        texts.len() as f64 / secs
    );

    let mut stored = 0usize;
    for target in [1_000usize, 10_000] {
        while stored < target {
            // Documents of 100 passages; the embeddings are the measured ones, nudged so
            // no two are alike.
            let chunks: Vec<String> = (stored..stored + 100).map(passage).collect();
            let blobs: Vec<Vec<u8>> = (stored..stored + 100)
                .map(|i| {
                    let mut v = vectors[i % vectors.len()].clone();
                    v[i % model.dims] += 0.01 * (i / vectors.len()) as f32;
                    vector::encode(&v)
                })
                .collect();
            assistant_docs::create(
                &state.db,
                org,
                admin,
                &format!("doc{stored}"),
                "text",
                &chunks,
                Some(assistant_docs::Embedded {
                    model: &model.id,
                    vectors: &blobs,
                }),
            )
            .await?;
            stored += 100;
        }
        let questions = [
            "What torque for the housing screws?",
            "Which gloves does the operator wear at the press?",
            "How is the oven cleaned after a shift?",
            "Where do rejected covers go?",
        ];
        let (mut whole, mut search) = (vec![], vec![]);
        for i in 0..20 {
            let q = questions[i % questions.len()];
            let t = Instant::now();
            let r = retrieve::passages(&state.db, &state.semantic, org, q, true).await?;
            whole.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(r.semantic && !r.hits.is_empty());
            let (_, mut qv) = state
                .semantic
                .embed(vec![q.to_string()])
                .await
                .map_err(anyhow::Error::msg)?
                .unwrap();
            let t = Instant::now();
            let rows = assistant_docs::embeddings(&state.db, org, &model.id).await?;
            let items: Vec<(i64, Vec<f32>)> = rows
                .into_iter()
                .filter_map(|(id, b)| vector::decode(&b, model.dims).map(|v| (id, v)))
                .collect();
            let near = vector::nearest(&qv.pop().unwrap(), &items, 20);
            search.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(near.len(), 20);
        }
        println!(
            "{target} passages: a question's retrieval p50 {:.1} ms p95 {:.1} ms; of which \
             reading the embeddings and the nearest 20 p50 {:.1} ms p95 {:.1} ms",
            pct(whole.clone(), 0.5),
            pct(whole, 0.95),
            pct(search.clone(), 0.5),
            pct(search, 0.95)
        );
    }
    Ok(())
}
