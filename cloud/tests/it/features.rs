//! Feature control: features, subscriptions (gated features are off by default),
//! event notifications, `send_email`, and e-mail through a real SMTP server.

use std::time::Duration;

use gemba_cloud::config::{Smtp, SmtpSecurity};
use gemba_cloud::db::features;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::feature_control::{
    EventNotification, EventNotificationCreate, EventNotificationPatch, Feature, FeatureCreate,
    Gated, SendEmail, SendEmailResult, SubscribedFeature, SubscribedFeatureCreate, TASK_UPDATE,
};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

const NOTIFICATIONS: &str = "feature_control/event_notifications";
const FEATURES: &str = "feature_control/feature/";
const SUBSCRIPTIONS: &str = "feature_control/subscribed_feature/";

/// An organisation with an org admin in it: (org id, the admin's token).
async fn org_with_admin(app: &TestApp, admin: &str, display: &str, email: &str) -> (i64, String) {
    let org = app.create_org(admin, display).await;
    let t = token(&app.user_in(admin, email, "org_admin", Some(org)).await);
    (org, t)
}

/// The users `send_email` mails in these tests, in organisation `org`.
async fn plant_users(app: &TestApp, org: i64) {
    for e in ["ops@plant.test", "lead@plant.test"] {
        app.quick_user(e, "Plant", "org_user", &[org]).await;
    }
}

/// `t` as the JSON sent.
fn body<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap()
}

/// The answer of a call that answered `want`, read as `T`.
fn answer<T: DeserializeOwned>((status, v): (StatusCode, Value), want: StatusCode) -> T {
    assert_eq!(status, want, "{v}");
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"))
}

/// `DELETE path` as `tok`: a 200 and its message.
async fn deleted(app: &TestApp, path: &str, tok: &str) -> Msg {
    answer(app.delete(path, tok).await, StatusCode::OK)
}

async fn feature_list(app: &TestApp, tok: &str) -> Vec<Feature> {
    app.get_as(FEATURES, tok).await
}

fn feature_id(list: &[Feature], name: &str) -> i64 {
    list.iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("feature {name} in {list:?}"))
        .id
}

fn feature(name: &str) -> FeatureCreate {
    FeatureCreate { name: name.into() }
}

/// Organisation `org`'s subscription to `feature`.
fn subscription(feature: i64, org: i64, is_suppressed: bool) -> SubscribedFeatureCreate {
    SubscribedFeatureCreate {
        feature,
        organization: org,
        is_suppressed,
    }
}

/// The subscriptions `tok` lists (`query`: `?organization=…` or nothing).
async fn subscriptions(app: &TestApp, tok: &str, query: &str) -> Vec<SubscribedFeature> {
    app.get_as(&format!("{SUBSCRIPTIONS}{query}"), tok).await
}

/// A 'Task Update' notification to `recipients`, of `org` when given.
fn notification(recipients: &[&str], org: Option<i64>) -> EventNotificationCreate {
    EventNotificationCreate {
        event_type: TASK_UPDATE.into(),
        recipients: recipients.iter().map(|r| r.to_string()).collect(),
        organization: org,
    }
}

/// The notifications `tok` lists (`query`: `?organization=…` or nothing).
async fn notifications(app: &TestApp, tok: &str, query: &str) -> Vec<EventNotification> {
    app.get_as(&format!("{NOTIFICATIONS}{query}"), tok).await
}

/// A change of a notification's recipients alone.
fn recipients(to: &[&str]) -> EventNotificationPatch {
    EventNotificationPatch {
        recipients: Some(to.iter().map(|r| r.to_string()).collect()),
        ..EventNotificationPatch::default()
    }
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

        let list = feature_list(&app, &user).await;
        let names: Vec<&str> = list.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, Gated::ALL.map(|g| g.name()));
        assert_eq!(app.get(FEATURES, &labeler).await.0, StatusCode::OK);

        // Others may not add or delete.
        for t in [&user, &labeler] {
            let (s, _) = app
                .send_refused(Method::POST, FEATURES, &feature("X"), t)
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
            let id = feature_id(&list, "Devices");
            let (s, _) = app.delete(&format!("{FEATURES}?id={id}"), t).await;
            assert_eq!(s, StatusCode::FORBIDDEN);
        }

        let f: Feature = app
            .create_as(FEATURES, &feature("  Line Balancing "), &admin)
            .await;
        assert_eq!(f.name, "Line Balancing");
        let list = feature_list(&app, &user).await;
        assert_eq!(feature_id(&list, "Line Balancing"), f.id);

        let m = deleted(&app, &format!("{FEATURES}?id={}", f.id), &admin).await;
        assert_eq!(m.msg, "Data deleted successfully!");
        assert_eq!(feature_list(&app, &user).await.len(), 6);
        // Gone: a second delete is a 404.
        let (s, v) = app.delete(&format!("{FEATURES}?id={}", f.id), &admin).await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::NOT_FOUND, Some("Not found."))
        );
    }
);

both!(feature_calls_reject_bad_input, |app: TestApp| async move {
    let admin = app.admin_token().await;
    let path = FEATURES;
    let refused = async |name: String| {
        app.send_refused(Method::POST, path, &FeatureCreate { name }, &admin)
            .await
    };
    let (s, v) = refused("Devices".into()).await;
    assert_eq!(
        field_error(s, &v, "name"),
        "feature with this name already exists."
    );
    let (s, v) = refused("   ".into()).await;
    assert_eq!(field_error(s, &v, "name"), "This field may not be blank.");
    let (s, v) = refused("x".repeat(101)).await;
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
    assert_eq!(feature_list(&app, &admin).await.len(), 6);
});

// ----- subscriptions --------------------------------------------------------------------

both!(
    gated_features_are_off_until_the_organisation_holds_an_unsuppressed_subscription,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        let b = app.create_org(&admin, "Org B").await;
        let db = &app.state.db;
        let list = feature_list(&app, &ua).await;
        let devices = feature_id(&list, "Devices");
        let pathfinder = feature_id(&list, "Pathfinder");

        // Default off: no subscription.
        for name in Gated::ALL.map(|g| g.name()) {
            assert!(!features::enabled(db, a, name).await.unwrap(), "{name}");
        }
        let none = subscriptions(&app, &ua, "").await;
        assert!(none.is_empty(), "{none:?}");

        let sub: SubscribedFeature = app
            .create_as(SUBSCRIPTIONS, &subscription(devices, a, false), &admin)
            .await;
        assert_eq!(sub.feature, devices);
        assert_eq!(sub.organization, a);
        assert_eq!(sub.feature_name, "Devices");
        assert!(!sub.is_suppressed);
        assert!(features::enabled(db, a, "Devices").await.unwrap());
        assert!(!features::enabled(db, b, "Devices").await.unwrap());
        assert_eq!(
            subscriptions(&app, &ua, "").await,
            std::slice::from_ref(&sub)
        );

        // Pathfinder with a suppressed subscription stays hidden.
        let p: SubscribedFeature = app
            .create_as(SUBSCRIPTIONS, &subscription(pathfinder, a, true), &admin)
            .await;
        assert!(!features::enabled(db, a, "Pathfinder").await.unwrap());
        // Posting the same pair again changes is_suppressed, without a second row.
        let p2: SubscribedFeature = answer(
            app.post(
                SUBSCRIPTIONS,
                body(&subscription(pathfinder, a, false)),
                Some(&admin),
            )
            .await,
            StatusCode::OK,
        );
        assert_eq!((p2.id, p2.is_suppressed), (p.id, false));
        assert!(features::enabled(db, a, "Pathfinder").await.unwrap());
        assert_eq!(subscriptions(&app, &ua, "").await.len(), 2);

        // The super admin sees all, or one organisation's.
        assert_eq!(subscriptions(&app, &admin, "").await.len(), 2);
        let of_b = subscriptions(&app, &admin, &format!("?organization={b}")).await;
        assert!(of_b.is_empty(), "{of_b:?}");

        // Unsubscribing turns it off again.
        let m = deleted(&app, &format!("{SUBSCRIPTIONS}?id={}", sub.id), &admin).await;
        assert_eq!(m.msg, "Data deleted successfully!");
        assert!(!features::enabled(db, a, "Devices").await.unwrap());
        let (s, _) = app
            .delete(&format!("{SUBSCRIPTIONS}?id={}", sub.id), &admin)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Deleting a feature ends every subscription to it.
        let f: Feature = app.create_as(FEATURES, &feature("Assistant"), &admin).await;
        for org in [a, b] {
            let _: SubscribedFeature = app
                .create_as(SUBSCRIPTIONS, &subscription(f.id, org, false), &admin)
                .await;
        }
        app.delete(&format!("{FEATURES}?id={}", f.id), &admin).await;
        let all = subscriptions(&app, &admin, "").await;
        let names: Vec<&str> = all.iter().map(|s| s.feature_name.as_str()).collect();
        assert_eq!(names, ["Pathfinder"]);
    }
);

both!(
    subscription_calls_reject_bad_input,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Org A").await;
        let path = SUBSCRIPTIONS;
        let devices = feature_id(&feature_list(&app, &admin).await, "Devices");

        let (s, v) = app
            .send_refused(Method::POST, path, &subscription(999999, a, false), &admin)
            .await;
        assert_eq!(field_error(s, &v, "Feature"), "Unknown feature.");
        let (s, v) = app
            .send_refused(
                Method::POST,
                path,
                &subscription(devices, 999999, false),
                &admin,
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
        let of_a = subscriptions(&app, &admin, &format!("?organization={a}")).await;
        assert!(of_a.is_empty(), "{of_a:?}");
        // Nothing was written.
        let all = subscriptions(&app, &admin, "").await;
        assert!(all.is_empty(), "{all:?}");
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
        let devices = feature_id(&feature_list(&app, &ua).await, "Devices");
        let sub_b: SubscribedFeature = app
            .create_as(SUBSCRIPTIONS, &subscription(devices, b, false), &admin)
            .await;
        let id_b = sub_b.id;

        for t in [&ua, &support] {
            // Not even for their own organisation.
            let (s, _) = app
                .send_refused(
                    Method::POST,
                    SUBSCRIPTIONS,
                    &subscription(devices, a, false),
                    t,
                )
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
            let (s, _) = app.delete(&format!("{SUBSCRIPTIONS}?id={id_b}"), t).await;
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
        let none = subscriptions(&app, &ua, "").await;
        assert!(none.is_empty(), "{none:?}");
        let (s, _) = app
            .get(&format!("{SUBSCRIPTIONS}?organization={b}"), &ua)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .call_with(
                Method::GET,
                SUBSCRIPTIONS,
                None,
                Some(&ua),
                &[("Organization", &b.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Naming one's own organisation works; B sees its own.
        let of_a = subscriptions(&app, &ua, &format!("?organization={a}")).await;
        assert!(of_a.is_empty(), "{of_a:?}");
        assert_eq!(subscriptions(&app, &ub, "").await, [sub_b]);
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

        let n: EventNotification = app
            .create_as(
                NOTIFICATIONS,
                &notification(&[" Lead@A.test", "qa@a.test", "lead@a.test"], None),
                &ua,
            )
            .await;
        assert_eq!(n.event_type, "Task Update");
        assert_eq!(n.recipients, ["lead@a.test", "qa@a.test"]);
        assert_eq!(n.organization, a);
        assert_eq!(n.organization_name, "Org A");
        let id = n.id;

        assert_eq!(
            notifications(&app, &support, "").await,
            std::slice::from_ref(&n)
        );
        let one: EventNotification = app
            .get_as(
                &format!("feature_control/event_notification/{id}"),
                &support,
            )
            .await;
        assert_eq!(one, n);
        let by_event: EventNotification = app
            .get_as(
                &format!("feature_control/get_event_notification/{a}/Task%20Update"),
                &ua,
            )
            .await;
        assert_eq!(by_event, n);

        // One notification per event: a second is refused.
        let (s, v) = app
            .send_refused(
                Method::POST,
                NOTIFICATIONS,
                &notification(&["x@a.test"], None),
                &support,
            )
            .await;
        assert_eq!(
            field_error(s, &v, "event_type"),
            "This organization already has a notification for this event."
        );

        let p: EventNotification = app
            .send_as(
                Method::PATCH,
                &format!("feature_control/event_notification/{id}"),
                &EventNotificationPatch {
                    organization: Some(a),
                    ..recipients(&["night@a.test"])
                },
                &support,
            )
            .await;
        assert_eq!(p.recipients, ["night@a.test"]);
        assert_eq!(p.event_type, "Task Update");
        let stored: EventNotification = app
            .get_as(&format!("feature_control/event_notification/{id}"), &ua)
            .await;
        assert_eq!(stored, p);

        let m = deleted(
            &app,
            &format!("feature_control/event_notification/{id}"),
            &ua,
        )
        .await;
        assert_eq!(m.msg, "Data deleted successfully!");
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
        let list = notifications(&app, &ua, "").await;
        assert!(list.is_empty(), "{list:?}");
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
            .send_refused(
                Method::POST,
                NOTIFICATIONS,
                &notification(&["x@b.test"], None),
                &admin,
            )
            .await;
        assert_eq!(
            field_error(s, &v, "Organization"),
            "This field is required."
        );
        let mut ids = vec![];
        for org in [a, b] {
            let n: EventNotification = app
                .create_as(
                    NOTIFICATIONS,
                    &notification(&["x@b.test"], Some(org)),
                    &admin,
                )
                .await;
            assert_eq!(n.organization, org);
            ids.push(n.id);
        }
        assert_eq!(notifications(&app, &admin, "").await.len(), 2);
        let of_b = notifications(&app, &admin, &format!("?organization={b}")).await;
        assert_eq!(of_b.len(), 1);
        assert_eq!(of_b[0].organization_name, "Org B");
        // A's admin sees only A's.
        let of_a = notifications(&app, &ua, "").await;
        assert_eq!(of_a.len(), 1);
        assert_eq!(of_a[0].id, ids[0]);

        let v: EventNotification = app
            .get_as(
                &format!("feature_control/get_event_notification/{b}/Task%20Update"),
                &admin,
            )
            .await;
        assert_eq!(v.id, ids[1]);
        let _: EventNotification = app
            .send_as(
                Method::PATCH,
                &format!("feature_control/event_notification/{}", ids[1]),
                &recipients(&["y@b.test"]),
                &admin,
            )
            .await;
        deleted(
            &app,
            &format!("feature_control/event_notification/{}", ids[1]),
            &admin,
        )
        .await;
        assert_eq!(notifications(&app, &admin, "").await.len(), 1);
        // Deleting an organisation removes its notifications.
        app.delete(&format!("organization/{a}/"), &admin).await;
        let all = notifications(&app, &admin, "").await;
        assert!(all.is_empty(), "{all:?}");
    }
);

both!(
    event_notifications_reject_bad_input,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        // Bodies the shared type cannot hold stay JSON.
        let post = |body: Value| app.post(NOTIFICATIONS, body, Some(&ua));
        let refused = async |body: EventNotificationCreate| {
            app.send_refused(Method::POST, NOTIFICATIONS, &body, &ua)
                .await
        };
        let ok = json!(["lead@a.test"]);
        let of_type = |event_type: &str| EventNotificationCreate {
            event_type: event_type.into(),
            ..notification(&["lead@a.test"], None)
        };

        let (s, v) = refused(of_type("Cycle Alert")).await;
        assert_eq!(
            field_error(s, &v, "event_type"),
            "\"Cycle Alert\" is not a valid choice."
        );
        let (s, v) = refused(of_type("task update")).await;
        field_error(s, &v, "event_type");
        let (s, v) = post(json!({"recipients": ok})).await;
        assert_eq!(field_error(s, &v, "event_type"), "This field is required.");
        let (s, v) = post(json!({"event_type": "Task Update"})).await;
        assert_eq!(field_error(s, &v, "recipients"), "This field is required.");
        let (s, v) = refused(notification(&[], None)).await;
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
            let (s, v) = refused(notification(&["ok@a.test", bad], None)).await;
            assert!(
                field_error(s, &v, "recipients").starts_with("Enter a valid email address"),
                "{bad}: {v}"
            );
        }
        let many: Vec<String> = (0..51).map(|i| format!("u{i}@a.test")).collect();
        let (s, v) = refused(EventNotificationCreate {
            recipients: many,
            ..notification(&[], None)
        })
        .await;
        assert_eq!(
            field_error(s, &v, "recipients"),
            "Ensure this field has no more than 50 elements."
        );
        let (s, v) = post(json!({"event_type": "Task Update", "recipients": "lead@a.test"})).await;
        field_error(s, &v, "recipients");
        let (s, v) = refused(notification(&["lead@a.test"], Some(999999))).await;
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
        let list = notifications(&app, &ua, "").await;
        assert!(list.is_empty(), "{list:?}");

        // Exactly 50 is fine.
        let fifty: Vec<String> = (0..50).map(|i| format!("u{i}@a.test")).collect();
        let n: EventNotification = app
            .create_as(
                NOTIFICATIONS,
                &EventNotificationCreate {
                    recipients: fifty,
                    ..notification(&[], None)
                },
                &ua,
            )
            .await;
        let one = format!("feature_control/event_notification/{}", n.id);

        // Bad changes change nothing.
        for (body, field) in [
            (
                EventNotificationPatch {
                    event_type: Some("Cycle Alert".into()),
                    ..EventNotificationPatch::default()
                },
                "event_type",
            ),
            (recipients(&[]), "recipients"),
            (recipients(&["nope"]), "recipients"),
            (
                EventNotificationPatch {
                    organization: Some(a + 1),
                    ..EventNotificationPatch::default()
                },
                "Organization",
            ),
        ] {
            let (s, v) = app.send_refused(Method::PATCH, &one, &body, &ua).await;
            field_error(s, &v, field);
        }
        let (s, v) = app
            .patch(&one, json!({"recipients": [1, 2]}), Some(&ua))
            .await;
        field_error(s, &v, "recipients");
        // A body that is not an object is refused, before the id is looked up.
        for path in [one.as_str(), "feature_control/event_notification/999999"] {
            for body in [json!([]), json!(["Task Update"]), json!(null), json!(7)] {
                let (s, v) = app.patch(path, body.clone(), Some(&ua)).await;
                assert_eq!(s, StatusCode::BAD_REQUEST, "{path} {body}: {v}");
                assert!(v["non_field_errors"][0].is_string(), "{v}");
            }
        }
        let stored: EventNotification = app.get_as(&one, &ua).await;
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
            .send_refused(
                Method::PATCH,
                "feature_control/event_notification/999999",
                &recipients(&["lead@a.test"]),
                &ua,
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
        let n: EventNotification = app
            .create_as(NOTIFICATIONS, &notification(&["lead@a.test"], None), &ua)
            .await;
        let id = n.id;
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
                    Some(body(&notification(&["x@a.test"], None))),
                ),
                (
                    Method::GET,
                    format!("feature_control/event_notification/{id}"),
                    None,
                ),
                (
                    Method::PATCH,
                    format!("feature_control/event_notification/{id}"),
                    Some(body(&recipients(&["x@a.test"]))),
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
                    Some(body(&SendEmail {
                        recipients: vec!["x@a.test".into()],
                        subject: "s".into(),
                        body: "b".into(),
                    })),
                ),
                (Method::POST, FEATURES.into(), Some(body(&feature("New")))),
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
        let stored: EventNotification = app
            .get_as(&format!("feature_control/event_notification/{id}"), &ua)
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
        let nb: EventNotification = app
            .create_as(NOTIFICATIONS, &notification(&["lead@b.test"], None), &ub)
            .await;
        let one = format!("feature_control/event_notification/{}", nb.id);

        assert_eq!(app.get(&one, &ua).await.0, StatusCode::NOT_FOUND);
        let (s, _) = app
            .send_refused(Method::PATCH, &one, &recipients(&["spy@a.test"]), &ua)
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
            .send_refused(
                Method::POST,
                NOTIFICATIONS,
                &notification(&["spy@a.test"], Some(b)),
                &ua,
            )
            .await;
        assert_eq!(field_error(s, &v, "Organization"), "Unknown organization.");
        // B's notification is untouched, and A's list is empty.
        let stored: EventNotification = app.get_as(&one, &ub).await;
        assert_eq!(stored, nb);
        let of_a = notifications(&app, &ua, "").await;
        assert!(of_a.is_empty(), "{of_a:?}");
        // A can still create its own.
        let na: EventNotification = app
            .create_as(NOTIFICATIONS, &notification(&["lead@a.test"], Some(a)), &ua)
            .await;
        assert_eq!(na.organization, a);
    }
);

// ----- send_email -----------------------------------------------------------------------

both!(
    send_email_validates_and_keeps_the_mail_in_the_outbox,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
        plant_users(&app, a).await;
        let b = app.create_org(&admin, "Org B").await;
        app.quick_user("other@plant.test", "Other", "org_user", &[b])
            .await;
        let path = "feature_control/send_email";
        let good = SendEmail {
            recipients: vec!["Ops@Plant.test".into(), "lead@plant.test".into()],
            subject: " Shift report ".into(),
            body: "All stations ran.\n".into(),
        };

        // The bad ones the shared type holds, and those it cannot (JSON).
        let to = |recipients: Vec<String>| {
            body(&SendEmail {
                recipients,
                ..good.clone()
            })
        };
        let subject = |subject: String| {
            body(&SendEmail {
                subject,
                ..good.clone()
            })
        };
        let text = |text: String| {
            body(&SendEmail {
                body: text,
                ..good.clone()
            })
        };
        let with = |k: &str, v: Value| {
            let mut b = body(&good);
            b[k] = v;
            b
        };
        let many: Vec<String> = (0..51).map(|i| format!("u{i}@plant.test")).collect();
        let mut bad: Vec<(Value, &str)> = vec![
            (to(vec![]), "recipients"),
            (to(vec!["nope".into()]), "recipients"),
            (with("recipients", json!("ops@plant.test")), "recipients"),
            // Only the organisation's users: not an outside address, nor another's user.
            (to(vec!["stranger@plant.test".into()]), "recipients"),
            (
                to(vec!["ops@plant.test".into(), "other@plant.test".into()]),
                "recipients",
            ),
            (to(many), "recipients"),
            (subject("  ".into()), "subject"),
            (subject("s".repeat(201)), "subject"),
            (subject("Hi\r\nBcc: spy@evil.test".into()), "subject"),
            (text(" \n".into()), "body"),
            (text("b".repeat(100 * 1024 + 1)), "body"),
            (with("body", json!(7)), "body"),
        ];
        let mut no_subject = body(&good);
        no_subject.as_object_mut().unwrap().remove("subject");
        bad.push((no_subject, "subject"));
        for (body, field) in bad {
            let (s, v) = app.post(path, body, Some(&ua)).await;
            field_error(s, &v, field);
        }
        let (_, v) = app
            .send_refused(
                Method::POST,
                path,
                &SendEmail {
                    recipients: vec!["other@plant.test".into()],
                    ..good.clone()
                },
                &ua,
            )
            .await;
        assert_eq!(
            v["recipients"][0],
            "\"other@plant.test\" is not a user of this organization."
        );
        // None of them was sent.
        assert!(app.last_mail("plant.test").await.is_none());
        assert!(app.last_mail("evil.test").await.is_none());

        let v: SendEmailResult = app.send_as(Method::POST, path, &good, &ua).await;
        let id = v.id;
        // The outbox answers the cloud's own rows (no shared wire type): read as JSON.
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
        let largest = SendEmail {
            body: "b".repeat(100 * 1024),
            ..good.clone()
        };
        let _: SendEmailResult = app.send_as(Method::POST, path, &largest, &ua).await;
    }
);

// ----- SMTP against a real server -------------------------------------------------------

/// A real SMTP server (aiosmtpd, `cloud/tests/smtp_sink.py`) on a free local port,
/// stopped when dropped.
struct SmtpSink {
    port: u16,
    dir: tempfile::TempDir,
    _child: tokio::process::Child,
}

impl SmtpSink {
    async fn start() -> SmtpSink {
        use tokio::io::AsyncBufReadExt;
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut child = tokio::process::Command::new(test_python(
            "the e-mail tests need a Python with aiosmtpd",
        ))
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

/// Waits until the outbox row `id` records a delivery attempt; answers the row (JSON:
/// the outbox lists the cloud's own rows, not a shared wire type).
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
    let (a, ua) = org_with_admin(&app, &admin, "Org A", "a@a.test").await;
    plant_users(&app, a).await;
    let subject = "Schichtübergabe: Linie 3";
    let body = "Station 1 lief.\nStation 2 – Pause 10 min.\n";
    let mail = SendEmail {
        recipients: vec!["Ops@Plant.test".into(), "lead@plant.test".into()],
        subject: subject.into(),
        body: body.into(),
    };
    let v: SendEmailResult = app
        .send_as(Method::POST, "feature_control/send_email", &mail, &ua)
        .await;
    let id = v.id;

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
    // The super admin may mail any user, of no organisation too.
    app.quick_user("ops@plant.test", "Ops", "org_user", &[])
        .await;
    let mail = SendEmail {
        recipients: vec!["ops@plant.test".into()],
        subject: "Nobody home".into(),
        body: "Still kept.".into(),
    };
    // The call succeeds: the mail is kept, delivery is the outbox's business.
    let v: SendEmailResult = app
        .send_as(Method::POST, "feature_control/send_email", &mail, &admin)
        .await;
    let id = v.id;
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
