//! Inputs the OpenAPI fuzzer (`tests/fuzz.sh`, schemathesis) found to break the
//! service, kept as tests so they stay fixed.

use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

both!(
    a_page_number_past_any_offset_is_a_400_not_a_crash,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        app.create_org(&admin, "Paged").await;
        // (page - 1) * 10 overflowed: the debug build panicked and dropped the
        // connection, the release build would have sent a negative OFFSET.
        for path in [
            "account/users_list/v2?is_admin=true&page=9223372036854775806",
            "organization/get_organizations?page=9223372036854775806",
        ] {
            let (s, v) = app.get(path, &admin).await;
            assert_eq!(
                (s, v),
                (StatusCode::BAD_REQUEST, json!({"page": ["Invalid page."]})),
                "{path}"
            );
        }
        // Far out but representable: an empty page with the true count.
        let (s, v) = app
            .get(
                "organization/get_organizations?page=922337203685477580",
                &admin,
            )
            .await;
        assert_eq!((s, v), (StatusCode::OK, json!({"results": [], "count": 1})));
        let (s, v) = app
            .get(
                "account/users_list/v2?is_admin=true&page=922337203685477580",
                &admin,
            )
            .await;
        assert_eq!((s, &v["results"]), (StatusCode::OK, &json!([])), "{v}");
        assert_eq!(v["count"], json!(1), "{v}");
    }
);

both!(
    concurrent_wrong_passwords_each_count_and_none_is_a_500,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Busy").await;
        let login = app
            .user_in(&admin, "busy@a.test", "org_user", Some(org))
            .await;
        let tok = token(&login);
        // Wrong old passwords at once (the fuzzer's 500: a read-then-write transaction
        // failed when two ran together). None is a 500.
        let url = format!("{}/account/request_change_password/", app.base);
        let calls: Vec<_> = (0..8)
            .map(|_| {
                let rb =
                    app.client.patch(&url).bearer_auth(&tok).json(
                        &json!({"old_password": "wrong-pass-1", "new_password": "other-pass-2"}),
                    );
                tokio::spawn(async move {
                    let r = rb.send().await.unwrap();
                    (r.status(), r.text().await.unwrap())
                })
            })
            .collect();
        // Each answers 400 and is counted, or, once the failures before it locked the
        // address, 429 without being counted (which of the eight come after the lock
        // depends on the order they reach the server).
        let mut counted = 0;
        for c in calls {
            let (s, v) = c.await.unwrap();
            match s {
                StatusCode::BAD_REQUEST => counted += 1,
                StatusCode::TOO_MANY_REQUESTS => {}
                _ => panic!("{s} {v}"),
            }
        }
        // The limit's failures locked the address (counting starts again from 0); the
        // ones counted after it do not lift the lock.
        let max = i64::from(app.state.settings.login_limit.max_failures);
        assert!(max < 8);
        assert!(counted >= max, "{counted} failures counted");
        let (failures, locked): (i64, i64) =
            sqlx::query_as("SELECT failures, locked_until FROM login_attempts WHERE email = $1")
                .bind("busy@a.test")
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
        assert_eq!(failures, counted - max);
        assert!(locked > 0);
    }
);

both!(
    failures_lock_at_the_limit_and_start_again_after_the_window,
    |app: TestApp| async move {
        use gemba_cloud::db::tokens;
        let db = &app.state.db;
        let row = || async {
            sqlx::query_as::<_, (i64, i64)>(
                "SELECT failures, locked_until FROM login_attempts WHERE email = 'x@a.test'",
            )
            .fetch_one(&db.pool)
            .await
            .unwrap()
        };
        for _ in 0..2 {
            tokens::record_failure(db, "x@a.test", 3, 60_000, 30_000)
                .await
                .unwrap();
        }
        assert_eq!(row().await, (2, 0));
        tokens::record_failure(db, "x@a.test", 3, 60_000, 30_000)
            .await
            .unwrap();
        let (f, locked) = row().await;
        assert_eq!(f, 0);
        assert!(locked > 0);
        // Outside the window (0 ms), a failure counts as the first again; the lock stays.
        tokens::record_failure(db, "x@a.test", 3, 0, 30_000)
            .await
            .unwrap();
        assert_eq!(row().await, (1, locked));
    }
);

both!(
    a_department_added_as_its_organisation_is_deleted_is_a_404_not_a_500,
    |app: TestApp| async move {
        use gemba_cloud::db::orgs;
        use gemba_cloud::http::error::ApiError;
        let admin = app.admin_token().await;
        // The fuzzer's 500: the organisation was found, then deleted by a parallel call
        // before the department was written, and the foreign key refused the row.
        let gone = app.create_org(&admin, "Gone").await;
        let (s, _) = app.delete(&format!("organization/{gone}/"), &admin).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        let e = orgs::insert_department(&app.state.db, gone, "Late")
            .await
            .unwrap_err();
        assert!(matches!(ApiError::from(e), ApiError::NotFound));
        // The same race over HTTP: every answer is a 201 or a 404, and nothing of the
        // organisation is left behind.
        let org = app.create_org(&admin, "Racing").await;
        let url = format!("{}/organization/{org}/department/", app.base);
        let adds: Vec<_> = (0..12)
            .map(|i| {
                let rb = app
                    .client
                    .post(&url)
                    .bearer_auth(&admin)
                    .json(&json!({ "name": format!("Dept {i}") }));
                tokio::spawn(async move {
                    let r = rb.send().await.unwrap();
                    (r.status(), r.text().await.unwrap())
                })
            })
            .collect();
        let (s, _) = app.delete(&format!("organization/{org}/"), &admin).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        for a in adds {
            let (s, v) = a.await.unwrap();
            assert!(
                s == StatusCode::CREATED || s == StatusCode::NOT_FOUND,
                "{s} {v}"
            );
        }
        let left: (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM departments WHERE organization_id = $1")
                .bind(org)
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
        assert_eq!(left.0, 0);
    }
);

both!(
    links_made_while_other_writes_run_are_never_a_500,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Linking A").await;
        let b = app.create_org(&admin, "Linking B").await;
        let mut ids = vec![];
        for i in 0..6 {
            ids.push(
                app.quick_user(&format!("link{i}@a.test"), "Link", "org_user", &[a])
                    .await,
            );
        }
        // A link read its table and then wrote; on SQLite that transaction failed with
        // "database is locked" when another connection wrote in between (CI saw it
        // once, beside the mailer recording a delivery). Links and other writes at once:
        let url = format!("{}/account/linked_organizations", app.base);
        let mail = format!("{}/feature_control/send_email", app.base);
        let mut calls = vec![];
        for (i, id) in ids.iter().enumerate() {
            let link = app
                .client
                .post(&url)
                .bearer_auth(&admin)
                .json(&json!({"user_id": id, "organization": b}));
            let send = app.client.post(&mail).bearer_auth(&admin).json(
                &json!({"recipients": [format!("link{i}@a.test")], "subject": "S", "body": "B"}),
            );
            for rb in [link, send] {
                calls.push(tokio::spawn(async move {
                    let r = rb.send().await.unwrap();
                    (r.status(), r.text().await.unwrap())
                }));
            }
        }
        for c in calls {
            let (s, v) = c.await.unwrap();
            assert!(s.is_success(), "{s} {v}");
        }
        let links: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM user_organizations WHERE organization_id = $1",
        )
        .bind(b)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
        assert_eq!(links, 6);
    }
);
