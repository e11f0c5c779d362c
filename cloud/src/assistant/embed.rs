//! The passage embedder (`[assistant] embedding_model`): a folder made by
//! `models/embedder/build.py` (`model.onnx`, `tokenizer.json`, `manifest.json`) run through
//! ONNX Runtime (`ort`, the library at `ORT_DYLIB_PATH`, as the agent loads it) with the
//! Hugging Face tokenizer. [`Semantic`] loads it once, on first use, and runs one batch
//! at a time off the async runtime; a model that is not configured, does not load or does
//! not run leaves retrieval to full-text search (`super::retrieve`).
//! [`backfill`] embeds the passages stored before the model (or under another model).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use ort::environment::Environment;
use ort::session::Session;
use ort::value::TensorRef;
use serde::Deserialize;
use tokenizers::Tokenizer;

use super::vector;
use crate::db::{Db, assistant_docs};
use crate::state::AppState;

/// Texts embedded in one call to the model.
pub const BATCH: usize = 16;

/// What `manifest.json` says of the model.
#[derive(Debug, Deserialize)]
struct Manifest {
    /// The name and the start of model.onnx's sha256: a passage embedded under another id
    /// is embedded again.
    id: String,
    name: String,
    dimensions: usize,
}

/// A loaded embedding model.
pub struct Embedder {
    pub id: String,
    pub name: String,
    pub dims: usize,
    session: Mutex<Session>,
    tokenizer: Tokenizer,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("id", &self.id).finish()
    }
}

static ENV: OnceLock<Result<Environment, String>> = OnceLock::new();

/// ONNX Runtime from `ORT_DYLIB_PATH`, loaded once per process.
fn environment() -> Result<Environment, String> {
    ENV.get_or_init(|| {
        let lib = std::env::var_os("ORT_DYLIB_PATH")
            .map(PathBuf::from)
            .ok_or(
                "ORT_DYLIB_PATH is not set: point it at libonnxruntime.so (the onnxruntime \
             wheel's, as ./scripts/run sets it up)",
            )?;
        if !lib.is_file() {
            return Err(format!("no ONNX Runtime library at {}", lib.display()));
        }
        ort::init_from(&lib)
            .map_err(|e| format!("loading ONNX Runtime from {}: {e}", lib.display()))?
            .with_name("gemba-cloud")
            .build()
            .map_err(|e| format!("starting ONNX Runtime: {e}"))
    })
    .clone()
}

impl Embedder {
    /// Loads the model folder `dir` and checks that it runs and answers `dims` values.
    pub fn load(dir: &Path) -> Result<Embedder, String> {
        let at = |f: &str| dir.join(f);
        let manifest: Manifest = std::fs::read(at("manifest.json"))
            .map_err(|e| format!("{}: {e}", at("manifest.json").display()))
            .and_then(|b| {
                serde_json::from_slice(&b)
                    .map_err(|e| format!("{}: {e}", at("manifest.json").display()))
            })?;
        let tokenizer = Tokenizer::from_file(at("tokenizer.json"))
            .map_err(|e| format!("{}: {e}", at("tokenizer.json").display()))?;
        let env = environment()?;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
        let session = Session::builder(&env)
            .and_then(|b| b.with_intra_threads(threads).map_err(Into::into))
            .and_then(|mut b| b.commit_from_file(at("model.onnx")))
            .map_err(|e| format!("{}: {e}", at("model.onnx").display()))?;
        let e = Embedder {
            id: manifest.id,
            name: manifest.name,
            dims: manifest.dimensions,
            session: Mutex::new(session),
            tokenizer,
        };
        e.embed(&["check".to_string()])
            .map_err(|why| format!("{}: the model does not run: {why}", dir.display()))?;
        Ok(e)
    }

    /// Each text's embedding (unit length), in order; blocking: call off the runtime.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            out.extend(self.embed_batch(batch)?);
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        if texts.is_empty() {
            return Ok(vec![]);
        }
        let enc: Vec<_> = texts
            .iter()
            .map(|t| self.tokenizer.encode(t.as_str(), true))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("tokenizing: {e}"))?;
        let len = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let n = texts.len();
        let (mut ids, mut mask) = (vec![0i64; n * len], vec![0i64; n * len]);
        for (i, e) in enc.iter().enumerate() {
            for (j, (&id, &m)) in e.get_ids().iter().zip(e.get_attention_mask()).enumerate() {
                ids[i * len + j] = i64::from(id);
                mask[i * len + j] = i64::from(m);
            }
        }
        let ids =
            TensorRef::from_array_view(([n, len], ids.as_slice())).map_err(|e| e.to_string())?;
        let mask =
            TensorRef::from_array_view(([n, len], mask.as_slice())).map_err(|e| e.to_string())?;
        let mut session = self
            .session
            .lock()
            .map_err(|_| "the model's lock is poisoned")?;
        let out = session
            .run(ort::inputs!["input_ids" => ids, "attention_mask" => mask])
            .map_err(|e| e.to_string())?;
        let (_, values) = out["embedding"]
            .try_extract_tensor::<f32>()
            .map_err(|e| e.to_string())?;
        if values.len() != n * self.dims {
            return Err(format!(
                "the model answered {} values for {n} texts of {} dimensions",
                values.len(),
                self.dims
            ));
        }
        Ok(values
            .chunks_exact(self.dims)
            .map(<[f32]>::to_vec)
            .collect())
    }
}

/// The configured embedder, loaded on first use (once: a failure is kept, with its
/// reason, until the cloud restarts); one batch runs at a time.
pub struct Semantic {
    dir: Option<PathBuf>,
    model: tokio::sync::OnceCell<Result<Arc<Embedder>, String>>,
    running: tokio::sync::Semaphore,
}

impl Semantic {
    pub fn new(dir: Option<PathBuf>) -> Semantic {
        Semantic {
            dir,
            model: tokio::sync::OnceCell::new(),
            running: tokio::sync::Semaphore::new(1),
        }
    }

    /// Whether a model is configured.
    pub fn configured(&self) -> bool {
        self.dir.is_some()
    }

    /// The model: `Ok(None)` when none is configured, `Err` with the reason when it did
    /// not load.
    pub async fn model(&self) -> Result<Option<Arc<Embedder>>, String> {
        let Some(dir) = self.dir.clone() else {
            return Ok(None);
        };
        self.model
            .get_or_init(|| async move {
                let shown = dir.display().to_string();
                let r = tokio::task::spawn_blocking(move || Embedder::load(&dir))
                    .await
                    .map_err(|e| format!("loading the embedding model: {e}"))
                    .and_then(|r| r)
                    .map(Arc::new);
                match &r {
                    Ok(m) => tracing::info!(model = %m.id, dir = %shown, "embedding model loaded"),
                    Err(why) => tracing::warn!(
                        %why,
                        "the embedding model did not load: retrieval is full-text alone"
                    ),
                }
                r
            })
            .await
            .clone()
            .map(Some)
    }

    /// `texts`' embeddings with the model that made them: `Ok(None)` when none is
    /// configured, `Err` when it did not load or run.
    pub async fn embed(
        &self,
        texts: Vec<String>,
    ) -> Result<Option<(Arc<Embedder>, Vec<Vec<f32>>)>, String> {
        let Some(m) = self.model().await? else {
            return Ok(None);
        };
        let _turn = self
            .running
            .acquire()
            .await
            .map_err(|_| "the embedder is closed")?;
        let model = m.clone();
        let v = tokio::task::spawn_blocking(move || model.embed(&texts))
            .await
            .map_err(|e| format!("the embedding model stopped: {e}"))??;
        Ok(Some((m, v)))
    }
}

/// Embeds the passages that have no embedding of the configured model (stored before it
/// was configured, under another model, or while it failed), a batch at a time, until
/// none is left; started with the server. Stops at the first failure (logged): the
/// passages left are found by full-text search and embedded at the next start.
pub async fn backfill(state: AppState) {
    backfill_with(&state.db, &state.semantic).await
}

/// [`backfill`] of the passages in `db` with `semantic`'s model.
pub async fn backfill_with(db: &Db, semantic: &Semantic) {
    let Ok(Some(model)) = semantic.model().await else {
        return;
    };
    let mut done = 0usize;
    let mut after = 0i64;
    loop {
        let rows = match assistant_docs::unembedded(db, &model.id, after, BATCH as i64).await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, "embedding stored passages stopped");
                return;
            }
        };
        let Some(last) = rows.last() else { break };
        after = last.0;
        let texts = rows.iter().map(|r| r.1.clone()).collect();
        let vectors = match semantic.embed(texts).await {
            Ok(Some((_, v))) => v,
            Ok(None) => return,
            Err(why) => {
                tracing::warn!(%why, "embedding stored passages stopped");
                return;
            }
        };
        let blobs: Vec<(i64, Vec<u8>)> = rows
            .iter()
            .zip(&vectors)
            .map(|(r, v)| (r.0, vector::encode(v)))
            .collect();
        if let Err(e) = assistant_docs::set_embeddings(db, &model.id, &blobs).await {
            tracing::warn!(error = %e, "embedding stored passages stopped");
            return;
        }
        done += blobs.len();
    }
    if done > 0 {
        tracing::info!(passages = done, model = %model.id, "embedded the stored passages");
    }
}
