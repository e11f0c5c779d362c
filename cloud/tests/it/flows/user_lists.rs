//! The user lists: pages, filters and search.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::account::UserSummary;
use reqwest::{Method, StatusCode};

use crate::account::{login, user_in};
use crate::both;
use crate::common::*;

both!(
    users_list_pages_filters_and_searches,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Acme").await;
        let b = app.create_org(&admin, "Beta").await;
        let oa = user_in(&app, &admin, "oa@a.test", "org_admin", Some(a))
            .await
            .token;
        for i in 0..5 {
            app.quick_user(&format!("op{i}@a.test"), "Op", "org_user", &[a])
                .await;
        }
        for i in 0..3 {
            app.quick_user(&format!("lab{i}@a.test"), "Lab", "labeler", &[a])
                .await;
        }
        for i in 0..3 {
            app.quick_user(&format!("ana{i}@a.test"), "Ana", "analytics_user", &[a])
                .await;
        }
        let inactive = app.quick_user("off@a.test", "Off", "org_user", &[a]).await;
        gemba_cloud::db::users::set_flag(&app.state.db, inactive, "is_active", false)
            .await
            .unwrap();
        let zim = app
            .quick_user("under_score@a.test", "Zed", "org_user", &[b, a])
            .await;
        gemba_cloud::db::users::set(&app.state.db, zim, "lastname", "Zimmer")
            .await
            .unwrap();
        app.quick_user("x@b.test", "Bea", "org_user", &[b]).await;
        // Acme: oa + 5 + 3 + 3 + off + under_score = 14.

        // Refused queries are read untyped (the error shape); answered ones as pages.
        let list = |q: &str| {
            let (app, oa, q) = (&app, oa.clone(), q.to_string());
            async move { app.get(&format!("account/users_list/v2{q}"), &oa).await }
        };
        let page = |q: &str| {
            let (app, oa, q) = (&app, oa.clone(), q.to_string());
            async move {
                app.get_as::<Page<UserSummary>>(&format!("account/users_list/v2{q}"), &oa)
                    .await
            }
        };
        let p1 = page("").await;
        assert_eq!(p1.count, 14);
        assert_eq!(p1.results.len(), 10);
        assert_eq!(p1.results[0].email, "oa@a.test");
        let p2 = page("?page=2").await;
        assert_eq!(p2.count, 14);
        assert_eq!(p2.results.len(), 4);
        let ids: std::collections::HashSet<i64> =
            p1.results.iter().chain(&p2.results).map(|u| u.id).collect();
        assert_eq!(ids.len(), 14, "pages overlap");
        let p3 = page("?page=3").await;
        assert_eq!((p3.count, p3.results.len()), (14, 0));

        let count = |q: &'static str| {
            let page = &page;
            async move { page(q).await.count }
        };
        assert_eq!(count("?search=LAB").await, 3);
        assert_eq!(count("?search=zimm").await, 1);
        assert_eq!(count("?search=op3@").await, 1);
        assert_eq!(count("?search=x@b.test").await, 0);
        // Wildcards are searched for literally.
        assert_eq!(count("?search=%25").await, 0);
        assert_eq!(count("?search=_").await, 1);
        // Empty filters filter nothing.
        assert_eq!(count("?search=").await, 14);
        assert_eq!(count("?role__name=").await, 14);
        assert_eq!(count("?role__name=labeler").await, 3);
        assert_eq!(count("?role__name=org_user").await, 7);
        assert_eq!(count("?is_active=false").await, 1);
        assert_eq!(count("?is_active=true").await, 13);
        assert_eq!(count("?is_org_switch=true").await, 13);
        assert_eq!(count("?is_org_switch=false").await, 14);
        assert_eq!(
            count("?role__name=org_user&is_active=true&search=op").await,
            5
        );

        for (q, field) in [
            ("?page=0", "page"),
            ("?page=-1", "page"),
            ("?page=abc", "non_field_errors"),
            ("?role__name=boss", "role__name"),
            ("?is_active=maybe", "non_field_errors"),
            ("?is_org_switch=2", "non_field_errors"),
        ] {
            let (s, v) = list(q).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{q}");
            assert!(v[field][0].is_string(), "{q}: {v}");
        }
        let (_, v) = list("?role__name=boss").await;
        assert_eq!(v["role__name"][0], "Unknown role \"boss\".");
        let (_, v) = list("?page=0").await;
        assert_eq!(v["page"][0], "Invalid page.");

        // Unpaged, with the same filters.
        let v: Vec<UserSummary> = app.get_as("account/users_list", &oa).await;
        assert_eq!(v.len(), 14);
        let v: Vec<UserSummary> = app
            .get_as(
                "account/users_list?role__name=analytics_user&is_active=true",
                &oa,
            )
            .await;
        assert_eq!(v.len(), 3);
        let v: Vec<UserSummary> = app
            .get_as("account/users_list?is_org_switch=true", &oa)
            .await;
        assert_eq!(v.len(), 13);

        // Who may list: not an org user, not everyone's list for an org admin.
        let ou = login(&app, "op0@a.test", PASSWORD).await.token;
        assert_eq!(
            app.get("account/users_list/v2", &ou).await.0,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            app.get("account/users_list", &ou).await.0,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            app.get("account/users_list/v2?is_admin=true", &oa).await.0,
            StatusCode::FORBIDDEN
        );
        let v: Page<UserSummary> = app
            .get_as("account/users_list/v2?is_admin=true", &admin)
            .await;
        assert_eq!(v.count, 16);
        let (s, _) = app
            .call(Method::GET, "account/users_list/v2", None, None)
            .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
    }
);
