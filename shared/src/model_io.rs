//! Whether a model's declared inputs and outputs fit what the edge agent gives a model
//! and reads back, and in the technician's words what does not: one input, an RGB uint8
//! frame 1 × height × width × 3 (NHWC) of the model's `gemba.input_height` and
//! `gemba.input_width`; a first output of float32, one value per label (a batch, ones,
//! then the labels). A dimension left open fits any size. The cloud checks a model file
//! at upload from its ONNX graph (cloud/src/onnx.rs), the agent at load from ONNX
//! Runtime's session (edge-agent/src/infer.rs); both describe what they read with these
//! types.

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
/// the agent's `width` × `height` frames and answers one value for each of its `labels`,
/// or a sentence saying what does not fit.
pub fn check(
    inputs: &[Value],
    outputs: &[Value],
    width: u32,
    height: u32,
    labels: usize,
) -> Result<(), String> {
    let (w, h, n) = (i64::from(width), i64::from(height), labels as i64);
    let frame = format!(
        "uint8 1×{h}×{w}×3 (RGB, NHWC) matching its gemba.input_height and gemba.input_width"
    );
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
        t.elem == ElemType::UINT8
            && t.dims.as_ref().is_none_or(|dims| {
                matches!(dims.as_slice(), [b, y, x, c]
                    if b.allows(1) && y.allows(h) && x.allows(w) && c.allows(3))
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
        check(inputs, outputs, 64, 48, 3)
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
}
