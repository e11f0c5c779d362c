//! Inference with ONNX Runtime (`ort`, the library loaded at run time from the path in
//! `ORT_DYLIB_PATH`: the shared library of the PyPI `onnxruntime` wheel, which the
//! project's set-up installs).
//!
//! A model bundle is a folder holding `model.onnx`, whose metadata says what the agent
//! needs: `gemba.input_width`, `gemba.input_height` (the frame it takes, which the
//! capture scales to), `gemba.labels` (a JSON list: the steps in order, then background)
//! and `gemba.version`, and how to feed it the frame (`gemba_shared::model_io`'s
//! preprocessing keys: layout, element type, scale, mean, std, colour order; by default
//! the RGB uint8 frame as captured, N × height × width × 3). Its one output holds each
//! label's probability.
//!
//! A model is checked when it is loaded, so that a deploy is refused before anything
//! changes: its declared preprocessing must be one the agent can apply, its declared
//! input must take those frames and its (first) output be float32 with one value per
//! label (`gemba_shared::model_io`, which the cloud checks at upload,
//! `cloud/src/onnx.rs`, in the same words), and it must then answer a blank frame with
//! one value per label.
//!
//! A temporal model (`gemba.window`) is given the window's frames at each frame, or, when
//! it declares `gemba.carry`, the frame and what it carried of the frames before it, kept
//! here between calls (each frame then goes through the model's per-frame part once). At
//! a stream's start the first frame stands for the frames before it, as training pads.
//!
//! Inference applies the preprocessing to the captured RGB frame into a buffer the model
//! keeps (no allocation per frame but the answer): the channels swapped for BGR, each
//! byte turned into float32 through a table of its 256 values per channel
//! ((b · scale − mean) / std), laid out NCHW if declared. The default bundle's frame goes
//! to ONNX Runtime as it is.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, anyhow, bail};
use gemba_shared::model_io::{self, Dim, ElemType, Layout, Order, Preprocessing};
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
    /// How the frame is fed to it.
    pre: Preprocessing,
    /// float32: each channel's value of each byte, `[channel * 256 + byte]`.
    table: Vec<f32>,
    /// The frame as the model takes it, when not as captured.
    floats: Vec<f32>,
    bytes: Vec<u8>,
    /// A temporal model's window (`gemba.window` frames): the last frames as captured,
    /// oldest first; before the first frame, empty (it then fills the whole window, as
    /// training pads a stream's start).
    history: Vec<u8>,
    /// A carrying model's values of the window's frames before the newest, oldest first
    /// ((window − 1) × `gemba.carry`); before the first frame, empty.
    carried: Vec<f32>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("version", &self.version)
            .field("input", &(self.width, self.height))
            .field("labels", &self.labels)
            .field("preprocessing", &self.pre)
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
        let pre = Preprocessing::from_metadata(|k| meta.custom(k))
            .map_err(|e| anyhow!("{}: {}", file.display(), clause(&e.to_string())))?;
        drop(meta);
        check_io(&session, width, height, labels.len(), &pre)
            .map_err(|m| anyhow!("{}: {m}", file.display()))?;
        let n = (width * height * 3) as usize * pre.frames_per_call() as usize;
        let float = pre.elem == ElemType::FLOAT32;
        let mut model = Model {
            session,
            width,
            height,
            labels,
            version,
            pre,
            table: if float { table(&pre) } else { vec![] },
            floats: if float { vec![0.0; n] } else { vec![] },
            bytes: if !float && !pre.takes_frames_as_captured() {
                vec![0; n]
            } else {
                vec![]
            },
            history: Vec::with_capacity(if pre.frames_per_call() > 1 { n } else { 0 }),
            carried: Vec::with_capacity((pre.window as usize - 1) * pre.carry as usize),
        };
        let blank = vec![0; model.frame_bytes()];
        model.infer(&blank).map_err(|e| {
            anyhow!(
                "{}: the model does not run on a blank {width}×{height} frame: {e:#}",
                file.display()
            )
        })?;
        model.history.clear();
        model.carried.clear();
        Ok(model)
    }

    /// Bytes in one input frame.
    pub fn frame_bytes(&self) -> usize {
        (self.width * self.height * 3) as usize
    }

    /// Frames a call takes (`gemba.window`; 1 unless the model is temporal).
    pub fn window(&self) -> usize {
        self.pre.window as usize
    }

    /// Each label's probability for one RGB frame of the model's size (for a temporal
    /// model: at this frame, from it and the frames given before it).
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
        if self.pre.carry > 0 {
            return self.infer_carrying(rgb);
        }
        if self.window() == 1 {
            return Ok(self.run(rgb, None)?.0);
        }
        let n = rgb.len();
        if self.history.is_empty() {
            for _ in 0..self.window() {
                self.history.extend_from_slice(rgb);
            }
        } else {
            self.history.copy_within(n.., 0);
            let last = self.history.len() - n;
            self.history[last..].copy_from_slice(rgb);
        }
        // Taken out for the call, which borrows the model.
        let history = std::mem::take(&mut self.history);
        let answer = self.run(&history, None);
        self.history = history;
        Ok(answer?.0)
    }

    /// A carrying model's answer at this frame: from the frame and the values carried of
    /// the frames before (at a stream's start, this frame's own, as training pads).
    fn infer_carrying(&mut self, rgb: &[u8]) -> anyhow::Result<Vec<f32>> {
        let c = self.pre.carry as usize;
        let before = self.pre.window as usize - 1;
        if self.carried.is_empty() {
            self.carried.resize(before * c, 0.0);
            let (_, own) = self.run(rgb, Some(before)).inspect_err(|_| {
                // Still a stream's start for the next frame: not these zeros.
                self.carried.clear();
            })?;
            for k in 0..before {
                self.carried[k * c..(k + 1) * c].copy_from_slice(&own);
            }
        }
        let (probs, own) = self.run(rgb, Some(before))?;
        self.carried.copy_within(c.., 0);
        let last = self.carried.len() - c;
        self.carried[last..].copy_from_slice(&own);
        Ok(probs)
    }

    /// One call of the model on `frames` as it takes them (with `before`: the carried
    /// values of that many frames as its second input): the probabilities, and what it
    /// answers to carry (empty without).
    fn run(
        &mut self,
        frames: &[u8],
        before: Option<usize>,
    ) -> anyhow::Result<(Vec<f32>, Vec<f32>)> {
        let (h, w) = (self.height as usize, self.width as usize);
        let k = self.pre.frames_per_call() as usize;
        let shape = match self.pre.layout {
            Layout::Nhwc => [k, h, w, 3],
            Layout::Nchw => [k, 3, h, w],
        };
        let carried = match before {
            Some(n) => Some(TensorRef::from_array_view((
                [n, self.pre.carry as usize],
                self.carried.as_slice(),
            ))?),
            None => None,
        };
        let out = if self.pre.elem == ElemType::FLOAT32 {
            let table = &self.table;
            arrange(&self.pre, k, frames, &mut self.floats, |c, b| {
                table[c * 256 + usize::from(b)]
            });
            let input = TensorRef::from_array_view((shape, self.floats.as_slice()))?;
            match carried {
                Some(c) => self.session.run(ort::inputs![input, c])?,
                None => self.session.run(ort::inputs![input])?,
            }
        } else if self.pre.takes_frames_as_captured() {
            let input = TensorRef::from_array_view((shape, frames))?;
            match carried {
                Some(c) => self.session.run(ort::inputs![input, c])?,
                None => self.session.run(ort::inputs![input])?,
            }
        } else {
            arrange(&self.pre, k, frames, &mut self.bytes, |_, b| b);
            let input = TensorRef::from_array_view((shape, self.bytes.as_slice()))?;
            match carried {
                Some(c) => self.session.run(ort::inputs![input, c])?,
                None => self.session.run(ort::inputs![input])?,
            }
        };
        let (_, probs) = out[0].try_extract_tensor::<f32>()?;
        if probs.len() != self.labels.len() {
            bail!(
                "the model answered {} values for {} labels",
                probs.len(),
                self.labels.len()
            );
        }
        let own = if before.is_some() {
            let (_, own) = out[1].try_extract_tensor::<f32>()?;
            if own.len() != self.pre.carry as usize {
                bail!(
                    "the model answered {} values to carry; it declares {}",
                    own.len(),
                    self.pre.carry
                );
            }
            own.to_vec()
        } else {
            vec![]
        };
        Ok((probs.to_vec(), own))
    }
}

/// Each channel's value of each byte, `[channel * 256 + byte]`: (b · scale − mean) / std.
fn table(pre: &Preprocessing) -> Vec<f32> {
    (0..3)
        .flat_map(|c| {
            (0..=255u8).map(move |b| (f32::from(b) * pre.scale - pre.mean[c]) / pre.std[c])
        })
        .collect()
}

/// Writes the `count` RGB frames `frames` (one, or a window of them oldest first)
/// into `out` as the model takes them: channel `c` of the model (its colour order) at
/// each pixel, where its layout puts it, as `value(c, byte)`.
fn arrange<T>(
    pre: &Preprocessing,
    count: usize,
    frames: &[u8],
    out: &mut [T],
    value: impl Fn(usize, u8) -> T,
) {
    let from = match pre.order {
        Order::Rgb => [0, 1, 2],
        Order::Bgr => [2, 1, 0],
    };
    let each = frames.len() / count.max(1);
    for (out, rgb) in out.chunks_exact_mut(each).zip(frames.chunks_exact(each)) {
        match pre.layout {
            Layout::Nhwc => {
                for (o, px) in out.chunks_exact_mut(3).zip(rgb.chunks_exact(3)) {
                    for c in 0..3 {
                        o[c] = value(c, px[from[c]]);
                    }
                }
            }
            Layout::Nchw => {
                let plane = rgb.len() / 3;
                let (r, rest) = out.split_at_mut(plane);
                let (g, b) = rest.split_at_mut(plane);
                for (i, px) in rgb.chunks_exact(3).enumerate() {
                    r[i] = value(0, px[from[0]]);
                    g[i] = value(1, px[from[1]]);
                    b[i] = value(2, px[from[2]]);
                }
            }
        }
    }
}

/// A sentence as a clause: "The model's …." → "the model's …".
fn clause(m: &str) -> String {
    let m = m.strip_suffix('.').unwrap_or(m);
    let mut c = m.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
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
fn check_io(
    session: &Session,
    width: u32,
    height: u32,
    labels: usize,
    pre: &Preprocessing,
) -> Result<(), String> {
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
    model_io::check(&inputs, &outputs, width, height, labels, pre).map_err(|m| clause(&m))
}

#[cfg(test)]
mod tests;
