//! Past 500 lines because it is one job: the rules a model's inputs and outputs meet
//! and the sentences that say what does not fit (the tests are in `tests.rs`).
//!
//! Whether a model's declared inputs and outputs fit what the edge agent gives a model
//! and reads back, and in the technician's words what does not: one input, the frame
//! 1 × height × width × 3 (NHWC) or 1 × 3 × height × width (NCHW) of the model's
//! `gemba.input_height` and `gemba.input_width`, as uint8 or float32 (its
//! [`Preprocessing`]); a first output of float32, one value per label (a batch, ones,
//! then the labels). A dimension left open fits any size. The cloud checks a model file
//! at upload from its ONNX graph (cloud/src/onnx.rs), the agent at load from ONNX
//! Runtime's session (edge-agent/src/infer/); both describe what they read with these
//! types. The tests are in `tests.rs`.
//!
//! A temporal model decides a frame from the frames before it too (`gemba.window`). It
//! takes the window's frames at once, or, declaring `gemba.carry`, the newest frame and
//! what it carried of each frame before (a second input, float32 (window − 1) × carry,
//! oldest first), answering beside the probabilities what to carry of this frame (a
//! second output, float32 1 × carry): each frame then goes through its per-frame part
//! once, not once per window it is in.
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
/// The values a temporal model carries of each frame to the frames after it (0 by
/// default: it takes the window's frames themselves).
pub const CARRY: &str = "gemba.carry";
pub const KEYS: [&str; 8] = [LAYOUT, TYPE, SCALE, MEAN, STD, FORMAT, WINDOW, CARRY];
/// The most frames a window may hold.
pub const MAX_WINDOW: u32 = 64;
/// The most values a model may carry of a frame.
pub const MAX_CARRY: u32 = 4096;

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
    /// The frames a decision reads ([`WINDOW`]).
    pub window: u32,
    /// Values carried of each frame ([`CARRY`]; 0: none, the window's frames are given).
    pub carry: u32,
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
            carry: 0,
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

/// How a count's declaration must begin.
const FROM_1: &str = "a whole number of";

/// A whole number from 1 to `max`.
fn whole(s: &str, max: u32) -> Option<u32> {
    s.parse::<u32>().ok().filter(|n| (1..=max).contains(n))
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
                self.window = whole(v, MAX_WINDOW).ok_or_else(|| {
                    bad(WINDOW, &format!("{FROM_1} frames from 1 to {MAX_WINDOW}"))
                })?;
                Ok(self.window.to_string())
            }
            CARRY => {
                self.carry = whole(v, MAX_CARRY)
                    .ok_or_else(|| bad(CARRY, &format!("{FROM_1} values from 1 to {MAX_CARRY}")))?;
                Ok(self.carry.to_string())
            }
            _ => Err(BadDeclaration {
                key: "gemba.input",
                must_be: format!("one of {}", KEYS.join(", ")),
            }),
        }
    }

    /// Whether the declared values go together: a uint8 input takes the bytes as they
    /// are, so scaling or normalising needs float32; a model carries values only to the
    /// frames of its window.
    pub fn consistent(&self) -> Result<(), BadDeclaration> {
        if self.carry > 0 && self.window < 2 {
            return Err(BadDeclaration {
                key: CARRY,
                must_be: format!("declared only with a {WINDOW} of 2 frames or more"),
            });
        }
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
        Preprocessing {
            window: 1,
            carry: 0,
            ..*self
        }
        .is_default()
    }

    /// Frames a call takes: the window's, or one when the model carries the rest.
    pub fn frames_per_call(&self) -> u32 {
        if self.carry > 0 { 1 } else { self.window }
    }

    /// The frame as a model of `width` × `height` takes it: "uint8 1×48×64×3 (RGB,
    /// NHWC)".
    pub fn frame(&self, width: u32, height: u32) -> String {
        let n = self.frames_per_call();
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
    if pre.frames_per_call() != 1 {
        named.push(WINDOW);
    }
    let (rest, last) = named.split_at(named.len() - 1);
    let keys = format!("its {} and {}", rest.join(", "), last[0]);
    let frame = format!("{} matching {keys}", pre.frame(width, height));
    let carried = format!(
        "float32 {}×{} matching its {WINDOW} and {CARRY}",
        pre.window.saturating_sub(1),
        pre.carry
    );
    let (input, carried_input) = match (inputs, pre.carry) {
        ([input], 0) => (input, None),
        ([input, c], 1..) => (input, Some(c)),
        _ => {
            let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
            let takes = match names.len() {
                0 => "no input".to_string(),
                1 => format!("one input ({})", names[0]),
                k => format!("{k} inputs ({})", names.join(", ")),
            };
            return Err(if pre.carry == 0 {
                format!("The model takes {takes}; gemba gives a model one, the frame: {frame}.")
            } else {
                format!(
                    "The model takes {takes}; gemba gives a model that declares {CARRY} two, \
                     the frame: {frame}, then what it carried of the frames before: {carried}."
                )
            });
        }
    };
    let fits = input.tensor.as_ref().is_some_and(|t| {
        t.elem == pre.elem
            && t.dims
                .as_ref()
                .is_none_or(|dims| match (pre.layout, dims.as_slice()) {
                    (Layout::Nhwc, [b, y, x, c]) | (Layout::Nchw, [b, c, y, x]) => {
                        b.allows(i64::from(pre.frames_per_call()))
                            && y.allows(h)
                            && x.allows(w)
                            && c.allows(3)
                    }
                    _ => false,
                })
    });
    let which = |nth: &str, v: &Value, of: usize| {
        if of > 1 {
            format!("{nth} ({})", v.name)
        } else {
            "input".into()
        }
    };
    if !fits {
        return Err(format!(
            "The model's {} is {}; gemba needs {frame}.",
            which("first input", input, inputs.len()),
            show(input.tensor.as_ref())
        ));
    }
    if let Some(c) = carried_input {
        let fits = c.tensor.as_ref().is_some_and(|t| {
            t.elem == ElemType::FLOAT32
                && t.dims.as_ref().is_none_or(|dims| match dims.as_slice() {
                    [k, v] => k.allows(i64::from(pre.window) - 1) && v.allows(i64::from(pre.carry)),
                    _ => false,
                })
        });
        if !fits {
            return Err(format!(
                "The model's second input ({}) is {}; gemba gives {carried}.",
                c.name,
                show(c.tensor.as_ref())
            ));
        }
    }
    let needs = format!("float32 1×{n}: one value for each of its {n} gemba.labels");
    let Some(output) = outputs.first() else {
        return Err(format!("The model has no output; gemba needs {needs}."));
    };
    if !one_row(output, n) {
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
    if pre.carry > 0 {
        let needs = format!(
            "float32 1×{}: what it carries of the frame, its {CARRY}",
            pre.carry
        );
        match outputs.get(1) {
            None => {
                return Err(format!(
                    "The model has no second output; gemba needs {needs}."
                ));
            }
            Some(o) if !one_row(o, i64::from(pre.carry)) => {
                return Err(format!(
                    "The model's second output ({}) is {}; gemba needs {needs}.",
                    o.name,
                    show(o.tensor.as_ref())
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Whether an output is float32 and one row of `n` values: a batch first (any size or
/// 1), ones, then the `n`.
fn one_row(output: &Value, n: i64) -> bool {
    output.tensor.as_ref().is_some_and(|t| {
        t.elem == ElemType::FLOAT32
            && t.dims.as_ref().is_none_or(|dims| match dims.as_slice() {
                [] => false,
                [l] => l.allows(n),
                [b, ones @ .., l] => {
                    b.allows(1) && ones.iter().all(|o| matches!(o, Dim::Size(1))) && l.allows(n)
                }
            })
    })
}

#[cfg(test)]
mod tests;
