//! Identity: sign-up, verification, approval, sign-in with a one-time code, tokens.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::both;
use crate::common::*;

both!(
    newcomer_signs_up_is_approved_and_signs_in_with_an_email_code,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme Works").await;
        let (s, v) = app
        .post("account/register", json!({"name": "Ann", "lastname": "Lee", "email": "Ann@Example.com", "password": PASSWORD}), None)
        .await;
        assert_eq!(s, StatusCode::CREATED);
        assert_eq!(
            v["msg"],
            "Verification email has been sent please verify to complete registeration!"
        );

        // Not verified yet: sign-in refused.
        let (s, v) = app
            .post(
                "account/login_v2",
                json!({"email": "ann@example.com", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(
            v["non_field_errors"][0]
                .as_str()
                .unwrap()
                .contains("verify")
        );

        let link = app
            .last_link_token("ann@example.com", "/verify-email/")
            .await;
        let (s, v) = app
            .patch(&format!("account/verify-email/{link}"), json!({}), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            v["msg"],
            "Admin has been notified. Your account will be approved within 24 Hours."
        );
        let (subject, body) = app.last_mail(ADMIN_EMAIL).await.unwrap();
        assert!(subject.contains("awaits approval") && body.contains("ann@example.com"));
        // The same link does not work twice.
        let (s, v) = app
            .patch(&format!("account/verify-email/{link}"), json!({}), None)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["token"][0], "Token expired/Invalid!");

        // Awaiting approval.
        let (s, v) = app
            .post(
                "account/login_v2",
                json!({"email": "ann@example.com", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED);
        assert_eq!(v["message"], "User created successfully");

        // Pending users are the inactive ones.
        let (s, v) = app
            .get(
                "account/users_list/v2?is_admin=true&is_active=false",
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["count"], 1);
        assert_eq!(v["results"][0]["email"], "ann@example.com");

        let roles = app.get("account/roles/", &admin).await.1;
        let org_user = roles
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "org_user")
            .unwrap()["id"]
            .clone();
        let (s, v) = app
            .put(
                "account/approve_user",
                json!({"email": "ann@example.com", "roleId": org_user}),
                &admin,
            )
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some("User approved successfully!"))
        );
        // Approving again changes nothing and mails nothing.
        let mails = app.last_mail("ann@example.com").await;
        let admin_role = roles.as_array().unwrap()[0]["id"].clone();
        let (s, v) = app
            .put(
                "account/approve_user",
                json!({"email": "ann@example.com", "roleId": admin_role}),
                &admin,
            )
            .await;
        assert_eq!(
            (s, v["email"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("This user is already approved.")
            )
        );
        assert_eq!(
            app.user_row("ann@example.com").await.role.as_deref(),
            Some("org_user")
        );
        assert_eq!(app.last_mail("ann@example.com").await, mails);

        // Approved but without an organisation.
        let (s, v) = app
            .post(
                "account/login_v2",
                json!({"email": "ann@example.com", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v["non_field_errors"][0],
            "User is not assigned to any organization"
        );

        let (s, _) = app
            .put(
                "account/assign_user_org",
                json!({"email": "ann@example.com", "organization": org}),
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK);

        // Password → temporary session → choose e-mail → code → full session.
        let (s, v) = app
            .post(
                "account/login_v2",
                json!({"email": "ann@example.com", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["require_otp"], true);
        assert!(v["refresh"].is_null());
        let temp = token(&v);
        // A temporary token opens nothing but the MFA calls.
        let (s, _) = app.get("organization/", &temp).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let (s, v) = app
            .patch("account/set_mfa_method_email/", json!({}), Some(&temp))
            .await;
        assert_eq!((s, v["msg"].as_str()), (StatusCode::OK, Some("OTP Sent!")));
        let code = app.last_code("ann@example.com").await;
        let (s, v) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": "12345"}),
                Some(&temp),
            )
            .await;
        assert_eq!(
            (s, v["otp"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Please enter the 6-digit OTP")
            )
        );
        let wrong = if code == "000000" { "111111" } else { "000000" };
        let (s, _) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": wrong}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let (s, full) = app
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{full}");
        assert_eq!(full["require_otp"], false);
        assert_eq!(full["role"], "org_user");
        assert_eq!(full["Organization"]["id"], org);
        assert_eq!(full["Organization"]["org_name_to_display"], "Acme Works");
        let access = token(&full);
        let (s, v) = app.get("organization/", &access).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v.as_array().unwrap().len(), 1);
    }
);

both!(
    refresh_tokens_rotate_and_reuse_revokes_the_session,
    |app: TestApp| async move {
        let login = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let r1 = login["refresh"].as_str().unwrap().to_string();
        let (s, v) = app
            .post("account/token/refresh/", json!({"refresh": r1}), None)
            .await;
        assert_eq!(s, StatusCode::OK);
        let r2 = v["refresh"].as_str().unwrap().to_string();
        let a2 = v["access"].as_str().unwrap().to_string();
        assert_ne!(r1, r2);
        let r = app
            .client
            .get(format!("{}/account/get-permissions/", app.base))
            .bearer_auth(&a2)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.text().await.unwrap(), "true");
        // Presenting the spent token again revokes the whole session.
        let (s, _) = app
            .post("account/token/refresh/", json!({"refresh": r1}), None)
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let (s, _) = app
            .post("account/token/refresh/", json!({"refresh": r2}), None)
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert_eq!(
            app.get("account/get-permissions/", &a2).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
);

both!(logout_ends_the_session, |app: TestApp| async move {
    let login = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let t = token(&login);
    let (s, _) = app.patch("account/logout/", json!({}), Some(&t)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        app.get("account/get-permissions/", &t).await.0,
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
});

both!(
    repeated_failures_lock_the_address_with_429,
    |app: TestApp| async move {
        for _ in 0..5 {
            let (s, v) = app
                .post(
                    "account/login_v2",
                    json!({"email": ADMIN_EMAIL, "password": "wrong-pass-1"}),
                    None,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
            assert_eq!(
                v["non_field_errors"][0],
                "Unable to log in with provided credentials."
            );
        }
        // Locked: even the right password is refused for a minute.
        let (s, v) = app
            .post(
                "account/login_v2",
                json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(v["detail"], "Too many attempts.Please try after 1 min.");
        // Another admin lifts the lockout.
        gemba_cloud::create_admin(&app.state, "root2@gemba.test", ADMIN_PASSWORD)
            .await
            .unwrap();
        let a2 = token(&app.login("root2@gemba.test", ADMIN_PASSWORD).await);
        let (s, v) = app.get("account/lockout_list-delete/", &a2).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v[0]["email"], ADMIN_EMAIL);
        let (s, _) = app
            .delete(
                &format!("account/lockout_list-delete/?user={ADMIN_EMAIL}"),
                &a2,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = app
            .post(
                "account/login_v2",
                json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
    }
);

both!(
    bad_sign_up_input_gets_field_errors_and_creates_nothing,
    |app: TestApp| async move {
        let cases = [
            (
                json!({"name": "Ann1", "email": "a@b.co", "password": PASSWORD}),
                "name",
                "Invalid Name. Valid name only contain letters, dashes (-) and spaces",
            ),
            (
                json!({"name": " ", "email": "a@b.co", "password": PASSWORD}),
                "name",
                "Name is required!",
            ),
            (
                json!({"name": "Ann", "email": "not-an-email", "password": PASSWORD}),
                "email",
                "Enter a valid email address.",
            ),
            (
                json!({"name": "Ann", "email": "a@b.co", "password": "short"}),
                "password",
                "This password is too short. It must contain at least 8 characters.",
            ),
            (
                json!({"name": "Ann", "password": PASSWORD}),
                "email",
                "This field is required.",
            ),
            (
                json!({"name": 5, "email": "a@b.co", "password": PASSWORD}),
                "name",
                "",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app.post("account/register", body.clone(), None).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
            let got = v[field][0]
                .as_str()
                .unwrap_or_else(|| panic!("{field} error for {body}: {v}"));
            assert!(got.starts_with(msg), "{got}");
        }
        // Malformed JSON and a wrong content type.
        let r = app
            .client
            .post(format!("{}/account/register", app.base))
            .header("content-type", "application/json")
            .body("{\"name\":")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let r = app
            .client
            .post(format!("{}/account/register", app.base))
            .body("name=x")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        // A huge body.
        let big = "x".repeat(2 * 1024 * 1024);
        let (s, _) = app
            .post(
                "account/register",
                json!({"name": big, "email": "a@b.co", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
        // Nothing was created, nothing was mailed.
        let admin = app.admin_token().await;
        let (_, v) = app.get("account/users_list/v2?is_admin=true", &admin).await;
        assert_eq!(v["count"], 1, "{v}");
        assert!(app.last_mail("a@b.co").await.is_none());
        // Duplicate e-mail.
        app.post(
            "account/register",
            json!({"name": "Ann", "email": "dup@b.co", "password": PASSWORD}),
            None,
        )
        .await;
        let (s, v) = app
            .post(
                "account/register",
                json!({"name": "Ann", "email": "DUP@b.co", "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["email"][0], "user with this email already exists.");
    }
);

both!(
    non_admins_get_403_from_get_permissions,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Beta").await;
        let u = app
            .user_in(&admin, "u@beta.test", "org_admin", Some(org))
            .await;
        let (s, _) = app
            .call(
                Method::GET,
                "account/get-permissions/",
                None,
                Some(&token(&u)),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);
