//! Long because it is one job: under 430 lines of rules and their words, then their
//! unit tests, kept beside the sentences they check.
//!
//! Whether a model's declared inputs and outputs fit what the edge agent gives a model
//! and reads back, and in the technician's words what does not: one input, the frame
//! 1 × height × width × 3 (NHWC) or 1 × 3 × height × width (NCHW) of the model's
//! `gemba.input_height` and `gemba.input_width`, as uint8 or float32 (its
//! [`Preprocessing`]); a first output of float32, one value per label (a batch, ones,
//! then the labels). A dimension left open fits any size. The cloud checks a model file
//! at upload from its ONNX graph (cloud/src/onnx.rs), the agent at load from ONNX
//! Runtime's session (edge-agent/src/infer.rs); both describe what they read with these
//! types.
//!
//! A model declares how it wants the frame in its own metadata, beside the size and the
//! labels, so the file alone says how to feed it ([`KEYS`]): `gemba.input_layout` (NHWC
//! or NCHW), `gemba.input_type` (uint8 or float32), `gemba.input_scale`,
//! `gemba.input_mean` and `gemba.input_std` (float32 only: each value becomes
//! (x · scale − mean) / std, mean and std one per channel in the model's channel
//! order), `gemba.input_format` (RGB or BGR). A key left out means what gemba's own
//! bundles take: uint8 NHWC RGB as captured, scale 1, mean 0, std 1.

/// The metadata keys of a model's preprocessing.
pub const LAYOUT: &str = "gemba.input_layout";
pub const TYPE: &str = "gemba.input_type";
pub const SCALE: &str = "gemba.input_scale";
pub const MEAN: &str = "gemba.input_mean";
pub const STD: &str = "gemba.input_std";
pub const FORMAT: &str = "gemba.input_format";
/// The frames a model takes at once: the newest and those just before it, oldest first,
/// in the batch dimension (a temporal model; 1 by default).
pub const WINDOW: &str = "gemba.window";
pub const KEYS: [&str; 7] = [LAYOUT, TYPE, SCALE, MEAN, STD, FORMAT, WINDOW];
/// The most frames a window may hold.
pub const MAX_WINDOW: u32 = 64;

/// An element type by its ONNX number (`TensorProto.DataType`, which ONNX Runtime's
/// `ONNXTensorElementDataType` numbers the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElemType(pub i32);

impl ElemType {
    pub const FLOAT32: ElemType = ElemType(1);
    pub const UINT8: ElemType = ElemType(2);

    /// "float32", "uint8", …; "type 14" for one without a name here.
    pub fn name(self) -> String {
        match self.0 {
            1 => "float32",
            2 => "uint8",
            3 => "int8",
            4 => "uint16",
            5 => "int16",
            6 => "int32",
            7 => "int64",
            8 => "string",
            9 => "bool",
            10 => "float16",
            11 => "float64",
            12 => "uint32",
            13 => "uint64",
            16 => "bfloat16",
            t => return format!("type {t}"),
        }
        .to_string()
    }
}

/// Where the channels are: after the batch (NCHW) or last (NHWC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Nhwc,
    Nchw,
}

/// The channels' order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Rgb,
    Bgr,
}

/// How a model wants the agent's frame (an RGB uint8 image of the model's size): the
/// layout, the element type, the channels' order and, for float32, each value's
/// (x · `scale` − `mean`[c]) / `std`[c], with `c` the model's channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preprocessing {
    pub layout: Layout,
    /// [`ElemType::UINT8`] or [`ElemType::FLOAT32`].
    pub elem: ElemType,
    pub scale: f32,
    pub mean: [f32; 3],
    pub std: [f32; 3],
    pub order: Order,
    /// Frames per call ([`WINDOW`]).
    pub window: u32,
}

impl Default for Preprocessing {
    /// What gemba's own bundles take: the frame as captured, uint8 NHWC RGB.
    fn default() -> Self {
        Preprocessing {
            layout: Layout::Nhwc,
            elem: ElemType::UINT8,
            scale: 1.0,
            mean: [0.0; 3],
            std: [1.0; 3],
            order: Order::Rgb,
            window: 1,
        }
    }
}

/// A preprocessing key whose value cannot be: the key, and what it must be ("NHWC or
/// NCHW").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadDeclaration {
    pub key: &'static str,
    pub must_be: String,
}

impl std::fmt::Display for BadDeclaration {
    /// "The model's gemba.input_layout must be NHWC or NCHW."
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "The model's {} must be {}.", self.key, self.must_be)
    }
}

/// A finite number, or a fraction of two ("1/255").
fn number(s: &str) -> Option<f32> {
    let v = match s.split_once('/') {
        Some((a, b)) => a.trim().parse::<f32>().ok()? / b.trim().parse::<f32>().ok()?,
        None => s.trim().parse::<f32>().ok()?,
    };
    v.is_finite().then_some(v)
}

/// Three numbers, as a JSON list ("[0.485, 0.456, 0.406]") or comma-separated.
fn three(s: &str) -> Option<[f32; 3]> {
    let s = s.trim();
    let s = s
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(s);
    let v: Vec<f32> = s.split(',').map(number).collect::<Option<_>>()?;
    v.try_into().ok()
}

/// A number as the metadata keeps it: the shortest text that reads back the same.
fn show_number(v: f32) -> String {
    format!("{v}")
}

impl Preprocessing {
    /// The preprocessing a model's metadata declares (`get`: a key's value, if it has
    /// it), or the first key that cannot be.
    pub fn from_metadata<S: AsRef<str>>(
        get: impl Fn(&str) -> Option<S>,
    ) -> Result<Preprocessing, BadDeclaration> {
        let mut p = Preprocessing::default();
        for key in KEYS {
            if let Some(v) = get(key) {
                p.set(key, v.as_ref())?;
            }
        }
        p.consistent()?;
        Ok(p)
    }

    /// Sets `key` (one of [`KEYS`]) from its text; answers the text the metadata keeps
    /// ("nchw" is kept as "NCHW"), or what it must be.
    pub fn set(&mut self, key: &str, value: &str) -> Result<String, BadDeclaration> {
        let v = value.trim();
        let bad = |key: &'static str, must_be: &str| BadDeclaration {
            key,
            must_be: must_be.into(),
        };
        match key {
            LAYOUT => {
                self.layout = match v.to_ascii_uppercase().as_str() {
                    "NHWC" => Layout::Nhwc,
                    "NCHW" => Layout::Nchw,
                    _ => return Err(bad(LAYOUT, "NHWC or NCHW")),
                };
                Ok(v.to_ascii_uppercase())
            }
            TYPE => {
                self.elem = match v.to_ascii_lowercase().as_str() {
                    "uint8" => ElemType::UINT8,
                    "float32" => ElemType::FLOAT32,
                    _ => return Err(bad(TYPE, "uint8 or float32")),
                };
                Ok(self.elem.name())
            }
            SCALE => {
                self.scale = number(v)
                    .filter(|s| *s > 0.0)
                    .ok_or_else(|| bad(SCALE, "a number greater than 0 (such as 1/255)"))?;
                Ok(show_number(self.scale))
            }
            MEAN | STD => {
                let vals = three(v).filter(|t| key == MEAN || t.iter().all(|s| *s > 0.0));
                let vals = match (key, vals) {
                    (MEAN, Some(m)) => {
                        self.mean = m;
                        m
                    }
                    (_, Some(s)) => {
                        self.std = s;
                        s
                    }
                    (MEAN, None) => return Err(bad(MEAN, "three numbers, one per channel")),
                    (_, None) => {
                        return Err(bad(STD, "three numbers greater than 0, one per channel"));
                    }
                };
                let shown: Vec<String> = vals.iter().map(|x| show_number(*x)).collect();
                Ok(format!("[{}]", shown.join(",")))
            }
            FORMAT => {
                self.order = match v.to_ascii_uppercase().as_str() {
                    "RGB" => Order::Rgb,
                    "BGR" => Order::Bgr,
                    _ => return Err(bad(FORMAT, "RGB or BGR")),
                };
                Ok(v.to_ascii_uppercase())
            }
            WINDOW => {
                self.window = v
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=MAX_WINDOW).contains(n))
                    .ok_or_else(|| {
                        bad(
                            WINDOW,
                            &format!("a whole number of frames from 1 to {MAX_WINDOW}"),
                        )
                    })?;
                Ok(self.window.to_string())
            }
            _ => Err(BadDeclaration {
                key: "gemba.input",
                must_be: format!("one of {}", KEYS.join(", ")),
            }),
        }
    }

    /// Whether the declared values go together: a uint8 input takes the bytes as they
    /// are, so scaling or normalising needs float32.
    pub fn consistent(&self) -> Result<(), BadDeclaration> {
        let normalises = self.scale != 1.0 || self.mean != [0.0; 3] || self.std != [1.0; 3];
        if self.elem == ElemType::UINT8 && normalises {
            return Err(BadDeclaration {
                key: TYPE,
                must_be: format!(
                    "float32 for a model that declares {SCALE}, {MEAN} or {STD} (a uint8 \
                     input takes the frame's bytes as they are)"
                ),
            });
        }
        Ok(())
    }

    /// Whether this is what gemba's own bundles take (uint8 NHWC RGB as captured).
    pub fn is_default(&self) -> bool {
        *self == Preprocessing::default()
    }

    /// Whether the frames go to the model as captured (uint8 NHWC RGB), one or a window.
    pub fn takes_frames_as_captured(&self) -> bool {
        Preprocessing { window: 1, ..*self }.is_default()
    }

    /// The frame as a model of `width` × `height` takes it: "uint8 1×48×64×3 (RGB,
    /// NHWC)".
    pub fn frame(&self, width: u32, height: u32) -> String {
        let n = self.window;
        let dims = match self.layout {
            Layout::Nhwc => format!("{n}×{height}×{width}×3"),
            Layout::Nchw => format!("{n}×3×{height}×{width}"),
        };
        let order = match self.order {
            Order::Rgb => "RGB",
            Order::Bgr => "BGR",
        };
        let layout = match self.layout {
            Layout::Nhwc => "NHWC",
            Layout::Nchw => "NCHW",
        };
        format!("{} {dims} ({order}, {layout})", self.elem.name())
    }
}

/// One dimension as declared: a size, a name (any size), or nothing (any size).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dim {
    Size(i64),
    Named(String),
    Any,
}

impl Dim {
    /// Whether a tensor of this dimension can be of `n`.
    fn allows(&self, n: i64) -> bool {
        !matches!(self, Dim::Size(s) if *s != n)
    }

    fn show(&self) -> String {
        match self {
            Dim::Size(n) => n.to_string(),
            Dim::Named(s) => s.clone(),
            Dim::Any => "?".into(),
        }
    }
}

/// A declared tensor: its element type and shape (`None`: any shape; no dimensions: a
/// scalar).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensor {
    pub elem: ElemType,
    pub dims: Option<Vec<Dim>>,
}

/// A model's input or output: its name and, if it is a tensor, what it declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub name: String,
    pub tensor: Option<Tensor>,
}

/// "float32 1×3×224×224 (NCHW)".
fn show(t: Option<&Tensor>) -> String {
    let Some(t) = t else {
        return "not a tensor".into();
    };
    let elem = t.elem.name();
    let Some(dims) = &t.dims else {
        return format!("{elem} of any shape");
    };
    if dims.is_empty() {
        return format!("{elem} scalar");
    }
    let shape: Vec<String> = dims.iter().map(Dim::show).collect();
    let layout = match dims.as_slice() {
        [_, Dim::Size(3), _, c] if !matches!(c, Dim::Size(3)) => " (NCHW)",
        [_, _, _, Dim::Size(3)] => " (NHWC)",
        _ => "",
    };
    format!("{elem} {}{layout}", shape.join("×"))
}

/// Whether a model with these `inputs` (not counting initializers) and `outputs` takes
/// the agent's `width` × `height` frames as `pre` declares and answers one value for
/// each of its `labels`, or a sentence saying what does not fit.
pub fn check(
    inputs: &[Value],
    outputs: &[Value],
    width: u32,
    height: u32,
    labels: usize,
    pre: &Preprocessing,
) -> Result<(), String> {
    let (w, h, n) = (i64::from(width), i64::from(height), labels as i64);
    let mut named = vec!["gemba.input_height", "gemba.input_width"];
    if !pre.takes_frames_as_captured() {
        named.extend([TYPE, LAYOUT]);
    }
    if pre.window != 1 {
        named.push(WINDOW);
    }
    let (rest, last) = named.split_at(named.len() - 1);
    let keys = format!("its {} and {}", rest.join(", "), last[0]);
    let frame = format!("{} matching {keys}", pre.frame(width, height));
    let [input] = inputs else {
        let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
        let takes = match names.len() {
            0 => "no input".to_string(),
            k => format!("{k} inputs ({})", names.join(", ")),
        };
        return Err(format!(
            "The model takes {takes}; gemba gives a model one, the frame: {frame}."
        ));
    };
    let fits = input.tensor.as_ref().is_some_and(|t| {
        t.elem == pre.elem
            && t.dims
                .as_ref()
                .is_none_or(|dims| match (pre.layout, dims.as_slice()) {
                    (Layout::Nhwc, [b, y, x, c]) | (Layout::Nchw, [b, c, y, x]) => {
                        b.allows(i64::from(pre.window)) && y.allows(h) && x.allows(w) && c.allows(3)
                    }
                    _ => false,
                })
    });
    if !fits {
        return Err(format!(
            "The model's input is {}; gemba needs {frame}.",
            show(input.tensor.as_ref())
        ));
    }
    let needs = format!("float32 1×{n}: one value for each of its {n} gemba.labels");
    let Some(output) = outputs.first() else {
        return Err(format!("The model has no output; gemba needs {needs}."));
    };
    // A batch first (any size or 1), ones, then the labels.
    let fits = output.tensor.as_ref().is_some_and(|t| {
        t.elem == ElemType::FLOAT32
            && t.dims.as_ref().is_none_or(|dims| match dims.as_slice() {
                [] => false,
                [l] => l.allows(n),
                [b, ones @ .., l] => {
                    b.allows(1) && ones.iter().all(|o| matches!(o, Dim::Size(1))) && l.allows(n)
                }
            })
    });
    if !fits {
        let which = if outputs.len() > 1 {
            format!("first output ({})", output.name)
        } else {
            "output".into()
        };
        return Err(format!(
            "The model's {which} is {}; gemba needs {needs}.",
            show(output.tensor.as_ref())
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: ElemType = ElemType::FLOAT32;
    const U8: ElemType = ElemType::UINT8;

    /// A tensor of `elem` shaped `shape` ("n×48×64×3": a number is a size, "?" any,
    /// else a name; "" a scalar; "*" any shape).
    fn t(name: &str, elem: ElemType, shape: &str) -> Value {
        let dims = match shape {
            "*" => None,
            "" => Some(vec![]),
            s => Some(
                s.split('×')
                    .map(|d| match d.parse::<i64>() {
                        Ok(n) => Dim::Size(n),
                        Err(_) if d == "?" => Dim::Any,
                        Err(_) => Dim::Named(d.into()),
                    })
                    .collect(),
            ),
        };
        Value {
            name: name.into(),
            tensor: Some(Tensor { elem, dims }),
        }
    }

    /// For 64×48 frames and three labels.
    fn check3(inputs: &[Value], outputs: &[Value]) -> Result<(), String> {
        check(inputs, outputs, 64, 48, 3, &Preprocessing::default())
    }

    fn frames() -> Value {
        t("frames", U8, "n×48×64×3")
    }
    fn probs() -> Value {
        t("probs", F32, "n×3")
    }
    fn untyped() -> Value {
        Value {
            name: "x".into(),
            tensor: None,
        }
    }

    #[test]
    fn names_element_types_by_their_onnx_number() {
        assert_eq!(F32.name(), "float32");
        assert_eq!(U8.name(), "uint8");
        assert_eq!(ElemType(11).name(), "float64");
        assert_eq!(ElemType(14).name(), "type 14");
    }

    #[test]
    fn says_what_gemba_gives_and_needs() {
        let frame = "uint8 1×48×64×3 (RGB, NHWC) matching its gemba.input_height and \
                     gemba.input_width.";
        assert_eq!(
            check3(&[t("image", F32, "1×3×48×64")], &[probs()]).unwrap_err(),
            format!("The model's input is float32 1×3×48×64 (NCHW); gemba needs {frame}")
        );
        assert_eq!(
            check3(&[frames(), untyped()], &[probs()]).unwrap_err(),
            format!(
                "The model takes 2 inputs (frames, x); gemba gives a model one, the frame: {frame}"
            )
        );
        let per_label = "gemba needs float32 1×3: one value for each of its 3 gemba.labels.";
        assert_eq!(
            check3(&[frames()], &[]).unwrap_err(),
            format!("The model has no output; {per_label}")
        );
        assert_eq!(
            check3(&[frames()], &[t("label", ElemType(7), "n"), probs()]).unwrap_err(),
            format!("The model's first output (label) is int64 n; {per_label}")
        );
    }

    #[test]
    fn an_input_is_one_uint8_rgb_frame_of_the_models_size() {
        for (input, shown) in [
            (t("i", F32, "?×48×64×3"), "float32 ?×48×64×3 (NHWC)"),
            (t("i", F32, "*"), "float32 of any shape"),
            (t("i", U8, "2×48×64×3"), "uint8 2×48×64×3 (NHWC)"),
            (t("i", U8, "1×64×48×3"), "uint8 1×64×48×3 (NHWC)"),
            (t("i", U8, "48×64×3"), "uint8 48×64×3"),
            (t("i", U8, ""), "uint8 scalar"),
            (untyped(), "not a tensor"),
        ] {
            let says = check3(&[input], &[probs()]).unwrap_err();
            assert!(
                says.starts_with(&format!("The model's input is {shown}; gemba needs uint8")),
                "{says}"
            );
        }
        for fits in ["1×48×64×3", "n×h×?×c", "*"] {
            assert_eq!(check3(&[t("i", U8, fits)], &[probs()]), Ok(()), "{fits}");
        }
    }

    #[test]
    fn an_output_is_float32_with_one_value_per_label() {
        for (output, shown) in [
            (t("o", F32, "1×boxes×6"), "float32 1×boxes×6"),
            (t("o", F32, "3×3"), "float32 3×3"),
            (t("o", F32, "n×2×3"), "float32 n×2×3"),
            (t("o", F32, ""), "float32 scalar"),
            (t("o", ElemType(11), "n×3"), "float64 n×3"),
            (untyped(), "not a tensor"),
        ] {
            let says = check3(&[frames()], &[output]).unwrap_err();
            assert!(
                says.starts_with(&format!(
                    "The model's output is {shown}; gemba needs float32"
                )),
                "{says}"
            );
        }
        for fits in ["3", "?", "n×3", "1×1×3", "n×1×?", "*"] {
            assert_eq!(check3(&[frames()], &[t("o", F32, fits)]), Ok(()), "{fits}");
        }
        // Only the first output counts.
        assert_eq!(check3(&[frames()], &[probs(), untyped()]), Ok(()));
    }

    /// The preprocessing of a PyTorch export: float32 NCHW, ImageNet's mean and std.
    fn torch(order: &str) -> Preprocessing {
        let meta = [
            (LAYOUT, "nchw"),
            (TYPE, "float32"),
            (SCALE, "1/255"),
            (MEAN, "[0.485, 0.456, 0.406]"),
            (STD, "0.229,0.224,0.225"),
            (FORMAT, order),
        ];
        Preprocessing::from_metadata(|k| meta.iter().find(|(x, _)| *x == k).map(|(_, v)| *v))
            .unwrap()
    }

    #[test]
    fn reads_the_declared_preprocessing_and_defaults_to_the_frame_as_captured() {
        let none = Preprocessing::from_metadata(|_| None::<&str>).unwrap();
        assert!(none.is_default());
        assert_eq!(none.frame(64, 48), "uint8 1×48×64×3 (RGB, NHWC)");
        let p = torch("BGR");
        assert_eq!(
            p,
            Preprocessing {
                layout: Layout::Nchw,
                elem: F32,
                scale: 1.0 / 255.0,
                mean: [0.485, 0.456, 0.406],
                std: [0.229, 0.224, 0.225],
                order: Order::Bgr,
                window: 1,
            }
        );
        assert_eq!(p.frame(224, 200), "float32 1×3×200×224 (BGR, NCHW)");
        // What the metadata keeps reads back the same.
        let mut q = Preprocessing::default();
        for (k, v, kept) in [
            (LAYOUT, " nchw", "NCHW"),
            (TYPE, "Float32", "float32"),
            (SCALE, "1/255", "0.003921569"),
            (MEAN, "0.485, 0.456,0.406", "[0.485,0.456,0.406]"),
            (STD, "[1, 2, 0.5]", "[1,2,0.5]"),
            (FORMAT, "bgr", "BGR"),
            (WINDOW, " 4", "4"),
        ] {
            assert_eq!(q.set(k, v).unwrap(), kept, "{k}");
            let mut again = q;
            again.set(k, kept).unwrap();
            assert_eq!(again, q, "{k}");
        }
    }

    #[test]
    fn a_declaration_that_cannot_be_says_which_key_and_what_it_must_be() {
        for (k, v, says) in [
            (
                LAYOUT,
                "NWHC",
                "The model's gemba.input_layout must be NHWC or NCHW.",
            ),
            (
                TYPE,
                "float16",
                "The model's gemba.input_type must be uint8 or float32.",
            ),
            (
                SCALE,
                "0",
                "The model's gemba.input_scale must be a number greater than 0",
            ),
            (SCALE, "-1", "must be a number greater than 0"),
            (SCALE, "1/0", "must be a number greater than 0"),
            (SCALE, "a", "must be a number greater than 0"),
            (
                MEAN,
                "0.5,0.5",
                "The model's gemba.input_mean must be three numbers, one per",
            ),
            (MEAN, "[0.5,0.5,0.5,0.5]", "must be three numbers"),
            (
                WINDOW,
                "0",
                "The model's gemba.window must be a whole number of frames from 1 to 64.",
            ),
            (WINDOW, "65", "from 1 to 64"),
            (WINDOW, "2.5", "from 1 to 64"),
            (MEAN, "0.5,x,0.5", "must be three numbers"),
            (
                STD,
                "0.2,0,0.2",
                "The model's gemba.input_std must be three numbers greater than 0",
            ),
            (STD, "0.2,-0.2,0.2", "must be three numbers greater than 0"),
            (
                FORMAT,
                "YUV",
                "The model's gemba.input_format must be RGB or BGR.",
            ),
        ] {
            let base = [(TYPE, "float32"), (k, v)];
            let err = Preprocessing::from_metadata(|key| {
                base.iter().rev().find(|(x, _)| *x == key).map(|(_, v)| *v)
            })
            .unwrap_err();
            assert_eq!(err.key, k);
            assert!(err.to_string().contains(says), "{k}={v}: {err}");
        }
        // A uint8 input takes the bytes as they are.
        let err =
            Preprocessing::from_metadata(|k| (k == MEAN).then_some("0.5,0.5,0.5")).unwrap_err();
        assert_eq!(err.key, TYPE);
        assert!(
            err.to_string()
                .starts_with("The model's gemba.input_type must be float32")
        );
    }

    #[test]
    fn a_declared_input_is_the_frame_as_declared() {
        let frame = "float32 1×3×48×64 (BGR, NCHW) matching its gemba.input_height, \
                     gemba.input_width, gemba.input_type and gemba.input_layout.";
        let p = torch("BGR");
        let check_p = |input: Value, output: Value| check(&[input], &[output], 64, 48, 3, &p);
        for fits in ["1×3×48×64", "n×3×h×w", "*"] {
            assert_eq!(check_p(t("image", F32, fits), probs()), Ok(()), "{fits}");
        }
        for (input, shown) in [
            (t("i", F32, "1×48×64×3"), "float32 1×48×64×3 (NHWC)"),
            (frames(), "uint8 n×48×64×3 (NHWC)"),
            (t("i", F32, "1×3×224×224"), "float32 1×3×224×224 (NCHW)"),
            (t("i", F32, "1×1×48×64"), "float32 1×1×48×64"),
        ] {
            assert_eq!(
                check_p(input, probs()).unwrap_err(),
                format!("The model's input is {shown}; gemba needs {frame}")
            );
        }
        // Its output is checked as any model's: a detector, a wrong count of labels.
        let per_label = "gemba needs float32 1×3: one value for each of its 3 gemba.labels.";
        for (output, shown) in [
            (t("o", F32, "1×boxes×6"), "float32 1×boxes×6"),
            (t("o", F32, "1×4"), "float32 1×4"),
        ] {
            assert_eq!(
                check_p(t("image", F32, "1×3×48×64"), output).unwrap_err(),
                format!("The model's output is {shown}; {per_label}")
            );
        }
    }

    #[test]
    fn a_temporal_model_takes_its_window_of_frames_and_answers_once() {
        let p = Preprocessing {
            window: 4,
            ..Preprocessing::default()
        };
        let check_p = |input: Value, output: Value| check(&[input], &[output], 64, 48, 3, &p);
        for fits in ["4×48×64×3", "n×48×64×3", "*"] {
            assert_eq!(
                check_p(t("frames", U8, fits), t("o", F32, "1×3")),
                Ok(()),
                "{fits}"
            );
        }
        assert_eq!(
            check_p(t("frames", U8, "1×48×64×3"), probs()).unwrap_err(),
            "The model's input is uint8 1×48×64×3 (NHWC); gemba needs uint8 4×48×64×3 (RGB, \
             NHWC) matching its gemba.input_height, gemba.input_width and gemba.window."
        );
        // One answer for the window, not one per frame.
        assert!(
            check_p(t("frames", U8, "4×48×64×3"), t("o", F32, "4×3"))
                .unwrap_err()
                .starts_with("The model's output is float32 4×3; gemba needs float32 1×3")
        );
    }
}
