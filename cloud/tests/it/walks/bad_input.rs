//! Walk 3, bad input: every body-taking call gets malformed JSON, non-objects, wrong
//! types, missing fields, a 2 MiB body and unknown ids; a 4xx in the API's error shape,
//! never a 500, and nothing is written. And two bad bodies found by hand.

use std::collections::{BTreeMap, BTreeSet};

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::openapi::{Op, is_type, openapi, ops};
use super::requests::{UNKNOWN_ID, is_error_shape, raw};
use super::world::pending;
use crate::both;
use crate::common::*;

/// A value of the right type for a property, naming nothing that exists (ids are
/// unknown) except an e-mail address, which names a real account so the unknown id
/// is what the call trips on.
fn sample(name: &str, schema: &Value, email: &str) -> Value {
    if is_type(schema, "integer") {
        json!(UNKNOWN_ID)
    } else if is_type(schema, "boolean") {
        json!(false)
    } else if is_type(schema, "object") {
        json!({})
    } else if is_type(schema, "array") {
        json!([])
    } else if name.contains("email") {
        json!(email)
    } else {
        json!("x")
    }
}

/// A value of another type than the schema's.
fn wrong_type(schema: &Value) -> Value {
    if is_type(schema, "string") || is_type(schema, "object") || is_type(schema, "array") {
        json!(12345)
    } else {
        json!("not-a-number-or-flag")
    }
}

/// The URL of `op` with unknown ids in the path and `query`.
fn url_of(op: &Op, query: &[(String, String)]) -> String {
    let mut path = op.path.clone();
    for (name, p) in op.params("path") {
        let v = if is_type(&p["schema"], "integer") {
            UNKNOWN_ID.to_string()
        } else {
            "unknown-token".into()
        };
        path = path.replace(&format!("{{{name}}}"), &v);
    }
    let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
    if q.is_empty() {
        path
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

/// Query values of the right types: unknown ids, page 1, real e-mail addresses.
fn query_of(op: &Op, email: &str) -> Vec<(String, String)> {
    op.params("query")
        .into_iter()
        .map(|(name, p)| {
            let s = &p["schema"];
            let v = if matches!(name, "page" | "limit") {
                "1".to_string()
            } else if is_type(s, "integer") {
                UNKNOWN_ID.to_string()
            } else if is_type(s, "boolean") {
                "false".into()
            } else if name.contains("email") || name == "user" || name == "recipient" {
                email.into()
            } else {
                "x".into()
            };
            (name.to_string(), v)
        })
        .collect()
}

/// Row counts of every table, and the users and organisations in full.
async fn everything(app: &TestApp) -> BTreeMap<String, String> {
    use gemba_cloud::db::Backend;
    let pool = &app.state.db.pool;
    let tables: Vec<String> = match app.state.db.backend {
        Backend::Sqlite => sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        ),
        Backend::Postgres => sqlx::query_scalar(
            "SELECT table_name::TEXT FROM information_schema.tables WHERE table_schema = 'public'",
        ),
    }
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(tables.iter().any(|t| t == "outbox"), "{tables:?}");
    let mut st = BTreeMap::new();
    // The audit log records refused changes too (docs/decisions.md "The audit log").
    for t in tables.into_iter().filter(|t| t != "audit_log") {
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {t}")))
            .fetch_one(pool)
            .await
            .unwrap();
        st.insert(format!("rows of {t}"), n.to_string());
    }
    let ids: Vec<i64> = sqlx::query_scalar("SELECT id FROM users ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    for id in ids {
        let u = gemba_cloud::db::users::by_id(&app.state.db, id)
            .await
            .unwrap();
        st.insert(format!("user {id}"), format!("{u:?}"));
    }
    let (orgs, _) = gemba_cloud::db::orgs::page(&app.state.db, "", 0, 1000)
        .await
        .unwrap();
    st.insert("organizations".into(), format!("{orgs:?}"));
    let links: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT user_id, organization_id FROM user_organizations ORDER BY user_id, organization_id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    st.insert("links".into(), format!("{links:?}"));
    st
}

both!(
    bad_input_to_every_call_gets_a_clear_4xx_and_changes_nothing,
    |app: TestApp| async move {
        let doc = openapi(&app).await;
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Input").await;
        let email = "pending@input.test";
        pending(&app, email).await;
        // The super admin reaches every call's body; A is the request's organisation.
        let headers = [("Organization", org.to_string())];
        let before = everything(&app).await;

        let mut wrong = vec![];
        let mut tried = BTreeSet::new();
        for op in ops(&doc) {
            let m = op.method.as_str();
            let query = query_of(&op, email);
            let url = url_of(&op, &query);
            let mut check = |what: String, s: StatusCode, v: &Value, ok: bool| {
                if !(ok && s.is_client_error() && is_error_shape(v)) {
                    wrong.push(format!("{} {what}: {s} {v}", op.key));
                }
            };
            let send = |body: Vec<u8>, ct: Option<&'static str>| {
                raw(&app, m, &url, &admin, &headers, Some((body, ct)))
            };
            let json_ct = Some("application/json");

            if let Some(schema) = op.body_schema()
                && matches!(m, "POST" | "PATCH" | "PUT")
            {
                tried.insert(op.key.clone());
                let props = op.body_props();
                let base: serde_json::Map<String, Value> = props
                    .iter()
                    .map(|(k, s)| (k.to_string(), sample(k, s, email)))
                    .collect();
                assert!(is_type(schema, "object"), "{}: {schema}", op.key);
                // Not JSON, not an object, not sent as JSON.
                for bad in [
                    "{\"email\": ",
                    "{'email': 'x'}",
                    "[]",
                    "[{}]",
                    "null",
                    "\"text\"",
                    "42",
                    "",
                ] {
                    let (s, v) = send(bad.into(), json_ct).await;
                    check(format!("body {bad:?}"), s, &v, s == StatusCode::BAD_REQUEST);
                }
                let (s, v) = send(serde_json::to_vec(&base).unwrap(), None).await;
                check(
                    "without a JSON content type".into(),
                    s,
                    &v,
                    s == StatusCode::BAD_REQUEST,
                );
                let (s, v) = send(serde_json::to_vec(&base).unwrap(), Some("text/plain")).await;
                check("as text/plain".into(), s, &v, s == StatusCode::BAD_REQUEST);
                // Each field with a wrong type, and each required field left out: a 400
                // on that field.
                for (k, s) in &props {
                    let mut b = base.clone();
                    b.insert(k.to_string(), wrong_type(s));
                    let (st, v) = send(serde_json::to_vec(&b).unwrap(), json_ct).await;
                    check(
                        format!("{k} of the wrong type"),
                        st,
                        &v,
                        st == StatusCode::BAD_REQUEST && v.get(*k).is_some(),
                    );
                }
                for k in op.required() {
                    let mut b = base.clone();
                    b.remove(k);
                    let (st, v) = send(serde_json::to_vec(&b).unwrap(), json_ct).await;
                    check(
                        format!("{k} missing"),
                        st,
                        &v,
                        st == StatusCode::BAD_REQUEST && v.get(k).is_some(),
                    );
                }
                // 2 MiB.
                let mut b = base.clone();
                b.insert("padding".into(), json!("a".repeat(2 * 1024 * 1024)));
                let (s, v) = send(serde_json::to_vec(&b).unwrap(), json_ct).await;
                check("of 2 MiB".into(), s, &v, s == StatusCode::PAYLOAD_TOO_LARGE);
                // Right types, unknown ids.
                if op.takes_id() {
                    let (s, v) = send(serde_json::to_vec(&base).unwrap(), json_ct).await;
                    check("with unknown ids".into(), s, &v, true);
                }
            } else if op.takes_id() || !op.params("path").is_empty() {
                tried.insert(op.key.clone());
                let (s, v) = raw(&app, m, &url, &admin, &headers, None).await;
                check(format!("{url} (unknown ids)"), s, &v, true);
            }
            // Query values of the wrong type, and required ones left out.
            for (name, p) in op.params("query") {
                if is_type(&p["schema"], "integer") || is_type(&p["schema"], "boolean") {
                    tried.insert(op.key.clone());
                    let q: Vec<(String, String)> = query
                        .iter()
                        .map(|(k, v)| {
                            let v = if k == name { "abc".into() } else { v.clone() };
                            (k.clone(), v)
                        })
                        .collect();
                    let u = url_of(&op, &q);
                    let (s, v) = raw(&app, m, &u, &admin, &headers, None).await;
                    check(u.clone(), s, &v, s == StatusCode::BAD_REQUEST);
                }
            }
            if op
                .params("query")
                .iter()
                .any(|(_, p)| p["required"] == true)
            {
                tried.insert(op.key.clone());
                let u = url_of(&op, &[]);
                let (s, v) = raw(&app, m, &u, &admin, &headers, None).await;
                check(
                    format!("{u} without its query"),
                    s,
                    &v,
                    s == StatusCode::BAD_REQUEST,
                );
            }
        }
        assert!(
            wrong.is_empty(),
            "{} bad answers:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
        // Every call that takes a body was walked.
        let bodies: Vec<String> = ops(&doc)
            .iter()
            .filter(|o| o.body_schema().is_some() && !tried.contains(&o.key))
            .map(|o| o.key.clone())
            .collect();
        assert!(bodies.is_empty(), "{bodies:?}");
        assert!(tried.len() >= 30, "{tried:?}");

        let after = everything(&app).await;
        for (k, v) in &before {
            assert_eq!(Some(v), after.get(k), "{k} changed");
        }
        assert_eq!(before.len(), after.len());
    }
);

both!(
    a_refused_switch_leaves_the_current_organization_as_it_was,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let x = app.create_org(&admin, "Xray").await;
        let y = app.create_org(&admin, "Yankee").await;
        let login = app
            .user_in(&admin, "mover@x.test", "org_admin", Some(x))
            .await;
        let (t, id) = (token(&login), login["id"].as_i64().unwrap());
        let (s, v) = app
            .post(
                "account/linked_organizations",
                json!({"user_id": id, "organization": y}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let current = || async {
            let u = gemba_cloud::db::users::by_id(&app.state.db, id)
                .await
                .unwrap();
            u.unwrap().organization_id
        };
        for local_storage in [
            json!({"big": "a".repeat(70 * 1024)}),
            json!([1, 2]),
            json!("text"),
        ] {
            let (s, v) = app
                .patch(
                    "account/switch_user_organization",
                    json!({"organization": y, "local_storage": local_storage}),
                    Some(&t),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v["local_storage"][0].is_string(), "{v}");
            assert_eq!(current().await, Some(x));
        }
        let (s, v) = app
            .patch(
                "account/switch_user_organization",
                json!({"organization": y, "local_storage": {"tab": "users"}}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(current().await, Some(y));
        let (_, v) = app.get("account/fetch_local_storage_data", &t).await;
        assert_eq!(v, json!({"tab": "users"}));
    }
);

both!(
    an_array_body_is_refused_not_read_as_fields,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (s, v) = app
            .post(
                "feature_control/feature/",
                serde_json::json!(["Foo"]),
                Some(&admin),
            )
            .await;
        assert_eq!(s, reqwest::StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "The request body must be a JSON object."
        );
        let (_, list) = app.get("feature_control/feature/", &admin).await;
        assert!(!list.to_string().contains("\"Foo\""), "{list}");
    }
);
