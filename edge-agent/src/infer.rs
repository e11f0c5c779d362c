//! Inference with ONNX Runtime (`ort`, the library loaded at run time from the path in
//! `ORT_DYLIB_PATH`: the shared library of the PyPI `onnxruntime` wheel, which the
//! project's set-up installs).
//!
//! A model bundle is a folder holding `model.onnx`, whose metadata says what the agent
//! needs: `gemba.input_width`, `gemba.input_height` (the frame it takes, RGB uint8,
//! N × height × width × 3), `gemba.labels` (a JSON list: the steps in order, then
//! background) and `gemba.version`. Its one output holds each label's probability.
//!
//! A model is checked when it is loaded, so that a deploy is refused before anything
//! changes: its declared input must take those frames and its (first) output be float32
//! with one value per label (`gemba_shared::model_io`, which the cloud checks at upload,
//! `cloud/src/onnx.rs`, in the same words), and it must then answer a blank frame with
//! one value per label.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, anyhow, bail};
use gemba_shared::model_io::{self, Dim};
use ort::environment::Environment;
use ort::session::Session;
use ort::value::{TensorRef, ValueType};

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
        check_io(&session, width, height, labels.len())
            .map_err(|m| anyhow!("{}: {m}", file.display()))?;
        let mut model = Model {
            session,
            width,
            height,
            labels,
            version,
        };
        let blank = vec![0; model.frame_bytes()];
        model.infer(&blank).map_err(|e| {
            anyhow!(
                "{}: the model does not run on a blank {width}×{height} frame: {e:#}",
                file.display()
            )
        })?;
        Ok(model)
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

/// What a session input or output declares, as `gemba_shared::model_io` checks it (no
/// dimensions: any shape).
fn declared(name: &str, t: &ValueType) -> model_io::Value {
    let tensor = match t {
        ValueType::Tensor {
            ty,
            shape,
            dimension_symbols,
        } => Some(model_io::Tensor {
            // ONNX Runtime numbers element types as ONNX does.
            elem: model_io::ElemType(ort::sys::ONNXTensorElementDataType::from(*ty) as i32),
            dims: (!shape.is_empty()).then(|| {
                shape
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| match dimension_symbols.get(i) {
                        _ if n >= 0 => Dim::Size(n),
                        Some(s) if !s.is_empty() => Dim::Named(s.clone()),
                        _ => Dim::Any,
                    })
                    .collect()
            }),
        }),
        _ => None,
    };
    model_io::Value {
        name: name.to_string(),
        tensor,
    }
}

/// Whether the session takes the agent's frames and answers one value per label, or
/// what does not fit (`gemba_shared::model_io::check`, the cloud's words as a clause).
fn check_io(session: &Session, width: u32, height: u32, labels: usize) -> Result<(), String> {
    let inputs: Vec<_> = session
        .inputs()
        .iter()
        .map(|i| declared(i.name(), i.dtype()))
        .collect();
    let outputs: Vec<_> = session
        .outputs()
        .iter()
        .map(|o| declared(o.name(), o.dtype()))
        .collect();
    model_io::check(&inputs, &outputs, width, height, labels).map_err(|m| {
        let m = m.strip_suffix('.').unwrap_or(&m);
        let mut c = m.chars();
        c.next()
            .map(|f| f.to_lowercase().chain(c).collect())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of `models/fixtures.py` (`fits`, `float-nchw`, `detector`) made to 64×48
    /// with three labels, in `dir`.
    fn fixture(dir: &Path, kind: &str) -> PathBuf {
        let out = dir.join(format!("{kind}.onnx"));
        let python = std::env::var_os("GEMBA_MODELS_PYTHON").unwrap_or_else(|| "python3".into());
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/fixtures.py");
        let st = std::process::Command::new(python)
            .arg(script)
            .arg(kind)
            .args(["--labels", r#"["Fit","Check","background"]"#])
            .args(["--width", "64", "--height", "48", "--out"])
            .arg(&out)
            .status()
            .expect("GEMBA_MODELS_PYTHON (scripts/lib.sh sets it up)");
        assert!(st.success(), "making a {kind} model");
        out
    }

    #[test]
    fn a_model_it_cannot_run_is_refused_at_load_with_what_does_not_fit() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Model::load(&fixture(dir.path(), "fits")).unwrap();
        assert_eq!((m.width, m.height, m.labels.len()), (64, 48, 3));
        assert_eq!(m.infer(&vec![0; m.frame_bytes()]).unwrap().len(), 3);
        for (kind, says) in [
            (
                "float-nchw",
                "the model's input is float32 1×3×48×64 (NCHW); gemba needs uint8 1×48×64×3 \
                 (RGB, NHWC) matching its gemba.input_height and gemba.input_width",
            ),
            (
                "detector",
                "; gemba needs float32 1×3: one value for each of its 3 gemba.labels",
            ),
        ] {
            let file = fixture(dir.path(), kind);
            let err = format!("{:#}", Model::load(&file).unwrap_err());
            assert!(err.contains(says), "{kind}: {err}");
            assert!(err.starts_with(&file.display().to_string()), "{err}");
        }
    }
}
