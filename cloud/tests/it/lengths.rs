//! Bounded text (issue 28): every free-text field of every request body has a longest
//! length, its limit is accepted and one character more is refused with a 400 naming
//! the field, before anything is written. The table of limits is
//! `gemba_shared::api::v1::lengths`; the calls come from `/api/openapi.json`, so a
//! route taking a bounded body is walked without being listed here, and the document
//! must say each limit (`maxLength`).

use gemba_shared::api::v1::lengths;
use gemba_shared::validate::Limit;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

const UNKNOWN_ID: i64 = 999_999_999;

fn resolve<'a>(doc: &'a Value, s: &'a Value) -> &'a Value {
    match s["$ref"].as_str() {
        Some(r) => doc.pointer(r.trim_start_matches('#')).unwrap(),
        None => s,
    }
}

fn is_type(schema: &Value, t: &str) -> bool {
    match &schema["type"] {
        Value::String(s) => s == t,
        Value::Array(a) => a.iter().any(|x| x == t),
        _ => false,
    }
}

/// A body of schema `name` with its required fields set to harmless values: integers
/// name nothing that exists, strings are one letter.
fn minimal(doc: &Value, name: &str) -> Value {
    let s = &doc["components"]["schemas"][name];
    let mut out = serde_json::Map::new();
    for r in s["required"].as_array().into_iter().flatten() {
        let r = r.as_str().unwrap();
        let p = resolve(doc, &s["properties"][r]);
        let v = if is_type(p, "integer") || is_type(p, "number") {
            json!(UNKNOWN_ID)
        } else if is_type(p, "boolean") {
            json!(false)
        } else if is_type(p, "array") {
            json!([])
        } else if is_type(p, "object") {
            json!({})
        } else if let Some(first) = p["enum"].as_array().and_then(|e| e.first()) {
            first.clone()
        } else {
            json!("x")
        };
        out.insert(r.to_string(), v);
    }
    Value::Object(out)
}

/// `body` with `value` at the limit's path; the parents of a nested path are made as
/// the body's types need them (an operation's processes, a translation, a step rule).
fn with_value(mut body: Value, path: &str, value: &str) -> Value {
    let v = json!(value);
    let set = |body: &mut Value, key: &str, x: Value| {
        body.as_object_mut().unwrap().insert(key.into(), x);
    };
    match path {
        "processes.*.name" => set(&mut body, "processes", json!([{"name": v, "steps": []}])),
        "processes.*.steps.*.name" => set(
            &mut body,
            "processes",
            json!([{"name": "P", "steps": [{"name": v, "substeps": []}]}]),
        ),
        "processes.*.steps.*.substeps.*" => set(
            &mut body,
            "processes",
            json!([{"name": "P", "steps": [{"name": "S", "substeps": [v]}]}]),
        ),
        "translation.*" => set(&mut body, "translation", json!({ "A": v })),
        "rule.boolean_expr" => set(&mut body, "rule", json!({ "boolean_expr": v })),
        "rule.rule_types.*" => set(&mut body, "rule", json!({ "rule_types": [v] })),
        p if p.ends_with(".*") => set(&mut body, p.trim_end_matches(".*"), json!([v])),
        p => {
            assert!(!p.contains('.'), "a nested path to build: {p}");
            set(&mut body, p, v)
        }
    }
    body
}

/// A value of `n` characters the field's other rules take where they can: letters
/// (person names), an address (e-mail fields), lower case (sub-domain names).
fn text(limit: &Limit, n: usize) -> String {
    match limit.label {
        "Email" | "A recipient" => long_email(n),
        "Password" | "Old password" => format!("{}1", "a".repeat(n - 1)),
        _ => "a".repeat(n),
    }
}

/// An address of `n` characters the mailer takes: a 64-byte local part, a domain of
/// labels of at most 63.
fn long_email(n: usize) -> String {
    let mut domain = String::new();
    let rest = n - 65 - ".test".len();
    while domain.len() < rest {
        if !domain.is_empty() {
            domain.push('.');
        }
        let take = (rest - domain.len()).min(60);
        domain.push_str(&"b".repeat(take));
    }
    let email = format!("{}@{domain}.test", "a".repeat(64));
    assert_eq!(email.len(), n, "{email}");
    email
}

/// Every call whose body is a bounded type: (method, path with unknown ids, body type).
fn bounded_calls(doc: &Value) -> Vec<(Method, String, &'static str, &'static [Limit])> {
    let table = lengths::all();
    let mut out = vec![];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(r) = op
                .pointer("/requestBody/content/application~1json/schema/$ref")
                .and_then(Value::as_str)
            else {
                continue;
            };
            let name = r.rsplit('/').next().unwrap();
            if let Some((body, limits)) = table.iter().find(|(b, _)| *b == name) {
                // Path parameters: ids that name nothing (a length is checked first).
                let url: String = path
                    .split('/')
                    .map(|seg| {
                        if seg.starts_with('{') {
                            UNKNOWN_ID.to_string()
                        } else {
                            seg.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("/");
                let m = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
                out.push((m, url, *body, *limits));
            }
        }
    }
    out
}

both!(
    every_bounded_field_takes_its_limit_and_refuses_one_more,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let doc = app.openapi().await;
        let calls = bounded_calls(&doc);
        // Every bounded body is taken by some call.
        for (body, _) in lengths::all() {
            assert!(
                calls.iter().any(|(_, _, b, _)| *b == body),
                "no call takes {body}"
            );
        }
        let mut checked = 0;
        for (method, url, body, limits) in &calls {
            for l in *limits {
                let base = minimal(&doc, body);
                let at = with_value(base.clone(), l.path, &text(l, l.max));
                let (s, v) = app
                    .call(method.clone(), url, Some(at.clone()), Some(&admin))
                    .await;
                let refusal = l.refusal();
                assert_ne!(s, StatusCode::INTERNAL_SERVER_ERROR, "{method} {url}: {v}");
                // The agent's enrolment answers every code it cannot use alike, so a
                // code at the limit is refused as wrong, in the same words.
                let one_answer = url.ends_with("device/enroll/");
                assert!(
                    one_answer
                        || !(s == StatusCode::BAD_REQUEST
                            && v[refusal.field][0] == json!(refusal.message)),
                    "{method} {url} {}: the limit itself was refused: {v}",
                    l.path
                );
                let over = with_value(base, l.path, &text(l, l.max + 1));
                let (s, v) = app
                    .call(method.clone(), url, Some(over), Some(&admin))
                    .await;
                assert_eq!(
                    (s, &v),
                    (
                        StatusCode::BAD_REQUEST,
                        &json!({ refusal.field: [refusal.message] })
                    ),
                    "{method} {url} {}",
                    l.path
                );
                checked += 1;
            }
        }
        assert!(checked > 80, "{checked}");
    }
);

both!(
    the_openapi_document_says_each_limit,
    |app: TestApp| async move {
        let doc = app.openapi().await;
        for (body, limits) in lengths::all() {
            let schema = &doc["components"]["schemas"][body];
            assert!(schema.is_object(), "{body} is in the document");
            for l in limits {
                let prop = &schema["properties"][l.field()];
                assert!(prop.is_object(), "{body}.{} is a property", l.field());
                if !l.path.contains('.') {
                    assert_eq!(prop["maxLength"], json!(l.max), "{body}.{}", l.path);
                }
            }
        }
    }
);

/// The rows of `table` whose `column` is `value`.
async fn rows(app: &TestApp, table: &str, column: &str, value: &str) -> i64 {
    let q = format!("SELECT COUNT(*) FROM {table} WHERE {column} = $1");
    sqlx::query_scalar(sqlx::AssertSqlSafe(q))
        .bind(value)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

async fn count(app: &TestApp, table: &str) -> i64 {
    let q = format!("SELECT COUNT(*) FROM {table}");
    sqlx::query_scalar(sqlx::AssertSqlSafe(q))
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

/// One stored field: the call, its body with the value, where the value lands.
struct Stored {
    method: Method,
    url: String,
    token: Option<String>,
    body: Box<dyn Fn(&str) -> Value + Send + Sync>,
    field: &'static str,
    max: usize,
    fill: char,
    table: &'static str,
    column: &'static str,
}

fn stored(
    method: Method,
    url: impl Into<String>,
    token: Option<&str>,
    body: impl Fn(&str) -> Value + Send + Sync + 'static,
    (field, max, fill): (&'static str, usize, char),
    (table, column): (&'static str, &'static str),
) -> Stored {
    Stored {
        method,
        url: url.into(),
        token: token.map(str::to_string),
        body: Box::new(body),
        field,
        max,
        fill,
        table,
        column,
    }
}

both!(
    a_value_at_the_limit_is_stored_and_one_over_writes_nothing,
    |app: TestApp| async move {
        use gemba_shared::validate::*;
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Lengths").await;
        for f in ["Define Operation", "Devices", "Record Training Set"] {
            app.subscribe(&admin, org, f).await;
        }
        let boss = app.signed_in("boss@lengths.test", "org_admin", org).await;
        let me = app.user_row("boss@lengths.test").await.id;
        let (_, task) = app
            .post(
                "organization/task/",
                json!({"taskName": "Pack", "task_detail": "Pack\nA:\na;\n"}),
                Some(&boss),
            )
            .await;
        let task = task["id"].as_i64().expect("a task");
        let (_, video) = app
            .post(
                &format!("organization/task/videos/{task}"),
                json!({"file_name": "a.mp4", "size_bytes": 10}),
                Some(&boss),
            )
            .await;
        let video = video["id"].as_i64().expect("a video");
        let b = Some(boss.as_str());
        let a = Some(admin.as_str());
        let email_of = |v: &str| long_email(v.chars().count());
        let table = vec![
            stored(
                Method::POST,
                "account/register",
                None,
                |v| json!({"name": v, "lastname": "L", "email": format!("n{}@a.test", v.len()), "password": PASSWORD}),
                ("name", MAX_PERSON_NAME_CHARS, 'é'),
                ("users", "name"),
            ),
            stored(
                Method::POST,
                "account/register",
                None,
                |v| json!({"name": "N", "lastname": v, "email": format!("l{}@a.test", v.len()), "password": PASSWORD}),
                ("lastname", MAX_PERSON_NAME_CHARS, 'a'),
                ("users", "lastname"),
            ),
            stored(
                Method::POST,
                "account/register",
                None,
                move |v| json!({"name": "N", "email": email_of(v), "password": PASSWORD}),
                ("email", MAX_EMAIL_CHARS, 'a'),
                ("users", "email"),
            ),
            stored(
                Method::POST,
                "account/session/create/",
                b,
                move |v| json!({"user": me, "browser": v, "browser_version": "1"}),
                ("browser", MAX_NAME_CHARS, '😀'),
                ("activity_sessions", "browser"),
            ),
            stored(
                Method::POST,
                "organization/",
                a,
                |v| json!({"org_name_to_display": v}),
                ("org_name_to_display", MAX_NAME_CHARS, 'a'),
                ("organizations", "org_name_to_display"),
            ),
            stored(
                Method::POST,
                "organization/",
                a,
                |v| json!({"name": v, "org_name_to_display": "Sub"}),
                ("name", MAX_SUBDOMAIN_CHARS, 'b'),
                ("organizations", "name"),
            ),
            stored(
                Method::POST,
                format!("organization/{org}/department/"),
                b,
                |v| json!({"name": v}),
                ("name", MAX_NAME_CHARS, 'a'),
                ("departments", "name"),
            ),
            stored(
                Method::POST,
                "feature_control/feature/",
                a,
                |v| json!({"name": v}),
                ("name", MAX_NAME_CHARS, 'a'),
                ("features", "name"),
            ),
            stored(
                Method::POST,
                "organization/task/",
                b,
                |v| json!({"taskName": v, "task_detail": "x\nA:\na;\n"}),
                ("taskName", MAX_NAME_CHARS, 'a'),
                ("tasks", "task_name"),
            ),
            stored(
                Method::POST,
                "device/",
                b,
                |v| json!({"display_name": v}),
                ("display_name", MAX_NAME_CHARS, 'a'),
                ("devices", "display_name"),
            ),
            stored(
                Method::POST,
                "device/",
                b,
                |v| json!({"display_name": "Bench", "Serial_number": v}),
                ("Serial_number", MAX_NAME_CHARS, 'a'),
                ("devices", "serial_number"),
            ),
            stored(
                Method::POST,
                format!("organization/task/videos/{task}"),
                b,
                |v| json!({"file_name": v, "size_bytes": 10}),
                ("file_name", MAX_FILE_NAME_CHARS, 'a'),
                ("videos", "file_name"),
            ),
            stored(
                Method::POST,
                "organization/task_record/tags",
                b,
                |v| json!({"tag_name": v}),
                ("tag_name", MAX_TAG_CHARS, 'a'),
                ("org_tags", "tag_name"),
            ),
            stored(
                Method::POST,
                "organization/task_record/comments",
                b,
                move |v| json!({"entity_id": video, "text": v}),
                ("text", MAX_COMMENT_CHARS, 'é'),
                ("video_comments", "text"),
            ),
            stored(
                Method::POST,
                "organization/task/task_object/",
                b,
                move |v| json!({"task": task, "name": v}),
                ("name", MAX_NAME_CHARS, 'a'),
                ("task_objects", "name"),
            ),
            stored(
                Method::POST,
                "organization/model_types",
                a,
                |v| json!({"name": format!("T{}", v.len()), "description": v, "input_width": 64, "input_height": 64, "hidden": 16}),
                ("description", MAX_DESCRIPTION_CHARS, 'a'),
                ("model_types", "description"),
            ),
        ];
        for row in &table {
            let what = format!("{} {} {}", row.method, row.url, row.field);
            let at: String = std::iter::repeat_n(row.fill, row.max).collect();
            let (s, v) = app
                .call(
                    row.method.clone(),
                    &row.url,
                    Some((row.body)(&at)),
                    row.token.as_deref(),
                )
                .await;
            assert!(s.is_success(), "{what}: the limit: {s} {v}");
            let stored_value = if row.field == "email" {
                email_of(&at)
            } else {
                at.clone()
            };
            assert_eq!(
                rows(&app, row.table, row.column, &stored_value).await,
                1,
                "{what}"
            );

            let over: String = std::iter::repeat_n(row.fill, row.max + 1).collect();
            let before = count(&app, row.table).await;
            let (s, v) = app
                .call(
                    row.method.clone(),
                    &row.url,
                    Some((row.body)(&over)),
                    row.token.as_deref(),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{what}: {v}");
            let msg = v[row.field][0].as_str().unwrap_or_default();
            assert!(msg.contains(&format!("at most {}", row.max)), "{what}: {v}");
            assert_eq!(
                count(&app, row.table).await,
                before,
                "{what}: nothing written"
            );
            let over_value = if row.field == "email" {
                email_of(&over)
            } else {
                over
            };
            assert_eq!(
                rows(&app, row.table, row.column, &over_value).await,
                0,
                "{what}"
            );
        }
    }
);
