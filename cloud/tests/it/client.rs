//! The typed test client: requests built from and answers read as the shared wire types
//! (`gemba_shared::api::v1`), the structs the server itself serialises. A test then
//! reads `t.settings.task_name`, not `v["taskName"]`: a renamed or retyped field fails
//! to compile or to parse instead of reading as `null`.
//!
//! Calls expected to succeed panic with the method, path, status and body otherwise;
//! refused calls answer the status and the error body untyped, since the spec's error
//! shapes (`{"field": ["message"]}`, `{"detail": …}`) are what those tests check.

use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::TestApp;

impl TestApp {
    /// `GET path` as `token`: a 2xx, its body read as `T`.
    pub async fn get_as<T: DeserializeOwned>(&self, path: &str, token: &str) -> T {
        let (status, text) = self.send_text(Method::GET, path, None::<&()>, token).await;
        read(&Method::GET, path, status, &text, |s| s.is_success())
    }

    /// `method path` with `body` as `token`: a 2xx, its body read as `T`.
    pub async fn send_as<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: &B,
        token: &str,
    ) -> T {
        let (status, text) = self
            .send_text(method.clone(), path, Some(body), token)
            .await;
        read(&method, path, status, &text, |s| s.is_success())
    }

    /// `POST path` with `body` as `token`: a 201 Created, its body read as `T`.
    pub async fn create_as<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        token: &str,
    ) -> T {
        let (status, text) = self.send_text(Method::POST, path, Some(body), token).await;
        read(&Method::POST, path, status, &text, |s| {
            s == StatusCode::CREATED
        })
    }

    /// `method path` with a well-formed `body` as `token`, expected to be refused: the
    /// status (not a 2xx) and the error body (JSON, or the text as a string).
    pub async fn send_refused<B: Serialize>(
        &self,
        method: Method,
        path: &str,
        body: &B,
        token: &str,
    ) -> (StatusCode, Value) {
        let (status, text) = self
            .send_text(method.clone(), path, Some(body), token)
            .await;
        assert!(
            !status.is_success(),
            "{method} {path}: expected a refusal, got {status}: {text}"
        );
        let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, v)
    }

    async fn send_text<B: Serialize>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        token: &str,
    ) -> (StatusCode, String) {
        let mut rb = self
            .client
            .request(
                method,
                format!("{}/{}", self.base, path.trim_start_matches('/')),
            )
            .bearer_auth(token);
        if let Some(b) = body {
            rb = rb.json(b);
        }
        let r = rb.send().await.unwrap();
        let status = r.status();
        (status, r.text().await.unwrap())
    }
}

/// `text` read as `T`, once `status` passed `ok`; panics naming the call otherwise.
fn read<T: DeserializeOwned>(
    method: &Method,
    path: &str,
    status: StatusCode,
    text: &str,
    ok: impl Fn(StatusCode) -> bool,
) -> T {
    assert!(ok(status), "{method} {path}: {status}: {text}");
    serde_json::from_str(text).unwrap_or_else(|e| {
        panic!(
            "{method} {path}: the answer is no {}: {e}: {text}",
            std::any::type_name::<T>()
        )
    })
}
