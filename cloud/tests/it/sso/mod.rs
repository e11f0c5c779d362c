//! Single sign-on (issue 28) against a real OpenID provider (`provider.rs`): ID tokens
//! it issued through its own sign-in page, checked by the cloud against its discovery
//! document and keys. Sign-up makes an account awaiting approval; sign-in of a linked
//! (or verified-address) account is a `login_v2` sign-in; forged, foreign, expired and
//! unverified tokens are refused and write nothing.

mod provider;

use gemba_cloud::config::{Secret, Settings};
use gemba_cloud::oidc::ProviderSettings;
use gemba_shared::api::v1::account::messages;
use provider::{Provider, REDIRECT};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::{Backend, PASSWORD, TestApp};

/// Runs `body(backend)` on SQLite and on PostgreSQL.
macro_rules! sso_both {
    ($name:ident, $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                ($body)(Backend::Sqlite).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                ($body)(Backend::Postgres).await
            }
        }
    };
}

fn settings(issuer: &str, client: &str) -> ProviderSettings {
    ProviderSettings {
        issuer: issuer.into(),
        client_id: client.into(),
        client_secret: None,
    }
}

/// A provider and a cloud whose Microsoft and Google sign-in are that provider's
/// client `gemba`.
async fn start(backend: Backend) -> (Provider, TestApp) {
    let p = Provider::start(None).await;
    let issuer = p.issuer.clone();
    let app = TestApp::start_with(backend, move |s: &mut Settings| {
        s.sso.azure = Some(settings(&issuer, "gemba"));
        s.sso.google = Some(settings(&issuer, "gemba"));
    })
    .await;
    (p, app)
}

async fn sso(app: &TestApp, path: &str, id_token: &str, nonce: &str) -> (StatusCode, Value) {
    app.post(path, json!({"id_token": id_token, "nonce": nonce}), None)
        .await
}

fn first_error(v: &Value) -> &str {
    v["non_field_errors"][0].as_str().unwrap_or_default()
}

async fn identities(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM sso_identities")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

/// Completes a sign-in that asks for its one-time code (e-mail), as the portal does.
async fn with_code(app: &TestApp, email: &str, v: &Value) -> Value {
    assert_eq!(v["require_otp"], json!(true), "{v}");
    app.complete_login(email, v.clone()).await
}

sso_both!(
    without_settings_the_calls_answer_501,
    |backend| async move {
        let app = TestApp::start(backend).await;
        for path in [
            "account/azure-signin/",
            "account/azure-signup/",
            "account/google-sso/",
        ] {
            let (s, v) = app
                .post(path, json!({"id_token": "x", "nonce": "n"}), None)
                .await;
            assert_eq!(s, StatusCode::NOT_IMPLEMENTED, "{path}: {v}");
            assert_eq!(v["detail"], messages::SSO_NOT_CONFIGURED);
        }
        let (s, _) = app
            .post(
                "account/refresh-azure-token/",
                json!({"access_token": "x"}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        // The portal offers no buttons.
        let cfg: Value = app
            .client
            .get(format!(
                "{}/portal-config.json",
                app.base.trim_end_matches("/api")
            ))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(cfg["sso"], json!({"azure": null, "google": null}), "{cfg}");
    }
);

sso_both!(
    sign_up_waits_for_approval_then_signs_in_like_a_password,
    |backend| async move {
        let (p, app) = start(backend).await;
        let email = "ada@sso.test";
        let t = p.tokens("gemba", email, "n-1").await;
        let (s, v) = sso(&app, "account/azure-signup/", &t.id_token, "n-1").await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(v["msg"], messages::ADMIN_NOTIFIED);
        let row = app.user_row(email).await;
        assert!(row.is_email_verified && !row.is_approved && row.role.is_none());
        assert_eq!(row.name, "Ada");
        assert!(
            app.last_mail(crate::common::ADMIN_EMAIL)
                .await
                .unwrap()
                .1
                .contains(email),
            "the super admin is told"
        );
        // The same identity again: the account exists.
        let t = p.tokens("gemba", email, "n-2").await;
        let (s, v) = sso(&app, "account/azure-signup/", &t.id_token, "n-2").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        // Signing in before approval: the spec's pending answer.
        let (s, v) = sso(&app, "account/azure-signin/", &t.id_token, "n-2").await;
        assert_eq!(s, StatusCode::ACCEPTED, "{v}");
        assert_eq!(v["message"], messages::USER_CREATED);
        // Approved with a role and an organisation: a sign-in as with a password.
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Sso Works").await;
        app.approve(&admin, email, "org_user", Some(org)).await;
        let t = p.tokens("gemba", email, "n-3").await;
        let (s, v) = sso(&app, "account/azure-signin/", &t.id_token, "n-3").await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let full = with_code(&app, email, &v).await;
        assert_eq!(full["email"], email);
        assert_eq!(full["Organization"]["id"], org);
        assert!(full["refresh"].is_string());
        let (s, orgs) = app
            .get("organization/", full["token"].as_str().unwrap())
            .await;
        assert_eq!(s, StatusCode::OK, "{orgs}");
        // No password works for an account made by a provider.
        let (s, _) = app
            .post(
                "account/login_v2",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    }
);

sso_both!(
    sign_in_links_the_account_with_the_verified_address,
    |backend| async move {
        let (p, app) = start(backend).await;
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Linked").await;
        let email = "grace@sso.test";
        let uid = app.quick_user(email, "Grace", "org_user", &[org]).await;
        let t = p.tokens("gemba", email, "n-1").await;
        let (s, v) = sso(&app, "account/azure-signin/", &t.id_token, "n-1").await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["id"], uid);
        with_code(&app, email, &v).await;
        let linked: i64 = sqlx::query_scalar(
            "SELECT user_id FROM sso_identities WHERE provider = 'azure' AND subject = $1",
        )
        .bind(email)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
        assert_eq!(linked, uid);
        // Google's identity links the same account too.
        let t = p.tokens("gemba", email, "n-2").await;
        let (s, v) = sso(&app, "account/google-sso/", &t.id_token, "n-2").await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["id"], uid);
        assert_eq!(identities(&app).await, 2);
        // An address nobody has: sign in with Microsoft says to sign up.
        let t = p.tokens("gemba", "nobody@sso.test", "n-3").await;
        let (s, v) = sso(&app, "account/azure-signin/", &t.id_token, "n-3").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(first_error(&v).contains("Sign up"), "{v}");
        assert_eq!(identities(&app).await, 2);
    }
);

sso_both!(
    google_sso_makes_a_pending_account_for_a_new_address,
    |backend| async move {
        let (p, app) = start(backend).await;
        let email = "lin@sso.test";
        let t = p.tokens("gemba", email, "n-1").await;
        let (s, v) = sso(&app, "account/google-sso/", &t.id_token, "n-1").await;
        assert_eq!(s, StatusCode::ACCEPTED, "{v}");
        assert_eq!(v["message"], messages::USER_CREATED);
        let row = app.user_row(email).await;
        assert!(!row.is_approved);
        let t = p.tokens("gemba", email, "n-2").await;
        let (s, v) = sso(&app, "account/google-sso/", &t.id_token, "n-2").await;
        assert_eq!(s, StatusCode::ACCEPTED, "still pending: {v}");
        assert_eq!(identities(&app).await, 1);
    }
);

sso_both!(
    an_address_the_provider_has_not_verified_is_refused,
    |backend| async move {
        let (p, app) = start(backend).await;
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Unverified").await;
        app.quick_user("mallory@sso.test", "Mallory", "org_user", &[org])
            .await;
        for (path, email) in [
            ("account/azure-signin/", "mallory@sso.test"),
            ("account/azure-signup/", "eve@sso.test"),
            ("account/google-sso/", "eve@sso.test"),
        ] {
            let t = p
                .tokens("gemba", &format!("unverified:{email}"), "n-1")
                .await;
            let (s, v) = sso(&app, path, &t.id_token, "n-1").await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{path}: {v}");
            assert!(first_error(&v).contains("not verified"), "{v}");
        }
        assert_eq!(identities(&app).await, 0);
        assert!(
            gemba_cloud::db::users::by_email(&app.state.db, "eve@sso.test")
                .await
                .unwrap()
                .is_none()
        );
    }
);

sso_both!(
    a_token_for_another_application_or_sign_in_is_refused,
    |backend| async move {
        let (p, app) = start(backend).await;
        let t = p.tokens("other", "ann@sso.test", "n-1").await;
        let (s, v) = sso(&app, "account/azure-signup/", &t.id_token, "n-1").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            first_error(&v),
            "The identity token is for another application."
        );
        // Our token, but another sign-in's nonce.
        let t = p.tokens("gemba", "ann@sso.test", "n-1").await;
        let (s, v) = sso(&app, "account/azure-signup/", &t.id_token, "n-other").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            first_error(&v).contains("does not belong to this sign-in"),
            "{v}"
        );
        // Tampered: the signature no longer holds.
        let mut parts: Vec<String> = t.id_token.split('.').map(str::to_string).collect();
        parts[2] = parts[2].chars().rev().collect();
        let (s, v) = sso(&app, "account/azure-signup/", &parts.join("."), "n-1").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let (s, v) = sso(&app, "account/azure-signup/", "", "n-1").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["id_token"].is_array(), "{v}");
        let (s, v) = sso(&app, "account/azure-signup/", &"x".repeat(20_000), "n-1").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["id_token"][0].as_str().unwrap().contains("at most 16384"),
            "{v}"
        );
        assert_eq!(identities(&app).await, 0);
        assert!(
            gemba_cloud::db::users::by_email(&app.state.db, "ann@sso.test")
                .await
                .unwrap()
                .is_none()
        );
    }
);

sso_both!(an_expired_token_is_refused, |backend| async move {
    let p = Provider::start(None).await;
    let issuer = p.issuer.clone();
    // The client whose ID tokens live 1 s.
    let app = TestApp::start_with(backend, move |s: &mut Settings| {
        s.sso.azure = Some(settings(&issuer, "short"));
    })
    .await;
    let t = p.tokens("short", "old@sso.test", "n-1").await;
    // Past its 1 s and the 5 s allowed for clock drift.
    tokio::time::sleep(std::time::Duration::from_secs(8)).await;
    let (s, v) = sso(&app, "account/azure-signup/", &t.id_token, "n-1").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(
        first_error(&v),
        "The identity token has expired. Please sign in again."
    );
    assert_eq!(identities(&app).await, 0);
});

sso_both!(
    a_token_from_another_issuer_is_refused_even_with_the_same_key,
    |backend| async move {
        let dir = tempfile::tempdir().unwrap();
        let keys = dir.path().join("jwks.json");
        let ours = Provider::start(Some(&keys)).await;
        let theirs = Provider::start(Some(&keys)).await;
        assert_ne!(ours.issuer, theirs.issuer);
        let issuer = ours.issuer.clone();
        let app = TestApp::start_with(backend, move |s: &mut Settings| {
            s.sso.azure = Some(settings(&issuer, "gemba"));
        })
        .await;
        let t = theirs.tokens("gemba", "ivan@sso.test", "n-1").await;
        let (s, v) = sso(&app, "account/azure-signup/", &t.id_token, "n-1").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            first_error(&v),
            "The identity token comes from another identity provider."
        );
        // The same person through our provider is fine.
        let t = ours.tokens("gemba", "ivan@sso.test", "n-1").await;
        let (s, v) = sso(&app, "account/azure-signup/", &t.id_token, "n-1").await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
    }
);

sso_both!(
    a_confidential_client_redeems_the_code_on_the_server,
    |backend| async move {
        let p = Provider::start(None).await;
        let issuer = p.issuer.clone();
        let app = TestApp::start_with(backend, move |s: &mut Settings| {
            s.sso.azure = Some(ProviderSettings {
                client_secret: Some(Secret("test-secret".into())),
                ..settings(&issuer, "secret")
            });
        })
        .await;
        let c = p.code("secret", "cora@sso.test", "n-1").await;
        let body = json!({"code": c.code, "code_verifier": c.verifier,
            "redirect_uri": REDIRECT, "nonce": "n-1"});
        let (s, v) = app.post("account/azure-signup/", body.clone(), None).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        // A code is good once.
        let (s, v) = app.post("account/azure-signup/", body, None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(first_error(&v).contains("refused"), "{v}");
    }
);

sso_both!(the_silent_refresh_asks_the_provider, |backend| async move {
    let (p, app) = start(backend).await;
    let admin = app.admin_token().await;
    let org = app.create_org(&admin, "Refresh").await;
    let email = "rita@sso.test";
    let uid = app.quick_user(email, "Rita", "org_user", &[org]).await;
    gemba_cloud::db::users::set_flag(&app.state.db, uid, "require_otp", false)
        .await
        .unwrap();
    let t = p.tokens("gemba", email, "n-1").await;
    let (s, v) = sso(&app, "account/azure-signin/", &t.id_token, "n-1").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["require_otp"], json!(false));
    let t = p.tokens("gemba", email, "n-2").await;
    let (s, v) = app
        .post(
            "account/refresh-azure-token/",
            json!({"access_token": t.access_token}),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["id"], uid);
    let (s, _) = app
        .call(Method::GET, "organization/", None, v["token"].as_str())
        .await;
    assert_eq!(s, StatusCode::OK);
    // A token the provider never issued.
    let (s, v) = app
        .post(
            "account/refresh-azure-token/",
            json!({"access_token": "forged"}),
            None,
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{v}");
});
