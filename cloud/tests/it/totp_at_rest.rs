//! Authenticator-app secrets sealed at rest (issue 28): the database never holds one in
//! plain, sign-in with the app's code still works, a plaintext secret an older version
//! stored is sealed at the next start, and a wrong key is a clear error at start and at
//! sign-in, never a panic.

use gemba_cloud::totp_seal::TotpKey;
use gemba_shared::api::v1::account::{LoginUser, OtpRequest};
use reqwest::{Method, StatusCode};

use crate::both;
use crate::common::*;

const SET_APP: &str = "account/set_mfa_method_authenticator_app/";
const VERIFY: &str = "account/verify_otp_code/";

fn otp(code: &str) -> OtpRequest {
    OtpRequest { otp: code.into() }
}

/// The user's two secret columns, as stored (raw SQL, not through the server's code).
async fn stored(app: &TestApp, email: &str) -> (Option<String>, Option<String>) {
    sqlx::query_as("SELECT totp_secret, totp_pending_secret FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

/// A user of a new organisation whose first sign-in waits for its second factor:
/// answers the temporary token.
async fn pending(app: &TestApp, email: &str) -> String {
    let admin = app.admin_token().await;
    let org = app.create_org(&admin, "Acme").await;
    app.quick_user(email, "Tia", "org_user", &[org]).await;
    token(&app.pending_login(email, PASSWORD).await)
}

/// Signs in as `email` with the app's code for `secret` (`ahead` steps from now, so a
/// step already spent is not reused).
async fn sign_in_with_app(app: &TestApp, email: &str, secret: &str, ahead: u64) -> LoginUser {
    let temp = token(&app.pending_login(email, PASSWORD).await);
    let code = totp_code(secret, unix_now() + 30 * ahead);
    app.send_as(Method::POST, VERIFY, &otp(&code), &temp).await
}

/// Stores `value` as user `id`'s authenticator secret, as is.
async fn set_secret(app: &TestApp, id: i64, value: String) {
    sqlx::query(
        "UPDATE users SET totp_secret = $1, mfa_method = 'authenticator_app' WHERE id = $2",
    )
    .bind(value)
    .bind(id)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
}

/// The service started again on the same data and database (its start-up path:
/// migrations, keys, sealing), with `tweak` applied to the settings.
async fn start_again(
    app: &TestApp,
    tweak: impl FnOnce(&mut gemba_cloud::config::Settings),
) -> anyhow::Result<()> {
    let mut settings = app.state.settings.clone();
    tweak(&mut settings);
    gemba_cloud::build_state(settings).await.map(drop)
}

both!(
    secrets_are_sealed_in_the_database_and_codes_still_pass,
    |app: TestApp| async move {
        let email = "sealed@acme.test";
        let temp = pending(&app, email).await;
        let r = app
            .raw(Method::PATCH, "account/get_qr_code/", Some(&temp), &[])
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        let secret = app.pending_totp_secret(email).await;
        let (_, raw_pending) = stored(&app, email).await;
        let raw_pending = raw_pending.unwrap();
        assert!(raw_pending.starts_with("v1:"), "{raw_pending}");
        assert!(!raw_pending.contains(&secret), "{raw_pending}");

        let full: LoginUser = app
            .send_as(
                Method::PATCH,
                SET_APP,
                &otp(&totp_code(&secret, unix_now())),
                &temp,
            )
            .await;
        assert_eq!(full.receive_otp_on.as_deref(), Some("authenticator_app"));
        let (raw, raw_pending) = stored(&app, email).await;
        let raw = raw.unwrap();
        assert!(raw.starts_with("v1:") && !raw.contains(&secret), "{raw}");
        assert!(raw_pending.is_none());
        // The key file next to jwt.key, private to the service.
        let key_file = app.data_dir().join("totp.key");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(
            !std::fs::read_to_string(&key_file)
                .unwrap()
                .contains(&secret)
        );

        // A later sign-in with the app's next code.
        let v = sign_in_with_app(&app, email, &secret, 1).await;
        assert!(!v.require_otp && v.refresh.is_some());
        // Starting again changes nothing: the sealed secret stays as it is.
        start_again(&app, |_| {}).await.unwrap();
        assert_eq!(stored(&app, email).await.0.as_deref(), Some(raw.as_str()));
    }
);

both!(
    a_plaintext_secret_of_an_older_version_is_sealed_at_start,
    |app: TestApp| async move {
        let email = "old@acme.test";
        let temp = pending(&app, email).await;
        drop(temp);
        // What an older version stored: the base32 secret itself, and the method.
        let secret = gemba_cloud::auth::new_totp_secret();
        let pending_plain = gemba_cloud::auth::new_totp_secret();
        sqlx::query(
            "UPDATE users SET totp_secret = $1, totp_pending_secret = $2, \
             mfa_method = 'authenticator_app' WHERE email = $3",
        )
        .bind(&secret)
        .bind(&pending_plain)
        .bind(email)
        .execute(&app.state.db.pool)
        .await
        .unwrap();

        start_again(&app, |_| {}).await.unwrap();
        let (raw, raw_pending) = stored(&app, email).await;
        let (raw, raw_pending) = (raw.unwrap(), raw_pending.unwrap());
        for (r, plain) in [(&raw, &secret), (&raw_pending, &pending_plain)] {
            assert!(r.starts_with("v1:") && !r.contains(plain.as_str()), "{r}");
        }
        let id = app.user_row(email).await.id;
        assert_eq!(
            app.state.totp.open(id, &raw_pending).unwrap(),
            pending_plain
        );
        // The running service (same key file) takes the app's code.
        let v = sign_in_with_app(&app, email, &secret, 0).await;
        assert_eq!(v.receive_otp_on.as_deref(), Some("authenticator_app"));
        // Idempotent: a second start leaves the sealed values as they are.
        start_again(&app, |_| {}).await.unwrap();
        assert_eq!(stored(&app, email).await, (Some(raw), Some(raw_pending)));
    }
);

both!(
    a_wrong_key_is_a_clear_error_at_start_and_at_sign_in,
    |app: TestApp| async move {
        let email = "wrong@acme.test";
        pending(&app, email).await;
        let secret = gemba_cloud::auth::new_totp_secret();
        let id = app.user_row(email).await.id;
        // Sealed with another key (a restored backup of another deployment, say).
        let other = TotpKey::parse(&TotpKey::generate()).unwrap();
        set_secret(&app, id, other.seal(id, &secret)).await;

        // At start: refused, saying which key and which users.
        let e = start_again(&app, |_| {}).await.unwrap_err();
        let msg = format!("{e:#}");
        assert!(
            msg.contains("TOTP key does not open") && msg.contains(&format!("[{id}]")),
            "{msg}"
        );
        // The same with a configured key that is not the one they were sealed with, and
        // a configured key that is no key.
        let k = TotpKey::generate();
        let e = start_again(&app, |s| s.totp_key = Some(gemba_cloud::config::Secret(k)))
            .await
            .unwrap_err();
        assert!(format!("{e:#}").contains("TOTP key does not open"), "{e:#}");
        let e = start_again(&app, |s| {
            s.totp_key = Some(gemba_cloud::config::Secret("hunter2".into()))
        })
        .await
        .unwrap_err();
        assert!(
            format!("{e:#}").contains("totp_key: a TOTP key is 32 bytes"),
            "{e:#}"
        );
        // The key they were sealed with, configured: the start goes through.
        let other_b64 = TotpKey::generate();
        let other = TotpKey::parse(&other_b64).unwrap();
        set_secret(&app, id, other.seal(id, &secret)).await;
        start_again(&app, |s| {
            s.totp_key = Some(gemba_cloud::config::Secret(other_b64))
        })
        .await
        .unwrap();

        // At sign-in (the row changed under the running service): a clear answer, and
        // the right code is not taken for a wrong one.
        let temp = token(&app.pending_login(email, PASSWORD).await);
        let code = totp_code(&secret, unix_now());
        let (s, v) = app
            .send_refused(Method::POST, VERIFY, &otp(&code), &temp)
            .await;
        assert_eq!(s, StatusCode::INTERNAL_SERVER_ERROR, "{v}");
        assert!(
            v["detail"]
                .as_str()
                .unwrap()
                .contains("TOTP key does not open"),
            "{v}"
        );
        // Still serving: the server did not fall over.
        assert_eq!(app.health().await["status"], "ok");
    }
);
