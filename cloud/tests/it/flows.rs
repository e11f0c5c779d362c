//! Identity flows end to end, each with its bad input: the authenticator app and SMS
//! as second factors, changing a method, code limits, passwords (forgot, reset,
//! change, set by an admin: 303), change of e-mail, terms, deleting accounts,
//! activity sessions, token and session checks, the admin sign-in and single
//! sign-on, organisation sub-domains, the user lists, and the command line.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::*;
use crate::{both, both_with};

const OTP_INVALID: &str = "Invalid or expired OTP.";
const OTP_FORMAT: &str = "Please enter the 6-digit OTP";
const METHOD_EXISTS: &str = "A verification method is already set up. Sign in fully to change it.";
const TOO_MANY_ATTEMPTS: &str = "Too many attempts.Please try after 1 min.";
const MUST_CHANGE: &str = "Your password must be changed before you continue.";

/// A six-digit code that is not `code`.
fn other_code(code: &str) -> String {
    format!("{:06}", (code.parse::<u32>().unwrap() + 1) % 1_000_000)
}

/// Fetches the QR code with `token`; asserts it is a PNG and answers its bytes.
async fn qr_png(app: &TestApp, token: &str) -> Vec<u8> {
    let r = app
        .raw(Method::PATCH, "account/get_qr_code/", Some(token), &[])
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(r.headers()["cache-control"], "no-store");
    let png = r.bytes().await.unwrap().to_vec();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 100,
        "not a PNG"
    );
    png
}

// ----- 1. authenticator app ------------------------------------------------------------

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

// ----- 2. SMS ---------------------------------------------------------------------------

both!(
    sms_codes_go_to_the_given_number_through_the_outbox,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "sms@acme.test";
        app.quick_user(email, "Sam", "org_user", &[org]).await;
        let v = app.pending_login(email, PASSWORD).await;
        assert_eq!(v["has_mobile_number"], false);
        let temp = token(&v);

        let bad_number = "Enter a valid mobile number, e.g. +4915112345678.";
        for bad in [
            "abc",
            "1234567",
            "+1234567890123456",
            "",
            "++4915112345678",
            "+49 151 1234 567x",
            "+49/15112345678",
        ] {
            let (s, v) = app
                .patch(
                    "account/set_mfa_method_sms/",
                    json!({"mobile_number": bad}),
                    Some(&temp),
                )
                .await;
            assert_eq!(
                (s, v["mobile_number"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(bad_number)),
                "{bad:?}"
            );
        }
        let (s, v) = app
            .post(
                "account/set_mfa_method_sms/",
                json!({"mobile_number": 4915112345678u64}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["mobile_number"][0].is_string(), "{v}");
        let (s, v) = app
            .post("account/set_mfa_method_sms/", json!({}), Some(&temp))
            .await;
        assert_eq!(
            (s, v["mobile_number"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        // Without a token.
        let (s, _) = app
            .patch(
                "account/set_mfa_method_sms/",
                json!({"mobile_number": "+4915112345678"}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        // Nothing was stored or sent.
        let row = app.user_row(email).await;
        assert!(row.mobile_number.is_none() && row.mfa_method.is_none());
        let sent = gemba_cloud::db::outbox::list(&app.state.db, None, 100)
            .await
            .unwrap();
        assert!(sent.iter().all(|m| m.channel != "sms"));

        // A good number (spaces, dashes and brackets are dropped).
        let (s, v) = app
            .patch(
                "account/set_mfa_method_sms/",
                json!({"mobile_number": "+49 (151) 1234-5678"}),
                Some(&temp),
            )
            .await;
        assert_eq!((s, v["msg"].as_str()), (StatusCode::OK, Some("OTP Sent!")));
        let number = "+4915112345678";
        let sms = gemba_cloud::db::outbox::list(&app.state.db, Some(number), 1)
            .await
            .unwrap()
            .remove(0);
        assert_eq!(sms.channel, "sms");
        assert_eq!(sms.recipients, number);
        assert!(sms.delivered);
        let file = sms.file_name.unwrap();
        assert!(file.ends_with(".sms.txt"), "{file}");
        let text = std::fs::read_to_string(app.data_dir().join("outbox").join(&file)).unwrap();
        let code = app.last_code(number).await;
        assert!(
            text.starts_with(&format!("To: {number}\n")) && text.contains(&code),
            "{text}"
        );
        // No e-mail carries the code.
        assert!(app.last_mail(email).await.is_none());

        let (s, full) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{full}");
        assert_eq!(full["has_mobile_number"], true);
        assert_eq!(full["receive_otp_on"], "sms");
        let access = token(&full);

        // The next sign-in sends its code by SMS; resend replaces it.
        let v = app.pending_login(email, PASSWORD).await;
        assert_eq!(
            (&v["receive_otp_on"], &v["has_mobile_number"]),
            (&json!("sms"), &json!(true))
        );
        let temp = token(&v);
        let (s, _) = app.get("account/send_otp_code/", &temp).await;
        assert_eq!(s, StatusCode::OK);
        let first = app.last_code(number).await;
        let (s, _) = app.get("account/resend_otp/", &temp).await;
        assert_eq!(s, StatusCode::OK);
        let second = app.last_code(number).await;
        if first != second {
            let (s, _) = app
                .post(
                    "account/verify_otp_code/",
                    json!({"otp": first}),
                    Some(&temp),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "a replaced code still works");
        }
        // The temporary token may not move the codes to another number…
        let (s, v) = app
            .post(
                "account/set_mfa_method_sms/",
                json!({"mobile_number": "+4915199999999"}),
                Some(&temp),
            )
            .await;
        assert_eq!(
            (s, v["non_field_errors"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(METHOD_EXISTS))
        );
        let (s, _) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": second}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        // …a full session may (POST works like PATCH).
        let (s, _) = app
            .post(
                "account/set_mfa_method_sms/",
                json!({"mobile_number": "+4915199999999"}),
                Some(&access),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            app.user_row(email).await.mobile_number.as_deref(),
            Some("+4915199999999")
        );
        let code = app.last_code("+4915199999999").await;
        let (s, _) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&access),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
    }
);

// ----- 3. changing a method, code limits -------------------------------------------------

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

// ----- 4. passwords ----------------------------------------------------------------------

both!(
    forgotten_password_is_reset_by_a_single_use_mailed_link,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "forgot@acme.test";
        let login = app.user_in(&admin, email, "org_user", Some(org)).await;
        let old = token(&login);
        // Lock the address.
        for _ in 0..5 {
            app.post(
                "account/login_v2",
                json!({"email": email, "password": "wrong-pass-1"}),
                None,
            )
            .await;
        }
        let (s, _) = app
            .post(
                "account/login_v2",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);

        // Bad input.
        let (s, v) = app
            .patch("account/forgot_password/", json!({"email": "nope"}), None)
            .await;
        assert_eq!(
            (s, v["email"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Enter a valid email address.")
            )
        );
        let (s, v) = app.patch("account/forgot_password/", json!({}), None).await;
        assert_eq!(
            (s, v["email"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        // An unknown address answers the same as a known one, and nothing is mailed.
        let (s, unknown) = app
            .patch(
                "account/forgot_password/",
                json!({"email": "ghost@acme.test"}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert!(app.last_mail("ghost@acme.test").await.is_none());
        let (s, known) = app
            .patch(
                "account/forgot_password/",
                json!({"email": "Forgot@Acme.test"}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(unknown, known);
        let earlier = app.last_link_token(email, "/reset-password/").await;
        app.patch("account/forgot_password/", json!({"email": email}), None)
            .await;
        let link = app.last_link_token(email, "/reset-password/").await;
        assert_ne!(earlier, link);

        // A weak password is refused and the link still works afterwards.
        for (pw, msg) in [
            (
                "short1",
                "This password is too short. It must contain at least 8 characters.",
            ),
            ("1234567890", "This password is entirely numeric."),
            (
                "onlyletters",
                "This password must contain at least one digit or symbol.",
            ),
        ] {
            let (s, v) = app
                .patch(
                    "account/reset_password/",
                    json!({"token": link, "password": pw}),
                    None,
                )
                .await;
            assert_eq!(
                (s, v["password"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg))
            );
        }
        let (s, v) = app
            .patch(
                "account/reset_password/",
                json!({"token": "not-a-token", "password": "new-pass-123"}),
                None,
            )
            .await;
        assert_eq!(
            (s, v["token"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("Token expired/Invalid!"))
        );
        let (s, v) = app
            .patch("account/reset_password/", json!({"token": link}), None)
            .await;
        assert_eq!(
            (s, v["password"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        assert_eq!(app.get("organization/", &old).await.0, StatusCode::OK);

        let (s, v) = app
            .patch(
                "account/reset_password/",
                json!({"token": link, "password": "new-pass-123"}),
                None,
            )
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (
                StatusCode::OK,
                Some("Your password has been reset. Please sign in.")
            )
        );
        // Single use, and the earlier link died with it.
        for t in [&link, &earlier] {
            let (s, v) = app
                .patch(
                    "account/reset_password/",
                    json!({"token": t, "password": "other-pass-123"}),
                    None,
                )
                .await;
            assert_eq!(
                (s, v["token"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some("Token expired/Invalid!"))
            );
        }
        // Old sessions are over.
        assert_eq!(
            app.get("organization/", &old).await.0,
            StatusCode::UNAUTHORIZED
        );
        let (s, _) = app
            .post(
                "account/token/refresh/",
                json!({"refresh": login["refresh"]}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        // The lockout is lifted; only the new password works.
        let full = app.login(email, "new-pass-123").await;
        assert_eq!(full["require_otp"], false);
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

both!(
    changing_ones_password_checks_the_old_one_and_ends_other_sessions,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "change@acme.test";
        let this = token(&app.user_in(&admin, email, "org_user", Some(org)).await);
        let other = token(&app.login(email, PASSWORD).await);
        let path = "account/request_change_password/";
        let cases = [
            (
                json!({"old_password": "wrong-pass-1", "new_password": "new-pass-123"}),
                "old_password",
                "Your old password is not correct.",
            ),
            (
                json!({"old_password": PASSWORD, "new_password": PASSWORD}),
                "new_password",
                "The new password must differ from the old one.",
            ),
            (
                json!({"old_password": PASSWORD, "new_password": "short1"}),
                "new_password",
                "This password is too short. It must contain at least 8 characters.",
            ),
            (
                json!({"old_password": PASSWORD, "new_password": "123456789012"}),
                "new_password",
                "This password is entirely numeric.",
            ),
            (
                json!({"old_password": PASSWORD}),
                "new_password",
                "This field is required.",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app.patch(path, body.clone(), Some(&this)).await;
            assert_eq!(
                (s, v[field][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{body}"
            );
        }
        let (s, _) = app
            .patch(
                path,
                json!({"old_password": PASSWORD, "new_password": "new-pass-123"}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        // Nothing changed so far.
        assert_eq!(app.get("organization/", &other).await.0, StatusCode::OK);

        let (s, v) = app
            .patch(
                path,
                json!({"old_password": PASSWORD, "new_password": "new-pass-123"}),
                Some(&this),
            )
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some("Your changes have been saved!"))
        );
        assert_eq!(app.get("organization/", &this).await.0, StatusCode::OK);
        assert_eq!(
            app.get("organization/", &other).await.0,
            StatusCode::UNAUTHORIZED
        );
        let (s, _) = app
            .post(
                "account/login_v2",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // (A completed sign-in also clears the failures counted so far.)
        app.login(email, "new-pass-123").await;

        // Guessing the old password with a stolen token runs into the lockout.
        for _ in 0..5 {
            let (s, _) = app
                .patch(
                    path,
                    json!({"old_password": "guess-pass-1", "new_password": "x-pass-1234"}),
                    Some(&this),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        let (s, v) = app
            .patch(
                path,
                json!({"old_password": "new-pass-123", "new_password": "x-pass-1234"}),
                Some(&this),
            )
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::TOO_MANY_REQUESTS, Some(TOO_MANY_ATTEMPTS))
        );
    }
);

both!(
    a_password_set_by_an_org_admin_must_be_changed_first,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let other_org = app.create_org(&admin, "Beta").await;
        let oa = token(
            &app.user_in(&admin, "oa@acme.test", "org_admin", Some(org))
                .await,
        );
        let ws_login = app
            .user_in(&admin, "ws@acme.test", "workstation_user", Some(org))
            .await;
        let ws_old = token(&ws_login);
        let ws = ws_login["id"].as_i64().unwrap();
        let ou = app
            .quick_user("ou@acme.test", "Otto", "org_user", &[org])
            .await;
        let ws_b = app
            .quick_user("ws@beta.test", "Wes", "workstation_user", &[other_org])
            .await;
        let path = "account/reset_workstation_user_password/";

        // Refused: an org user, another org's user, unknown users, a non-workstation
        // user, a weak password, a bad body.
        app.quick_user("ou2@acme.test", "Olga", "org_user", &[org])
            .await;
        let ou_token = token(&app.login("ou2@acme.test", PASSWORD).await);
        let (s, _) = app
            .patch(
                path,
                json!({"user": ws, "password": "ws-pass-123"}),
                Some(&ou_token),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        for id in [ws_b, 999_999] {
            let (s, _) = app
                .patch(
                    path,
                    json!({"user": id, "password": "ws-pass-123"}),
                    Some(&oa),
                )
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND);
        }
        let (s, v) = app
            .patch(
                path,
                json!({"user": ou, "password": "ws-pass-123"}),
                Some(&oa),
            )
            .await;
        assert_eq!(
            (s, v["user"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Only a workstation user's password can be set here.")
            )
        );
        let (s, v) = app
            .patch(path, json!({"user": ws, "password": "short1"}), Some(&oa))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["password"][0].is_string());
        let (s, v) = app
            .patch(
                path,
                json!({"user": "ws", "password": "ws-pass-123"}),
                Some(&oa),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["user"][0].is_string(), "{v}");
        // Nothing changed.
        assert_eq!(app.get("organization/", &ws_old).await.0, StatusCode::OK);
        assert!(!app.user_row("ws@acme.test").await.must_change_password);

        let (s, v) = app
            .patch(
                path,
                json!({"user": ws, "password": "ws-pass-123"}),
                Some(&oa),
            )
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some("Your changes have been saved!"))
        );
        assert!(app.user_row("ws@acme.test").await.must_change_password);
        assert_eq!(
            app.get("organization/", &ws_old).await.0,
            StatusCode::UNAUTHORIZED
        );

        // Signed in with the set password, every call but a few answers 303.
        let login = app.login("ws@acme.test", "ws-pass-123").await;
        let t = token(&login);
        for path in [
            "organization/".to_string(),
            "account/get-permissions/".to_string(),
            format!("organization/{org}/department/"),
            "account/roles/".to_string(),
            "account/fetch_local_storage_data".to_string(),
        ] {
            let (s, v) = app.get(&path, &t).await;
            assert_eq!(
                (s, v["detail"].as_str()),
                (StatusCode::SEE_OTHER, Some(MUST_CHANGE)),
                "{path}"
            );
        }
        let (s, _) = app
            .post(
                &format!("organization/{org}/department/"),
                json!({"name": "Line 1"}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::SEE_OTHER);
        // The session calls, terms and logout still work.
        let (s, session) = app
            .post(
                "account/session/create/",
                json!({"user": ws, "browser": "Firefox", "browser_version": "128"}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{session}");
        let (s, _) = app
            .patch(
                &format!("account/session/update/{}/", session["id"]),
                json!({}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = app
            .get(
                &format!(
                    "account/retrieve-session/?email=ws@acme.test&sessionKey={}",
                    login["session_key"].as_str().unwrap()
                ),
                &t,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = app
            .patch(
                &format!("account/update-delete/{ws}/"),
                json!({"terms_and_conditions_accepted": true}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let second = token(&app.login("ws@acme.test", "ws-pass-123").await);
        let (s, _) = app.patch("account/logout/", json!({}), Some(&second)).await;
        assert_eq!(s, StatusCode::OK);

        // Changing it ends the 303s.
        let (s, _) = app
            .patch(
                "account/request_change_password/",
                json!({"old_password": "ws-pass-123", "new_password": "ws-own-pass-1"}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert!(!app.user_row("ws@acme.test").await.must_change_password);
        assert_eq!(app.get("organization/", &t).await.0, StatusCode::OK);

        // The super admin may set it too, without naming an organisation.
        let (s, v) = app
            .patch(
                path,
                json!({"user": ws, "password": "ws-pass-456"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert!(app.user_row("ws@acme.test").await.must_change_password);
    }
);

// ----- 5. e-mail, terms, deletion --------------------------------------------------------

both!(
    email_change_is_confirmed_from_the_new_address,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "old@acme.test";
        let t = token(&app.user_in(&admin, email, "org_user", Some(org)).await);
        app.quick_user("taken@acme.test", "Tom", "org_user", &[org])
            .await;
        let path = "account/request_change_email/";
        let cases = [
            (
                json!({"email": "nope", "password": PASSWORD}),
                "email",
                "Enter a valid email address.",
            ),
            (
                json!({"email": "new@acme.test", "password": "wrong-pass-1"}),
                "password",
                "Your password is not correct.",
            ),
            (
                json!({"email": "Taken@acme.test", "password": PASSWORD}),
                "email",
                "user with this email already exists.",
            ),
            (
                json!({"email": email, "password": PASSWORD}),
                "email",
                "user with this email already exists.",
            ),
            (
                json!({"email": "new@acme.test"}),
                "password",
                "This field is required.",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app.post(path, body.clone(), Some(&t)).await;
            assert_eq!(
                (s, v[field][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{body}"
            );
        }
        let (s, _) = app
            .post(
                path,
                json!({"email": "new@acme.test", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert!(app.last_mail("new@acme.test").await.is_none());

        let (s, v) = app
            .post(
                path,
                json!({"email": "New@Acme.test", "password": PASSWORD}),
                Some(&t),
            )
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (
                StatusCode::OK,
                Some("A confirmation link has been sent to the new address.")
            )
        );
        let link = app
            .last_link_token("new@acme.test", "verify-email-change=")
            .await;
        // Nothing changes until it is confirmed.
        assert_eq!(app.user_row(email).await.email, email);
        let (s, v) = app
            .patch(
                "account/verify-email-change/",
                json!({"token": "bogus"}),
                None,
            )
            .await;
        assert_eq!(
            (s, v["token"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("Token expired/Invalid!"))
        );
        let (s, v) = app
            .patch("account/verify-email-change/", json!({}), None)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["token"][0].is_string());

        let (s, v) = app
            .patch("account/verify-email-change/", json!({"token": link}), None)
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (
                StatusCode::OK,
                Some("Your e-mail address has been changed.")
            )
        );
        let (s, _) = app
            .patch("account/verify-email-change/", json!({"token": link}), None)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let (s, _) = app
            .post(
                "account/login_v2",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let full = app.login("new@acme.test", PASSWORD).await;
        assert_eq!(full["email"], "new@acme.test");

        // An address taken between the request and the confirmation is refused.
        let t = token(&full);
        app.post(
            path,
            json!({"email": "later@acme.test", "password": PASSWORD}),
            Some(&t),
        )
        .await;
        let link = app
            .last_link_token("later@acme.test", "verify-email-change=")
            .await;
        app.quick_user("later@acme.test", "Lara", "org_user", &[org])
            .await;
        let (s, v) = app
            .patch("account/verify-email-change/", json!({"token": link}), None)
            .await;
        assert_eq!(
            (s, v["email"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("user with this email already exists.")
            )
        );
        assert_eq!(app.user_row("new@acme.test").await.name, "Test");

        // The mailed link opens the Profile Setting the user can open: the user area's,
        // or the labeler area's for a labeler.
        let (_, body) = app.last_mail("later@acme.test").await.unwrap();
        assert!(
            body.contains("/user/setting?verify-email-change="),
            "{body}"
        );
        let lab = token(&app.user_in(&admin, "lab@acme.test", "labeler", None).await);
        app.post(
            path,
            json!({"email": "lab2@acme.test", "password": PASSWORD}),
            Some(&lab),
        )
        .await;
        let (_, body) = app.last_mail("lab2@acme.test").await.unwrap();
        assert!(
            body.contains("/labeler/setting?verify-email-change="),
            "{body}"
        );
    }
);

both!(
    terms_are_accepted_only_for_oneself,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let login = app
            .user_in(&admin, "terms@acme.test", "org_admin", Some(org))
            .await;
        assert_eq!(login["is_policy_accepted"], false);
        let (t, me) = (token(&login), login["id"].as_i64().unwrap());
        let other = app
            .quick_user("other@acme.test", "Ole", "org_user", &[org])
            .await;
        let body = json!({"terms_and_conditions_accepted": true});
        // Not for someone else, not even by a super admin or an org admin.
        for (tok, id) in [(&t, other), (&admin, me), (&t, 999_999)] {
            let (s, _) = app
                .patch(
                    &format!("account/update-delete/{id}/"),
                    body.clone(),
                    Some(tok),
                )
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND);
        }
        assert!(!app.user_row("other@acme.test").await.is_policy_accepted);
        let path = format!("account/update-delete/{me}/");
        for bad in [json!({"terms_and_conditions_accepted": "yes"}), json!({})] {
            let (s, v) = app.patch(&path, bad.clone(), Some(&t)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}");
            assert!(v["terms_and_conditions_accepted"][0].is_string(), "{v}");
        }
        let (s, _) = app
            .patch("account/update-delete/abc/", body.clone(), Some(&t))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app.patch(&path, body.clone(), None).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);

        let (s, v) = app.patch(&path, body, Some(&t)).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["id"], me);
        assert!(app.user_row("terms@acme.test").await.is_policy_accepted);
        let v = app.pending_login("terms@acme.test", PASSWORD).await;
        assert_eq!(v["is_policy_accepted"], true);
        // Withdrawn again.
        let (s, _) = app
            .patch(
                &path,
                json!({"terms_and_conditions_accepted": false}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert!(!app.user_row("terms@acme.test").await.is_policy_accepted);
    }
);

both!(
    accounts_are_deleted_by_themselves_or_their_org_admin_only,
    |app: TestApp| async move {
        let admin_login = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let admin = token(&admin_login);
        let admin_id = admin_login["id"].as_i64().unwrap();
        let a = app.create_org(&admin, "Acme").await;
        let b = app.create_org(&admin, "Beta").await;
        let oa = token(
            &app.user_in(&admin, "oa@acme.test", "org_admin", Some(a))
                .await,
        );
        let member = app.quick_user("m@acme.test", "Mia", "org_user", &[a]).await;
        let shared = app
            .quick_user("s@acme.test", "Sue", "org_user", &[a, b])
            .await;
        let foreign = app.quick_user("f@beta.test", "Fay", "org_user", &[b]).await;
        let self_login = app
            .user_in(&admin, "me@acme.test", "org_user", Some(a))
            .await;
        let me = token(&self_login);
        let me_id = self_login["id"].as_i64().unwrap();
        let del = |id: String| format!("account/update-delete/{id}/");

        // Not another organisation's user, no unknown or malformed id.
        for id in [foreign.to_string(), "999999".into(), "abc".into()] {
            let (s, v) = app.delete(&del(id.clone()), &oa).await;
            assert_eq!(
                (s, v["detail"].as_str()),
                (StatusCode::NOT_FOUND, Some("Not found.")),
                "{id}"
            );
        }
        // Not an account another organisation shares.
        let (s, v) = app.delete(&del(shared.to_string()), &oa).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        // Not a super admin, even one linked to the organisation.
        let (s, _) = app.delete(&del(admin_id.to_string()), &oa).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        app.put(
            "account/assign_user_org",
            json!({"email": ADMIN_EMAIL, "organization": a}),
            &admin,
        )
        .await;
        let (s, _) = app.delete(&del(admin_id.to_string()), &oa).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Not by an org user (the role lacks the permission).
        let (s, _) = app.delete(&del(member.to_string()), &me).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Everyone is still there.
        let db = &app.state.db;
        for id in [admin_id, member, shared, foreign] {
            assert!(
                gemba_cloud::db::users::by_id(db, id)
                    .await
                    .unwrap()
                    .is_some()
            );
        }

        // The org admin deletes a member of their own organisation.
        let (s, _) = app.delete(&del(member.to_string()), &oa).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert!(
            gemba_cloud::db::users::by_id(db, member)
                .await
                .unwrap()
                .is_none()
        );
        let (s, _) = app
            .post(
                "account/login_v2",
                json!({"email": "m@acme.test", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // A user deletes themself; their token stops working.
        let (s, _) = app.delete(&del(me_id.to_string()), &me).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert_eq!(
            app.get("organization/", &me).await.0,
            StatusCode::UNAUTHORIZED
        );
        // The super admin deletes anyone but the last super admin.
        let (s, _) = app.delete(&del(shared.to_string()), &admin).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        let (s, v) = app.delete(&del(admin_id.to_string()), &admin).await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (
                StatusCode::CONFLICT,
                Some("The last super admin cannot be deleted.")
            )
        );
        let root2 = gemba_cloud::create_admin(&app.state, "root2@gemba.test", ADMIN_PASSWORD)
            .await
            .unwrap();
        let (s, _) = app.delete(&del(root2.to_string()), &admin).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
    }
);

// ----- 6. activity sessions --------------------------------------------------------------

both!(
    activity_sessions_belong_to_their_user,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let login = app
            .user_in(&admin, "act@acme.test", "org_user", Some(org))
            .await;
        let (t, me) = (token(&login), login["id"].as_i64().unwrap());
        let key = login["session_key"].as_str().unwrap().to_string();
        let retrieve = |email: &str, key: &str| {
            format!("account/retrieve-session/?email={email}&sessionKey={key}")
        };
        // Nothing yet.
        let (s, _) = app.get(&retrieve("act@acme.test", &key), &t).await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        let long = "x".repeat(101);
        let cases = [
            (
                json!({"user": admin_id(&app).await, "browser": "Chrome", "browser_version": "1"}),
                "user",
                "A session can only be created for yourself.",
            ),
            (
                json!({"user": me, "browser": "  ", "browser_version": "1"}),
                "browser",
                "This field may not be blank.",
            ),
            (
                json!({"user": me, "browser": long, "browser_version": "1"}),
                "browser",
                "Ensure this field has no more than 100 characters.",
            ),
            (
                json!({"user": me, "browser": "Chrome", "browser_version": long}),
                "browser_version",
                "Ensure this field has no more than 100 characters.",
            ),
            (
                json!({"user": me, "browser": "Chrome"}),
                "browser_version",
                "This field is required.",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app
                .post("account/session/create/", body.clone(), Some(&t))
                .await;
            assert_eq!(
                (s, v[field][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{body}"
            );
        }
        let (s, v) = app
            .post(
                "account/session/create/",
                json!({"user": "me", "browser": "Chrome", "browser_version": "1"}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["user"][0].is_string());
        let (s, _) = app
            .post(
                "account/session/create/",
                json!({"user": me, "browser": "Chrome", "browser_version": "1"}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let (s, _) = app.get(&retrieve("act@acme.test", &key), &t).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "a bad create wrote a session");

        let (s, created) = app
            .post(
                "account/session/create/",
                json!({"user": me, "browser": " Chrome ", "browser_version": "131.0"}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED);
        assert_eq!(created["user"], me);
        assert_eq!(created["browser"], "Chrome");
        assert_eq!(created["browser_version"], "131.0");
        let id = created["id"].as_i64().unwrap();
        let start = created["end_time"].as_i64().unwrap();

        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let (s, v) = app
            .patch(
                &format!("account/session/update/{id}/"),
                json!({}),
                Some(&t),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert!(v["end_time"].as_i64().unwrap() > start);

        // Someone else's session, unknown and malformed ids.
        let other = token(
            &app.user_in(&admin, "oth@acme.test", "org_user", Some(org))
                .await,
        );
        let (_, theirs) = app
            .post(
                "account/session/create/",
                json!({"user": app.user_row("oth@acme.test").await.id, "browser": "Edge", "browser_version": "1"}),
                Some(&other),
            )
            .await;
        for bad in [theirs["id"].to_string(), "999999".into(), "abc".into()] {
            let (s, _) = app
                .patch(
                    &format!("account/session/update/{bad}/"),
                    json!({}),
                    Some(&t),
                )
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{bad}");
        }

        // Retrieval names the user and the session key.
        let (s, v) = app.get(&retrieve("ACT@acme.test", &key), &t).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["id"], id);
        for (email, k) in [
            ("oth@acme.test", key.as_str()),
            ("act@acme.test", "another-key"),
        ] {
            let (s, _) = app.get(&retrieve(email, k), &t).await;
            assert_eq!(s, StatusCode::NOT_FOUND);
        }
        let (s, _) = app
            .get("account/retrieve-session/?email=act@acme.test", &t)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    }
);

async fn admin_id(app: &TestApp) -> i64 {
    app.user_row(ADMIN_EMAIL).await.id
}

// ----- 7. tokens and sessions ------------------------------------------------------------

both!(
    tokens_are_checked_against_key_session_and_header,
    |app: TestApp| async move {
        use gemba_cloud::auth::{Claims, Keys};
        let login = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let t = token(&login);
        let key = login["session_key"].as_str().unwrap().to_string();
        let uid = login["id"].as_i64().unwrap();
        let path = "account/get-permissions/";
        let status = |headers: Vec<(&'static str, String)>, tok: Option<String>| {
            let app = &app;
            async move {
                let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                app.call_with(Method::GET, path, None, tok.as_deref(), &h)
                    .await
            }
        };

        // The SessionKey header must name the token's session.
        let (s, _) = status(vec![("SessionKey", key.clone())], Some(t.clone())).await;
        assert_eq!(s, StatusCode::OK);
        let (s, v) = status(vec![("SessionKey", "another".into())], Some(t.clone())).await;
        assert_eq!(s.as_u16(), 499);
        assert_eq!(v["detail"], "Your session has ended. Please sign in again.");

        // Missing, malformed and foreign tokens.
        assert_eq!(status(vec![], None).await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(
            status(vec![("Authorization", format!("Basic {t}"))], None)
                .await
                .0,
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            status(vec![], Some("abc.def.ghi".into())).await.0,
            StatusCode::UNAUTHORIZED
        );
        let now = unix_now() as i64;
        let claims = Claims {
            sub: uid,
            sid: key.clone(),
            full: true,
            iat: now,
            exp: now + 600,
        };
        let foreign = Keys::new(b"another-key-another-key-another!!")
            .sign(&claims)
            .unwrap();
        let (s, v) = status(vec![], Some(foreign)).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert_eq!(v["detail"], "Given token not valid for any token type");
        // The right key but another user in the claims: the session is not theirs.
        let other_user = app
            .state
            .keys
            .sign(&Claims {
                sub: uid + 1000,
                ..claims.clone()
            })
            .unwrap();
        assert_eq!(
            status(vec![], Some(other_user)).await.0,
            StatusCode::UNAUTHORIZED
        );
        // An unknown session.
        let unknown = app
            .state
            .keys
            .sign(&Claims {
                sid: "no-such-session".into(),
                ..claims.clone()
            })
            .unwrap();
        assert_eq!(
            status(vec![], Some(unknown)).await.0,
            StatusCode::UNAUTHORIZED
        );

        // A temporary token: expired by time, expired in the database, or promoted
        // to "full" without the code.
        let pending = app.pending_login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let temp = token(&pending);
        let sid = pending["session_key"].as_str().unwrap().to_string();
        assert_eq!(
            app.get("account/send_otp_code/", &temp).await.0,
            StatusCode::OK
        );
        let expired = app
            .state
            .keys
            .sign(&Claims {
                sid: sid.clone(),
                full: false,
                iat: now - 1200,
                exp: now - 600,
                ..claims.clone()
            })
            .unwrap();
        assert_eq!(
            app.get("account/resend_otp/", &expired).await.0,
            StatusCode::UNAUTHORIZED
        );
        let promoted = app
            .state
            .keys
            .sign(&Claims {
                sid: sid.clone(),
                ..claims.clone()
            })
            .unwrap();
        assert_eq!(
            status(vec![], Some(promoted)).await.0,
            StatusCode::UNAUTHORIZED
        );
        sqlx::query("UPDATE auth_sessions SET expires_at = 0 WHERE id = $1")
            .bind(&sid)
            .execute(&app.state.db.pool)
            .await
            .unwrap();
        let (s, v) = app.get("account/resend_otp/", &temp).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert_eq!(v["detail"], "Your session has ended. Please sign in again.");
        let code = app.last_code(ADMIN_EMAIL).await;
        let (s, _) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);

        // A revoked session.
        assert_eq!(status(vec![], Some(t.clone())).await.0, StatusCode::OK);
        app.patch("account/logout/", json!({}), Some(&t)).await;
        let (s, v) = status(vec![], Some(t.clone())).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert_eq!(v["detail"], "Your session has ended. Please sign in again.");

        // A deactivated user.
        let t2 = token(&app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await);
        gemba_cloud::db::users::set_flag(&app.state.db, uid, "is_active", false)
            .await
            .unwrap();
        assert_eq!(status(vec![], Some(t2)).await.0, StatusCode::UNAUTHORIZED);
    }
);

// ----- 8. admin sign-in, single sign-on --------------------------------------------------

both!(
    admin_login_refuses_non_admins_and_sso_answers_501,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        app.quick_user("oa@acme.test", "Oda", "org_admin", &[org])
            .await;
        let path = "account/admin-login/";
        let (s, v) = app
            .post(
                path,
                json!({"email": "oa@acme.test", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(
            (s, v["non_field_errors"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Only super admins can sign in here.")
            )
        );
        let (s, v) = app
            .post(
                path,
                json!({"email": ADMIN_EMAIL, "password": "wrong-pass-1"}),
                None,
            )
            .await;
        assert_eq!(
            (s, v["non_field_errors"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Unable to log in with provided credentials.")
            )
        );
        let (s, v) = app.post(path, json!({"email": ADMIN_EMAIL}), None).await;
        assert_eq!(
            (s, v["password"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        let (s, v) = app
            .post(
                path,
                json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["role"], "admin");
        assert_eq!(v["require_otp"], true);

        for p in [
            "account/azure-signin/",
            "account/azure-signup/",
            "account/google-sso/",
            "account/refresh-azure-token/",
            "account/register_for_aws_subscription",
        ] {
            let (s, v) = app.post(p, json!({"access_token": "x"}), None).await;
            assert_eq!(s, StatusCode::NOT_IMPLEMENTED, "{p}");
            assert_eq!(
                (v["detail"].as_str(), v["msg"].as_str()),
                (
                    Some("Single sign-on is not configured on this server."),
                    Some("Single sign-on is not configured on this server.")
                ),
                "{p}"
            );
        }
    }
);

// ----- 9. sub-domains --------------------------------------------------------------------

both!(
    organisation_sub_domains_scope_sign_in_and_calls,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let acme = app.create_org(&admin, "Acme").await;
        let beta = app.create_org(&admin, "Beta").await;
        // A member of both, currently in Beta; a Beta-only user; another Acme member.
        let both_login = app
            .user_in(&admin, "two@x.test", "org_admin", Some(beta))
            .await;
        app.put(
            "account/assign_user_org",
            json!({"email": "two@x.test", "organization": acme}),
            &admin,
        )
        .await;
        let two = token(&both_login);
        let beta_only = token(
            &app.user_in(&admin, "b@beta.test", "org_admin", Some(beta))
                .await,
        );
        app.quick_user("c@acme.test", "Cat", "org_user", &[acme])
            .await;

        let login_at = |host: &'static str, email: &'static str| {
            let app = &app;
            async move {
                app.call_with(
                    Method::POST,
                    "account/login_v2",
                    Some(json!({"email": email, "password": PASSWORD})),
                    None,
                    &[("Host", host)],
                )
                .await
            }
        };
        // Sign-in on a sub-domain needs membership of it.
        for host in ["acme.localhost", "Acme.localhost:8080", "nope.localhost"] {
            let (s, v) = login_at(host, "b@beta.test").await;
            assert_eq!(
                (s, v["non_field_errors"][0].as_str()),
                (
                    StatusCode::BAD_REQUEST,
                    Some("You do not belong to this organization.")
                ),
                "{host}"
            );
        }
        let (s, _) = login_at("beta.localhost", "b@beta.test").await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = login_at("acme.localhost", "two@x.test").await;
        assert_eq!(s, StatusCode::OK);
        let (s, v) = app
            .call_with(
                Method::POST,
                "account/login_v2",
                Some(json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})),
                None,
                &[("Host", "acme.localhost")],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");

        // Calls on a sub-domain act in that organisation, without an Organization header.
        let emails = |v: &Value| -> Vec<String> {
            v["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u["email"].as_str().unwrap().to_string())
                .collect()
        };
        let list_at = |host: Option<&'static str>, tok: String| {
            let app = &app;
            async move {
                let h: Vec<(&str, &str)> = host.map(|h| ("Host", h)).into_iter().collect();
                app.call_with(Method::GET, "account/users_list/v2", None, Some(&tok), &h)
                    .await
            }
        };
        let (s, v) = list_at(Some("acme.localhost"), two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(&v), ["two@x.test", "c@acme.test"]);
        let (s, v) = list_at(None, two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(&v), ["two@x.test", "b@beta.test"]);
        let (s, v) = list_at(Some("beta.localhost:3000"), two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(&v), ["two@x.test", "b@beta.test"]);
        // A non-member's token on Acme's sub-domain.
        let (s, _) = list_at(Some("acme.localhost"), beta_only.clone()).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // An unknown sub-domain.
        let (s, v) = list_at(Some("nope.localhost"), two.clone()).await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (
                StatusCode::NOT_FOUND,
                Some("No organization is served at nope.")
            )
        );

        // The admin host is no organisation: calls there use the current one, and
        // the admin signs in there.
        let (s, v) = list_at(Some("admin.localhost"), two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(&v), ["two@x.test", "b@beta.test"]);
        let (s, v) = app
            .call_with(
                Method::GET,
                "account/users_list/v2?is_admin=true",
                None,
                Some(&admin),
                &[("Host", "admin.localhost")],
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["count"], 4);
        let (s, v) = app
            .call_with(
                Method::POST,
                "account/admin-login/",
                Some(json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})),
                None,
                &[("Host", "admin.localhost")],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // So no organisation may take the admin host's name (or www).
        for (name, display) in [("admin", "Admin"), ("www", "WWW")] {
            let (s, v) = app
                .post(
                    "organization/",
                    json!({"org_name_to_display": display}),
                    Some(&admin),
                )
                .await;
            assert_eq!(
                (s, v["name"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some("This name is reserved.")),
                "{name}"
            );
            let (s, _) = app
                .patch(
                    &format!("organization/{acme}/"),
                    json!({"name": name}),
                    Some(&admin),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        let (_, v) = app.get("organization/get_organizations", &admin).await;
        assert_eq!(v["count"], 2);
    }
);

// ----- 10. user lists --------------------------------------------------------------------

both!(
    users_list_pages_filters_and_searches,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Acme").await;
        let b = app.create_org(&admin, "Beta").await;
        let oa = token(&app.user_in(&admin, "oa@a.test", "org_admin", Some(a)).await);
        for i in 0..5 {
            app.quick_user(&format!("op{i}@a.test"), "Op", "org_user", &[a])
                .await;
        }
        for i in 0..3 {
            app.quick_user(&format!("lab{i}@a.test"), "Lab", "labeler", &[a])
                .await;
        }
        for i in 0..3 {
            app.quick_user(&format!("ana{i}@a.test"), "Ana", "analytics_user", &[a])
                .await;
        }
        let inactive = app.quick_user("off@a.test", "Off", "org_user", &[a]).await;
        gemba_cloud::db::users::set_flag(&app.state.db, inactive, "is_active", false)
            .await
            .unwrap();
        let zim = app
            .quick_user("under_score@a.test", "Zed", "org_user", &[b, a])
            .await;
        gemba_cloud::db::users::set(&app.state.db, zim, "lastname", "Zimmer")
            .await
            .unwrap();
        app.quick_user("x@b.test", "Bea", "org_user", &[b]).await;
        // Acme: oa + 5 + 3 + 3 + off + under_score = 14.

        let list = |q: &str| {
            let (app, oa, q) = (&app, oa.clone(), q.to_string());
            async move { app.get(&format!("account/users_list/v2{q}"), &oa).await }
        };
        let (s, p1) = list("").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(p1["count"], 14);
        assert_eq!(p1["results"].as_array().unwrap().len(), 10);
        assert_eq!(p1["results"][0]["email"], "oa@a.test");
        let (_, p2) = list("?page=2").await;
        assert_eq!(p2["count"], 14);
        assert_eq!(p2["results"].as_array().unwrap().len(), 4);
        let ids: std::collections::HashSet<i64> = p1["results"]
            .as_array()
            .unwrap()
            .iter()
            .chain(p2["results"].as_array().unwrap())
            .map(|u| u["id"].as_i64().unwrap())
            .collect();
        assert_eq!(ids.len(), 14, "pages overlap");
        let (s, p3) = list("?page=3").await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            (
                p3["count"].as_i64(),
                p3["results"].as_array().unwrap().len()
            ),
            (Some(14), 0)
        );

        let count = |q: &'static str| {
            let list = &list;
            async move {
                let (s, v) = list(q).await;
                assert_eq!(s, StatusCode::OK, "{q}: {v}");
                v["count"].as_i64().unwrap()
            }
        };
        assert_eq!(count("?search=LAB").await, 3);
        assert_eq!(count("?search=zimm").await, 1);
        assert_eq!(count("?search=op3@").await, 1);
        assert_eq!(count("?search=x@b.test").await, 0);
        // Wildcards are searched for literally.
        assert_eq!(count("?search=%25").await, 0);
        assert_eq!(count("?search=_").await, 1);
        // Empty filters filter nothing.
        assert_eq!(count("?search=").await, 14);
        assert_eq!(count("?role__name=").await, 14);
        assert_eq!(count("?role__name=labeler").await, 3);
        assert_eq!(count("?role__name=org_user").await, 7);
        assert_eq!(count("?is_active=false").await, 1);
        assert_eq!(count("?is_active=true").await, 13);
        assert_eq!(count("?is_org_switch=true").await, 13);
        assert_eq!(count("?is_org_switch=false").await, 14);
        assert_eq!(
            count("?role__name=org_user&is_active=true&search=op").await,
            5
        );

        for (q, field) in [
            ("?page=0", "page"),
            ("?page=-1", "page"),
            ("?page=abc", "non_field_errors"),
            ("?role__name=boss", "role__name"),
            ("?is_active=maybe", "non_field_errors"),
            ("?is_org_switch=2", "non_field_errors"),
        ] {
            let (s, v) = list(q).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{q}");
            assert!(v[field][0].is_string(), "{q}: {v}");
        }
        let (_, v) = list("?role__name=boss").await;
        assert_eq!(v["role__name"][0], "Unknown role \"boss\".");
        let (_, v) = list("?page=0").await;
        assert_eq!(v["page"][0], "Invalid page.");

        // Unpaged, with the same filters.
        let (s, v) = app.get("account/users_list", &oa).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v.as_array().unwrap().len(), 14);
        let (_, v) = app
            .get(
                "account/users_list?role__name=analytics_user&is_active=true",
                &oa,
            )
            .await;
        assert_eq!(v.as_array().unwrap().len(), 3);
        let (_, v) = app.get("account/users_list?is_org_switch=true", &oa).await;
        assert_eq!(v.as_array().unwrap().len(), 13);

        // Who may list: not an org user, not everyone's list for an org admin.
        let ou = token(&app.login("op0@a.test", PASSWORD).await);
        assert_eq!(
            app.get("account/users_list/v2", &ou).await.0,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            app.get("account/users_list", &ou).await.0,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            app.get("account/users_list/v2?is_admin=true", &oa).await.0,
            StatusCode::FORBIDDEN
        );
        let (s, v) = app.get("account/users_list/v2?is_admin=true", &admin).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["count"], 16);
        let (s, _) = app
            .call(Method::GET, "account/users_list/v2", None, None)
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
    }
);

// ----- 11. the command line ----------------------------------------------------------------

/// `gemba-cloud` with `args`, no inherited `GEMBA_…` variables and `env` added.
fn cli(args: &[&str], env: &[(&str, &str)], cwd: &std::path::Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_gemba-cloud"));
    c.args(args).current_dir(cwd).kill_on_drop(true);
    for (k, _) in std::env::vars() {
        if k.starts_with("GEMBA_") {
            c.env_remove(k);
        }
    }
    c.env("RUST_LOG", "warn");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

async fn run(args: &[&str], env: &[(&str, &str)], cwd: &std::path::Path) -> (bool, String, String) {
    let out = cli(args, env, cwd).output().await.unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

both!(
    admin_create_on_the_command_line_makes_a_super_admin,
    |app: TestApp| async move {
        // The command works on the running server's storage.
        let data = app.data_dir();
        let mut base = vec!["admin", "create", "--data", data.to_str().unwrap()];
        let url = app.state.settings.database_url.clone();
        if let Some(u) = &url {
            base.extend(["--database-url", u.as_str()]);
        }
        let with = |extra: &[&'static str]| {
            let mut a = base.clone();
            a.extend_from_slice(extra);
            a
        };
        let cwd = app.dir.path();
        let (ok, out, err) = run(
            &with(&["--email", "Cli@Gemba.test", "--password", "cli-pass-123"]),
            &[],
            cwd,
        )
        .await;
        assert!(ok, "{err}");
        assert!(out.contains("created super admin"), "{out}");
        let full = app.login("cli@gemba.test", "cli-pass-123").await;
        assert_eq!(full["role"], "admin");
        let r = app
            .raw(
                Method::GET,
                "account/get-permissions/",
                Some(&token(&full)),
                &[],
            )
            .await;
        assert_eq!(r.text().await.unwrap(), "true");

        // The password may come from the environment.
        let (ok, _, err) = run(
            &with(&["--email", "env@gemba.test"]),
            &[("GEMBA_ADMIN_PASSWORD", "env-pass-123")],
            cwd,
        )
        .await;
        assert!(ok, "{err}");
        app.pending_login("env@gemba.test", "env-pass-123").await;

        // Bad input: clear errors, non-zero exit, nothing created.
        for (extra, msg) in [
            (
                vec!["--email", "cli@gemba.test", "--password", "cli-pass-456"],
                "already exists",
            ),
            (
                vec!["--email", "weak@gemba.test", "--password", "short1"],
                "This password is too short",
            ),
            (
                vec!["--email", "not-an-email", "--password", "cli-pass-123"],
                "Enter a valid email address.",
            ),
            (vec!["--password", "cli-pass-123"], "--email"),
            (vec!["--email", "nopw@gemba.test"], "--password"),
        ] {
            let (ok, _, err) = run(&with(&extra), &[], cwd).await;
            assert!(!ok, "{extra:?} succeeded");
            assert!(err.contains(msg), "{extra:?}: {err}");
        }
        for email in ["weak@gemba.test", "not-an-email", "nopw@gemba.test"] {
            assert!(
                gemba_cloud::db::users::by_email(&app.state.db, email)
                    .await
                    .unwrap()
                    .is_none()
            );
        }
        let (_, v) = app
            .get(
                "account/users_list/v2?is_admin=true&role__name=admin",
                &token(&full),
            )
            .await;
        assert_eq!(v["count"], 3);
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_created_in_a_fresh_data_folder_signs_in_once_the_server_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("fresh");
    let (ok, out, err) = run(
        &[
            "admin",
            "create",
            "--data",
            data.to_str().unwrap(),
            "--email",
            "first@gemba.test",
            "--password",
            "first-pass-1",
        ],
        &[],
        tmp.path(),
    )
    .await;
    assert!(ok, "{err}");
    assert!(out.contains("first@gemba.test"));
    assert!(data.join("gemba.db").exists());
    let app = TestApp::start_with(Backend::Sqlite, |s| s.data = data.clone()).await;
    let full = app.login("first@gemba.test", "first-pass-1").await;
    assert_eq!(full["role"], "admin");
}

#[test]
fn default_config_output_loads_as_the_defaults_and_a_file_overrides_them() {
    use gemba_cloud::config::Settings;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gemba-cloud"))
        .arg("default-config")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gemba.toml");
    std::fs::write(&file, &text).unwrap();
    // Every value of the printed example is the default: loading it gives what an
    // empty file gives (both under the same environment, whatever it holds).
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let loaded = Settings::load(Some(&file)).unwrap();
    let defaults = Settings::load(Some(&empty)).unwrap();
    assert_eq!(format!("{loaded:?}"), format!("{defaults:?}"));

    // The file beats the defaults, nested tables included.
    let changed = text
        .replace(
            "base_domain = \"localhost\"",
            "base_domain = \"gemba.example\"",
        )
        .replace("max_failures = 5", "max_failures = 7");
    assert_ne!(changed, text);
    std::fs::write(&file, &changed).unwrap();
    let loaded = Settings::load(Some(&file)).unwrap();
    assert_eq!(loaded.base_domain, "gemba.example");
    assert_eq!(loaded.login_limit.max_failures, 7);
    assert_eq!(
        loaded.login_limit.window_secs,
        defaults.login_limit.window_secs
    );
    assert_eq!(loaded.mqtt, defaults.mqtt);

    // A bad value or a missing file is an error, not a silent default.
    std::fs::write(&file, "http = \"nowhere\"\n").unwrap();
    let e = Settings::load(Some(&file)).unwrap_err();
    assert!(e.to_string().contains("http"), "{e}");
    assert!(Settings::load(Some(&dir.path().join("missing.toml"))).is_err());
}

/// Starts `serve`, waits for `/api/health` on `port`, answers the child and the health body.
async fn serve(
    args: &[&str],
    env: &[(&str, &str)],
    cwd: &std::path::Path,
    port: u16,
) -> (tokio::process::Child, Value) {
    let mut child = cli(args, env, cwd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/api/health");
    for _ in 0..300 {
        if let Ok(r) = reqwest::get(&url).await
            && r.status().is_success()
        {
            return (child, r.json().await.unwrap());
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("serve {args:?} exited: {status}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("serve {args:?} did not answer on port {port}");
}

/// Failed sign-ins of an unknown address until the answer is 429; answers how many.
async fn failures_until_locked(port: u16) -> usize {
    let c = reqwest::Client::new();
    for n in 0..20 {
        let r = c
            .post(format!("http://127.0.0.1:{port}/api/account/login_v2"))
            .json(&json!({"email": "nobody@gemba.test", "password": "wrong-pass-1"}))
            .send()
            .await
            .unwrap();
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            return n;
        }
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    }
    panic!("never locked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_come_from_file_then_environment_then_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |n: &str| tmp.path().join(n);
    let (p_file, p_env, p_flag) = (free_port(), free_port(), free_port());
    let mqtt = free_port_pair();
    let config = dir("gemba.toml");
    std::fs::write(
        &config,
        format!(
            "data = {:?}\nhttp = \"127.0.0.1:{p_file}\"\nmqtt = \"127.0.0.1:{mqtt}\"\n\
             [login_limit]\nmax_failures = 3\n[kdf]\nmemory_kib = 4096\niterations = 1\n",
            dir("file-data")
        ),
    )
    .unwrap();
    let conf = config.to_str().unwrap();
    let env_data = dir("env-data");
    let flag_data = dir("flag-data");
    let (http_env, http_flag) = (format!("127.0.0.1:{p_env}"), format!("127.0.0.1:{p_flag}"));

    // All three layers: the flag wins for http, the environment for data and the
    // nested login limit, the file for mqtt (over the default).
    let env = [
        ("GEMBA_HTTP", http_env.as_str()),
        ("GEMBA_DATA", env_data.to_str().unwrap()),
        ("GEMBA_LOGIN_LIMIT__MAX_FAILURES", "2"),
    ];
    let (mut child, health) = serve(
        &["--config", conf, "serve", "--http", &http_flag],
        &env,
        tmp.path(),
        p_flag,
    )
    .await;
    assert_eq!(health["database"], "sqlite");
    assert!(env_data.join("gemba.db").exists());
    assert!(!dir("file-data").exists());
    drop(std::net::TcpStream::connect(("127.0.0.1", mqtt)).expect("the broker listens"));
    assert_eq!(failures_until_locked(p_flag).await, 2);
    child.kill().await.unwrap();
    child.wait().await.unwrap();

    // Environment over file; the --data flag over the environment.
    let (mut child, _) = serve(
        &[
            "--config",
            conf,
            "serve",
            "--data",
            flag_data.to_str().unwrap(),
        ],
        &env[..2],
        tmp.path(),
        p_env,
    )
    .await;
    assert!(flag_data.join("gemba.db").exists());
    assert_eq!(failures_until_locked(p_env).await, 3);
    child.kill().await.unwrap();
    child.wait().await.unwrap();

    // The file alone; GEMBA_CONFIG names it too.
    let (mut child, _) = serve(&["serve"], &[("GEMBA_CONFIG", conf)], tmp.path(), p_file).await;
    assert!(dir("file-data").join("gemba.db").exists());
    child.kill().await.unwrap();
    child.wait().await.unwrap();

    // Bad settings stop the start with a clear message.
    for (args, env, msg) in [
        (
            vec!["--config", conf, "serve", "--http", "nowhere"],
            vec![],
            "is not an address",
        ),
        (
            vec!["--config", conf, "serve"],
            vec![("GEMBA_HTTP", "nowhere")],
            "configuration",
        ),
        (
            vec!["--config", "/no/such/gemba.toml", "serve"],
            vec![],
            "configuration",
        ),
        (
            vec!["--config", conf, "serve", "--database-url", "mysql://x"],
            vec![],
            "unsupported database URL",
        ),
        (vec!["serve", "--no-such-flag"], vec![], "--no-such-flag"),
    ] {
        let (ok, _, err) = run(&args, &env, tmp.path()).await;
        assert!(!ok, "{args:?} started");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}
