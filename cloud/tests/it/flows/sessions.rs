//! Sessions: activity sessions belong to their user, and tokens are checked against
//! their key, their session and the header.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::account::{ActivitySession, OtpRequest, SessionCreate, SessionEnd};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::account::{login, pending_login, user_in, wire};
use crate::both;
use crate::common::*;

async fn admin_id(app: &TestApp) -> i64 {
    app.user_row(ADMIN_EMAIL).await.id
}

fn session(user: i64, browser: &str, browser_version: &str) -> SessionCreate {
    SessionCreate {
        user,
        browser: browser.into(),
        browser_version: browser_version.into(),
    }
}

both!(
    activity_sessions_belong_to_their_user,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Acme").await;
        let login = user_in(&app, &admin, "act@acme.test", "org_user", Some(org)).await;
        let (t, me, key) = (login.token, login.id, login.session_key);
        let retrieve = |email: &str, key: &str| {
            format!("account/retrieve-session/?email={email}&sessionKey={key}")
        };
        // Nothing yet.
        let (s, _) = app.get(&retrieve("act@acme.test", &key), &t).await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        let long = "x".repeat(101);
        let cases = [
            (
                session(admin_id(&app).await, "Chrome", "1"),
                "user",
                "A session can only be created for yourself.",
            ),
            (
                session(me, "  ", "1"),
                "browser",
                "This field may not be blank.",
            ),
            (
                session(me, &long, "1"),
                "browser",
                "Browser must be at most 100 characters.",
            ),
            (
                session(me, "Chrome", &long),
                "browser_version",
                "Browser version must be at most 100 characters.",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app
                .send_refused(Method::POST, "account/session/create/", &body, &t)
                .await;
            assert_eq!(
                (s, v[field][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{body:?}"
            );
        }
        let (s, v) = app
            .post(
                "account/session/create/",
                json!({"user": me, "browser": "Chrome"}),
                Some(&t),
            )
            .await;
        assert_eq!(
            (s, v["browser_version"][0].as_str()),
            (StatusCode::BAD_REQUEST, Some("This field is required."))
        );
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
                wire(&session(me, "Chrome", "1")),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let (s, _) = app.get(&retrieve("act@acme.test", &key), &t).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "a bad create wrote a session");

        let created: ActivitySession = app
            .create_as(
                "account/session/create/",
                &session(me, " Chrome ", "131.0"),
                &t,
            )
            .await;
        assert_eq!(created.user, me);
        assert_eq!(created.browser, "Chrome");
        assert_eq!(created.browser_version, "131.0");
        let (id, start) = (created.id, created.end_time);

        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let v: SessionEnd = app
            .send_as(
                Method::PATCH,
                &format!("account/session/update/{id}/"),
                &json!({}),
                &t,
            )
            .await;
        assert!(v.end_time > start);

        // Someone else's session, unknown and malformed ids.
        let other = user_in(&app, &admin, "oth@acme.test", "org_user", Some(org))
            .await
            .token;
        let theirs: ActivitySession = app
            .create_as(
                "account/session/create/",
                &session(app.user_row("oth@acme.test").await.id, "Edge", "1"),
                &other,
            )
            .await;
        for bad in [theirs.id.to_string(), "999999".into(), "abc".into()] {
            let (s, _) = app
                .send_refused(
                    Method::PATCH,
                    &format!("account/session/update/{bad}/"),
                    &json!({}),
                    &t,
                )
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{bad}");
        }

        // Retrieval names the user and the session key.
        let v: ActivitySession = app.get_as(&retrieve("ACT@acme.test", &key), &t).await;
        assert_eq!(v.id, id);
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

both!(
    tokens_are_checked_against_key_session_and_header,
    |app: TestApp| async move {
        use gemba_cloud::auth::{Claims, Keys};
        let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let (t, key, uid) = (admin.token, admin.session_key, admin.id);
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
        let pending = pending_login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
        let (temp, sid) = (pending.token, pending.session_key);
        let _: Msg = app.get_as("account/send_otp_code/", &temp).await;
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
            .send_refused(
                Method::POST,
                "account/verify_otp_code/",
                &OtpRequest { otp: code },
                &temp,
            )
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);

        // A revoked session.
        assert_eq!(status(vec![], Some(t.clone())).await.0, StatusCode::OK);
        let _: Msg = app
            .send_as(Method::PATCH, "account/logout/", &json!({}), &t)
            .await;
        let (s, v) = status(vec![], Some(t.clone())).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert_eq!(v["detail"], "Your session has ended. Please sign in again.");

        // A deactivated user.
        let t2 = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await.token;
        gemba_cloud::db::users::set_flag(&app.state.db, uid, "is_active", false)
            .await
            .unwrap();
        assert_eq!(status(vec![], Some(t2)).await.0, StatusCode::UNAUTHORIZED);
    }
);
