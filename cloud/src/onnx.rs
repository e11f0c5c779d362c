//! What an ONNX model file says of itself: the `gemba.*` metadata the agent reads
//! (edge-agent/src/infer.rs), and the graph's declared input and output, checked against
//! what the agent gives a model and reads back (one RGB uint8 frame N × height × width ×
//! 3 in; the first output, float32, one value per label: `gemba_shared::model_io`, the
//! rules and words the agent also uses at load). Decoded from the file's
//! protobuf with `prost` and a schema of just the fields needed (ONNX's `ModelProto`:
//! `ir_version` 1, `graph` 7, `metadata_props` 14; its `GraphProto`'s initializer
//! names, inputs and outputs; their `TypeProto` tensor element type and shape); every
//! other field is skipped. The cloud does not run models (docs/decisions.md).

use gemba_shared::api::v1::training::MODEL_INPUT_SIDE;
use gemba_shared::model_io::{self, Dim};
use prost::Message;

#[derive(Clone, PartialEq, Message)]
struct ModelProto {
    #[prost(int64, tag = "1")]
    ir_version: i64,
    #[prost(message, optional, tag = "7")]
    graph: Option<Graph>,
    #[prost(message, repeated, tag = "14")]
    metadata_props: Vec<Entry>,
}

/// A graph's inputs and outputs, and the names of its initializers (which older files
/// also list as inputs).
#[derive(Clone, PartialEq, Message)]
struct Graph {
    #[prost(message, repeated, tag = "5")]
    initializer: Vec<Named>,
    #[prost(message, repeated, tag = "11")]
    input: Vec<ValueInfo>,
    #[prost(message, repeated, tag = "12")]
    output: Vec<ValueInfo>,
}

/// A `TensorProto`, read for its name only.
#[derive(Clone, PartialEq, Message)]
struct Named {
    #[prost(string, tag = "8")]
    name: String,
}

#[derive(Clone, PartialEq, Message)]
struct ValueInfo {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, optional, tag = "2")]
    r#type: Option<TypeProto>,
}

/// Only a tensor's type is read; a sequence, map or optional has none.
#[derive(Clone, PartialEq, Message)]
struct TypeProto {
    #[prost(message, optional, tag = "1")]
    tensor_type: Option<TensorType>,
}

#[derive(Clone, PartialEq, Message)]
struct TensorType {
    #[prost(int32, tag = "1")]
    elem_type: i32,
    #[prost(message, optional, tag = "2")]
    shape: Option<Shape>,
}

#[derive(Clone, PartialEq, Message)]
struct Shape {
    #[prost(message, repeated, tag = "1")]
    dim: Vec<Dimension>,
}

#[derive(Clone, PartialEq, Message)]
struct Dimension {
    #[prost(int64, optional, tag = "1")]
    dim_value: Option<i64>,
    #[prost(string, optional, tag = "2")]
    dim_param: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct Entry {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(string, tag = "2")]
    value: String,
}

/// What a graph input or output declares, as `gemba_shared::model_io` checks it.
fn declared(v: &ValueInfo) -> model_io::Value {
    let t = v.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
    model_io::Value {
        name: v.name.clone(),
        tensor: t.map(|t| model_io::Tensor {
            elem: model_io::ElemType(t.elem_type),
            dims: t.shape.as_ref().map(|s| {
                s.dim
                    .iter()
                    .map(|d| match (d.dim_value, &d.dim_param) {
                        (Some(n), _) => Dim::Size(n),
                        (None, Some(p)) if !p.is_empty() => Dim::Named(p.clone()),
                        _ => Dim::Any,
                    })
                    .collect()
            }),
        }),
    }
}

/// Whether the graph takes the agent's frames and answers one value per label, or in
/// the user's words what does not fit (`gemba_shared::model_io::check`).
fn check_graph(g: &Graph, width: u32, height: u32, labels: usize) -> Result<(), String> {
    let inputs: Vec<model_io::Value> = g
        .input
        .iter()
        .filter(|i| !g.initializer.iter().any(|t| t.name == i.name))
        .map(declared)
        .collect();
    let outputs: Vec<model_io::Value> = g.output.iter().map(declared).collect();
    model_io::check(&inputs, &outputs, width, height, labels)
}

/// A model bundle's metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub version: String,
    /// The steps in order, then background.
    pub labels: Vec<String>,
    pub input_width: u32,
    pub input_height: u32,
}

/// The longest version name (it names the model in the agent's status).
pub const MAX_VERSION: usize = 100;

/// Reads `bytes` as an ONNX model made for the agent, or says in the user's words why
/// it is not one.
pub fn read(bytes: &[u8]) -> Result<Bundle, String> {
    let not_onnx = || "This file is not an ONNX model.".to_string();
    let m = ModelProto::decode(bytes).map_err(|_| not_onnx())?;
    let Some(graph) = m.graph.as_ref().filter(|_| m.ir_version > 0) else {
        return Err(not_onnx());
    };
    let get = |k: &str| {
        m.metadata_props
            .iter()
            .rev()
            .find(|e| e.key == k)
            .map(|e| e.value.trim())
            .ok_or_else(|| {
                format!(
                    "The model's metadata has no {k}: the agent needs gemba.input_width, \
                     gemba.input_height, gemba.labels and gemba.version."
                )
            })
    };
    let side = |k: &str| -> Result<u32, String> {
        get(k)?
            .parse::<u32>()
            .ok()
            .filter(|n| MODEL_INPUT_SIDE.contains(n))
            .ok_or_else(|| {
                format!(
                    "The model's {k} must be a whole number of pixels from {} to {}.",
                    MODEL_INPUT_SIDE.start(),
                    MODEL_INPUT_SIDE.end()
                )
            })
    };
    let (input_width, input_height) = (side("gemba.input_width")?, side("gemba.input_height")?);
    let labels: Vec<String> = serde_json::from_str(get("gemba.labels")?)
        .ok()
        .filter(|l: &Vec<String>| l.len() >= 2 && l.iter().all(|n| !n.trim().is_empty()))
        .ok_or_else(|| {
            "The model's gemba.labels must be a JSON list of at least two names: its steps \
             in order, then background."
                .to_string()
        })?;
    let version = get("gemba.version")?;
    if version.is_empty()
        || version.chars().count() > MAX_VERSION
        || version.chars().any(char::is_control)
    {
        return Err(format!(
            "The model's gemba.version must be a name of 1 to {MAX_VERSION} characters."
        ));
    }
    if let Ok(format) = get("gemba.input_format")
        && format != "RGB"
    {
        return Err(format!(
            "The model takes {format} frames; the agent gives models RGB frames."
        ));
    }
    check_graph(graph, input_width, input_height, labels.len())?;
    Ok(Bundle {
        version: version.to_string(),
        labels,
        input_width,
        input_height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ONNX's element types (`TensorProto.DataType`) the agent needs.
    const UINT8: i32 = model_io::ElemType::UINT8.0;
    const FLOAT: i32 = model_io::ElemType::FLOAT32.0;

    /// A tensor value `name` of element type `elem` and these dimensions (a number: its
    /// size; else a name).
    fn tensor(name: &str, elem: i32, dims: &[&str]) -> ValueInfo {
        ValueInfo {
            name: name.into(),
            r#type: Some(TypeProto {
                tensor_type: Some(TensorType {
                    elem_type: elem,
                    shape: Some(Shape {
                        dim: dims
                            .iter()
                            .map(|d| match d.parse::<i64>() {
                                Ok(n) => Dimension {
                                    dim_value: Some(n),
                                    dim_param: None,
                                },
                                Err(_) => Dimension {
                                    dim_value: None,
                                    dim_param: Some(d.to_string()),
                                },
                            })
                            .collect(),
                    }),
                }),
            }),
        }
    }

    /// What `models/train.py` declares for 64×48 frames and three labels.
    fn frames() -> ValueInfo {
        tensor("frames", UINT8, &["n", "48", "64", "3"])
    }
    fn probs() -> ValueInfo {
        tensor("probs", FLOAT, &["n", "3"])
    }

    /// A model's bytes as ONNX writes them: an IR version, a graph, the metadata.
    fn model_of(graph: Graph, meta: &[(&str, &str)]) -> Vec<u8> {
        ModelProto {
            ir_version: 8,
            graph: Some(graph),
            metadata_props: meta
                .iter()
                .map(|(k, v)| Entry {
                    key: k.to_string(),
                    value: v.to_string(),
                })
                .collect(),
        }
        .encode_to_vec()
    }

    fn graph(input: Vec<ValueInfo>, output: Vec<ValueInfo>) -> Graph {
        Graph {
            initializer: vec![],
            input,
            output,
        }
    }

    fn model(meta: &[(&str, &str)]) -> Vec<u8> {
        model_of(graph(vec![frames()], vec![probs()]), meta)
    }

    const GOOD: [(&str, &str); 4] = [
        ("gemba.input_width", "64"),
        ("gemba.input_height", "48"),
        ("gemba.labels", r#"["pick","place","background"]"#),
        ("gemba.version", "ext-1"),
    ];

    fn with(k: &str, v: &str) -> Vec<u8> {
        let mut meta: Vec<(&str, &str)> = GOOD.iter().copied().filter(|(x, _)| *x != k).collect();
        meta.push((k, v));
        model(&meta)
    }

    #[test]
    fn reads_the_agents_metadata() {
        let b = read(&model(&GOOD)).unwrap();
        assert_eq!(
            b,
            Bundle {
                version: "ext-1".into(),
                labels: vec!["pick".into(), "place".into(), "background".into()],
                input_width: 64,
                input_height: 48,
            }
        );
    }

    #[test]
    fn refuses_what_is_not_a_model_for_the_agent() {
        let not_onnx = "This file is not an ONNX model.";
        assert_eq!(read(b"").unwrap_err(), not_onnx);
        assert_eq!(read(b"\x00\x00\x00 ftypisom").unwrap_err(), not_onnx);
        assert_eq!(read(&[0xff; 64]).unwrap_err(), not_onnx);
        let no_graph = ModelProto {
            ir_version: 8,
            graph: None,
            metadata_props: vec![],
        };
        assert_eq!(read(&no_graph.encode_to_vec()).unwrap_err(), not_onnx);
        let missing = model(&GOOD[..3]);
        assert!(read(&missing).unwrap_err().contains("has no gemba.version"));
        for (k, v, says) in [
            (
                "gemba.input_width",
                "15",
                "gemba.input_width must be a whole number",
            ),
            ("gemba.input_height", "641", "gemba.input_height must be"),
            ("gemba.input_width", "6.4", "gemba.input_width must be"),
            ("gemba.labels", r#"["only"]"#, "at least two names"),
            ("gemba.labels", r#"["a", " "]"#, "at least two names"),
            ("gemba.labels", "pick,place", "at least two names"),
            ("gemba.labels", r#"[1,2]"#, "at least two names"),
            ("gemba.version", "", "1 to 100 characters"),
            ("gemba.version", &"v".repeat(101), "1 to 100 characters"),
            ("gemba.version", "a\u{7}b", "1 to 100 characters"),
            ("gemba.input_format", "BGR", "takes BGR frames"),
        ] {
            let err = read(&with(k, v)).unwrap_err();
            assert!(err.contains(says), "{k}={v}: {err}");
        }
        assert!(read(&with("gemba.input_format", "RGB")).is_ok());
    }

    #[test]
    fn refuses_a_graph_that_does_not_take_frames_or_answer_per_label() {
        let frame = "gemba needs uint8 1×48×64×3 (RGB, NHWC) matching its \
                     gemba.input_height and gemba.input_width.";
        let per_label = "gemba needs float32 1×3: one value for each of its 3 gemba.labels.";
        let untyped = ValueInfo {
            name: "x".into(),
            r#type: None,
        };
        let any_shape = ValueInfo {
            name: "frames".into(),
            r#type: Some(TypeProto {
                tensor_type: Some(TensorType {
                    elem_type: UINT8,
                    shape: None,
                }),
            }),
        };
        for (inputs, outputs, says) in [
            (
                vec![tensor("image", FLOAT, &["1", "3", "48", "64"])],
                vec![probs()],
                format!("The model's input is float32 1×3×48×64 (NCHW); {frame}"),
            ),
            (
                vec![tensor("image", FLOAT, &["1", "48", "64", "3"])],
                vec![probs()],
                format!("The model's input is float32 1×48×64×3 (NHWC); {frame}"),
            ),
            (
                vec![tensor("frames", UINT8, &["1", "224", "224", "3"])],
                vec![probs()],
                format!("The model's input is uint8 1×224×224×3 (NHWC); {frame}"),
            ),
            (
                vec![tensor("frames", UINT8, &["1", "3", "48", "64"])],
                vec![probs()],
                format!("The model's input is uint8 1×3×48×64 (NCHW); {frame}"),
            ),
            (
                vec![tensor("frames", UINT8, &["2", "48", "64", "3"])],
                vec![probs()],
                format!("The model's input is uint8 2×48×64×3 (NHWC); {frame}"),
            ),
            (
                vec![tensor("frames", UINT8, &["48", "64", "3"])],
                vec![probs()],
                format!("The model's input is uint8 48×64×3; {frame}"),
            ),
            (
                vec![untyped.clone()],
                vec![probs()],
                format!("The model's input is not a tensor; {frame}"),
            ),
            (
                vec![frames(), tensor("boxes", FLOAT, &["1", "4"])],
                vec![probs()],
                "The model takes 2 inputs (frames, boxes); gemba gives a model one, the \
                 frame: uint8 1×48×64×3 (RGB, NHWC) matching its gemba.input_height and \
                 gemba.input_width."
                    .into(),
            ),
            (
                vec![],
                vec![probs()],
                "The model takes no input; gemba gives a model one, the frame: uint8 \
                 1×48×64×3 (RGB, NHWC) matching its gemba.input_height and \
                 gemba.input_width."
                    .into(),
            ),
            (
                vec![frames()],
                vec![tensor("detections", FLOAT, &["1", "boxes", "6"])],
                format!("The model's output is float32 1×boxes×6; {per_label}"),
            ),
            (
                vec![frames()],
                vec![tensor("detections", FLOAT, &["1", "100", "6"])],
                format!("The model's output is float32 1×100×6; {per_label}"),
            ),
            (
                vec![frames()],
                vec![tensor("probs", FLOAT, &["n", "1000"])],
                format!("The model's output is float32 n×1000; {per_label}"),
            ),
            (
                vec![frames()],
                vec![tensor("probs", FLOAT, &["3", "3"])],
                format!("The model's output is float32 3×3; {per_label}"),
            ),
            (
                vec![frames()],
                vec![tensor("probs", FLOAT, &[])],
                format!("The model's output is float32 scalar; {per_label}"),
            ),
            (
                vec![frames()],
                vec![tensor("probs", 11, &["n", "3"])],
                format!("The model's output is float64 n×3; {per_label}"),
            ),
            (
                vec![frames()],
                vec![tensor("label", 7, &["n"]), probs()],
                format!("The model's first output (label) is int64 n; {per_label}"),
            ),
            (
                vec![frames()],
                vec![],
                format!("The model has no output; {per_label}"),
            ),
        ] {
            let m = model_of(graph(inputs, outputs), &GOOD);
            assert_eq!(read(&m).unwrap_err(), says);
        }
        // What fits: a batch of any size or 1, sizes left open, ones before the labels,
        // initializers that older files list as inputs, further outputs.
        for (inputs, outputs) in [
            (vec![frames()], vec![probs()]),
            (
                vec![tensor("frames", UINT8, &["1", "h", "w", "c"])],
                vec![tensor("probs", FLOAT, &["1", "1", "3"])],
            ),
            (vec![any_shape], vec![tensor("probs", FLOAT, &["3"])]),
            (
                vec![frames(), tensor("w1", FLOAT, &["9216", "48"])],
                vec![probs(), tensor("logits", FLOAT, &["n", "3"])],
            ),
        ] {
            let mut g = graph(inputs, outputs);
            g.initializer.push(Named { name: "w1".into() });
            assert!(read(&model_of(g, &GOOD)).is_ok());
        }
    }
}
