//! The walks' calls: how one is described, who may make it, sending it, and reading
//! the answer (the API's error shape, the ids in it).

use std::collections::BTreeSet;

use gemba_shared::{Permission, Role};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::common::*;

/// An id no record has.
pub(super) const UNKNOWN_ID: i64 = 999_999_999;

/// The API's error shape: `{"field": ["message", …], …}` or `{"detail": "message"}`.
pub(super) fn is_error_shape(v: &Value) -> bool {
    match v.as_object() {
        Some(o) if o.get("detail").is_some_and(Value::is_string) => true,
        Some(o) if !o.is_empty() => o.values().all(|m| {
            m.as_array()
                .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string))
        }),
        _ => false,
    }
}

/// Sends `body` as raw bytes with `content_type`.
pub(super) async fn raw(
    app: &TestApp,
    method: &str,
    url: &str,
    token: &str,
    headers: &[(&str, String)],
    body: Option<(Vec<u8>, Option<&str>)>,
) -> (StatusCode, Value) {
    let mut rb = app
        .client
        .request(
            Method::from_bytes(method.as_bytes()).unwrap(),
            format!("{}/{}", app.base, url.trim_start_matches('/')),
        )
        .bearer_auth(token);
    for (k, v) in headers {
        rb = rb.header(*k, v);
    }
    if let Some((bytes, ct)) = body {
        if let Some(ct) = ct {
            rb = rb.header("content-type", ct);
        }
        rb = rb.body(bytes);
    }
    let r = rb
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = r.status();
    let text = r.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A call as the walks make it.
pub(super) struct Call {
    /// The operation, as in [`Op::key`].
    pub(super) op: &'static str,
    /// The URL under `/api/`, with real ids and query.
    pub(super) url: String,
    pub(super) body: Option<Value>,
    pub(super) need: Need,
    /// A caller without the permission may get 404 instead of 403: the record is
    /// hidden from it rather than refused.
    pub(super) hides: bool,
}

/// Who may make a call.
#[derive(Debug, Clone, Copy)]
pub(super) enum Need {
    /// Anyone; a token, when sent, is ignored.
    Public,
    /// A sign-in in progress (the temporary token) or a full one: the MFA calls.
    Pending,
    /// Any signed-in user; the call reaches only the caller's own data.
    SignedIn,
    /// A role that holds this permission.
    Perm(Permission),
}

impl Need {
    pub(super) fn allows(self, role: Role) -> bool {
        match self {
            Need::Public | Need::Pending | Need::SignedIn => true,
            Need::Perm(p) => role.can(p),
        }
    }

    /// The call takes the tenant scope of the request (a full sign-in).
    pub(super) fn scoped(self) -> bool {
        matches!(self, Need::SignedIn | Need::Perm(_))
    }
}

/// A call to the operation's own path; [`Call::at`] sets ids and a query.
pub(super) fn call(op: &'static str, body: Option<Value>, need: Need) -> Call {
    Call {
        op,
        url: op.split_once(" /").unwrap().1.to_string(),
        body,
        need,
        hides: false,
    }
}

impl Call {
    pub(super) fn at(mut self, url: impl Into<String>) -> Call {
        self.url = url.into();
        self
    }

    pub(super) fn hiding(mut self) -> Call {
        self.hides = true;
        self
    }

    pub(super) fn method(&self) -> &'static str {
        self.op.split_once(' ').unwrap().0
    }

    pub(super) async fn send(
        &self,
        app: &TestApp,
        token: &str,
        headers: &[(&str, String)],
    ) -> (StatusCode, Value) {
        let body = self
            .body
            .as_ref()
            .map(|b| (serde_json::to_vec(b).unwrap(), Some("application/json")));
        raw(app, self.method(), &self.url, token, headers, body).await
    }
}

/// Every number under `key` anywhere in `v`.
pub(super) fn ids(v: &Value, key: &str) -> BTreeSet<i64> {
    let mut out = BTreeSet::new();
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                if k == key
                    && let Some(n) = x.as_i64()
                {
                    out.insert(n);
                }
                out.extend(ids(x, key));
            }
        }
        Value::Array(a) => a.iter().for_each(|x| out.extend(ids(x, key))),
        _ => {}
    }
    out
}
