//! What an ONNX model file says of itself: the `gemba.*` metadata the agent reads
//! (edge-agent/src/infer.rs), decoded from the file's protobuf with `prost` and a schema
//! of just the fields needed (ONNX's `ModelProto`: `ir_version` 1, `graph` 7,
//! `metadata_props` 14; every other field is skipped).

use gemba_shared::api::v1::training::MODEL_INPUT_SIDE;
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

/// A graph, read only to know there is one.
#[derive(Clone, PartialEq, Message)]
struct Graph {}

#[derive(Clone, PartialEq, Message)]
struct Entry {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(string, tag = "2")]
    value: String,
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
    if m.ir_version <= 0 || m.graph.is_none() {
        return Err(not_onnx());
    }
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

    /// A model's bytes as ONNX writes them: an IR version, a graph, the metadata.
    fn model(meta: &[(&str, &str)]) -> Vec<u8> {
        ModelProto {
            ir_version: 8,
            graph: Some(Graph {}),
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
}
