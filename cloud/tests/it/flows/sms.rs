//! SMS as second factor: codes go to the given number through the outbox (never by
//! e-mail), a resend replaces the code, and only a full session moves them to another
//! number.

use reqwest::StatusCode;
use serde_json::json;

use super::METHOD_EXISTS;
use crate::both;
use crate::common::*;

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
