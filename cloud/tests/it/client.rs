//! The typed test client: requests built from and answers read as the shared wire types
//! (`gemba_shared::api::v1`), the structs the server itself serialises. A test then
//! reads `t.settings.task_name`, not `v["taskName"]`: a renamed or retyped field fails
//! to compile or to parse instead of reading as `null`.
//!
//! Calls expected to succeed panic with the method, path, status and body otherwise;
//! refused calls answer the status and the error body untyped, since the spec's error
//! shapes (`{"field": ["message"]}`, `{"detail": …}`) are what those tests check.
//!
//! One shared type does not read its own JSON: [`Task`] (see [`TaskAnswer`]).

use gemba_shared::api::v1::task::{Task, TaskSettings};
use reqwest::{Method, StatusCode};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
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

/// A [`Task`] read from an answer (derefs to the task). `serde_json::from_str::<Task>`
/// fails on the server's own answer: `Task` flattens its settings, serde reads a
/// flattened struct through a buffer that no longer turns JSON's text map keys into
/// numbers, and the `StepsByProcess` maps are keyed by `u32` ("invalid type: string
/// \"0\", expected u32"; serde-rs/serde#1183). So this reads each field of `Task` as
/// its own shared type. Goes once `Task` reads its own JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskAnswer(pub Task);

impl std::ops::Deref for TaskAnswer {
    type Target = Task;
    fn deref(&self) -> &Task {
        &self.0
    }
}

impl<'de> Deserialize<'de> for TaskAnswer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        read_task(&v).map(TaskAnswer).map_err(D::Error::custom)
    }
}

/// `v` read as a [`Task`], field by field; every field but the settings must be there.
fn read_task(v: &Value) -> Result<Task, serde_json::Error> {
    fn field<T: DeserializeOwned>(v: &Value, key: &str) -> Result<T, serde_json::Error> {
        let f = v
            .get(key)
            .ok_or_else(|| serde_json::Error::custom(format!("no {key} in the task")))?;
        T::deserialize(f).map_err(|e| serde_json::Error::custom(format!("{key}: {e}")))
    }
    Ok(Task {
        id: field(v, "id")?,
        // The settings are the task's other fields.
        settings: TaskSettings::deserialize(v)?,
        organization: field(v, "Organization")?,
        starred: field(v, "starred")?,
        train_status: field(v, "train_status")?,
        created_at: field(v, "created_at")?,
        last_update: field(v, "last_update")?,
        steps_count: field(v, "stepsCount")?,
        processes: field(v, "processes")?,
        steps: field(v, "steps")?,
        substeps: field(v, "substeps")?,
        maximum_cycle_time: field(v, "maximum_cycle_time")?,
        add_background_time_to_step_time: field(v, "add_background_time_to_step_time")?,
        object_rotation: field(v, "object_rotation")?,
        strict_step_order: field(v, "strict_step_order")?,
        required_steps_for_start: field(v, "required_steps_for_start")?,
        required_steps_for_end: field(v, "required_steps_for_end")?,
        task_json: field(v, "taskJson")?,
    })
}
