//! The file calls as a client makes them: multipart forms built by hand, the JSON
//! calls that answer bytes, and the tenancy walk's file of organisation B.

use reqwest::StatusCode;
use serde_json::{Value, json};

use gemba_shared::api::v1::files::StoredFile;

use crate::common::*;

/// A `multipart/form-data` body of `parts` (name, bytes, file name): its content type
/// and bytes.
pub(super) fn multipart(parts: &[(&str, &[u8], Option<&str>)]) -> (String, Vec<u8>) {
    let boundary = "gemba-test-boundary-5f1c9e";
    let mut body = Vec::new();
    for (name, bytes, file) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file {
            Some(f) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            ),
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// An absolute URL: the cloud's own URLs are relative to its origin.
pub(super) fn absolute(app: &TestApp, url: &str) -> String {
    if url.starts_with("http") {
        url.to_string()
    } else {
        format!("{}{url}", app.base.trim_end_matches("/api"))
    }
}

pub(super) async fn upload(
    app: &TestApp,
    tok: &str,
    parts: &[(&str, &[u8], Option<&str>)],
) -> (StatusCode, Value) {
    let (ct, body) = multipart(parts);
    let r = app
        .client
        .post(format!("{}/generic/file_upload/", app.base))
        .bearer_auth(tok)
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

pub(super) async fn put_file(
    app: &TestApp,
    tok: &str,
    bucket: &str,
    path: &str,
    bytes: &[u8],
) -> StoredFile {
    let (s, v) = upload(
        app,
        tok,
        &[
            ("bucket_name", bucket.as_bytes(), None),
            ("object_path", path.as_bytes(), None),
            ("file", bytes, Some("f.bin")),
        ],
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    serde_json::from_value(v).unwrap()
}

/// A JSON call answering bytes: status and body.
pub(super) async fn bytes_of(
    app: &TestApp,
    path: &str,
    body: Value,
    tok: &str,
) -> (StatusCode, Vec<u8>) {
    let r = app
        .client
        .post(format!("{}/{path}", app.base))
        .bearer_auth(tok)
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status(), r.bytes().await.unwrap().to_vec())
}

pub(super) async fn get(app: &TestApp, url: &str) -> (StatusCode, Vec<u8>) {
    let r = app.client.get(absolute(app, url)).send().await.unwrap();
    (r.status(), r.bytes().await.unwrap().to_vec())
}

pub(super) fn file(bucket: &str, path: &str) -> Value {
    json!({"bucket_name": bucket, "object_path": path})
}

/// B's file of the tenancy walk: bucket and path.
pub(crate) const TENANT_FILE: (&str, &str) = ("tenant-files", "b/plan.txt");

/// Puts [`TENANT_FILE`] into organisation `org`'s bucket, as `tok` (the super admin)
/// acting in `org`.
pub(crate) async fn put_tenant_file(app: &TestApp, tok: &str, org: i64) {
    let (ct, body) = multipart(&[
        ("bucket_name", TENANT_FILE.0.as_bytes(), None),
        ("object_path", TENANT_FILE.1.as_bytes(), None),
        ("file", b"B's plan", Some("plan.txt")),
    ]);
    let r = app
        .client
        .post(format!("{}/generic/file_upload/", app.base))
        .bearer_auth(tok)
        .header("Organization", org.to_string())
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
}

/// [`TENANT_FILE`] of `org` as `tok` acting in `org` reads it: status and bytes.
pub(crate) async fn read_tenant_file(app: &TestApp, tok: &str, org: i64) -> (StatusCode, Vec<u8>) {
    let r = app
        .client
        .post(format!("{}/generic/file_read/", app.base))
        .bearer_auth(tok)
        .header("Organization", org.to_string())
        .json(&file(TENANT_FILE.0, TENANT_FILE.1))
        .send()
        .await
        .unwrap();
    (r.status(), r.bytes().await.unwrap().to_vec())
}
