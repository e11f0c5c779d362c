//! Feature control: features, subscriptions (gated features are off by default),
//! event notifications, `send_email`, and e-mail through a real SMTP server.

use std::path::PathBuf;
use std::time::Duration;

use gemba_cloud::config::{Smtp, SmtpSecurity};
use gemba_cloud::db::features;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

const NOTIFICATIONS: &str = "feature_control/event_notifications";

/// An organisation with an org admin in it: (org id, the admin's token).
async fn org_with_admin(app: &TestApp, admin: &str, display: &str, email: &str) -> (i64, String) {
    let org = app.create_org(admin, display).await;
    let t = token(&app.user_in(admin, email, "org_admin", Some(org)).await);
    (org, t)
}

fn feature_id(list: &Value, name: &str) -> i64 {
    list.as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("feature {name} in {list}"))["id"]
        .as_i64()
        .unwrap()
}

/// The first message of a 400 on `field`.
fn field_error(status: StatusCode, v: &Value, field: &str) -> String {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    v[field][0]
        .as_str()
        .unwrap_or_else(|| panic!("an error on {field}: {v}"))
        .to_string()
}

both!(
    openapi_documents_every_feature_control_call,
    |app: TestApp| async move {
        let (_, doc) = app.call(Method::GET, "openapi.json", None, None).await;
        let paths = doc["paths"].as_object().unwrap();
        for (method, path) in [
            ("get", "/feature_control/feature/"),
            ("post", "/feature_control/feature/"),
            ("delete", "/feature_control/feature/"),
            ("get", "/feature_control/subscribed_feature/"),
            ("post", "/feature_control/subscribed_feature/"),
            ("delete", "/feature_control/subscribed_feature/"),
            ("post", "/feature_control/event_notifications"),
            ("get", "/feature_control/event_notifications"),
            ("get", "/feature_control/event_notification/{id}"),
            ("patch", "/feature_control/event_notification/{id}"),
            ("delete", "/feature_control/event_notification/{id}"),
            (
                "get",
                "/feature_control/get_event_notification/{org}/{event}",
            ),
            ("post", "/feature_control/send_email"),
        ] {
            assert!(
                paths.get(path).and_then(|p| p.get(method)).is_some(),
                "{method} {path} not in /api/openapi.json"
            );
        }
    }
);

// ----- features -------------------------------------------------------------------------

both!(
    every_user_lists_features_and_only_the_super_admin_changes_them,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Org A").await;
        let user = token(&app.user_in(&admin, "u@a.test", "org_user", Some(org)).await);
        let labeler = token(&app.user_in(&admin, "l@a.test", "labeler", None).await);

        let (s, list) = app.get("feature_control/feature/", &user).await;
        assert_eq!(s, StatusCode::OK, "{list}");
        let names: Vec<&str> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            gemba_shared::api::v1::feature_control::Gated::ALL.map(|g| g.name())
        );
        assert_eq!(
            app.get("feature_control/feature/", &labeler).await.0,
            StatusCode::OK
        );

        // Others may not add or delete.
        for t in [&user, &labeler] {
            let (s, _) = app
                .post("feature_control/feature/", json!({"name": "X"}), Some(t))
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
            let id = feature_id(&list, "Devices");
            let (s, _) = app
                .delete(&format!("feature_control/feature/?id={id}"), t)
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
        }

        let (s, f) = app
            .post(
                "feature_control/feature/",
                json!({"name": "  Line Balancing "}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{f}");
        assert_eq!(f["name"], "Line Balancing");
        let id = f["id"].as_i64().unwrap();
        let (_, list) = app.get("feature_control/feature/", &user).await;
        assert_eq!(feature_id(&list, "Line Balancing"), id);

        let (s, v) = app
            .delete(&format!("feature_control/feature/?id={id}"), &admin)
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some("Data deleted successfully!"))
        );
        let (_, list) = app.get("feature_control/feature/", &user).await;
        assert_eq!(list.as_array().unwrap().len(), 6);
        // Gone: a second delete is a 404.
        let (s, v) = app
            .delete(&format!("feature_control/feature/?id={id}"), &admin)
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::NOT_FOUND, Some("Not found."))
        );
    }
);

both!(feature_calls_reject_bad_input, |app: TestApp| async move {
    let admin = app.admin_token().await;
    let path = "feature_control/feature/";
    let (s, v) = app
        .post(path, json!({"name": "Devices"}), Some(&admin))
        .await;
    assert_eq!(
        field_error(s, &v, "name"),
        "feature with this name already exists."
    );
    let (s, v) = app.post(path, json!({"name": "   "}), Some(&admin)).await;
    assert_eq!(field_error(s, &v, "name"), "This field may not be blank.");
    let (s, v) = app
        .post(path, json!({"name": "x".repeat(101)}), Some(&admin))
        .await;
    field_error(s, &v, "name");
    let (s, v) = app.post(path, json!({}), Some(&admin)).await;
    assert_eq!(field_error(s, &v, "name"), "This field is required.");
    let (s, v) = app.post(path, json!({"name": 5}), Some(&admin)).await;
    field_error(s, &v, "name");
    let (s, v) = app.delete(path, &admin).await;
    assert_eq!(field_error(s, &v, "id"), "This field is required.");
    let (s, v) = app.delete(&format!("{path}?id=abc"), &admin).await;
    assert_eq!(field_error(s, &v, "id"), "A valid integer is required.");
    let (s, _) = app.delete(&format!("{path}?id=999999"), &admin).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // Nothing changed.
    let (_, list) = app.get(path, &admin).await;
    assert_eq!(list.as_array().unwrap().len(), 6);
});

// ----- subscriptions --------------------------------------------------------------------

both!(
    gated_features_are_off_until_the_organisation_holds_an_unsuppressed_subscription,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let b = app.create_org(&admin, "Org B").await;
        let db = &app.state.db;
        let (_, list) = app.get("feature_control/feature/", &ua).await;
        let devices = feature_id(&list, "Devices");
        let pathfinder = feature_id(&list, "Pathfinder");

        // Default off: no subscription.
        for name in gemba_shared::api::v1::feature_control::Gated::ALL.map(|g| g.name()) {
            assert!(!features::enabled(db, a, name).await.unwrap(), "{name}");
        }
        let (s, v) = app.get("feature_control/subscribed_feature/", &ua).await;
        assert_eq!((s, v.clone()), (StatusCode::OK, json!([])));

        let (s, sub) = app
            .post(
                "feature_control/subscribed_feature/",
                json!({"Feature": devices, "Organization": a}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{sub}");
        assert_eq!(sub["Feature"], devices);
        assert_eq!(sub["Organization"], a);
        assert_eq!(sub["feature_name"], "Devices");
        assert_eq!(sub["is_suppressed"], false);
        assert!(features::enabled(db, a, "Devices").await.unwrap());
        assert!(!features::enabled(db, b, "Devices").await.unwrap());
        let (_, v) = app.get("feature_control/subscribed_feature/", &ua).await;
        assert_eq!(v, json!([sub.clone()]));

        // Pathfinder with a suppressed subscription stays hidden.
        let (s, p) = app
            .post(
                "feature_control/subscribed_feature/",
                json!({"Feature": pathfinder, "Organization": a, "is_suppressed": true}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{p}");
        assert!(!features::enabled(db, a, "Pathfinder").await.unwrap());
        // Posting the same pair again changes is_suppressed, without a second row.
        let (s, p2) = app
            .post(
                "feature_control/subscribed_feature/",
                json!({"Feature": pathfinder, "Organization": a, "is_suppressed": false}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{p2}");
        assert_eq!(
            (p2["id"].clone(), p2["is_suppressed"].clone()),
            (p["id"].clone(), json!(false))
        );
        assert!(features::enabled(db, a, "Pathfinder").await.unwrap());
        let (_, v) = app.get("feature_control/subscribed_feature/", &ua).await;
        assert_eq!(v.as_array().unwrap().len(), 2);

        // The super admin sees all, or one organisation's.
        let (_, all) = app.get("feature_control/subscribed_feature/", &admin).await;
        assert_eq!(all.as_array().unwrap().len(), 2);
        let (_, of_b) = app
            .get(
                &format!("feature_control/subscribed_feature/?organization={b}"),
                &admin,
            )
            .await;
        assert_eq!(of_b, json!([]));

        // Unsubscribing turns it off again.
        let id = sub["id"].as_i64().unwrap();
        let (s, v) = app
            .delete(
                &format!("feature_control/subscribed_feature/?id={id}"),
                &admin,
            )
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some("Data deleted successfully!"))
        );
        assert!(!features::enabled(db, a, "Devices").await.unwrap());
        let (s, _) = app
            .delete(
                &format!("feature_control/subscribed_feature/?id={id}"),
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Deleting a feature ends every subscription to it.
        let (_, f) = app
            .post(
                "feature_control/feature/",
                json!({"name": "Assistant"}),
                Some(&admin),
            )
            .await;
        let fid = f["id"].as_i64().unwrap();
        for org in [a, b] {
            let (s, _) = app
                .post(
                    "feature_control/subscribed_feature/",
                    json!({"Feature": fid, "Organization": org}),
                    Some(&admin),
                )
                .await;
            assert_eq!(s, StatusCode::CREATED);
        }
        app.delete(&format!("feature_control/feature/?id={fid}"), &admin)
            .await;
        let (_, all) = app.get("feature_control/subscribed_feature/", &admin).await;
        let names: Vec<&str> = all
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["feature_name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Pathfinder"]);
    }
);

both!(
    subscription_calls_reject_bad_input,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Org A").await;
        let path = "feature_control/subscribed_feature/";
        let (_, list) = app.get("feature_control/feature/", &admin).await;
        let devices = feature_id(&list, "Devices");

        let (s, v) = app
            .post(
                path,
                json!({"Feature": 999999, "Organization": a}),
                Some(&admin),
            )
            .await;
        assert_eq!(field_error(s, &v, "Feature"), "Unknown feature.");
        let (s, v) = app
            .post(
                path,
                json!({"Feature": devices, "Organization": 999999}),
                Some(&admin),
            )
            .await;
        assert_eq!(field_error(s, &v, "Organization"), "Unknown organization.");
        let (s, v) = app
            .post(path, json!({"Organization": a}), Some(&admin))
            .await;
        assert_eq!(field_error(s, &v, "Feature"), "This field is required.");
        let (s, v) = app
            .post(path, json!({"Feature": devices}), Some(&admin))
            .await;
        assert_eq!(
            field_error(s, &v, "Organization"),
            "This field is required."
        );
        let (s, v) = app
            .post(
                path,
                json!({"Feature": "Devices", "Organization": a}),
                Some(&admin),
            )
            .await;
        field_error(s, &v, "Feature");
        let (s, v) = app
            .post(
                path,
                json!({"Feature": devices, "Organization": a, "is_suppressed": "maybe"}),
                Some(&admin),
            )
            .await;
        field_error(s, &v, "is_suppressed");
        let (s, v) = app.call(Method::POST, path, None, Some(&admin)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let (s, v) = app.delete(path, &admin).await;
        assert_eq!(field_error(s, &v, "id"), "This field is required.");
        let (s, v) = app.delete(&format!("{path}?id=1.5"), &admin).await;
        assert_eq!(field_error(s, &v, "id"), "A valid integer is required.");
        let (s, _) = app.delete(&format!("{path}?id=999999"), &admin).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, v) = app.get(&format!("{path}?organization=acme"), &admin).await;
        assert_eq!(
            field_error(s, &v, "organization"),
            "A valid integer is required."
        );
        // An organisation that does not exist is not found, not an empty list.
        let (s, v) = app
            .get(&format!("{path}?organization=999999"), &admin)
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::NOT_FOUND, Some("Not found."))
        );
        let (s, v) = app.get(&format!("{path}?organization={a}"), &admin).await;
        assert_eq!((s, v), (StatusCode::OK, json!([])));
        // Nothing was written.
        let (_, all) = app.get(path, &admin).await;
        assert_eq!(all, json!([]));
        assert!(
            !features::enabled(&app.state.db, a, "Devices")
                .await
                .unwrap()
        );
    }
);

both!(
    only_the_super_admin_subscribes_and_tenants_see_only_their_own,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let (b, ub) = org_with_admin(&app, &admin, "Org B", "b@b.test").await;
        let support = token(
            &app.user_in(&admin, "s@a.test", "support_user", Some(a))
                .await,
        );
        let (_, list) = app.get("feature_control/feature/", &ua).await;
        let devices = feature_id(&list, "Devices");
        let (s, sub_b) = app
            .post(
                "feature_control/subscribed_feature/",
                json!({"Feature": devices, "Organization": b}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED);
        let id_b = sub_b["id"].as_i64().unwrap();

        for t in [&ua, &support] {
            // Not even for their own organisation.
            let (s, _) = app
                .post(
                    "feature_control/subscribed_feature/",
                    json!({"Feature": devices, "Organization": a}),
                    Some(t),
                )
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
            let (s, _) = app
                .delete(&format!("feature_control/subscribed_feature/?id={id_b}"), t)
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
        }
        assert!(
            !features::enabled(&app.state.db, a, "Devices")
                .await
                .unwrap()
        );
        assert!(
            features::enabled(&app.state.db, b, "Devices")
                .await
                .unwrap()
        );

        // A sees nothing of B's, by query or by header.
        let (s, v) = app.get("feature_control/subscribed_feature/", &ua).await;
        assert_eq!((s, v), (StatusCode::OK, json!([])));
        let (s, _) = app
            .get(
                &format!("feature_control/subscribed_feature/?organization={b}"),
                &ua,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .call_with(
                Method::GET,
                "feature_control/subscribed_feature/",
                None,
                Some(&ua),
                &[("Organization", &b.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Naming one's own organisation works; B sees its own.
        let (s, v) = app
            .get(
                &format!("feature_control/subscribed_feature/?organization={a}"),
                &ua,
            )
            .await;
        assert_eq!((s, v), (StatusCode::OK, json!([])));
        let (_, v) = app.get("feature_control/subscribed_feature/", &ub).await;
        assert_eq!(v, json!([sub_b]));
    }
);

// ----- event notifications --------------------------------------------------------------

both!(
    org_admins_and_support_users_manage_their_event_notifications,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let support = token(
            &app.user_in(&admin, "s@a.test", "support_user", Some(a))
                .await,
        );

        let (s, n) = app
            .post(
                NOTIFICATIONS,
                json!({"event_type": "Task Update", "recipients": [" Lead@A.test", "qa@a.test", "lead@a.test"]}),
                Some(&ua),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{n}");
        assert_eq!(n["event_type"], "Task Update");
        assert_eq!(n["recipients"], json!(["lead@a.test", "qa@a.test"]));
        assert_eq!(n["Organization"], a);
        assert_eq!(n["organization_name"], "Org A");
        let id = n["id"].as_i64().unwrap();

        let (s, list) = app.get(NOTIFICATIONS, &support).await;
        assert_eq!((s, list), (StatusCode::OK, json!([n.clone()])));
        let (s, one) = app
            .get(
                &format!("feature_control/event_notification/{id}"),
                &support,
            )
            .await;
        assert_eq!((s, one), (StatusCode::OK, n.clone()));
        let (s, by_event) = app
            .get(
                &format!("feature_control/get_event_notification/{a}/Task%20Update"),
                &ua,
            )
            .await;
        assert_eq!((s, by_event), (StatusCode::OK, n.clone()));

        // One notification per event: a second is refused.
        let (s, v) = app
            .post(
                NOTIFICATIONS,
                json!({"event_type": "Task Update", "recipients": ["x@a.test"]}),
                Some(&support),
            )
            .await;
        assert_eq!(
            field_error(s, &v, "event_type"),
            "This organization already has a notification for this event."
        );

        let (s, p) = app
            .patch(
                &format!("feature_control/event_notification/{id}"),
                json!({"recipients": ["night@a.test"], "Organization": a}),
                Some(&support),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{p}");
        assert_eq!(p["recipients"], json!(["night@a.test"]));
        assert_eq!(p["event_type"], "Task Update");
        let (_, stored) = app
            .get(&format!("feature_control/event_notification/{id}"), &ua)
            .await;
        assert_eq!(stored, p);

        let (s, v) = app
            .delete(&format!("feature_control/event_notification/{id}"), &ua)
            .await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some("Data deleted successfully!"))
        );
        let (s, _) = app
            .get(&format!("feature_control/event_notification/{id}"), &ua)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .get(
                &format!("feature_control/get_event_notification/{a}/Task%20Update"),
                &ua,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (_, list) = app.get(NOTIFICATIONS, &ua).await;
        assert_eq!(list, json!([]));
    }
);

both!(
    the_super_admin_manages_any_organisations_notifications,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let b = app.create_org(&admin, "Org B").await;

        // With no organisation of its own, the super admin must name one.
        let (s, v) = app
            .post(
                NOTIFICATIONS,
                json!({"event_type": "Task Update", "recipients": ["x@b.test"]}),
                Some(&admin),
            )
            .await;
        assert_eq!(
            field_error(s, &v, "Organization"),
            "This field is required."
        );
        let mut ids = vec![];
        for org in [a, b] {
            let (s, n) = app
                .post(
                    NOTIFICATIONS,
                    json!({"event_type": "Task Update", "recipients": ["x@b.test"], "Organization": org}),
                    Some(&admin),
                )
                .await;
            assert_eq!(
                (s, n["Organization"].as_i64()),
                (StatusCode::CREATED, Some(org))
            );
            ids.push(n["id"].as_i64().unwrap());
        }
        let (_, all) = app.get(NOTIFICATIONS, &admin).await;
        assert_eq!(all.as_array().unwrap().len(), 2);
        let (_, of_b) = app
            .get(&format!("{NOTIFICATIONS}?organization={b}"), &admin)
            .await;
        assert_eq!(of_b.as_array().unwrap().len(), 1);
        assert_eq!(of_b[0]["organization_name"], "Org B");
        // A's admin sees only A's.
        let (_, of_a) = app.get(NOTIFICATIONS, &ua).await;
        assert_eq!(of_a.as_array().unwrap().len(), 1);
        assert_eq!(of_a[0]["id"], ids[0]);

        let (s, v) = app
            .get(
                &format!("feature_control/get_event_notification/{b}/Task%20Update"),
                &admin,
            )
            .await;
        assert_eq!((s, v["id"].as_i64()), (StatusCode::OK, Some(ids[1])));
        let (s, _) = app
            .patch(
                &format!("feature_control/event_notification/{}", ids[1]),
                json!({"recipients": ["y@b.test"]}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = app
            .delete(
                &format!("feature_control/event_notification/{}", ids[1]),
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (_, all) = app.get(NOTIFICATIONS, &admin).await;
        assert_eq!(all.as_array().unwrap().len(), 1);
        // Deleting an organisation removes its notifications.
        app.delete(&format!("organization/{a}/"), &admin).await;
        let (_, all) = app.get(NOTIFICATIONS, &admin).await;
        assert_eq!(all, json!([]));
    }
);

both!(
    event_notifications_reject_bad_input,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let post = |body: Value| app.post(NOTIFICATIONS, body, Some(&ua));
        let ok = json!(["lead@a.test"]);

        let (s, v) = post(json!({"event_type": "Cycle Alert", "recipients": ok})).await;
        assert_eq!(
            field_error(s, &v, "event_type"),
            "\"Cycle Alert\" is not a valid choice."
        );
        let (s, v) = post(json!({"event_type": "task update", "recipients": ok})).await;
        field_error(s, &v, "event_type");
        let (s, v) = post(json!({"recipients": ok})).await;
        assert_eq!(field_error(s, &v, "event_type"), "This field is required.");
        let (s, v) = post(json!({"event_type": "Task Update"})).await;
        assert_eq!(field_error(s, &v, "recipients"), "This field is required.");
        let (s, v) = post(json!({"event_type": "Task Update", "recipients": []})).await;
        assert_eq!(
            field_error(s, &v, "recipients"),
            "At least one recipient is required."
        );
        for bad in [
            "not-an-email",
            "a@b",
            "a b@c.de",
            "a,b@x.io",
            "<a@x.io>",
            "",
        ] {
            let (s, v) =
                post(json!({"event_type": "Task Update", "recipients": ["ok@a.test", bad]})).await;
            assert!(
                field_error(s, &v, "recipients").starts_with("Enter a valid email address"),
                "{bad}: {v}"
            );
        }
        let many: Vec<String> = (0..51).map(|i| format!("u{i}@a.test")).collect();
        let (s, v) = post(json!({"event_type": "Task Update", "recipients": many})).await;
        assert_eq!(
            field_error(s, &v, "recipients"),
            "Ensure this field has no more than 50 elements."
        );
        let (s, v) = post(json!({"event_type": "Task Update", "recipients": "lead@a.test"})).await;
        field_error(s, &v, "recipients");
        let (s, v) =
            post(json!({"event_type": "Task Update", "recipients": ok, "Organization": 999999}))
                .await;
        assert_eq!(field_error(s, &v, "Organization"), "Unknown organization.");
        let r = app
            .client
            .post(format!("{}/{NOTIFICATIONS}", app.base))
            .bearer_auth(&ua)
            .header("content-type", "application/json")
            .body("{\"event_type\": ")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        // Nothing was written.
        let (_, list) = app.get(NOTIFICATIONS, &ua).await;
        assert_eq!(list, json!([]));

        // Exactly 50 is fine.
        let fifty: Vec<String> = (0..50).map(|i| format!("u{i}@a.test")).collect();
        let (s, n) = post(json!({"event_type": "Task Update", "recipients": fifty})).await;
        assert_eq!(s, StatusCode::CREATED, "{n}");
        let id = n["id"].as_i64().unwrap();
        let one = format!("feature_control/event_notification/{id}");

        // Bad changes change nothing.
        for (body, field) in [
            (json!({"event_type": "Cycle Alert"}), "event_type"),
            (json!({"recipients": []}), "recipients"),
            (json!({"recipients": ["nope"]}), "recipients"),
            (json!({"recipients": [1, 2]}), "recipients"),
            (json!({"Organization": a + 1}), "Organization"),
        ] {
            let (s, v) = app.patch(&one, body.clone(), Some(&ua)).await;
            field_error(s, &v, field);
        }
        // A body that is not an object is refused, before the id is looked up.
        for path in [one.as_str(), "feature_control/event_notification/999999"] {
            for body in [json!([]), json!(["Task Update"]), json!(null), json!(7)] {
                let (s, v) = app.patch(path, body.clone(), Some(&ua)).await;
                assert_eq!(s, StatusCode::BAD_REQUEST, "{path} {body}: {v}");
                assert!(v["non_field_errors"][0].is_string(), "{v}");
            }
        }
        let (_, stored) = app.get(&one, &ua).await;
        assert_eq!(stored, n);
        // An organisation that does not exist is not found, not an empty list.
        let (s, v) = app
            .get(&format!("{NOTIFICATIONS}?organization=999999"), &admin)
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::NOT_FOUND, Some("Not found."))
        );

        // Unknown ids and paths.
        for path in [
            "feature_control/event_notification/999999",
            "feature_control/event_notification/abc",
            "feature_control/get_event_notification/abc/Task%20Update",
            "feature_control/get_event_notification/999999/Task%20Update",
        ] {
            assert_eq!(app.get(path, &ua).await.0, StatusCode::NOT_FOUND, "{path}");
        }
        let (s, _) = app
            .patch(
                "feature_control/event_notification/999999",
                json!({"recipients": ok}),
                Some(&ua),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .delete("feature_control/event_notification/999999", &ua)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, v) = app
            .get(
                &format!("feature_control/get_event_notification/{a}/Bogus"),
                &ua,
            )
            .await;
        assert_eq!(
            field_error(s, &v, "event_type"),
            "\"Bogus\" is not a valid choice."
        );
    }
);

both!(
    roles_without_the_permission_cannot_touch_notifications_or_send_email,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let (s, n) = app
            .post(
                NOTIFICATIONS,
                json!({"event_type": "Task Update", "recipients": ["lead@a.test"]}),
                Some(&ua),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED);
        let id = n["id"].as_i64().unwrap();
        let mut refused = vec![];
        for (i, role) in [
            "org_user",
            "labeler",
            "analytics_user",
            "user",
            "doc_user",
            "workstation_user",
        ]
        .into_iter()
        .enumerate()
        {
            let org = (role != "labeler").then_some(a);
            let t = token(
                &app.user_in(&admin, &format!("r{i}@a.test"), role, org)
                    .await,
            );
            let calls: Vec<(Method, String, Option<Value>)> = vec![
                (Method::GET, NOTIFICATIONS.into(), None),
                (
                    Method::POST,
                    NOTIFICATIONS.into(),
                    Some(json!({"event_type": "Task Update", "recipients": ["x@a.test"]})),
                ),
                (
                    Method::GET,
                    format!("feature_control/event_notification/{id}"),
                    None,
                ),
                (
                    Method::PATCH,
                    format!("feature_control/event_notification/{id}"),
                    Some(json!({"recipients": ["x@a.test"]})),
                ),
                (
                    Method::DELETE,
                    format!("feature_control/event_notification/{id}"),
                    None,
                ),
                (
                    Method::GET,
                    format!("feature_control/get_event_notification/{a}/Task%20Update"),
                    None,
                ),
                (
                    Method::POST,
                    "feature_control/send_email".into(),
                    Some(json!({"recipients": ["x@a.test"], "subject": "s", "body": "b"})),
                ),
                (
                    Method::POST,
                    "feature_control/feature/".into(),
                    Some(json!({"name": "New"})),
                ),
            ];
            for (m, path, body) in calls {
                let (s, _) = app.call(m.clone(), &path, body, Some(&t)).await;
                if s != StatusCode::FORBIDDEN {
                    refused.push(format!("{role} {m} {path}: {s}"));
                }
            }
        }
        assert!(refused.is_empty(), "not refused: {refused:?}");
        // Nothing changed.
        let (_, stored) = app
            .get(&format!("feature_control/event_notification/{id}"), &ua)
            .await;
        assert_eq!(stored, n);
        assert!(app.last_mail("x@a.test").await.is_none());
    }
);

both!(
    an_org_admin_cannot_reach_another_organisations_notifications,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let (b, ub) = org_with_admin(&app, &admin, "Org B", "b@b.test").await;
        let (s, nb) = app
            .post(
                NOTIFICATIONS,
                json!({"event_type": "Task Update", "recipients": ["lead@b.test"]}),
                Some(&ub),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED);
        let id = nb["id"].as_i64().unwrap();
        let one = format!("feature_control/event_notification/{id}");

        assert_eq!(app.get(&one, &ua).await.0, StatusCode::NOT_FOUND);
        let (s, _) = app
            .patch(&one, json!({"recipients": ["spy@a.test"]}), Some(&ua))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(app.delete(&one, &ua).await.0, StatusCode::NOT_FOUND);
        let (s, _) = app
            .get(
                &format!("feature_control/get_event_notification/{b}/Task%20Update"),
                &ua,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .get(&format!("{NOTIFICATIONS}?organization={b}"), &ua)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Acting in B through the header is refused outright.
        let (s, _) = app
            .call_with(
                Method::GET,
                &one,
                None,
                Some(&ua),
                &[("Organization", &b.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Creating one for B reads B as unknown.
        let (s, v) = app
            .post(
                NOTIFICATIONS,
                json!({"event_type": "Task Update", "recipients": ["spy@a.test"], "Organization": b}),
                Some(&ua),
            )
            .await;
        assert_eq!(field_error(s, &v, "Organization"), "Unknown organization.");
        // B's notification is untouched, and A's list is empty.
        let (s, stored) = app.get(&one, &ub).await;
        assert_eq!((s, stored), (StatusCode::OK, nb));
        let (_, of_a) = app.get(NOTIFICATIONS, &ua).await;
        assert_eq!(of_a, json!([]));
        // A can still create its own.
        let (s, na) = app
            .post(
                NOTIFICATIONS,
                json!({"event_type": "Task Update", "recipients": ["lead@a.test"], "Organization": a}),
                Some(&ua),
            )
            .await;
        assert_eq!(
            (s, na["Organization"].as_i64()),
            (StatusCode::CREATED, Some(a))
        );
    }
);

// ----- send_email -----------------------------------------------------------------------

both!(
    send_email_validates_and_keeps_the_mail_in_the_outbox,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (_, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let path = "feature_control/send_email";
        let good = json!({"recipients": ["Ops@Plant.test", "lead@plant.test"], "subject": " Shift report ", "body": "All stations ran.\n"});

        let mut bad: Vec<(Value, &str)> = vec![];
        let with = |k: &str, v: Value| {
            let mut b = good.clone();
            b[k] = v;
            b
        };
        bad.push((with("recipients", json!([])), "recipients"));
        bad.push((with("recipients", json!(["nope"])), "recipients"));
        bad.push((with("recipients", json!("ops@plant.test")), "recipients"));
        let many: Vec<String> = (0..51).map(|i| format!("u{i}@plant.test")).collect();
        bad.push((with("recipients", json!(many)), "recipients"));
        bad.push((with("subject", json!("  ")), "subject"));
        bad.push((with("subject", json!("s".repeat(201))), "subject"));
        bad.push((
            with("subject", json!("Hi\r\nBcc: spy@evil.test")),
            "subject",
        ));
        bad.push((with("body", json!(" \n")), "body"));
        bad.push((with("body", json!("b".repeat(100 * 1024 + 1))), "body"));
        bad.push((with("body", json!(7)), "body"));
        let mut no_subject = good.clone();
        no_subject.as_object_mut().unwrap().remove("subject");
        bad.push((no_subject, "subject"));
        for (body, field) in bad {
            let (s, v) = app.post(path, body, Some(&ua)).await;
            field_error(s, &v, field);
        }
        // None of them was sent.
        assert!(app.last_mail("plant.test").await.is_none());
        assert!(app.last_mail("evil.test").await.is_none());

        let (s, v) = app.post(path, good.clone(), Some(&ua)).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let id = v["id"].as_i64().unwrap();
        let (s, outbox) = app
            .get("admin/outbox/?recipient=ops@plant.test", &admin)
            .await;
        assert_eq!(s, StatusCode::OK);
        let m = &outbox[0];
        assert_eq!(m["id"], id);
        assert_eq!(m["recipients"], "ops@plant.test, lead@plant.test");
        assert_eq!(m["subject"], "Shift report");
        assert_eq!(m["body"], "All stations ran.\n");
        let eml = std::fs::read_to_string(
            app.data_dir()
                .join("outbox")
                .join(m["file_name"].as_str().unwrap()),
        )
        .unwrap();
        assert!(
            eml.contains("To: ops@plant.test, lead@plant.test")
                && eml.contains("Subject: Shift report"),
            "{eml}"
        );
        // The largest body allowed is accepted.
        let (s, _) = app
            .post(path, with_body(&good, "b".repeat(100 * 1024)), Some(&ua))
            .await;
        assert_eq!(s, StatusCode::OK);
    }
);

fn with_body(good: &Value, body: String) -> Value {
    let mut b = good.clone();
    b["body"] = json!(body);
    b
}

// ----- SMTP against a real server -------------------------------------------------------

/// A real SMTP server (aiosmtpd, `cloud/tests/smtp_sink.py`) on a free local port,
/// stopped when dropped.
struct SmtpSink {
    port: u16,
    dir: tempfile::TempDir,
    _child: tokio::process::Child,
}

fn python() -> PathBuf {
    if let Ok(p) = std::env::var("GEMBA_TEST_PYTHON") {
        return p.into();
    }
    let venv = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/venv/bin/python"
    ));
    assert!(
        venv.exists(),
        "the e-mail tests need a Python with aiosmtpd: run scripts/test, which sets up \
         target/venv and GEMBA_TEST_PYTHON"
    );
    venv
}

impl SmtpSink {
    async fn start() -> SmtpSink {
        use tokio::io::AsyncBufReadExt;
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut child = tokio::process::Command::new(python())
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/smtp_sink.py"))
            .arg("127.0.0.1")
            .arg(port.to_string())
            .arg(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("starting the SMTP server");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the SMTP server started in time")
            .unwrap();
        assert_eq!(
            line.as_deref(),
            Some("ready"),
            "the SMTP server did not start"
        );
        SmtpSink {
            port,
            dir,
            _child: child,
        }
    }

    /// The message received with `subject`, waiting for it.
    async fn received(&self, subject: &str) -> Value {
        for _ in 0..300 {
            let mut files: Vec<_> = std::fs::read_dir(self.dir.path())
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            files.sort();
            for f in files {
                let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
                if v["subject"] == subject {
                    return v;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the SMTP server received no message {subject:?}");
    }
}

fn smtp_at(port: u16) -> impl FnOnce(&mut gemba_cloud::config::Settings) {
    move |s| {
        s.smtp = Some(Smtp {
            host: "127.0.0.1".into(),
            port,
            username: None,
            password: None,
            security: SmtpSecurity::None,
        })
    }
}

/// Waits until the outbox row `id` records a delivery attempt; answers the row.
async fn settled(app: &TestApp, admin: &str, to: &str, id: i64) -> Value {
    for _ in 0..300 {
        let (_, rows) = app
            .get(&format!("admin/outbox/?recipient={to}"), admin)
            .await;
        if let Some(m) = rows.as_array().unwrap().iter().find(|m| m["id"] == id)
            && (m["delivered"] == true || !m["error"].is_null())
        {
            return m.clone();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("outbox row {id} was never settled");
}

async fn smtp_delivers(backend: Backend) {
    let sink = SmtpSink::start().await;
    let app = TestApp::start_with(backend, smtp_at(sink.port)).await;
    let admin = app.admin_token().await;
    let (_, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
    let subject = "Schichtübergabe: Linie 3";
    let body = "Station 1 lief.\nStation 2 – Pause 10 min.\n";
    let (s, v) = app
        .post(
            "feature_control/send_email",
            json!({"recipients": ["Ops@Plant.test", "lead@plant.test"], "subject": subject, "body": body}),
            Some(&ua),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_i64().unwrap();

    let got = sink.received(subject).await;
    assert_eq!(
        got["rcpt_tos"],
        json!(["ops@plant.test", "lead@plant.test"])
    );
    assert_eq!(got["to"], "ops@plant.test, lead@plant.test");
    assert!(
        got["mail_from"]
            .as_str()
            .unwrap()
            .contains("no-reply@gemba.local"),
        "{got}"
    );
    assert_eq!(
        got["body"]
            .as_str()
            .unwrap()
            .replace("\r\n", "\n")
            .trim_end(),
        body.trim_end()
    );

    let row = settled(&app, &admin, "ops@plant.test", id).await;
    assert_eq!(row["delivered"], true, "{row}");
    assert!(row["error"].is_null(), "{row}");
}

async fn smtp_unreachable(backend: Backend) {
    // A port nothing listens on.
    let port = free_port();
    let app = TestApp::start_with(backend, smtp_at(port)).await;
    let admin = app.admin_token().await;
    let (s, v) = app
        .post(
            "feature_control/send_email",
            json!({"recipients": ["ops@plant.test"], "subject": "Nobody home", "body": "Still kept."}),
            Some(&admin),
        )
        .await;
    // The call succeeds: the mail is kept, delivery is the outbox's business.
    assert_eq!(s, StatusCode::OK, "{v}");
    let id = v["id"].as_i64().unwrap();
    let row = settled(&app, &admin, "ops@plant.test", id).await;
    assert_eq!(row["delivered"], false, "{row}");
    assert!(!row["error"].as_str().unwrap().is_empty(), "{row}");
    let eml = std::fs::read_to_string(
        app.data_dir()
            .join("outbox")
            .join(row["file_name"].as_str().unwrap()),
    )
    .unwrap();
    assert!(
        eml.contains("Subject: Nobody home") && eml.contains("Still kept."),
        "{eml}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smtp_delivers_send_email_to_a_real_server_sqlite() {
    smtp_delivers(Backend::Sqlite).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smtp_delivers_send_email_to_a_real_server_postgres() {
    smtp_delivers(Backend::Postgres).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_smtp_keeps_the_mail_undelivered_with_its_error_sqlite() {
    smtp_unreachable(Backend::Sqlite).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_smtp_keeps_the_mail_undelivered_with_its_error_postgres() {
    smtp_unreachable(Backend::Postgres).await
}
