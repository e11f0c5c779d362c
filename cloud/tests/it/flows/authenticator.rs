//! The authenticator app as second factor: set up with a QR code, confirmed with a code,
//! then asked for at sign-in; bad and reused codes.

use gemba_shared::api::v1::account::LoginUser;
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{OTP_FORMAT, OTP_INVALID, other_code, otp, qr_png};
use crate::account::pending_login;
use crate::both;
use crate::common::*;

both!(
    authenticator_app_is_confirmed_with_a_code_and_then_used_at_sign_in,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "totp@acme.test";
        app.quick_user(email, "Tia", "org_user", &[org]).await;
        let v = pending_login(&app, email, PASSWORD).await;
        assert_eq!(
            (v.require_otp, v.receive_otp_on.as_deref(), v.is_otp_setup),
            (true, None, false)
        );
        let temp = v.token;
        let set_app = "account/set_mfa_method_authenticator_app/";

        // Confirming before a QR code was fetched.
        let (s, v) = app
            .send_refused(Method::PATCH, set_app, &otp("123456"), &temp)
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
        let plain = app.pending_totp_secret(email).await;

        // Malformed codes: the spec's OTP rule.
        for bad in ["12345", "1234567", "abcdef", "", "12 456"] {
            let (s, v) = app
                .send_refused(Method::PATCH, set_app, &otp(bad), &temp)
                .await;
            assert_eq!(
                (s, v["otp"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(OTP_FORMAT)),
                "{bad:?}"
            );
        }
        let (s, v) = app
            .patch(set_app, json!({"otp": 123456}), Some(&temp))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["otp"][0].as_str().is_some(), "{v}");
        let (s, v) = app.patch(set_app, json!({}), Some(&temp)).await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );

        // A wrong code.
        let code = totp_code(&plain, unix_now());
        let (s, v) = app
            .send_refused(Method::PATCH, set_app, &otp(&other_code(&code)), &temp)
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(OTP_INVALID))
        );
        assert!(app.user_row(email).await.mfa_method.is_none());

        // The right code completes the sign-in.
        let full: LoginUser = app
            .send_as(Method::PATCH, set_app, &otp(&code), &temp)
            .await;
        assert!(!full.require_otp);
        assert_eq!(full.receive_otp_on.as_deref(), Some("authenticator_app"));
        assert!(full.is_otp_setup);
        assert!(full.refresh.is_some());
        assert_eq!(
            app.get("organization/", &full.token).await.0,
            StatusCode::OK
        );
        let row = app.user_row(email).await;
        assert_eq!(row.totp_secret.as_deref(), Some(secret.as_str()));
        assert!(row.totp_pending_secret.is_none());
        assert_eq!(row.mfa_method.as_deref(), Some("authenticator_app"));

        // A later sign-in asks for the app's code.
        let v = pending_login(&app, email, PASSWORD).await;
        assert!(v.require_otp);
        assert_eq!(v.receive_otp_on.as_deref(), Some("authenticator_app"));
        assert!(v.is_otp_setup);
        let temp2 = v.token;
        // Nothing is sent for the app.
        let (s, v) = app.get("account/send_otp_code/", &temp2).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v["non_field_errors"][0],
            "Use the code shown in your authenticator app."
        );
        // The code that confirmed the app has been used: it does not pass again.
        let verify = "account/verify_otp_code/";
        let (s, v) = app
            .send_refused(Method::POST, verify, &otp(&code), &temp2)
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(OTP_INVALID))
        );
        // The next time step's code (within the allowed drift) does, once.
        let next = totp_code(&plain, unix_now() + 30);
        let full: LoginUser = app.send_as(Method::POST, verify, &otp(&next), &temp2).await;
        assert_eq!(full.receive_otp_on.as_deref(), Some("authenticator_app"));
        assert_eq!(
            app.get("organization/", &full.token).await.0,
            StatusCode::OK
        );
        let temp3 = pending_login(&app, email, PASSWORD).await.token;
        let (s, _) = app
            .send_refused(Method::POST, verify, &otp(&next), &temp3)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // A code far from now does not pass.
        let (s, _) = app
            .send_refused(
                Method::POST,
                verify,
                &otp(&totp_code(&plain, unix_now() + 600)),
                &temp3,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    }
);
