//! An account's own changes: a new e-mail address confirmed from it, the terms, and
//! deleting the account (by its owner or its org admin only).

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{
    AssignUserOrg, ChangeEmailRequest, TermsRequest, TokenRequest, UserSummary,
};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::account::{ANON, credentials, login, pending_login, user_in, wire};
use crate::both;
use crate::common::*;

fn change_to(email: &str, password: &str) -> ChangeEmailRequest {
    ChangeEmailRequest {
        email: email.into(),
        password: password.into(),
    }
}

fn link(token: &str) -> TokenRequest {
    TokenRequest {
        token: token.into(),
    }
}

fn terms(accepted: bool) -> TermsRequest {
    TermsRequest {
        terms_and_conditions_accepted: accepted,
    }
}

both!(
    email_change_is_confirmed_from_the_new_address,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let email = "old@acme.test";
        let t = user_in(&app, &admin, email, "org_user", Some(org))
            .await
            .token;
        app.quick_user("taken@acme.test", "Tom", "org_user", &[org])
            .await;
        let path = "account/request_change_email/";
        let cases = [
            (
                change_to("nope", PASSWORD),
                "email",
                "Enter a valid email address.",
            ),
            (
                change_to("new@acme.test", "wrong-pass-1"),
                "password",
                "Your password is not correct.",
            ),
            (
                change_to("Taken@acme.test", PASSWORD),
                "email",
                "user with this email already exists.",
            ),
            (
                change_to(email, PASSWORD),
                "email",
                "user with this email already exists.",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app.send_refused(Method::POST, path, &body, &t).await;
            assert_eq!(
                (s, v[field][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{body:?}"
            );
        }
        let (s, v) = app
            .post(path, json!({"email": "new@acme.test"}), Some(&t))
            .await;
        assert_eq!(
            (s, v["password"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
        let (s, _) = app
            .post(path, wire(&change_to("new@acme.test", PASSWORD)), None)
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert!(app.last_mail("new@acme.test").await.is_none());

        let v: Msg = app
            .send_as(
                Method::POST,
                path,
                &change_to("New@Acme.test", PASSWORD),
                &t,
            )
            .await;
        assert_eq!(
            v.msg,
            "A confirmation link has been sent to the new address."
        );
        let token = app
            .last_link_token("new@acme.test", "verify-email-change=")
            .await;
        // Nothing changes until it is confirmed.
        assert_eq!(app.user_row(email).await.email, email);
        let verify = "account/verify-email-change/";
        let (s, v) = app
            .send_refused(Method::PATCH, verify, &link("bogus"), ANON)
            .await;
        assert_eq!(
            (s, v["token"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("Token expired/Invalid!"))
        );
        let (s, v) = app.patch(verify, json!({}), None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["token"][0].is_string());

        let v: Msg = app
            .send_as(Method::PATCH, verify, &link(&token), ANON)
            .await;
        assert_eq!(v.msg, "Your e-mail address has been changed.");
        let (s, _) = app
            .send_refused(Method::PATCH, verify, &link(&token), ANON)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let (s, _) = app
            .send_refused(
                Method::POST,
                "account/login_v2",
                &credentials(email, PASSWORD),
                ANON,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let full = login(&app, "new@acme.test", PASSWORD).await;
        assert_eq!(full.email, "new@acme.test");

        // An address taken between the request and the confirmation is refused.
        let t = full.token;
        let _: Msg = app
            .send_as(
                Method::POST,
                path,
                &change_to("later@acme.test", PASSWORD),
                &t,
            )
            .await;
        let token = app
            .last_link_token("later@acme.test", "verify-email-change=")
            .await;
        app.quick_user("later@acme.test", "Lara", "org_user", &[org])
            .await;
        let (s, v) = app
            .send_refused(Method::PATCH, verify, &link(&token), ANON)
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
        let lab = user_in(&app, &admin, "lab@acme.test", "labeler", None)
            .await
            .token;
        let _: Msg = app
            .send_as(
                Method::POST,
                path,
                &change_to("lab2@acme.test", PASSWORD),
                &lab,
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
        let login = user_in(&app, &admin, "terms@acme.test", "org_admin", Some(org)).await;
        assert!(!login.is_policy_accepted);
        let (t, me) = (login.token, login.id);
        let other = app
            .quick_user("other@acme.test", "Ole", "org_user", &[org])
            .await;
        let body = terms(true);
        // Not for someone else, not even by a super admin or an org admin.
        for (tok, id) in [(&t, other), (&admin, me), (&t, 999_999)] {
            let (s, _) = app
                .send_refused(
                    Method::PATCH,
                    &format!("account/update-delete/{id}/"),
                    &body,
                    tok,
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
            .send_refused(Method::PATCH, "account/update-delete/abc/", &body, &t)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app.patch(&path, wire(&body), None).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);

        let v: UserSummary = app.send_as(Method::PATCH, &path, &body, &t).await;
        assert_eq!(v.id, me);
        assert!(app.user_row("terms@acme.test").await.is_policy_accepted);
        let v = pending_login(&app, "terms@acme.test", PASSWORD).await;
        assert!(v.is_policy_accepted);
        // Withdrawn again.
        let _: UserSummary = app.send_as(Method::PATCH, &path, &terms(false), &t).await;
        assert!(!app.user_row("terms@acme.test").await.is_policy_accepted);
    }
);

both!(
    accounts_are_deleted_by_themselves_or_their_org_admin_only,
    |app: TestApp| async move {
        let admin_login = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let (admin, admin_id) = (admin_login.token, admin_login.id);
        let a = app.create_org(&admin, "Acme").await;
        let b = app.create_org(&admin, "Beta").await;
        let oa = user_in(&app, &admin, "oa@acme.test", "org_admin", Some(a))
            .await
            .token;
        let member = app.quick_user("m@acme.test", "Mia", "org_user", &[a]).await;
        let shared = app
            .quick_user("s@acme.test", "Sue", "org_user", &[a, b])
            .await;
        let foreign = app.quick_user("f@beta.test", "Fay", "org_user", &[b]).await;
        let self_login = user_in(&app, &admin, "me@acme.test", "org_user", Some(a)).await;
        let (me, me_id) = (self_login.token, self_login.id);
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
        let assign = AssignUserOrg {
            email: ADMIN_EMAIL.into(),
            organization: a,
        };
        let _: Msg = app
            .send_as(Method::PUT, "account/assign_user_org", &assign, &admin)
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
            .send_refused(
                Method::POST,
                "account/login_v2",
                &credentials("m@acme.test", PASSWORD),
                ANON,
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
