//! Inference with ONNX Runtime (`ort`, the library loaded at run time from the path in
//! `ORT_DYLIB_PATH`: the shared library of the PyPI `onnxruntime` wheel, which the
//! project's set-up installs).
//!
//! A model bundle is a folder holding `model.onnx`, whose metadata says what the agent
//! needs: `gemba.input_width`, `gemba.input_height` (the frame it takes, RGB uint8,
//! N × height × width × 3), `gemba.labels` (a JSON list: the steps in order, then
//! background) and `gemba.version`. Its one output holds each label's probability.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, anyhow, bail};
use ort::environment::Environment;
use ort::session::Session;
use ort::value::TensorRef;

/// A loaded model, ready to run on frames of its input size.
pub struct Model {
    session: Session,
    pub width: u32,
    pub height: u32,
    /// The steps in order, then background.
    pub labels: Vec<String>,
    pub version: String,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("version", &self.version)
            .field("input", &(self.width, self.height))
            .field("labels", &self.labels)
            .finish()
    }
}

/// Where the ONNX Runtime library is: `ORT_DYLIB_PATH`.
pub fn library_path() -> anyhow::Result<PathBuf> {
    let p = std::env::var_os("ORT_DYLIB_PATH").ok_or_else(|| {
        anyhow!(
            "ORT_DYLIB_PATH is not set: point it at libonnxruntime.so (pip install onnxruntime \
             puts it under site-packages/onnxruntime/capi/)"
        )
    })?;
    Ok(PathBuf::from(p))
}

static ENV: OnceLock<Result<Environment, String>> = OnceLock::new();

/// ONNX Runtime, loaded once per process.
pub fn environment() -> anyhow::Result<Environment> {
    ENV.get_or_init(|| {
        let lib = library_path().map_err(|e| e.to_string())?;
        if !lib.is_file() {
            return Err(format!("no ONNX Runtime library at {}", lib.display()));
        }
        ort::init_from(&lib)
            .map_err(|e| format!("loading ONNX Runtime from {}: {e}", lib.display()))?
            .with_name("gemba-agent")
            .build()
            .map_err(|e| format!("starting ONNX Runtime: {e}"))
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

impl Model {
    /// Loads the bundle in folder `dir` (or the `.onnx` file itself).
    pub fn load(dir: &Path) -> anyhow::Result<Model> {
        let file = if dir.is_dir() {
            dir.join("model.onnx")
        } else {
            dir.to_path_buf()
        };
        if !file.is_file() {
            bail!("no model at {}", file.display());
        }
        let env = environment()?;
        let session = Session::builder(&env)
            .and_then(|b| b.with_intra_threads(1).map_err(Into::into))
            .and_then(|mut b| b.commit_from_file(&file))
            .with_context(|| format!("loading the model {}", file.display()))?;
        let meta = session.metadata()?;
        let get = |k: &str| {
            meta.custom(k)
                .ok_or_else(|| anyhow!("{}: its metadata has no {k}", file.display()))
        };
        let num = |k: &str| -> anyhow::Result<u32> {
            get(k)?
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=4096).contains(n))
                .ok_or_else(|| anyhow!("{}: {k} is not a size", file.display()))
        };
        let (width, height) = (num("gemba.input_width")?, num("gemba.input_height")?);
        let labels: Vec<String> = serde_json::from_str(&get("gemba.labels")?)
            .with_context(|| format!("{}: gemba.labels is not a list of names", file.display()))?;
        if labels.len() < 2 {
            bail!(
                "{}: a model needs at least one step and background",
                file.display()
            );
        }
        let version = get("gemba.version")?;
        drop(meta);
        Ok(Model {
            session,
            width,
            height,
            labels,
            version,
        })
    }

    /// Bytes in one input frame.
    pub fn frame_bytes(&self) -> usize {
        (self.width * self.height * 3) as usize
    }

    /// Each label's probability for one RGB frame of the model's size.
    pub fn infer(&mut self, rgb: &[u8]) -> anyhow::Result<Vec<f32>> {
        if rgb.len() != self.frame_bytes() {
            bail!(
                "a frame of {} bytes; the model takes {}×{} RGB ({} bytes)",
                rgb.len(),
                self.width,
                self.height,
                self.frame_bytes()
            );
        }
        let shape = [1usize, self.height as usize, self.width as usize, 3];
        let input = TensorRef::from_array_view((shape, rgb))?;
        let out = self.session.run(ort::inputs![input])?;
        let (_, probs) = out[0].try_extract_tensor::<f32>()?;
        if probs.len() != self.labels.len() {
            bail!(
                "the model answered {} values for {} labels",
                probs.len(),
                self.labels.len()
            );
        }
        Ok(probs.to_vec())
    }
}
