//! Changing a second-factor method (only with a full session) and the limits on codes:
//! sends per ten minutes, wrong guesses per code, and the address lock.

use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{METHOD_EXISTS, OTP_INVALID, TOO_MANY_ATTEMPTS, other_code, qr_png};
use crate::common::*;
use crate::{both, both_with};

both!(
    an_existing_method_changes_only_with_a_full_session,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "mfa@acme.test";
        // Signs in by e-mail code, so e-mail is the method.
        let full = token(&app.user_in(&admin, email, "org_user", Some(org)).await);
        let temp = token(&app.pending_login(email, PASSWORD).await);

        for (method, path, body) in [
            (Method::PATCH, "account/set_mfa_method_email/", json!({})),
            (
                Method::PATCH,
                "account/set_mfa_method_sms/",
                json!({"mobile_number": "+4915112345678"}),
            ),
            (
                Method::POST,
                "account/set_mfa_method_sms/",
                json!({"mobile_number": "+4915112345678"}),
            ),
            (Method::PATCH, "account/get_qr_code/", json!({})),
            (
                Method::PATCH,
                "account/set_mfa_method_authenticator_app/",
                json!({"otp": "123456"}),
            ),
        ] {
            let (s, v) = app
                .call(method.clone(), path, Some(body), Some(&temp))
                .await;
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
        let secret = app.user_row(email).await.totp_pending_secret.unwrap();
        let (s, v) = app
            .patch(
                "account/set_mfa_method_authenticator_app/",
                json!({"otp": totp_code(&secret, unix_now())}),
                Some(&full),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["receive_otp_on"], "authenticator_app");
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
        let temp = token(&app.pending_login(email, PASSWORD).await);
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
            .post(
                "account/verify_otp_code/",
                json!({"otp": "123456"}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);

        let (s, _) = app
            .patch("account/set_mfa_method_email/", json!({}), Some(&temp))
            .await;
        assert_eq!(s, StatusCode::OK);
        for path in [
            "account/send_otp_code/",
            "account/resend_otp/",
            "account/send_otp_code/",
            "account/resend_otp/",
        ] {
            let (s, v) = app.get(path, &temp).await;
            assert_eq!((s, v["msg"].as_str()), (StatusCode::OK, Some("OTP Sent!")));
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
        let (s, full) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = app
            .patch(
                "account/set_mfa_method_sms/",
                json!({"mobile_number": "+4915112345678"}),
                Some(&token(&full)),
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
        let temp = token(&app.pending_login(email, PASSWORD).await);
        app.patch("account/set_mfa_method_email/", json!({}), Some(&temp))
            .await;
        let code = app.last_code(email).await;
        for _ in 0..5 {
            let (s, v) = app
                .post(
                    "account/verify_otp_code/",
                    json!({"otp": other_code(&code)}),
                    Some(&temp),
                )
                .await;
            assert_eq!(
                (s, v["otp"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(OTP_INVALID))
            );
        }
        let (s, v) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(OTP_INVALID)),
            "the code survived five wrong guesses"
        );
        // A new code works.
        app.get("account/resend_otp/", &temp).await;
        let code = app.last_code(email).await;
        let (s, _) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
    }
);

both!(
    wrong_codes_lock_the_address_like_wrong_passwords,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "lock@acme.test";
        app.quick_user(email, "Lu", "org_user", &[org]).await;
        let temp = token(&app.pending_login(email, PASSWORD).await);
        app.patch("account/set_mfa_method_email/", json!({}), Some(&temp))
            .await;
        let code = app.last_code(email).await;
        for _ in 0..3 {
            let (s, _) = app
                .post(
                    "account/verify_otp_code/",
                    json!({"otp": other_code(&code)}),
                    Some(&temp),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        // The right password again does not wipe the count of wrong codes.
        let temp = token(&app.pending_login(email, PASSWORD).await);
        app.get("account/send_otp_code/", &temp).await;
        let code = app.last_code(email).await;
        for _ in 0..2 {
            let (s, _) = app
                .post(
                    "account/verify_otp_code/",
                    json!({"otp": other_code(&code)}),
                    Some(&temp),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        let (s, v) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::TOO_MANY_REQUESTS, Some(TOO_MANY_ATTEMPTS))
        );
        let (s, v) = app
            .post(
                "account/login_v2",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::TOO_MANY_REQUESTS, Some(TOO_MANY_ATTEMPTS))
        );
        let (_, v) = app.get("account/lockout_list-delete/", &admin).await;
        assert_eq!(v[0]["email"], email);
    }
);
