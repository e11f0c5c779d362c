//! An account's own changes: a new e-mail address confirmed from it, the terms, and
//! deleting the account (by its owner or its org admin only).

use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

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
