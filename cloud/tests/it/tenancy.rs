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

both!(
    organisations_page_and_search_by_name_or_display_name,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        for name in ["Acme Works", "Beta Plant", "Acme Two", "Gamma_Lab"] {
            app.create_org(&admin, name).await;
        }
        let names = |v: &serde_json::Value| -> Vec<String> {
            v["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["org_name_to_display"].as_str().unwrap().to_string())
                .collect()
        };
        let page = |q: &'static str| {
            let (app, admin) = (&app, &admin);
            async move {
                let (s, v) = app
                    .get(&format!("organization/get_organizations{q}"), admin)
                    .await;
                assert_eq!(s, StatusCode::OK, "{q}: {v}");
                v
            }
        };
        let all = page("").await;
        assert_eq!(all["count"], 4);
        assert_eq!(names(&all).len(), 4);
        // The same list again (the statement without a search stays prepared).
        assert_eq!(page("?search=").await, all);
        assert_eq!(page("?search=%20").await["count"], 4);
        let acme = page("?search=ACME").await;
        assert_eq!(
            (acme["count"].clone(), names(&acme)),
            (
                json!(2),
                vec!["Acme Works".to_string(), "Acme Two".to_string()]
            )
        );
        // By the sub-domain name too, and wildcards match themselves.
        assert_eq!(page("?search=beta-plant").await["count"], 1);
        assert_eq!(page("?search=a_l").await["count"], 1);
        assert_eq!(page("?search=%25").await["count"], 0);
        // A search after a plain list, and a plain list after a search.
        assert_eq!(page("?search=two&page=1").await["count"], 1);
        assert_eq!(page("?page=1").await, all);
    }
);
