//! Passwords: forgotten and reset by a mailed link, changed by their owner, and set by
//! an org admin, which must be changed first (303).

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{
    ActivitySession, ChangePasswordRequest, EmailRequest, RefreshRequest, ResetPasswordRequest,
    SessionCreate, SessionEnd, TermsRequest, UserSummary, WorkstationPasswordRequest,
};
use gemba_shared::api::v1::organization::DepartmentCreate;
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{MUST_CHANGE, TOO_MANY_ATTEMPTS};
use crate::account::{ANON, credentials, login, user_in, wire};
use crate::both;
use crate::common::*;

fn email(email: &str) -> EmailRequest {
    EmailRequest {
        email: email.into(),
    }
}

fn reset(token: &str, password: &str) -> ResetPasswordRequest {
    ResetPasswordRequest {
        token: token.into(),
        password: password.into(),
    }
}

fn change(old_password: &str, new_password: &str) -> ChangePasswordRequest {
    ChangePasswordRequest {
        old_password: old_password.into(),
        new_password: new_password.into(),
    }
}

fn set_for(user: i64, password: &str) -> WorkstationPasswordRequest {
    WorkstationPasswordRequest {
        user,
        password: password.into(),
    }
}

both!(
    forgotten_password_is_reset_by_a_single_use_mailed_link,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let addr = "forgot@acme.test";
        let login_v = user_in(&app, &admin, addr, "org_user", Some(org)).await;
        let old = &login_v.token;
        // Lock the address.
        for _ in 0..5 {
            app.send_refused(
                Method::POST,
                "account/login_v2",
                &credentials(addr, "wrong-pass-1"),
                ANON,
            )
            .await;
        }
        let (s, _) = app
            .send_refused(
                Method::POST,
                "account/login_v2",
                &credentials(addr, PASSWORD),
                ANON,
            )
            .await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);

        // Bad input.
        let forgot = "account/forgot_password/";
        let (s, v) = app
            .send_refused(Method::PATCH, forgot, &email("nope"), ANON)
            .await;
        assert_eq!(
            (s, v["email"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Enter a valid email address.")
            )
        );
        let (s, v) = app.patch(forgot, json!({}), None).await;
        assert_eq!(
            (s, v["email"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        // An unknown address answers the same as a known one, and nothing is mailed.
        let unknown: Msg = app
            .send_as(Method::PATCH, forgot, &email("ghost@acme.test"), ANON)
            .await;
        assert!(app.last_mail("ghost@acme.test").await.is_none());
        let known: Msg = app
            .send_as(Method::PATCH, forgot, &email("Forgot@Acme.test"), ANON)
            .await;
        assert_eq!(unknown, known);
        let earlier = app.last_link_token(addr, "/reset-password/").await;
        let _: Msg = app.send_as(Method::PATCH, forgot, &email(addr), ANON).await;
        let link = app.last_link_token(addr, "/reset-password/").await;
        assert_ne!(earlier, link);

        // A weak password is refused and the link still works afterwards.
        let path = "account/reset_password/";
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
                .send_refused(Method::PATCH, path, &reset(&link, pw), ANON)
                .await;
            assert_eq!(
                (s, v["password"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg))
            );
        }
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                path,
                &reset("not-a-token", "new-pass-123"),
                ANON,
            )
            .await;
        assert_eq!(
            (s, v["token"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("Token expired/Invalid!"))
        );
        let (s, v) = app.patch(path, json!({"token": link}), None).await;
        assert_eq!(
            (s, v["password"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        assert_eq!(app.get("organization/", old).await.0, StatusCode::OK);

        let v: Msg = app
            .send_as(Method::PATCH, path, &reset(&link, "new-pass-123"), ANON)
            .await;
        assert_eq!(v.msg, "Your password has been reset. Please sign in.");
        // Single use, and the earlier link died with it.
        for t in [&link, &earlier] {
            let (s, v) = app
                .send_refused(Method::PATCH, path, &reset(t, "other-pass-123"), ANON)
                .await;
            assert_eq!(
                (s, v["token"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some("Token expired/Invalid!"))
            );
        }
        // Old sessions are over.
        assert_eq!(
            app.get("organization/", old).await.0,
            StatusCode::UNAUTHORIZED
        );
        let refresh = RefreshRequest {
            refresh: login_v.refresh.clone().unwrap(),
        };
        let (s, _) = app
            .send_refused(Method::POST, "account/token/refresh/", &refresh, ANON)
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        // The lockout is lifted; only the new password works.
        let full = login(&app, addr, "new-pass-123").await;
        assert!(!full.require_otp);
        let (s, _) = app
            .send_refused(
                Method::POST,
                "account/login_v2",
                &credentials(addr, PASSWORD),
                ANON,
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
        let this = user_in(&app, &admin, email, "org_user", Some(org))
            .await
            .token;
        let other = login(&app, email, PASSWORD).await.token;
        let path = "account/request_change_password/";
        let cases = [
            (
                change("wrong-pass-1", "new-pass-123"),
                "old_password",
                "Your old password is not correct.",
            ),
            (
                change(PASSWORD, PASSWORD),
                "new_password",
                "The new password must differ from the old one.",
            ),
            (
                change(PASSWORD, "short1"),
                "new_password",
                "This password is too short. It must contain at least 8 characters.",
            ),
            (
                change(PASSWORD, "123456789012"),
                "new_password",
                "This password is entirely numeric.",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app.send_refused(Method::PATCH, path, &body, &this).await;
            assert_eq!(
                (s, v[field][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{body:?}"
            );
        }
        let (s, v) = app
            .patch(path, json!({"old_password": PASSWORD}), Some(&this))
            .await;
        assert_eq!(
            (s, v["new_password"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        let (s, _) = app
            .patch(path, wire(&change(PASSWORD, "new-pass-123")), None)
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        // Nothing changed so far.
        assert_eq!(app.get("organization/", &other).await.0, StatusCode::OK);

        let v: Msg = app
            .send_as(
                Method::PATCH,
                path,
                &change(PASSWORD, "new-pass-123"),
                &this,
            )
            .await;
        assert_eq!(v.msg, "Your changes have been saved!");
        assert_eq!(app.get("organization/", &this).await.0, StatusCode::OK);
        assert_eq!(
            app.get("organization/", &other).await.0,
            StatusCode::UNAUTHORIZED
        );
        let (s, _) = app
            .send_refused(
                Method::POST,
                "account/login_v2",
                &credentials(email, PASSWORD),
                ANON,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // (A completed sign-in also clears the failures counted so far.)
        app.login(email, "new-pass-123").await;

        // Guessing the old password with a stolen token runs into the lockout.
        for _ in 0..5 {
            let (s, _) = app
                .send_refused(
                    Method::PATCH,
                    path,
                    &change("guess-pass-1", "x-pass-1234"),
                    &this,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                path,
                &change("new-pass-123", "x-pass-1234"),
                &this,
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
        let oa = user_in(&app, &admin, "oa@acme.test", "org_admin", Some(org))
            .await
            .token;
        let ws_login = user_in(&app, &admin, "ws@acme.test", "workstation_user", Some(org)).await;
        let ws_old = &ws_login.token;
        let ws = ws_login.id;
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
        let ou_token = login(&app, "ou2@acme.test", PASSWORD).await.token;
        let (s, _) = app
            .send_refused(Method::PATCH, path, &set_for(ws, "ws-pass-123"), &ou_token)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        for id in [ws_b, 999_999] {
            let (s, _) = app
                .send_refused(Method::PATCH, path, &set_for(id, "ws-pass-123"), &oa)
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND);
        }
        let (s, v) = app
            .send_refused(Method::PATCH, path, &set_for(ou, "ws-pass-123"), &oa)
            .await;
        assert_eq!(
            (s, v["user"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("Only a workstation user's password can be set here.")
            )
        );
        let (s, v) = app
            .send_refused(Method::PATCH, path, &set_for(ws, "short1"), &oa)
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
        assert_eq!(app.get("organization/", ws_old).await.0, StatusCode::OK);
        assert!(!app.user_row("ws@acme.test").await.must_change_password);

        let v: Msg = app
            .send_as(Method::PATCH, path, &set_for(ws, "ws-pass-123"), &oa)
            .await;
        assert_eq!(v.msg, "Your changes have been saved!");
        assert!(app.user_row("ws@acme.test").await.must_change_password);
        assert_eq!(
            app.get("organization/", ws_old).await.0,
            StatusCode::UNAUTHORIZED
        );

        // Signed in with the set password, every call but a few answers 303.
        let login_v = login(&app, "ws@acme.test", "ws-pass-123").await;
        let t = &login_v.token;
        for path in [
            "organization/".to_string(),
            "account/get-permissions/".to_string(),
            format!("organization/{org}/department/"),
            "account/roles/".to_string(),
            "account/fetch_local_storage_data".to_string(),
        ] {
            let (s, v) = app.get(&path, t).await;
            assert_eq!(
                (s, v["detail"].as_str()),
                (StatusCode::SEE_OTHER, Some(MUST_CHANGE)),
                "{path}"
            );
        }
        let department = DepartmentCreate {
            name: "Line 1".into(),
        };
        let (s, _) = app
            .send_refused(
                Method::POST,
                &format!("organization/{org}/department/"),
                &department,
                t,
            )
            .await;
        assert_eq!(s, StatusCode::SEE_OTHER);
        // The session calls, terms and logout still work.
        let session: ActivitySession = app
            .create_as(
                "account/session/create/",
                &SessionCreate {
                    user: ws,
                    browser: "Firefox".into(),
                    browser_version: "128".into(),
                },
                t,
            )
            .await;
        let _: SessionEnd = app
            .send_as(
                Method::PATCH,
                &format!("account/session/update/{}/", session.id),
                &json!({}),
                t,
            )
            .await;
        let _: ActivitySession = app
            .get_as(
                &format!(
                    "account/retrieve-session/?email=ws@acme.test&sessionKey={}",
                    login_v.session_key
                ),
                t,
            )
            .await;
        let terms = TermsRequest {
            terms_and_conditions_accepted: true,
        };
        let _: UserSummary = app
            .send_as(
                Method::PATCH,
                &format!("account/update-delete/{ws}/"),
                &terms,
                t,
            )
            .await;
        let second = login(&app, "ws@acme.test", "ws-pass-123").await.token;
        let _: Msg = app
            .send_as(Method::PATCH, "account/logout/", &json!({}), &second)
            .await;

        // Changing it ends the 303s.
        let _: Msg = app
            .send_as(
                Method::PATCH,
                "account/request_change_password/",
                &change("ws-pass-123", "ws-own-pass-1"),
                t,
            )
            .await;
        assert!(!app.user_row("ws@acme.test").await.must_change_password);
        assert_eq!(app.get("organization/", t).await.0, StatusCode::OK);

        // The super admin may set it too, without naming an organisation.
        let _: Msg = app
            .send_as(Method::PATCH, path, &set_for(ws, "ws-pass-456"), &admin)
            .await;
        assert!(app.user_row("ws@acme.test").await.must_change_password);
    }
);
