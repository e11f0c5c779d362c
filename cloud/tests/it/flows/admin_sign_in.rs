//! The super admin's sign-in, which refuses everyone else, and single sign-on (501).

use gemba_shared::api::v1::account::LoginUser;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::account::{ANON, credentials};
use crate::both;
use crate::common::*;

both!(
    admin_login_refuses_non_admins_and_sso_answers_501,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        app.quick_user("oa@acme.test", "Oda", "org_admin", &[org])
            .await;
        let path = "account/admin-login/";
        let (s, v) = app
            .send_refused(
                Method::POST,
                path,
                &credentials("oa@acme.test", PASSWORD),
                ANON,
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
            .send_refused(
                Method::POST,
                path,
                &credentials(ADMIN_EMAIL, "wrong-pass-1"),
                ANON,
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
        let v: LoginUser = app
            .send_as(
                Method::POST,
                path,
                &credentials(ADMIN_EMAIL, ADMIN_PASSWORD),
                ANON,
            )
            .await;
        assert_eq!(v.role.as_deref(), Some("admin"));
        assert!(v.require_otp);

        for p in [
            "account/azure-signin/",
            "account/azure-signup/",
            "account/google-sso/",
            "account/refresh-azure-token/",
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
        // The AWS Marketplace sign-up says why in `error` (the spec: "error in response").
        let (s, v) = app
            .post("account/register_for_aws_subscription", json!({}), None)
            .await;
        assert_eq!(s, StatusCode::NOT_IMPLEMENTED);
        assert_eq!(
            v["error"],
            "AWS Marketplace subscriptions are not configured on this server."
        );
    }
);
