//! Semantic retrieval with the real passage embedder (`models/embedder`, built into
//! `$GEMBA_MODELS/embedder` by scripts/lib.sh `build_embedder`) through ONNX Runtime:
//! a question sharing no word with the right passage finds it, the semantic ranker's
//! order, the tokenizer and model agreeing with the build's own checks, the backfill of
//! passages stored before the model, another organisation's passages never shown, and a
//! broken model leaving full-text search with the answer saying so.
//! Skipped (said on stderr) only where the model is not built and `CI` is unset.

use std::path::PathBuf;

use gemba_cloud::assistant::embed::{Embedder, Semantic, backfill_with};
use gemba_cloud::assistant::{rag, retrieve, vector};
use gemba_cloud::db::assistant_docs;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{DOCS, ask};
use crate::common::*;
use crate::devices::world;
use crate::videos::b_task;

/// The built embedder, or `None` (the test skipped) where it is missing outside CI.
fn model_dir() -> Option<PathBuf> {
    let dir = crate::learning_loop::models_dir().join("embedder");
    if dir.join("model.onnx").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing: scripts/test builds it (scripts/lib.sh build_embedder)",
        dir.display()
    );
    eprintln!(
        "skipped: no embedder at {} (build it with scripts/lib.sh build_embedder)",
        dir.display()
    );
    None
}

async fn upload(app: &TestApp, tok: &str, name: &str, text: &str) -> Value {
    let r = app
        .client
        .post(format!("{}/{DOCS}", app.base))
        .query(&[("name", name)])
        .bearer_auth(tok)
        .body(text.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    r.json().await.unwrap()
}

/// A shop-floor handbook: one heading (a line ending in a colon) and paragraph per
/// passage.
const HANDBOOK: &[(&str, &str)] = &[
    (
        "Torque",
        "Tighten the four M6 housing screws crosswise to 12 Nm with the blue torque wrench.",
    ),
    (
        "Guarding",
        "Wear safety glasses and cut-resistant gloves whenever the grinding wheel is running.",
    ),
    (
        "Shift handover",
        "The leaving team lead writes open issues on the board and briefs the next team lead in person.",
    ),
    (
        "Canteen",
        "Lunch is served from noon until two in the hall next to the gate.",
    ),
    (
        "Scrap",
        "Put rejected housings in the red bin and record the reason on the scrap sheet.",
    ),
    (
        "Curing",
        "The oven cures the coat at 180 degrees for 20 minutes. Open the door only after the fan stops.",
    ),
];

fn handbook() -> String {
    HANDBOOK
        .iter()
        .map(|(h, p)| format!("{h}:\n{p}\n"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Questions that share no word with the passage (heading) that answers them.
const PARAPHRASES: &[(&str, &str)] = &[
    (
        "Which protective equipment is mandatory near the abrasive disc?",
        "Guarding",
    ),
    (
        "How do colleagues pass on unresolved problems when they go home?",
        "Shift handover",
    ),
];

fn passages(a: &gemba_shared::api::v1::assistant::AssistantAnswer) -> Vec<String> {
    a.messages
        .iter()
        .filter_map(|m| m.passage.as_ref())
        .map(|p| p.text.clone())
        .collect()
}

fn retrieval_note(a: &gemba_shared::api::v1::assistant::AssistantAnswer) -> String {
    a.messages
        .iter()
        .find(|m| m.kind == "note" && m.caption.starts_with("Retrieval:"))
        .map(|m| m.caption.clone())
        .unwrap_or_else(|| panic!("no retrieval note: {:?}", a.messages))
}

macro_rules! with_model {
    ($name:ident, $body:expr) => {
        mod $name {
            use super::*;
            async fn run(backend: Backend) {
                let Some(dir) = model_dir() else { return };
                let d = dir.clone();
                let app = TestApp::start_with(backend, move |s| s.embedding_model = Some(d)).await;
                ($body)(app, dir).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                run(Backend::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                run(Backend::Postgres).await
            }
        }
    };
}

with_model!(
    a_paraphrase_finds_its_passage_by_meaning,
    |app: TestApp, dir: PathBuf| async move {
        let w = world(&app).await;
        upload(&app, &w.eng, "handbook.txt", &handbook()).await;
        // B's passage says the same as A's guarding rule: never A's answer.
        let (eng_b, _) = b_task(&app, &w).await;
        upload(
            &app,
            &eng_b,
            "b.txt",
            "Guarding\nEye protection and gloves are required at the abrasive disc of B.\n",
        )
        .await;
        let model = Embedder::load(&dir).unwrap();
        for (question, heading) in PARAPHRASES {
            let right = HANDBOOK.iter().find(|(h, _)| h == heading).unwrap();
            // The question shares no word with the passage: full-text search misses it.
            let terms = rag::terms(question);
            assert_eq!(
                rag::coverage(&format!("{}\n{}", right.0, right.1), &terms),
                0.0,
                "{question}"
            );
            let lexical = assistant_docs::search(&app.state.db, w.a, &terms, 20)
                .await
                .unwrap();
            assert!(
                lexical.iter().all(|h| !h.text.starts_with(heading)),
                "{question}: {lexical:?}"
            );
            for ranker in [true, false] {
                let a = ask(
                    &app,
                    &w.analyst,
                    json!({"mode": "rag", "message": question, "use_semantic_ranker": ranker}),
                )
                .await;
                let p = passages(&a);
                assert!(p[0].starts_with(heading), "{question} ({ranker}): {p:?}");
                assert!(p.iter().all(|t| !t.contains("of B")), "{p:?}");
                let note = retrieval_note(&a);
                assert!(note.contains("semantic search"), "{note}");
                assert_eq!(
                    note.contains("ordered by similarity in meaning"),
                    ranker,
                    "{note}"
                );
                assert!(!note.contains("not embedded yet"), "{note}");
                if ranker {
                    // The semantic ranker: the passages in order of similarity to the
                    // question, as the model itself measures it.
                    let mut texts = vec![question.to_string()];
                    texts.extend(p.clone());
                    let e = model.embed(&texts).unwrap();
                    let sims: Vec<f32> = e[1..].iter().map(|v| vector::cosine(&e[0], v)).collect();
                    assert!(sims.windows(2).all(|s| s[0] >= s[1]), "{sims:?}");
                }
            }
        }
        // A question nothing answers: no passage found by meaning alone.
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "welding"}),
        )
        .await;
        assert!(passages(&a).is_empty(), "{:?}", passages(&a));
        assert!(
            a.messages.iter().any(|m| m
                .caption
                .starts_with("No passage of the organisation's documents")),
            "{:?}",
            a.messages
        );
        // Words still count: the torque rule by its words.
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "M6 torque"}),
        )
        .await;
        assert!(passages(&a)[0].starts_with("Torque"), "{:?}", passages(&a));
    }
);

/// A document added while no model was configured, then the model: the answer says
/// its passages wait, the backfill embeds them (and those of another model), then they
/// are found by meaning.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passages_stored_before_the_model_are_embedded_by_the_backfill() {
    let Some(dir) = model_dir() else { return };
    let app = TestApp::start(Backend::Sqlite).await;
    let w = world(&app).await;
    upload(&app, &w.eng, "handbook.txt", &handbook()).await;
    let db = &app.state.db;
    let semantic = Semantic::new(Some(dir));
    let model = semantic.model().await.unwrap().unwrap();
    // One embedded by another model: embedded again.
    assistant_docs::create(
        db,
        w.a,
        0,
        "other.txt",
        "text",
        &["Scrap\nOld scrap rule.".to_string()],
        Some(assistant_docs::Embedded {
            model: "another-model@0",
            vectors: &[vector::encode(&[1.0, 0.0])],
        }),
    )
    .await
    .unwrap();
    assert_eq!(
        assistant_docs::count_unembedded(db, w.a, &model.id)
            .await
            .unwrap(),
        7
    );
    let question = PARAPHRASES[0].0;
    let r = retrieve::passages(db, &semantic, w.a, question, true)
        .await
        .unwrap();
    assert!(r.semantic);
    assert!(
        r.how.contains("7 passages are not embedded yet"),
        "{}",
        r.how
    );
    assert!(
        r.hits.iter().all(|h| !h.text.starts_with("Guarding")),
        "{r:?}"
    );
    backfill_with(db, &semantic).await;
    assert_eq!(
        assistant_docs::count_unembedded(db, w.a, &model.id)
            .await
            .unwrap(),
        0
    );
    let stored = assistant_docs::embeddings(db, w.a, &model.id)
        .await
        .unwrap();
    assert_eq!(stored.len(), 7);
    assert!(
        stored
            .iter()
            .all(|(_, b)| vector::decode(b, model.dims).is_some())
    );
    let r = retrieve::passages(db, &semantic, w.a, question, true)
        .await
        .unwrap();
    assert!(r.hits[0].text.starts_with("Guarding"), "{r:?}");
    assert!(!r.how.contains("not embedded"), "{}", r.how);
}

/// The tokenizer and model through `tokenizers` and ONNX Runtime give the embeddings
/// the build computed in Python (`manifest.json`'s checks).
#[test]
fn the_embedder_agrees_with_the_build() {
    let Some(dir) = model_dir() else { return };
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let checks = m["checks"].as_array().unwrap();
    let texts: Vec<String> = checks
        .iter()
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect();
    let model = Embedder::load(&dir).unwrap();
    assert_eq!(model.id, m["id"].as_str().unwrap());
    let got = model.embed(&texts).unwrap();
    let mut worst = 0f32;
    for (c, e) in checks.iter().zip(&got) {
        let want: Vec<f32> = c["embedding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        assert_eq!(e.len(), want.len());
        for (a, b) in e.iter().zip(&want) {
            worst = worst.max((a - b).abs());
        }
    }
    assert!(worst < 1e-4, "max difference {worst}");
}

/// A model file that is not a model: documents are still added, answers come from
/// full-text search, and say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_model_leaves_full_text_search() {
    let Some(good) = model_dir() else { return };
    let broken = tempfile::tempdir().unwrap();
    for f in ["manifest.json", "tokenizer.json"] {
        std::fs::copy(good.join(f), broken.path().join(f)).unwrap();
    }
    std::fs::write(broken.path().join("model.onnx"), b"not an onnx model").unwrap();
    let dir = broken.path().to_path_buf();
    let app = TestApp::start_with(Backend::Sqlite, move |s| s.embedding_model = Some(dir)).await;
    let w = world(&app).await;
    let doc = upload(&app, &w.eng, "handbook.txt", &handbook()).await;
    assert_eq!(doc["chunks"], 6);
    for ranker in [true, false] {
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "What torque for the M6 screws?",
                "use_semantic_ranker": ranker}),
        )
        .await;
        assert!(passages(&a)[0].starts_with("Torque"), "{:?}", passages(&a));
        let note = retrieval_note(&a);
        assert!(
            note.starts_with(
                "Retrieval: full-text search alone: the embedding model could not be used"
            ),
            "{note}"
        );
        assert!(!note.contains(&*broken.path().to_string_lossy()), "{note}");
    }
    // Stored for full-text search, waiting to be embedded.
    assert_eq!(
        assistant_docs::count_unembedded(&app.state.db, w.a, "any")
            .await
            .unwrap(),
        6
    );
}

/// No model configured: full-text search, and the answer says it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_model_retrieval_says_it_is_full_text() {
    let app = TestApp::start(Backend::Sqlite).await;
    let w = world(&app).await;
    upload(&app, &w.eng, "handbook.txt", &handbook()).await;
    let a = ask(
        &app,
        &w.analyst,
        json!({"mode": "rag", "message": PARAPHRASES[0].0}),
    )
    .await;
    assert!(passages(&a).iter().all(|p| !p.starts_with("Guarding")));
    assert_eq!(
        retrieval_note(&a),
        "Retrieval: full-text search alone (no embedding model is configured), re-ranked by \
         the share of the question's words each passage holds."
    );
}
