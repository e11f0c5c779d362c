//! Organisation sub-domains: the host names the organisation for sign-in and calls.

use gemba_shared::api::v1::account::{AssignUserOrg, UserSummary};
use gemba_shared::api::v1::organization::{Organization, OrganizationCreate, OrganizationPatch};
use gemba_shared::api::v1::{Msg, Page};
use reqwest::{Method, StatusCode};

use crate::account::{credentials, typed, user_in, wire};
use crate::both;
use crate::common::*;

both!(
    organisation_sub_domains_scope_sign_in_and_calls,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let acme = app.create_org(&admin, "Acme").await;
        let beta = app.create_org(&admin, "Beta").await;
        // A member of both, currently in Beta; a Beta-only user; another Acme member.
        // The calls that name a Host stay with the untyped client (it sends headers);
        // their bodies are the shared types and their answers are read as them.
        let two = user_in(&app, &admin, "two@x.test", "org_admin", Some(beta))
            .await
            .token;
        let assign = AssignUserOrg {
            email: "two@x.test".into(),
            organization: acme,
        };
        let _: Msg = app
            .send_as(Method::PUT, "account/assign_user_org", &assign, &admin)
            .await;
        let beta_only = user_in(&app, &admin, "b@beta.test", "org_admin", Some(beta))
            .await
            .token;
        app.quick_user("c@acme.test", "Cat", "org_user", &[acme])
            .await;

        let login_at = |host: &'static str, email: &'static str| {
            let app = &app;
            async move {
                app.call_with(
                    Method::POST,
                    "account/login_v2",
                    Some(wire(&credentials(email, PASSWORD))),
                    None,
                    &[("Host", host)],
                )
                .await
            }
        };
        // Sign-in on a sub-domain needs membership of it.
        for host in ["acme.localhost", "Acme.localhost:8080", "nope.localhost"] {
            let (s, v) = login_at(host, "b@beta.test").await;
            assert_eq!(
                (s, v["non_field_errors"][0].as_str()),
                (
                    StatusCode::BAD_REQUEST,
                    Some("You do not belong to this organization.")
                ),
                "{host}"
            );
        }
        let (s, _) = login_at("beta.localhost", "b@beta.test").await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = login_at("acme.localhost", "two@x.test").await;
        assert_eq!(s, StatusCode::OK);
        let (s, v) = app
            .call_with(
                Method::POST,
                "account/login_v2",
                Some(wire(&credentials(ADMIN_EMAIL, ADMIN_PASSWORD))),
                None,
                &[("Host", "acme.localhost")],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");

        // Calls on a sub-domain act in that organisation, without an Organization header.
        let emails = |v: serde_json::Value| -> Vec<String> {
            let page: Page<UserSummary> = typed(v);
            page.results.into_iter().map(|u| u.email).collect()
        };
        let list_at = |host: Option<&'static str>, tok: String| {
            let app = &app;
            async move {
                let h: Vec<(&str, &str)> = host.map(|h| ("Host", h)).into_iter().collect();
                app.call_with(Method::GET, "account/users_list/v2", None, Some(&tok), &h)
                    .await
            }
        };
        let (s, v) = list_at(Some("acme.localhost"), two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(v), ["two@x.test", "c@acme.test"]);
        let (s, v) = list_at(None, two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(v), ["two@x.test", "b@beta.test"]);
        let (s, v) = list_at(Some("beta.localhost:3000"), two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(v), ["two@x.test", "b@beta.test"]);
        // A non-member's token on Acme's sub-domain.
        let (s, _) = list_at(Some("acme.localhost"), beta_only.clone()).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // An unknown sub-domain.
        let (s, v) = list_at(Some("nope.localhost"), two.clone()).await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (
                StatusCode::NOT_FOUND,
                Some("No organization is served at nope.")
            )
        );

        // The admin host is no organisation: calls there use the current one, and
        // the admin signs in there.
        let (s, v) = list_at(Some("admin.localhost"), two.clone()).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(emails(v), ["two@x.test", "b@beta.test"]);
        let (s, v) = app
            .call_with(
                Method::GET,
                "account/users_list/v2?is_admin=true",
                None,
                Some(&admin),
                &[("Host", "admin.localhost")],
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(typed::<Page<UserSummary>>(v).count, 4);
        let (s, v) = app
            .call_with(
                Method::POST,
                "account/admin-login/",
                Some(wire(&credentials(ADMIN_EMAIL, ADMIN_PASSWORD))),
                None,
                &[("Host", "admin.localhost")],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // So no organisation may take the admin host's name (or www).
        for (name, display) in [("admin", "Admin"), ("www", "WWW")] {
            let create = OrganizationCreate {
                name: None,
                org_name_to_display: display.into(),
                use_proxy_server: false,
            };
            let (s, v) = app
                .send_refused(Method::POST, "organization/", &create, &admin)
                .await;
            assert_eq!(
                (s, v["name"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some("This name is reserved.")),
                "{name}"
            );
            let rename = OrganizationPatch {
                name: Some(name.into()),
                ..OrganizationPatch::default()
            };
            let (s, _) = app
                .send_refused(
                    Method::PATCH,
                    &format!("organization/{acme}/"),
                    &rename,
                    &admin,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST);
        }
        let v: Page<Organization> = app.get_as("organization/get_organizations", &admin).await;
        assert_eq!(v.count, 2);
    }
);
