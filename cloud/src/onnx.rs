//! Long because it is one job: under 390 lines of reading and declaring, then their
//! unit tests on real ONNX bytes.
//!
//! What an ONNX model file says of itself: the `gemba.*` metadata the agent reads
//! (edge-agent/src/infer.rs), and the graph's declared input and output, checked against
//! what the agent gives a model and reads back (one frame of the model's size in, as its
//! declared preprocessing says, by default RGB uint8 N × height × width × 3; the first
//! output, float32, one value per label: `gemba_shared::model_io`, the rules and words
//! the agent also uses at load). [`declare`] writes metadata into a file that lacks it
//! (a model made elsewhere) by appending entries, so the rest of the file stays byte for
//! byte as it came. Decoded from the file's
//! protobuf with `prost` and a schema of just the fields needed (ONNX's `ModelProto`:
//! `ir_version` 1, `graph` 7, `metadata_props` 14; its `GraphProto`'s initializer
//! names, inputs and outputs; their `TypeProto` tensor element type and shape); every
//! other field is skipped. The cloud does not run step models (docs/decisions.md).

use gemba_shared::api::v1::training::MODEL_INPUT_SIDE;
use gemba_shared::model_io::{self, Dim, Preprocessing};
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
fn check_graph(
    g: &Graph,
    width: u32,
    height: u32,
    labels: usize,
    pre: &Preprocessing,
) -> Result<(), String> {
    let inputs: Vec<model_io::Value> = g
        .input
        .iter()
        .filter(|i| !g.initializer.iter().any(|t| t.name == i.name))
        .map(declared)
        .collect();
    let outputs: Vec<model_io::Value> = g.output.iter().map(declared).collect();
    model_io::check(&inputs, &outputs, width, height, labels, pre)
}

/// A model bundle's metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub version: String,
    /// The steps in order, then background.
    pub labels: Vec<String>,
    pub input_width: u32,
    pub input_height: u32,
    /// How the agent feeds it the frame (the default: uint8 NHWC RGB as captured).
    pub preprocessing: Preprocessing,
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
    let preprocessing = Preprocessing::from_metadata(|k| get(k).ok()).map_err(|e| e.to_string())?;
    check_graph(
        graph,
        input_width,
        input_height,
        labels.len(),
        &preprocessing,
    )?;
    Ok(Bundle {
        version: version.to_string(),
        labels,
        input_width,
        input_height,
        preprocessing,
    })
}

/// The metadata entries of `bytes` as ONNX keeps them, in order (`None`: not an ONNX
/// model).
pub fn metadata(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    let m = ModelProto::decode(bytes).ok()?;
    Some(
        m.metadata_props
            .into_iter()
            .map(|e| (e.key, e.value))
            .collect(),
    )
}

/// `bytes` (an ONNX model) with these metadata entries added: a `ModelProto`'s
/// `metadata_props` (field 14) is a repeated field, and a repeated field's entries may
/// come anywhere in the message and are read in order, so appending them to the end of
/// the file adds them and leaves every other byte as it was. The caller adds only keys
/// the file does not have: ONNX Runtime and [`read`] would otherwise each choose one.
pub fn declare(bytes: &[u8], entries: &[(String, String)]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for (key, value) in entries {
        let e = Entry {
            key: key.clone(),
            value: value.clone(),
        };
        prost::encoding::message::encode(14, &e, &mut out);
    }
    out
}

/// What an upload may declare of a file made elsewhere (a PyTorch export says none of
/// it), by the name of its parameter: the metadata key is `gemba.` and that name.
pub const DECLARABLE: [&str; 10] = [
    "labels",
    "version",
    "input_width",
    "input_height",
    "input_layout",
    "input_type",
    "input_scale",
    "input_mean",
    "input_std",
    "input_format",
];

/// A declared value as the metadata keeps it, or what it must be in the API's words for
/// a field.
fn kept(field: &str, value: &str) -> Result<String, String> {
    let v = value.trim();
    match field {
        "labels" => serde_json::from_str::<Vec<String>>(v)
            .ok()
            .map(|l| l.iter().map(|n| n.trim().to_string()).collect::<Vec<_>>())
            .filter(|l| l.len() >= 2 && l.iter().all(|n| !n.is_empty()))
            .map(|l| serde_json::to_string(&l).expect("names serialise"))
            .ok_or_else(|| {
                "Give a JSON list of at least two names: the model's steps in order, then \
                 background."
                    .into()
            }),
        "version" => {
            (!v.is_empty() && v.chars().count() <= MAX_VERSION && !v.chars().any(char::is_control))
                .then(|| v.to_string())
                .ok_or_else(|| format!("Give a name of 1 to {MAX_VERSION} characters."))
        }
        "input_width" | "input_height" => v
            .parse::<u32>()
            .ok()
            .filter(|n| MODEL_INPUT_SIDE.contains(n))
            .map(|n| n.to_string())
            .ok_or_else(|| {
                format!(
                    "Ensure this value is between {} and {} pixels.",
                    MODEL_INPUT_SIDE.start(),
                    MODEL_INPUT_SIDE.end()
                )
            }),
        _ => Preprocessing::default()
            .set(&format!("gemba.{field}"), v)
            .map_err(|e| format!("Ensure this value is {}.", e.must_be)),
    }
}

/// `bytes` with what an upload declares of it (`declared`: a [`DECLARABLE`] parameter and
/// its value) written into its metadata ([`declare`]), and the frame size `size` (the
/// model type's) where the file says none. Values the file has stay its own: declaring
/// another is refused. Nothing declared: the bytes as they are. `Err`: the parameter
/// (or `file`) and what is wrong with it.
pub fn with_declared(
    bytes: &[u8],
    declared: &[(&str, &str)],
    size: (u32, u32),
) -> Result<Vec<u8>, (String, String)> {
    if declared.is_empty() {
        return Ok(bytes.to_vec());
    }
    let mut add: Vec<(String, String)> = vec![];
    let mut fields: Vec<(String, &str)> = vec![];
    for (field, value) in declared {
        let kept = kept(field, value).map_err(|m| (field.to_string(), m))?;
        add.push((format!("gemba.{field}"), kept));
        fields.push((format!("gemba.{field}"), *field));
    }
    let have = metadata(bytes).ok_or_else(|| {
        (
            "file".to_string(),
            "This file is not an ONNX model.".to_string(),
        )
    })?;
    let has = |k: &str| {
        have.iter()
            .rev()
            .find(|(x, _)| x == k)
            .map(|(_, v)| v.trim())
    };
    let mut clash = None;
    add.retain(|(key, value)| match has(key) {
        None => true,
        Some(own) => {
            let field = key.trim_start_matches("gemba.");
            if kept(field, own).as_deref() != Ok(value.as_str()) && clash.is_none() {
                clash = Some((
                    field.to_string(),
                    format!("The file already says {key} is {own}."),
                ));
            }
            false
        }
    });
    if let Some(c) = clash {
        return Err(c);
    }
    for (key, side) in [
        ("gemba.input_width", size.0),
        ("gemba.input_height", size.1),
    ] {
        if has(key).is_none() && !add.iter().any(|(k, _)| k == key) {
            add.push((key.into(), side.to_string()));
        }
    }
    // The declared values with the file's own must go together (a uint8 input is not
    // normalised).
    let value = |k: &str| {
        add.iter()
            .find(|(x, _)| x == k)
            .map(|(_, v)| v.as_str())
            .or_else(|| has(k))
    };
    if let Err(bad) = Preprocessing::from_metadata(value) {
        let declared_as = fields.iter().find(|(k, _)| k == bad.key).map(|(_, f)| *f);
        // Each declared value was read on its own above: the file's own value is wrong, or
        // the values do not go together.
        let own_fine =
            has(bad.key).is_none_or(|v| Preprocessing::default().set(bad.key, v).is_ok());
        let (field, says) = match declared_as {
            Some(f) => (f, format!("Ensure this value is {}.", bad.must_be)),
            None if own_fine => (
                fields
                    .iter()
                    .find(|(k, _)| model_io::KEYS.contains(&k.as_str()))
                    .map_or("file", |(_, f)| *f),
                bad.to_string(),
            ),
            None => ("file", bad.to_string()),
        };
        return Err((field.to_string(), says));
    }
    Ok(declare(bytes, &add))
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
                preprocessing: Preprocessing::default(),
            }
        );
    }

    #[test]
    fn declared_metadata_is_appended_and_read_back() {
        // A PyTorch export: float32 NCHW, no gemba metadata at all.
        let image = tensor("image", FLOAT, &["1", "3", "48", "64"]);
        let bare = model_of(graph(vec![image], vec![probs()]), &[]);
        assert!(
            read(&bare)
                .unwrap_err()
                .contains("has no gemba.input_width")
        );
        let mut meta: Vec<(String, String)> = GOOD
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for (k, v) in [
            ("gemba.input_layout", "NCHW"),
            ("gemba.input_type", "float32"),
            ("gemba.input_scale", "0.003921569"),
            ("gemba.input_mean", "[0.485,0.456,0.406]"),
            ("gemba.input_std", "[0.229,0.224,0.225]"),
            ("gemba.input_format", "BGR"),
        ] {
            meta.push((k.into(), v.into()));
        }
        let declared = declare(&bare, &meta);
        assert_eq!(
            &declared[..bare.len()],
            &bare[..],
            "the file's own bytes stay"
        );
        assert_eq!(metadata(&declared).unwrap(), meta);
        let b = read(&declared).unwrap();
        assert_eq!((b.input_width, b.input_height, b.labels.len()), (64, 48, 3));
        let p = b.preprocessing;
        assert_eq!(p.layout, model_io::Layout::Nchw);
        assert_eq!(p.elem, model_io::ElemType::FLOAT32);
        assert_eq!(p.order, model_io::Order::Bgr);
        assert_eq!(
            (p.scale, p.mean, p.std),
            (1.0 / 255.0, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        );
        // Declared as uint8 NHWC, the same graph does not fit, and says so.
        let uint8 = declare(&bare, &meta[..4]);
        assert!(
            read(&uint8)
                .unwrap_err()
                .starts_with("The model's input is float32 1×3×48×64 (NCHW); gemba needs uint8"),
        );
        assert_eq!(metadata(b"not onnx \xff"), None);
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
            (
                "gemba.input_format",
                "YUV",
                "gemba.input_format must be RGB or BGR",
            ),
            (
                "gemba.input_layout",
                "CHW",
                "gemba.input_layout must be NHWC or NCHW",
            ),
            (
                "gemba.input_type",
                "int8",
                "gemba.input_type must be uint8 or float32",
            ),
            (
                "gemba.input_std",
                "[1,0,1]",
                "gemba.input_std must be three numbers greater",
            ),
            (
                "gemba.input_mean",
                "[0.5,0.5]",
                "gemba.input_mean must be three numbers",
            ),
            (
                "gemba.input_scale",
                "0",
                "gemba.input_scale must be a number greater than 0",
            ),
        ] {
            let err = read(&with(k, v)).unwrap_err();
            assert!(err.contains(says), "{k}={v}: {err}");
        }
        assert!(read(&with("gemba.input_format", "RGB")).is_ok());
        // A uint8 NHWC model may take BGR: the agent swaps the channels.
        let bgr = read(&with("gemba.input_format", "BGR")).unwrap();
        assert_eq!(bgr.preprocessing.order, model_io::Order::Bgr);
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

    #[test]
    fn an_upload_declares_what_the_file_does_not_say() {
        let image = tensor("image", FLOAT, &["1", "3", "48", "64"]);
        let bare = model_of(graph(vec![image], vec![probs()]), &[]);
        let torch = [
            ("labels", r#"[" pick","place","background"]"#),
            ("version", "resnet-1"),
            ("input_layout", "nchw"),
            ("input_type", "float32"),
            ("input_scale", "1/255"),
            ("input_mean", "0.485,0.456,0.406"),
            ("input_std", "0.229,0.224,0.225"),
        ];
        // Nothing declared: the bytes as they came.
        assert_eq!(with_declared(&bare, &[], (64, 48)).unwrap(), bare);
        let stored = with_declared(&bare, &torch, (64, 48)).unwrap();
        let b = read(&stored).unwrap();
        assert_eq!(b.labels, ["pick", "place", "background"]);
        assert_eq!(
            (b.version.as_str(), b.input_width, b.input_height),
            ("resnet-1", 64, 48)
        );
        assert_eq!(b.preprocessing.layout, model_io::Layout::Nchw);
        let keys: Vec<String> = metadata(&stored)
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys.len(), 9, "{keys:?}");
        // Declaring again what the file says adds nothing; saying otherwise is refused.
        let again = with_declared(
            &stored,
            &[
                ("input_layout", "NCHW"),
                ("labels", r#"["pick","place","background"]"#),
            ],
            (64, 48),
        )
        .unwrap();
        assert_eq!(again, stored);
        assert_eq!(
            with_declared(&stored, &[("input_layout", "NHWC")], (64, 48)).unwrap_err(),
            (
                "input_layout".into(),
                "The file already says gemba.input_layout is NCHW.".into()
            )
        );
        // Each bad value on its own parameter.
        for (field, value, says) in [
            ("input_layout", "CHW", "Ensure this value is NHWC or NCHW."),
            (
                "input_type",
                "double",
                "Ensure this value is uint8 or float32.",
            ),
            (
                "input_scale",
                "0",
                "Ensure this value is a number greater than 0 (such as 1/255).",
            ),
            (
                "input_scale",
                "-0.5",
                "Ensure this value is a number greater than 0",
            ),
            (
                "input_mean",
                "0.5,0.5",
                "Ensure this value is three numbers, one per channel.",
            ),
            (
                "input_std",
                "0.2,0,0.2",
                "Ensure this value is three numbers greater than 0, one per channel.",
            ),
            ("input_format", "YUV", "Ensure this value is RGB or BGR."),
            (
                "input_width",
                "15",
                "Ensure this value is between 16 and 640 pixels.",
            ),
            (
                "input_height",
                "641",
                "Ensure this value is between 16 and 640 pixels.",
            ),
            (
                "labels",
                r#"["only"]"#,
                "Give a JSON list of at least two names",
            ),
            (
                "labels",
                "pick,place",
                "Give a JSON list of at least two names",
            ),
            ("version", " ", "Give a name of 1 to 100 characters."),
        ] {
            let (f, m) = with_declared(&bare, &[(field, value)], (64, 48)).unwrap_err();
            assert_eq!(f, field);
            assert!(m.starts_with(says), "{field}={value}: {m}");
        }
        // Normalising a uint8 input.
        let (f, m) = with_declared(
            &bare,
            &[("input_type", "uint8"), ("input_mean", "1,1,1")],
            (64, 48),
        )
        .unwrap_err();
        assert_eq!(f, "input_type");
        assert!(
            m.starts_with("Ensure this value is float32 for a model that declares"),
            "{m}"
        );
        let (f, m) = with_declared(&bare, &[("input_mean", "1,1,1")], (64, 48)).unwrap_err();
        assert_eq!(f, "input_mean");
        assert!(
            m.starts_with("The model's gemba.input_type must be float32"),
            "{m}"
        );
        // What is not ONNX.
        assert_eq!(
            with_declared(b"\xff\xff", &[("version", "v")], (64, 48))
                .unwrap_err()
                .0,
            "file"
        );
    }
}
