//! SMS as second factor: codes go to the given number through the outbox (never by
//! e-mail), a resend replaces the code, and only a full session moves them to another
//! number.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{LoginUser, SmsMethodRequest};
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{METHOD_EXISTS, otp};
use crate::account::{pending_login, wire};
use crate::both;
use crate::common::*;

fn number(mobile_number: &str) -> SmsMethodRequest {
    SmsMethodRequest {
        mobile_number: mobile_number.into(),
    }
}

const SET_SMS: &str = "account/set_mfa_method_sms/";
const VERIFY: &str = "account/verify_otp_code/";

both!(
    sms_codes_go_to_the_given_number_through_the_outbox,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "sms@acme.test";
        app.quick_user(email, "Sam", "org_user", &[org]).await;
        let v = pending_login(&app, email, PASSWORD).await;
        assert!(!v.has_mobile_number);
        let temp = v.token;

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
                .send_refused(Method::PATCH, SET_SMS, &number(bad), &temp)
                .await;
            assert_eq!(
                (s, v["mobile_number"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(bad_number)),
                "{bad:?}"
            );
        }
        let (s, v) = app
            .post(
                SET_SMS,
                json!({"mobile_number": 4915112345678u64}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["mobile_number"][0].is_string(), "{v}");
        let (s, v) = app.post(SET_SMS, json!({}), Some(&temp)).await;
        assert_eq!(
            (s, v["mobile_number"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        // Without a token.
        let (s, _) = app
            .patch(SET_SMS, wire(&number("+4915112345678")), None)
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
        let v: Msg = app
            .send_as(
                Method::PATCH,
                SET_SMS,
                &number("+49 (151) 1234-5678"),
                &temp,
            )
            .await;
        assert_eq!(v.msg, "OTP Sent!");
        let to = "+4915112345678";
        let sms = gemba_cloud::db::outbox::list(&app.state.db, Some(to), 1)
            .await
            .unwrap()
            .remove(0);
        assert_eq!(sms.channel, "sms");
        assert_eq!(sms.recipients, to);
        assert!(sms.delivered);
        let file = sms.file_name.unwrap();
        assert!(file.ends_with(".sms.txt"), "{file}");
        let text = std::fs::read_to_string(app.data_dir().join("outbox").join(&file)).unwrap();
        let code = app.last_code(to).await;
        assert!(
            text.starts_with(&format!("To: {to}\n")) && text.contains(&code),
            "{text}"
        );
        // No e-mail carries the code.
        assert!(app.last_mail(email).await.is_none());

        let full: LoginUser = app.send_as(Method::POST, VERIFY, &otp(&code), &temp).await;
        assert!(full.has_mobile_number);
        assert_eq!(full.receive_otp_on.as_deref(), Some("sms"));
        let access = full.token;

        // The next sign-in sends its code by SMS; resend replaces it.
        let v = pending_login(&app, email, PASSWORD).await;
        assert_eq!(
            (v.receive_otp_on.as_deref(), v.has_mobile_number),
            (Some("sms"), true)
        );
        let temp = v.token;
        let _: Msg = app.get_as("account/send_otp_code/", &temp).await;
        let first = app.last_code(to).await;
        let _: Msg = app.get_as("account/resend_otp/", &temp).await;
        let second = app.last_code(to).await;
        if first != second {
            let (s, _) = app
                .send_refused(Method::POST, VERIFY, &otp(&first), &temp)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "a replaced code still works");
        }
        // The temporary token may not move the codes to another number…
        let (s, v) = app
            .send_refused(Method::POST, SET_SMS, &number("+4915199999999"), &temp)
            .await;
        assert_eq!(
            (s, v["non_field_errors"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some(METHOD_EXISTS))
        );
        let _: LoginUser = app
            .send_as(Method::POST, VERIFY, &otp(&second), &temp)
            .await;
        // …a full session may (POST works like PATCH).
        let _: Msg = app
            .send_as(Method::POST, SET_SMS, &number("+4915199999999"), &access)
            .await;
        assert_eq!(
            app.user_row(email).await.mobile_number.as_deref(),
            Some("+4915199999999")
        );
        let code = app.last_code("+4915199999999").await;
        let _: LoginUser = app
            .send_as(Method::POST, VERIFY, &otp(&code), &access)
            .await;
    }
);
