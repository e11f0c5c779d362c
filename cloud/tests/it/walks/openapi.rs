//! The OpenAPI document as the walks read it: its operations, their parameters and
//! bodies, and the check that a walk's table covers every call and no other.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::common::*;

pub(super) async fn openapi(app: &TestApp) -> Value {
    app.openapi().await
}

/// One operation of the document.
pub(super) struct Op<'a> {
    /// `"GET /account/users_list/v2"`: the method and the path as the document writes it.
    pub(super) key: String,
    pub(super) method: String,
    pub(super) path: String,
    pub(super) op: &'a Value,
    pub(super) doc: &'a Value,
}

impl<'a> Op<'a> {
    pub(super) fn params(&self, place: &str) -> Vec<(&'a str, &'a Value)> {
        self.op["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == place)
            .map(|p| (p["name"].as_str().unwrap(), p))
            .collect()
    }

    /// The request body's schema (references resolved), when the call takes a body.
    pub(super) fn body_schema(&self) -> Option<&'a Value> {
        let s = self
            .op
            .pointer("/requestBody/content/application~1json/schema")?;
        Some(resolve(self.doc, s))
    }

    pub(super) fn body_props(&self) -> Vec<(&'a str, &'a Value)> {
        self.body_schema()
            .and_then(|s| s["properties"].as_object())
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), resolve_nullable(self.doc, v)))
            .collect()
    }

    pub(super) fn required(&self) -> Vec<&'a str> {
        self.body_schema()
            .and_then(|s| s["required"].as_array())
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect()
    }

    /// Does the call name a record by an integer id (path, query or body)? Paging
    /// numbers are not ids.
    pub(super) fn takes_id(&self) -> bool {
        let id_param = |(name, p): &(&str, &Value)| {
            is_type(&p["schema"], "integer") && !matches!(*name, "page" | "limit")
        };
        self.params("path").iter().any(id_param)
            || self.params("query").iter().any(id_param)
            || self.body_props().iter().any(|(_, s)| is_type(s, "integer"))
    }
}

pub(super) fn resolve<'a>(doc: &'a Value, s: &'a Value) -> &'a Value {
    match s["$ref"].as_str() {
        Some(r) => doc
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("unresolved {r}")),
        None => s,
    }
}

/// `s` resolved; for a nullable reference (`oneOf: [null, $ref]`), what it refers to.
pub(super) fn resolve_nullable<'a>(doc: &'a Value, s: &'a Value) -> &'a Value {
    let s = resolve(doc, s);
    match s["oneOf"].as_array() {
        Some(branches) => branches
            .iter()
            .find(|b| b["type"] != "null")
            .map_or(s, |b| resolve(doc, b)),
        None => s,
    }
}

/// `type: "integer"` or `type: ["integer", "null"]`.
pub(super) fn is_type(schema: &Value, t: &str) -> bool {
    match &schema["type"] {
        Value::String(s) => s == t,
        Value::Array(a) => a.iter().any(|x| x == t),
        _ => false,
    }
}

pub(super) fn ops(doc: &Value) -> Vec<Op<'_>> {
    let mut out = vec![];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if !matches!(method.as_str(), "get" | "post" | "put" | "patch" | "delete") {
                continue;
            }
            out.push(Op {
                key: format!("{} {path}", method.to_uppercase()),
                method: method.to_uppercase(),
                path: path.clone(),
                op,
                doc,
            });
        }
    }
    assert!(out.len() > 40, "the document lists the calls");
    out
}

/// Fails with the calls the document has but `covered` lacks, and the reverse.
pub(super) fn assert_covers(
    doc: &Value,
    covered: &BTreeSet<&str>,
    what: &str,
    only: impl Fn(&Op) -> bool,
) {
    let served: BTreeSet<String> = ops(doc)
        .iter()
        .filter(|o| only(o))
        .map(|o| o.key.clone())
        .collect();
    let missing: Vec<&String> = served
        .iter()
        .filter(|k| !covered.contains(k.as_str()))
        .collect();
    let stale: Vec<&&str> = covered.iter().filter(|k| !served.contains(**k)).collect();
    assert!(
        missing.is_empty(),
        "calls the server has with no entry in the {what}: {missing:#?}"
    );
    assert!(
        stale.is_empty(),
        "entries in the {what} for calls the server lacks: {stale:#?}"
    );
}
