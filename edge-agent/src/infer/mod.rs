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
        let n = (width * height * 3) as usize * pre.window as usize;
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
            history: Vec::with_capacity(if pre.window > 1 { n } else { 0 }),
        };
        let blank = vec![0; model.frame_bytes()];
        model.infer(&blank).map_err(|e| {
            anyhow!(
                "{}: the model does not run on a blank {width}×{height} frame: {e:#}",
                file.display()
            )
        })?;
        model.history.clear();
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
        let frames = if self.window() > 1 {
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
            self.history.as_slice()
        } else {
            rgb
        };
        let (h, w, k) = (self.height as usize, self.width as usize, self.window());
        let shape = match self.pre.layout {
            Layout::Nhwc => [k, h, w, 3],
            Layout::Nchw => [k, 3, h, w],
        };
        let out = if self.pre.elem == ElemType::FLOAT32 {
            let table = &self.table;
            arrange(&self.pre, frames, &mut self.floats, |c, b| {
                table[c * 256 + usize::from(b)]
            });
            let input = TensorRef::from_array_view((shape, self.floats.as_slice()))?;
            self.session.run(ort::inputs![input])?
        } else if self.pre.takes_frames_as_captured() {
            let input = TensorRef::from_array_view((shape, frames))?;
            self.session.run(ort::inputs![input])?
        } else {
            arrange(&self.pre, frames, &mut self.bytes, |_, b| b);
            let input = TensorRef::from_array_view((shape, self.bytes.as_slice()))?;
            self.session.run(ort::inputs![input])?
        };
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

/// Each channel's value of each byte, `[channel * 256 + byte]`: (b · scale − mean) / std.
fn table(pre: &Preprocessing) -> Vec<f32> {
    (0..3)
        .flat_map(|c| {
            (0..=255u8).map(move |b| (f32::from(b) * pre.scale - pre.mean[c]) / pre.std[c])
        })
        .collect()
}

/// Writes the RGB frames `frames` (one, or a window of them oldest first)
/// into `out` as the model takes them: channel `c` of the model (its colour order) at
/// each pixel, where its layout puts it, as `value(c, byte)`.
fn arrange<T>(pre: &Preprocessing, frames: &[u8], out: &mut [T], value: impl Fn(usize, u8) -> T) {
    let from = match pre.order {
        Order::Rgb => [0, 1, 2],
        Order::Bgr => [2, 1, 0],
    };
    let each = frames.len() / pre.window.max(1) as usize;
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
mod tests {
    use super::*;

    /// A model of `models/fixtures.py` (`fits`, `float-nchw`, `detector`, `fits-nchw`,
    /// `wrong-classes`, `window`) made to 64×48 with three labels, in `dir`.
    fn fixture(dir: &Path, kind: &str) -> PathBuf {
        fixture_with(dir, kind, &[])
    }

    fn fixture_with(dir: &Path, kind: &str, args: &[&str]) -> PathBuf {
        let out = dir.join(format!("{kind}{}.onnx", args.concat()));
        let python = std::env::var_os("GEMBA_MODELS_PYTHON").unwrap_or_else(|| "python3".into());
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/fixtures.py");
        let st = std::process::Command::new(python)
            .arg(script)
            .arg(kind)
            .args(["--labels", r#"["Fit","Check","background"]"#])
            .args(["--width", "64", "--height", "48"])
            .args(args)
            .arg("--out")
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

    /// `n` frames of 64×48 of made-up content, the same on every run.
    fn frames(n: usize) -> Vec<Vec<u8>> {
        let mut x: u32 = 7;
        (0..n)
            .map(|_| {
                (0..64 * 48 * 3)
                    .map(|_| {
                        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                        (x >> 24) as u8
                    })
                    .collect()
            })
            .collect()
    }

    fn argmax(p: &[f32]) -> usize {
        (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap()
    }

    #[test]
    fn a_float_nchw_model_fed_as_it_declares_answers_as_the_equivalent_bundle() {
        let dir = tempfile::tempdir().unwrap();
        let mut bundle = Model::load(&fixture(dir.path(), "fits")).unwrap();
        let mut rgb = Model::load(&fixture(dir.path(), "fits-nchw")).unwrap();
        let mut bgr = Model::load(&fixture_with(dir.path(), "fits-nchw", &["--bgr"])).unwrap();
        assert_eq!(rgb.pre.layout, Layout::Nchw);
        assert_eq!(bgr.pre.order, Order::Bgr);
        let mut labels = std::collections::BTreeSet::new();
        for f in frames(12) {
            let want = bundle.infer(&f).unwrap();
            for m in [&mut rgb, &mut bgr] {
                let got = m.infer(&f).unwrap();
                assert_eq!(argmax(&got), argmax(&want), "{got:?} vs {want:?}");
                for (g, w) in got.iter().zip(&want) {
                    assert!((g - w).abs() < 1e-5, "{got:?} vs {want:?}");
                }
            }
            labels.insert(argmax(&want));
        }
        assert!(labels.len() > 1, "the frames tell labels apart: {labels:?}");
    }

    #[test]
    fn the_frame_is_arranged_as_the_model_declares() {
        // Two pixels, (1, 2, 3) and (4, 5, 6).
        let rgb = [1u8, 2, 3, 4, 5, 6];
        let mut out = [0u8; 6];
        let mut pre = Preprocessing::default();
        arrange(&pre, &rgb, &mut out, |_, b| b);
        assert_eq!(out, rgb);
        pre.order = Order::Bgr;
        arrange(&pre, &rgb, &mut out, |_, b| b);
        assert_eq!(out, [3, 2, 1, 6, 5, 4]);
        pre.layout = Layout::Nchw;
        arrange(&pre, &rgb, &mut out, |_, b| b);
        assert_eq!(out, [3, 6, 2, 5, 1, 4]);
        pre = Preprocessing {
            elem: ElemType::FLOAT32,
            scale: 0.5,
            mean: [1.0, 0.0, 0.0],
            std: [2.0, 1.0, 1.0],
            ..Preprocessing::default()
        };
        let t = table(&pre);
        let mut f = [0f32; 6];
        arrange(&pre, &rgb, &mut f, |c, b| t[c * 256 + usize::from(b)]);
        assert_eq!(f, [-0.25, 1.0, 1.5, 0.5, 2.5, 3.0]);
    }

    #[test]
    fn a_declared_model_that_cannot_fit_is_refused_at_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = fixture(dir.path(), "wrong-classes");
        let err = format!("{:#}", Model::load(&file).unwrap_err());
        assert!(
            err.ends_with(
                "the model's output is float32 1×4; gemba needs float32 1×3: one value for \
                 each of its 3 gemba.labels"
            ),
            "{err}"
        );
        // A declaration the agent cannot apply: written as the cloud would append it.
        let bare = fixture_with(dir.path(), "fits-nchw", &["--bare"]);
        let mut bytes = std::fs::read(&bare).unwrap();
        for (k, v) in [
            ("gemba.input_width", "64"),
            ("gemba.input_height", "48"),
            ("gemba.labels", r#"["Fit","Check","background"]"#),
            ("gemba.version", "v1"),
            ("gemba.input_layout", "NCHW"),
            ("gemba.input_type", "float32"),
            ("gemba.input_std", "[0.2,0,0.2]"),
        ] {
            // ModelProto.metadata_props (14), a StringStringEntryProto of key (1), value (2).
            let entry = [
                &[10, k.len() as u8][..],
                k.as_bytes(),
                &[18, v.len() as u8],
                v.as_bytes(),
            ]
            .concat();
            bytes.extend([0x72, entry.len() as u8]);
            bytes.extend(entry);
        }
        let file = dir.path().join("bad-std.onnx");
        std::fs::write(&file, bytes).unwrap();
        let err = format!("{:#}", Model::load(&file).unwrap_err());
        assert!(
            err.ends_with(
                "the model's gemba.input_std must be three numbers greater than 0, one per \
                 channel"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_temporal_model_sees_the_last_frames_oldest_first_from_the_first() {
        let dir = tempfile::tempdir().unwrap();
        // Three labels: a window of three frames, each answered as its mean byte / 255.
        let mut m = Model::load(&fixture(dir.path(), "window")).unwrap();
        assert_eq!(m.window(), 3);
        let mut seen = vec![];
        for v in [30u8, 60, 90, 120] {
            let p = m.infer(&vec![v; m.frame_bytes()]).unwrap();
            seen.push(
                p.iter()
                    .map(|x| (x * 255.0).round() as u8)
                    .collect::<Vec<_>>(),
            );
        }
        // The load's blank frame is not in the window; the first frame fills it.
        assert_eq!(
            seen,
            [[30, 30, 30], [30, 30, 60], [30, 60, 90], [60, 90, 120]]
        );
        // A model without a window is given the one frame.
        assert_eq!(
            Model::load(&fixture(dir.path(), "fits")).unwrap().window(),
            1
        );
    }

    #[test]
    fn a_temporal_model_given_one_frame_is_refused_with_the_window_it_needs() {
        let dir = tempfile::tempdir().unwrap();
        let file = fixture(dir.path(), "window");
        // The same graph declaring no window: gemba would give it one frame.
        let py = std::env::var_os("GEMBA_MODELS_PYTHON").unwrap_or_else(|| "python3".into());
        let st = std::process::Command::new(py)
            .args([
                "-c",
                "import onnx, sys; m = onnx.load(sys.argv[1]); \
                kept = [p for p in m.metadata_props if p.key != 'gemba.window']; \
                del m.metadata_props[:]; m.metadata_props.extend(kept); onnx.save(m, sys.argv[1])",
            ])
            .arg(&file)
            .status()
            .unwrap();
        assert!(st.success());
        let err = format!("{:#}", Model::load(&file).unwrap_err());
        assert!(
            err.contains(
                "the model's input is uint8 3×48×64×3 (NHWC); gemba needs uint8 \
                 1×48×64×3 (RGB, NHWC)"
            ),
            "{err}"
        );
    }
}
