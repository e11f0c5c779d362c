//! Tenancy: organisations, membership, the tenant scope of every call.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::account::UserSummary;
use gemba_shared::api::v1::organization::{
    Department, DepartmentCreate, Organization, SwitchOrganization, SwitchResult,
};
use reqwest::{Method, StatusCode};

use crate::account::{login, user_in};
use crate::common::*;
use crate::{both, both_with};

both!(
    a_user_of_one_org_cannot_reach_another,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Org A").await;
        let b = app.create_org(&admin, "Org B").await;
        let ua = user_in(&app, &admin, "a@a.test", "org_admin", Some(a))
            .await
            .token;
        user_in(&app, &admin, "b@b.test", "org_admin", Some(b)).await;
        // Acting in B through the header is refused.
        let (s, _) = app
            .call_with(
                Method::GET,
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
        let v: Page<UserSummary> = app.get_as("account/users_list/v2", &ua).await;
        assert_eq!(v.count, 1);
        assert_eq!(v.results[0].email, "a@a.test");
        let _: Department = app
            .create_as(
                &format!("organization/{a}/department/"),
                &DepartmentCreate {
                    name: "Assembly".into(),
                },
                &ua,
            )
            .await;
    }
);

both!(
    organisations_page_and_search_by_name_or_display_name,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        for name in ["Acme Works", "Beta Plant", "Acme Two", "Gamma_Lab"] {
            app.create_org(&admin, name).await;
        }
        let names = |v: &Page<Organization>| -> Vec<String> {
            v.results
                .iter()
                .map(|o| o.org_name_to_display.clone())
                .collect()
        };
        let page = |q: &'static str| {
            let (app, admin) = (&app, &admin);
            async move {
                app.get_as::<Page<Organization>>(
                    &format!("organization/get_organizations{q}"),
                    admin,
                )
                .await
            }
        };
        let all = page("").await;
        assert_eq!(all.count, 4);
        assert_eq!(names(&all).len(), 4);
        // The same list again (the statement without a search stays prepared).
        assert_eq!(page("?search=").await, all);
        assert_eq!(page("?search=%20").await.count, 4);
        let acme = page("?search=ACME").await;
        assert_eq!(
            (acme.count, names(&acme)),
            (2, vec!["Acme Works".to_string(), "Acme Two".to_string()])
        );
        // By the sub-domain name too, and wildcards match themselves.
        assert_eq!(page("?search=beta-plant").await.count, 1);
        assert_eq!(page("?search=a_l").await.count, 1);
        assert_eq!(page("?search=%25").await.count, 0);
        // A search after a plain list, and a plain list after a search.
        assert_eq!(page("?search=two&page=1").await.count, 1);
        assert_eq!(page("?page=1").await, all);
    }
);

both!(
    deleting_an_organisation_moves_its_users_to_another_they_belong_to,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Doomed Works").await;
        let b = app.create_org(&admin, "Other Works").await;
        app.quick_user("both@a.test", "Both", "org_user", &[a, b])
            .await;
        app.quick_user("only@a.test", "Only", "org_user", &[a])
            .await;
        assert_eq!(app.user_row("both@a.test").await.organization_id, Some(a));

        let (s, v) = app.delete(&format!("organization/{a}/"), &admin).await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        // Still linked to B: B becomes current, and signing in works there.
        assert_eq!(app.user_row("both@a.test").await.organization_id, Some(b));
        let login = login(&app, "both@a.test", PASSWORD).await;
        assert_eq!(
            login.organization.as_ref().map(|o| o.id),
            Some(b),
            "{login:?}"
        );
        // Linked to nothing else: no organisation left.
        assert_eq!(app.user_row("only@a.test").await.organization_id, None);
    }
);

/// Signs in a user linked to two organisations and switches to the second: the URL.
async fn switch_url(app: &TestApp) -> String {
    let admin = app.admin_token().await;
    let a = app.create_org(&admin, "First Works").await;
    let b = app.create_org(&admin, "Second Works").await;
    app.quick_user("two@a.test", "Two", "org_user", &[a, b])
        .await;
    let login = login(app, "two@a.test", PASSWORD).await;
    let switch = SwitchOrganization {
        organization: b,
        organization_display_name: None,
        local_storage: None,
    };
    let v: SwitchResult = app
        .send_as(
            Method::PATCH,
            "account/switch_user_organization",
            &switch,
            &login.token,
        )
        .await;
    v.url
}

both!(
    without_public_url_the_organisation_lives_on_the_base_domain_at_the_server_port,
    |app: TestApp| async move {
        let port = app.state.settings.http.port();
        let url = switch_url(&app).await;
        assert_eq!(url, format!("http://second-works.localhost:{port}"));
    }
);

both_with!(
    a_public_url_makes_the_organisation_addresses,
    |s: &mut gemba_cloud::config::Settings| {
        s.public_url = Some("https://gemba.example.com/".into())
    },
    |app: TestApp| async move {
        let url = switch_url(&app).await;
        assert_eq!(url, "https://second-works.gemba.example.com");
    }
);
