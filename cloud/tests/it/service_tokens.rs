//! Service tokens, the spec's cloud-function token (`generic/userpool/`, issue 31): the
//! super admin creates one for an organisation and a role, an integration calls the real
//! API with its secret (no sign-in, no session key), sees only its organisation, reaches
//! no admin call; revoked or expired, it is refused with 401.

use gemba_shared::api::v1::service_token::{SECRET_PREFIX, ServiceToken, ServiceTokenCreated};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

struct World {
    admin: String,
    a: i64,
    b: i64,
    a_task: i64,
    b_task: i64,
}

async fn world(app: &TestApp) -> World {
    let admin = app.admin_token().await;
    let a = app.create_org(&admin, "Plant A").await;
    let b = app.create_org(&admin, "Plant B").await;
    let mut tasks = vec![];
    for (org, who) in [(a, "eng@a.test"), (b, "eng@b.test")] {
        app.subscribe(&admin, org, "Define Operation").await;
        let eng = app.signed_in(who, "org_user", org).await;
        let (s, v) = app
            .post(
                "organization/task/",
                json!({"task_detail": format!("Pump {org}\nFit:\nPlace;\n")}),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        tasks.push(v["id"].as_i64().unwrap());
    }
    World {
        admin,
        a,
        b,
        a_task: tasks[0],
        b_task: tasks[1],
    }
}

async fn create(app: &TestApp, admin: &str, body: Value) -> ServiceTokenCreated {
    let (s, v) = app.post("generic/userpool/", body, Some(admin)).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    serde_json::from_value(v).unwrap()
}

fn task_ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap_or_else(|| panic!("a list: {v}"))
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect()
}

both!(
    a_token_calls_the_api_as_its_organisation_and_role_until_revoked,
    |app: TestApp| async move {
        let w = world(&app).await;
        let made = create(
            &app,
            &w.admin,
            json!({"name": " MES connector ", "organization": w.a, "role": "org_user",
                "expires_in_days": 30}),
        )
        .await;
        let secret = made.secret.clone();
        assert!(secret.starts_with(SECRET_PREFIX), "{secret}");
        assert!(secret.len() > 40, "{secret}");
        let t = &made.token;
        assert_eq!(
            (t.name.as_str(), t.organization, t.role.as_str()),
            ("MES connector", w.a, "org_user")
        );
        assert_eq!(t.organization_name, "Plant A");
        assert_eq!(t.created_by.as_deref(), Some(ADMIN_EMAIL));
        assert_eq!(t.last_used_at, None);
        assert_eq!(t.revoked_at, None);
        let day = 24 * 3600 * 1000;
        assert!(
            (t.expires_at - t.created_at - 30 * day).abs() < 60_000,
            "{t:?}"
        );

        // Only the hash is kept; the list never carries the secret.
        let (s, list) = app.get("generic/userpool/", &w.admin).await;
        assert_eq!(s, StatusCode::OK);
        assert!(!list.to_string().contains(&secret), "{list}");
        assert!(list[0].get("secret").is_none(), "{list}");
        let stored: Vec<(String,)> = sqlx::query_as("SELECT token_hash FROM service_tokens")
            .fetch_all(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(stored, [(gemba_cloud::auth::token_hash(&secret),)]);

        // A real call with the secret alone: A's tasks, not B's.
        let (s, v) = app.get("organization/task/", &secret).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(task_ids(&v), [w.a_task]);
        // It writes as its own account, in A.
        let (s, v) = app
            .post(
                "organization/task/",
                json!({"task_detail": "Made by MES\nFit:\nPlace;\n"}),
                Some(&secret),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let made_task = v["id"].as_i64().unwrap();
        let (_, v) = app.get("organization/task/", &secret).await;
        assert_eq!(task_ids(&v).len(), 2, "{v}");
        let org_of: i64 = sqlx::query_scalar("SELECT organization_id FROM tasks WHERE id = $1")
            .bind(made_task)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(org_of, w.a);

        // Another organisation's data: refused as for a user of A.
        let (s, _) = app
            .get(&format!("organization/task/{}/", w.b_task), &secret)
            .await;
        assert!(
            matches!(s, StatusCode::NOT_FOUND | StatusCode::FORBIDDEN),
            "{s}"
        );
        let b = w.b.to_string();
        let (s, v) = app
            .call_with(
                Method::GET,
                "organization/task/",
                None,
                Some(&secret),
                &[("Organization", &b)],
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        // Naming its own organisation is fine; a session key is not needed, nor checked.
        let a = w.a.to_string();
        let (s, _) = app
            .call_with(
                Method::GET,
                "organization/task/",
                None,
                Some(&secret),
                &[("Organization", &a), ("SessionKey", "whatever")],
            )
            .await;
        assert_eq!(s, StatusCode::OK);

        // No admin call, no tokens.
        for (m, path, body) in [
            (Method::GET, "generic/userpool/", None),
            (
                Method::POST,
                "generic/userpool/",
                Some(
                    json!({"name": "Escalate", "organization": w.a, "role": "org_admin",
                    "expires_in_days": 1}),
                ),
            ),
            (Method::GET, "admin/outbox/", None),
        ] {
            let (s, v) = app.call(m, path, body, Some(&secret)).await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{path}: {v}");
        }
        // Nor the role of its account: its own role is what counts.
        sqlx::query(
            "UPDATE users SET role_id = (SELECT id FROM roles WHERE name = 'admin') WHERE id = $1",
        )
        .bind(t.user_id)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
        let (s, _) = app.get("generic/userpool/", &secret).await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // Its use is recorded (to the minute).
        let list: Vec<ServiceToken> = app.get_as("generic/userpool/", &w.admin).await;
        assert!(list[0].last_used_at.is_some(), "{list:?}");

        // Revoked: 401 from then on, still listed.
        let (s, v) = app
            .delete(&format!("generic/userpool/{}/", t.id), &w.admin)
            .await;
        assert_eq!(
            (s, &v["msg"]),
            (StatusCode::OK, &json!("Token revoked.")),
            "{v}"
        );
        let (s, v) = app.get("organization/task/", &secret).await;
        assert_eq!(
            (s, &v["detail"]),
            (
                StatusCode::UNAUTHORIZED,
                &json!("This service token has been revoked.")
            )
        );
        let list: Vec<ServiceToken> = app.get_as("generic/userpool/", &w.admin).await;
        assert!(list[0].revoked_at.is_some(), "{list:?}");
        let (s, _) = app
            .delete(&format!("generic/userpool/{}/", t.id), &w.admin)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    }
);

both!(
    an_expired_or_unknown_token_is_refused,
    |app: TestApp| async move {
        let w = world(&app).await;
        let made = create(
            &app,
            &w.admin,
            json!({"name": "Nightly export", "organization": w.a, "role": "analytics_user",
                "expires_in_days": 1}),
        )
        .await;
        let (s, _) = app.get("organization/task/", &made.secret).await;
        assert_eq!(s, StatusCode::OK);
        sqlx::query("UPDATE service_tokens SET expires_at = $1 WHERE id = $2")
            .bind(gemba_cloud::db::now_ms() - 1)
            .bind(made.token.id)
            .execute(&app.state.db.pool)
            .await
            .unwrap();
        let (s, v) = app.get("organization/task/", &made.secret).await;
        assert_eq!(
            (s, &v["detail"]),
            (
                StatusCode::UNAUTHORIZED,
                &json!("This service token has expired.")
            )
        );
        let (s, v) = app
            .get("organization/task/", &format!("{SECRET_PREFIX}not-a-token"))
            .await;
        assert_eq!(
            (s, &v["detail"]),
            (StatusCode::UNAUTHORIZED, &json!("Invalid service token."))
        );
        // A token of a deleted organisation goes with it.
        let (s, _) = app
            .delete(&format!("organization/{}/", w.a), &w.admin)
            .await;
        assert!(s.is_success(), "{s}");
        let (s, _) = app.get("organization/task/", &made.secret).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
    }
);

both!(
    only_the_super_admin_creates_tokens_and_bad_ones_write_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let boss = app.signed_in("boss@a.test", "org_admin", w.a).await;
        let good = json!({"name": "Line 2", "organization": w.a, "role": "org_user",
            "expires_in_days": 30});
        let (s, _) = app
            .post("generic/userpool/", good.clone(), Some(&boss))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app.get("generic/userpool/", &boss).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let users_before: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        let with = |k: &str, v: Value| {
            let mut b = good.clone();
            b[k] = v;
            b
        };
        for (body, field, message) in [
            (
                with("role", json!("admin")),
                "role",
                "A service token cannot act as the super admin.",
            ),
            (with("role", json!("owner")), "role", "Invalid role."),
            (
                with("expires_in_days", json!(0)),
                "expires_in_days",
                "Enter a number of days from 1 to 365.",
            ),
            (
                with("expires_in_days", json!(366)),
                "expires_in_days",
                "Enter a number of days from 1 to 365.",
            ),
            (
                with("organization", json!(999_999)),
                "organization",
                "Organization not found.",
            ),
            (
                with("name", json!("   ")),
                "name",
                "This field is required.",
            ),
        ] {
            let (s, v) = app
                .post("generic/userpool/", body.clone(), Some(&w.admin))
                .await;
            assert_eq!(
                (s, &v),
                (StatusCode::BAD_REQUEST, &json!({ field: [message] })),
                "{body}"
            );
        }
        let tokens: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM service_tokens")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        let users_after: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!((tokens, users_after), (0, users_before));
        let (s, _) = app.delete("generic/userpool/999999/", &w.admin).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);
