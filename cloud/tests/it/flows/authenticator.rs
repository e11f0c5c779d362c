//! The authenticator app as second factor: set up with a QR code, confirmed with a code,
//! then asked for at sign-in; bad and reused codes.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{OTP_FORMAT, OTP_INVALID, other_code, qr_png};
use crate::both;
use crate::common::*;

both!(
    authenticator_app_is_confirmed_with_a_code_and_then_used_at_sign_in,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "totp@acme.test";
        app.quick_user(email, "Tia", "org_user", &[org]).await;
        let v = app.pending_login(email, PASSWORD).await;
        assert_eq!(
            (&v["require_otp"], &v["receive_otp_on"], &v["is_otp_setup"]),
            (&json!(true), &Value::Null, &json!(false))
        );
        let temp = token(&v);

        // Confirming before a QR code was fetched.
        let (s, v) = app
            .patch(
                "account/set_mfa_method_authenticator_app/",
                json!({"otp": "123456"}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["non_field_errors"][0], "Scan the QR code first.");
        // The QR code needs a token.
        let r = app
            .raw(Method::PATCH, "account/get_qr_code/", None, &[])
            .await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);

        qr_png(&app, &temp).await;
        let row = app.user_row(email).await;
        let secret = row.totp_pending_secret.expect("a pending secret");
        assert!(row.mfa_method.is_none() && row.totp_secret.is_none());
        // A second QR code replaces the pending secret.
        qr_png(&app, &temp).await;
        let secret2 = app.user_row(email).await.totp_pending_secret.unwrap();
        assert_ne!(secret, secret2);
        let secret = secret2;

        // Malformed codes: the spec's OTP rule.
        for bad in ["12345", "1234567", "abcdef", "", "12 456"] {
            let (s, v) = app
                .patch(
                    "account/set_mfa_method_authenticator_app/",
                    json!({"otp": bad}),
                    Some(&temp),
                )
                .await;
            assert_eq!(
                (s, v["otp"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(OTP_FORMAT)),
                "{bad:?}"
            );
        }
        let (s, v) = app
            .patch(
                "account/set_mfa_method_authenticator_app/",
                json!({"otp": 123456}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["otp"][0].as_str().is_some(), "{v}");
        let (s, v) = app
            .patch(
                "account/set_mfa_method_authenticator_app/",
                json!({}),
                Some(&temp),
            )
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );

        // A wrong code.
        let code = totp_code(&secret, unix_now());
        let (s, v) = app
            .patch(
                "account/set_mfa_method_authenticator_app/",
                json!({"otp": other_code(&code)}),
                Some(&temp),
            )
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(OTP_INVALID))
        );
        assert!(app.user_row(email).await.mfa_method.is_none());

        // The right code completes the sign-in.
        let (s, full) = app
            .patch(
                "account/set_mfa_method_authenticator_app/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{full}");
        assert_eq!(full["require_otp"], false);
        assert_eq!(full["receive_otp_on"], "authenticator_app");
        assert_eq!(full["is_otp_setup"], true);
        assert!(full["refresh"].is_string());
        assert_eq!(
            app.get("organization/", &token(&full)).await.0,
            StatusCode::OK
        );
        let row = app.user_row(email).await;
        assert_eq!(row.totp_secret.as_deref(), Some(secret.as_str()));
        assert!(row.totp_pending_secret.is_none());
        assert_eq!(row.mfa_method.as_deref(), Some("authenticator_app"));

        // A later sign-in asks for the app's code.
        let v = app.pending_login(email, PASSWORD).await;
        assert_eq!(v["require_otp"], true);
        assert_eq!(v["receive_otp_on"], "authenticator_app");
        assert_eq!(v["is_otp_setup"], true);
        let temp2 = token(&v);
        // Nothing is sent for the app.
        let (s, v) = app.get("account/send_otp_code/", &temp2).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v["non_field_errors"][0],
            "Use the code shown in your authenticator app."
        );
        // The code that confirmed the app has been used: it does not pass again.
        let (s, v) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp2),
            )
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(OTP_INVALID))
        );
        // The next time step's code (within the allowed drift) does, once.
        let next = totp_code(&secret, unix_now() + 30);
        let (s, full) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": next}),
                Some(&temp2),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{full}");
        assert_eq!(full["receive_otp_on"], "authenticator_app");
        assert_eq!(
            app.get("organization/", &token(&full)).await.0,
            StatusCode::OK
        );
        let temp3 = token(&app.pending_login(email, PASSWORD).await);
        let (s, _) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": next}),
                Some(&temp3),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // A code far from now does not pass.
        let (s, _) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": totp_code(&secret, unix_now() + 600)}),
                Some(&temp3),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    }
);
