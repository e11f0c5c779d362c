//! Passwords: forgotten and reset by a mailed link, changed by their owner, and set by
//! an org admin, which must be changed first (303).

use reqwest::StatusCode;
use serde_json::json;

use super::{MUST_CHANGE, TOO_MANY_ATTEMPTS};
use crate::both;
use crate::common::*;

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
