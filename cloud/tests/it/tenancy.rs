//! Tenancy: organisations, membership, the tenant scope of every call.

use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

both!(
    a_user_of_one_org_cannot_reach_another,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Org A").await;
        let b = app.create_org(&admin, "Org B").await;
        let ua = token(&app.user_in(&admin, "a@a.test", "org_admin", Some(a)).await);
        app.user_in(&admin, "b@b.test", "org_admin", Some(b)).await;
        // Acting in B through the header is refused.
        let (s, _) = app
            .call_with(
                reqwest::Method::GET,
                "account/users_list/v2",
                None,
                Some(&ua),
                &[("Organization", &b.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // B's departments and users are not visible.
        assert_eq!(
            app.get(&format!("organization/{b}/department/"), &ua)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            app.get(&format!("account/linked_users_list/?organization={b}"), &ua)
                .await
                .0,
            StatusCode::FORBIDDEN
        );
        // Own org works, and lists only own users.
        let (s, v) = app.get("account/users_list/v2", &ua).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(v["count"], 1);
        assert_eq!(v["results"][0]["email"], "a@a.test");
        let (s, d) = app
            .post(
                &format!("organization/{a}/department/"),
                json!({"name": "Assembly"}),
                Some(&ua),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{d}");
    }
);
