//! Changing a second-factor method (only with a full session) and the limits on codes:
//! sends per ten minutes, wrong guesses per code, and the address lock.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{LoginAttempts, LoginUser, SmsMethodRequest};
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{METHOD_EXISTS, OTP_INVALID, TOO_MANY_ATTEMPTS, other_code, otp, qr_png};
use crate::account::{ANON, credentials, email_codes_chosen, pending_login, user_in, wire};
use crate::common::*;
use crate::{both, both_with};

const VERIFY: &str = "account/verify_otp_code/";

fn sms() -> SmsMethodRequest {
    SmsMethodRequest {
        mobile_number: "+4915112345678".into(),
    }
}

/// A sign-in up to the temporary token, with the e-mail code sent.
async fn email_code_sent(app: &TestApp, email: &str) -> String {
    let temp = pending_login(app, email, PASSWORD).await.token;
    email_codes_chosen(app, &temp).await;
    temp
}

both!(
    an_existing_method_changes_only_with_a_full_session,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "mfa@acme.test";
        // Signs in by e-mail code, so e-mail is the method.
        let full = user_in(&app, &admin, email, "org_user", Some(org))
            .await
            .token;
        let temp = pending_login(&app, email, PASSWORD).await.token;

        for (method, path, body) in [
            (Method::PATCH, "account/set_mfa_method_email/", json!({})),
            (Method::PATCH, "account/set_mfa_method_sms/", wire(&sms())),
            (Method::POST, "account/set_mfa_method_sms/", wire(&sms())),
            (Method::PATCH, "account/get_qr_code/", json!({})),
            (
                Method::PATCH,
                "account/set_mfa_method_authenticator_app/",
                wire(&otp("123456")),
            ),
        ] {
            let (s, v) = app.send_refused(method.clone(), path, &body, &temp).await;
            assert_eq!(
                (s, v["non_field_errors"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(METHOD_EXISTS)),
                "{method} {path}"
            );
        }
        let row = app.user_row(email).await;
        assert_eq!(row.mfa_method.as_deref(), Some("email"));
        assert!(row.mobile_number.is_none() && row.totp_pending_secret.is_none());

        // With the full session: switch to the authenticator app.
        qr_png(&app, &full).await;
        let secret = app.pending_totp_secret(email).await;
        let v: LoginUser = app
            .send_as(
                Method::PATCH,
                "account/set_mfa_method_authenticator_app/",
                &otp(&totp_code(&secret, unix_now())),
                &full,
            )
            .await;
        assert_eq!(v.receive_otp_on.as_deref(), Some("authenticator_app"));
        assert_eq!(
            app.user_row(email).await.mfa_method.as_deref(),
            Some("authenticator_app")
        );
    }
);

both!(
    codes_are_limited_to_five_sends_in_ten_minutes,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "many@acme.test";
        app.quick_user(email, "Mo", "org_user", &[org]).await;
        let temp = pending_login(&app, email, PASSWORD).await.token;
        // Nothing to send or verify before a method is chosen.
        let (s, v) = app.get("account/send_otp_code/", &temp).await;
        assert_eq!(
            (s, v["non_field_errors"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Choose how to receive your code first.")
            )
        );
        let (s, _) = app
            .send_refused(Method::POST, VERIFY, &otp("123456"), &temp)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);

        email_codes_chosen(&app, &temp).await;
        for path in [
            "account/send_otp_code/",
            "account/resend_otp/",
            "account/send_otp_code/",
            "account/resend_otp/",
        ] {
            let v: Msg = app.get_as(path, &temp).await;
            assert_eq!(v.msg, "OTP Sent!");
        }
        let sent = gemba_cloud::db::outbox::list(&app.state.db, Some(email), 100)
            .await
            .unwrap();
        assert_eq!(sent.len(), 5);
        for path in ["account/resend_otp/", "account/send_otp_code/"] {
            let (s, v) = app.get(path, &temp).await;
            assert_eq!(
                (s, v["detail"].as_str()),
                (
                    StatusCode::TOO_MANY_REQUESTS,
                    Some("Too many codes requested. Please try again later.")
                )
            );
        }
        // A full session cannot send more either, and choosing a method again changes
        // nothing when no code can be sent.
        let code = app.last_code(email).await;
        let full: LoginUser = app.send_as(Method::POST, VERIFY, &otp(&code), &temp).await;
        let (s, _) = app
            .send_refused(
                Method::PATCH,
                "account/set_mfa_method_sms/",
                &sms(),
                &full.token,
            )
            .await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
        let row = app.user_row(email).await;
        assert_eq!(row.mfa_method.as_deref(), Some("email"));
        assert!(row.mobile_number.is_none());
        let sent = gemba_cloud::db::outbox::list(&app.state.db, Some(email), 100)
            .await
            .unwrap();
        assert_eq!(sent.len(), 5);
    }
);

both_with!(
    five_wrong_guesses_kill_a_code,
    |s: &mut gemba_cloud::config::Settings| s.login_limit.max_failures = 100,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "guess@acme.test";
        app.quick_user(email, "Gus", "org_user", &[org]).await;
        let temp = email_code_sent(&app, email).await;
        let code = app.last_code(email).await;
        for _ in 0..5 {
            let (s, v) = app
                .send_refused(Method::POST, VERIFY, &otp(&other_code(&code)), &temp)
                .await;
            assert_eq!(
                (s, v["otp"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(OTP_INVALID))
            );
        }
        let (s, v) = app
            .send_refused(Method::POST, VERIFY, &otp(&code), &temp)
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(OTP_INVALID)),
            "the code survived five wrong guesses"
        );
        // A new code works.
        let _: Msg = app.get_as("account/resend_otp/", &temp).await;
        let code = app.last_code(email).await;
        let _: LoginUser = app.send_as(Method::POST, VERIFY, &otp(&code), &temp).await;
    }
);

both!(
    wrong_codes_lock_the_address_like_wrong_passwords,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "lock@acme.test";
        app.quick_user(email, "Lu", "org_user", &[org]).await;
        let temp = email_code_sent(&app, email).await;
        let code = app.last_code(email).await;
        for _ in 0..3 {
            let (s, _) = app
                .send_refused(Method::POST, VERIFY, &otp(&other_code(&code)), &temp)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        // The right password again does not wipe the count of wrong codes.
        let temp = pending_login(&app, email, PASSWORD).await.token;
        let _: Msg = app.get_as("account/send_otp_code/", &temp).await;
        let code = app.last_code(email).await;
        for _ in 0..2 {
            let (s, _) = app
                .send_refused(Method::POST, VERIFY, &otp(&other_code(&code)), &temp)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        let (s, v) = app
            .send_refused(Method::POST, VERIFY, &otp(&code), &temp)
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::TOO_MANY_REQUESTS, Some(TOO_MANY_ATTEMPTS))
        );
        let (s, v) = app
            .send_refused(
                Method::POST,
                "account/login_v2",
                &credentials(email, PASSWORD),
                ANON,
            )
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::TOO_MANY_REQUESTS, Some(TOO_MANY_ATTEMPTS))
        );
        let v: Vec<LoginAttempts> = app.get_as("account/lockout_list-delete/", &admin).await;
        assert_eq!(v[0].email, email);
    }
);
