//! A task's objects, planes and regions of interest, and the objects' outline colours.

use serde::{Deserialize, Serialize};

use super::JsonObject;

/// An object the detector looks for in a task (spec "Task object"): static objects
/// (fixtures) or moving ones (parts, tools), optionally tied to a step.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskObject {
    pub id: i64,
    pub task: i64,
    pub name: String,
    /// `#rrggbb` or `#rgb`.
    pub outline_color: String,
    pub is_static: bool,
    /// The step (index across processes) the object belongs to.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub step_id: Option<u32>,
}

/// `POST task/task_object/`. A missing or invalid colour gets a generated one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TaskObjectCreate {
    pub task: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub outline_color: Option<String>,
    #[serde(default)]
    pub is_static: bool,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub step_id: Option<u32>,
}

/// `PATCH task/task_object/{id}/`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
#[serde(deny_unknown_fields)]
pub struct TaskObjectPatch {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 64))]
    pub outline_color: Option<String>,
    pub is_static: Option<bool>,
    pub step_id: Option<u32>,
}

/// A plane of a task's scene (a work surface), as a polygon in image coordinates
/// scaled to 0..1.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlaneObject {
    pub id: i64,
    pub task: i64,
    pub name: String,
    pub points: Vec<[f64; 2]>,
}

/// `POST task/plane_objects/` (with `task`) and `PUT task/plane_objects/{id}/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct PlaneObjectWrite {
    /// The task (on create; ignored on replace).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub task: Option<i64>,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    pub points: Vec<[f64; 2]>,
}

/// A task's regions of interest (`generic/list_region_json/{id}/`): free-form JSON the
/// device applies to its camera image.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RegionJson {
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub region_json: JsonObject,
}

/// Whether `c` is a 3- or 6-digit hex colour, with or without `#` (spec section 5).
pub fn is_hex_color(c: &str) -> bool {
    let h = c.strip_prefix('#').unwrap_or(c);
    matches!(h.len(), 3 | 6) && h.chars().all(|c| c.is_ascii_hexdigit())
}

/// A colour for the `n`-th object: hues spread by the golden angle, so neighbours differ.
pub fn generated_color(n: u64) -> String {
    let h = (n as f64 * 137.507_764) % 360.0;
    let (s, l) = (0.65, 0.5);
    let c = (1.0 - (2.0 * l - 1.0_f64).abs()) * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let m = l - c / 2.0;
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}
