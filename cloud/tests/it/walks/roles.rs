//! Walk 1, the role matrix: every call with every one of the nine roles, refused (403)
//! exactly outside the role's permissions.

use std::collections::{BTreeMap, BTreeSet};

use gemba_shared::{Permission, Role};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::matrix::matrix;
use super::openapi::{assert_covers, openapi};
use super::requests::{Need, ids, is_error_shape};
use super::world::{
    Me, World, approved, default_model_type, me, new_barcodes, new_detector, new_devices,
    new_feature, new_notification, new_subscription, new_task, new_video, pending, role_id,
};
use crate::both;
use crate::common::*;

/// The super admin and one signed-in user per other role (all in A but the labeler),
/// and the records their calls name.
async fn matrix_setup(app: &TestApp) -> (World, Vec<Me>) {
    let admin_login = app.login(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let admin = token(&admin_login);
    let org_a = app.create_org(&admin, "Matrix A").await;
    let doomed = app.create_org(&admin, "Doomed").await;
    let other_org = app.create_org(&admin, "Other").await;
    let ws = approved(
        app,
        &admin,
        "ws@walk.test",
        Role::WorkstationUser,
        Some(org_a),
    )
    .await;
    let linked = approved(app, &admin, "linked@walk.test", Role::OrgUser, Some(org_a)).await;
    let (s, v) = app
        .post(
            "account/linked_organizations",
            json!({"user_id": linked, "organization": other_org}),
            Some(&admin),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let pending_email = "pending@walk.test".to_string();
    let pending_id = pending(app, &pending_email).await;
    let locked = "locked@walk.test";
    for _ in 0..5 {
        app.post(
            "account/login_v2",
            json!({"email": locked, "password": "wrong-pass-1"}),
            None,
        )
        .await;
    }
    let (_, lockouts) = app.get("account/lockout_list-delete/", &admin).await;
    assert!(lockouts.to_string().contains(locked), "{lockouts}");
    let feature = new_feature(app, &admin, "Walk feature").await;
    let (task, task_history) = new_task(app, &admin, org_a, "Walk task").await;
    let world = World {
        org_a,
        doomed,
        other_org,
        linked,
        ws,
        pending_email,
        pending_id,
        user_role: role_id(app, &admin, Role::User).await,
        locked,
        feature,
        doomed_feature: new_feature(app, &admin, "Doomed feature").await,
        subscription: new_subscription(app, &admin, feature, other_org).await,
        notification: new_notification(app, &admin, org_a, "lead@walk.test").await,
        doomed_notification: new_notification(app, &admin, other_org, "lead@walk.test").await,
        task,
        task_history,
        detector: new_detector(app, &admin, task).await,
        devices: new_devices(app, &admin, org_a, task).await,
        video: new_video(app, &admin, org_a, task).await,
        model_type: default_model_type(app, &admin).await,
        barcodes: new_barcodes(app, &admin, org_a, task).await,
    };
    let mut users = vec![];
    for role in Role::ALL {
        let r = role.as_str();
        let victim = approved(
            app,
            &admin,
            &format!("victim-{r}@walk.test"),
            Role::User,
            Some(org_a),
        )
        .await;
        let m = if role == Role::Admin {
            me(app, role, admin_login.clone(), ADMIN_PASSWORD, victim).await
        } else {
            let org = role.needs_organization().then_some(org_a);
            let login = app.user_in(&admin, &format!("{r}@walk.test"), r, org).await;
            me(app, role, login, PASSWORD, victim).await
        };
        users.push(m);
    }
    // The super admin goes last: its calls delete and unlink what the others are
    // refused.
    users.rotate_left(1);
    assert_eq!(users.last().unwrap().role, Role::Admin);
    (world, users)
}

both!(
    every_role_gets_403_outside_its_permissions_and_never_inside,
    |app: TestApp| async move {
        let doc = openapi(&app).await;
        let (world, users) = matrix_setup(&app).await;
        // The table lists every call the server has, and only those.
        let table = matrix(&world, &users[0]);
        let covered: BTreeSet<&str> = table.iter().map(|c| c.op).collect();
        assert_covers(&doc, &covered, "role matrix", |_| true);
        // Every role holds some permission and lacks another, or the walk proves little.
        let perms: BTreeSet<_> = table
            .iter()
            .filter_map(|c| match c.need {
                Need::Perm(p) => Some(format!("{p:?}")),
                _ => None,
            })
            .collect();
        assert!(perms.len() >= 10, "{perms:?}");

        let mut wrong = vec![];
        for me in &users {
            for c in matrix(&world, me) {
                let (s, v) = c.send(&app, &me.token, &[]).await;
                let who = format!("{} {} ({}): {s} {v}", me.role, c.op, c.url);
                if c.need.allows(me.role) {
                    let sso = c.url.contains("azure")
                        || c.url.contains("google")
                        || c.url.contains("aws");
                    if s == StatusCode::FORBIDDEN
                        || s == StatusCode::UNAUTHORIZED
                        || (s.is_server_error() && !(sso && s == StatusCode::NOT_IMPLEMENTED))
                    {
                        wrong.push(format!("allowed but refused: {who}"));
                    }
                } else {
                    let ok = s == StatusCode::FORBIDDEN || (c.hides && s == StatusCode::NOT_FOUND);
                    if !ok || !is_error_shape(&v) {
                        wrong.push(format!("not refused: {who}"));
                    }
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "{} wrong answers:\n{}",
            wrong.len(),
            wrong.join("\n")
        );

        // The super admin's calls did what they say (so "not 403" was a real success).
        let admin = app.admin_token().await;
        let (s, _) = app
            .get(
                &format!("organization/{}/department/", world.doomed),
                &admin,
            )
            .await;
        assert_eq!(
            s,
            StatusCode::NOT_FOUND,
            "the doomed organisation is deleted"
        );
        let (_, links) = app
            .get(
                &format!("account/linked_organizations/?user_id={}", world.linked),
                &admin,
            )
            .await;
        assert!(
            links
                .as_array()
                .unwrap()
                .iter()
                .all(|l| l["organization"] != world.other_org),
            "{links}"
        );
        let (_, lockouts) = app.get("account/lockout_list-delete/", &admin).await;
        assert!(!lockouts.to_string().contains(world.locked), "{lockouts}");
        // Features: only the super admin's was created; it deleted one and subscribed
        // A, and ended other_org's subscription.
        let (_, features) = app.get("feature_control/feature/", &admin).await;
        let walk_made: Vec<&str> = features
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["name"].as_str())
            .filter(|n| n.starts_with("Walk feature "))
            .collect();
        assert_eq!(walk_made, ["Walk feature admin"], "{features}");
        assert!(
            !ids(&features, "id").contains(&world.doomed_feature),
            "{features}"
        );
        let (_, subs) = app.get("feature_control/subscribed_feature/", &admin).await;
        let pairs: Vec<(i64, i64)> = subs
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| {
                !matches!(
                    s["feature_name"].as_str(),
                    Some(
                        "Define Operation"
                            | "Devices"
                            | "Record Training Set"
                            | "Deploy Model"
                            | "OPCUA Explorer"
                    )
                )
            })
            .map(|s| {
                (
                    s["Feature"].as_i64().unwrap(),
                    s["Organization"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(pairs, [(world.feature, world.org_a)], "{subs}");
        // Devices: added by exactly the roles that manage them; the doomed one is gone; every operating role renamed
        // A's device, the last one's name stays.
        let (_, devs) = app
            .call_with(
                Method::GET,
                &format!("device/device_org/{}/", world.org_a),
                None,
                Some(&admin),
                &[],
            )
            .await;
        let mut made: Vec<String> = devs
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|d| {
                d["display_name"]
                    .as_str()?
                    .strip_prefix("Walk device ")
                    .map(String::from)
            })
            .collect();
        made.sort();
        let mut managers: Vec<String> = Role::ALL
            .iter()
            .filter(|r| r.can(Permission::ManageDevices))
            .map(|r| r.as_str().to_string())
            .collect();
        managers.sort();
        assert_eq!(made, managers, "{devs}");
        assert!(!ids(&devs, "id").contains(&world.devices.doomed), "{devs}");
        let (_, d) = app
            .get(
                &format!("device/{}/device_details/", world.devices.device),
                &admin,
            )
            .await;
        assert!(
            d["display_name"]
                .as_str()
                .unwrap()
                .starts_with("Walked by "),
            "{d}"
        );
        assert_eq!(d["department"], world.devices.dept, "{d}");
        assert_eq!(
            (&d["is_archived"], &d["tasks"][0]["running"]),
            (&json!(false), &json!(false)),
            "{d}"
        );
        // Tasks: defined by exactly the roles that manage them (the super admin acts in
        // no organisation here); each of them changed A's task.
        let (_, tasks) = app
            .call_with(
                Method::GET,
                "organization/task/",
                None,
                Some(&admin),
                &[("Organization", &world.org_a.to_string())],
            )
            .await;
        let names: BTreeSet<&str> = tasks
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["taskName"].as_str())
            .collect();
        for me in users.iter().filter(|m| m.role != Role::Admin) {
            let made = names.contains(format!("Walk task {}", me.role.as_str()).as_str());
            assert_eq!(
                made,
                me.role.can(Permission::ManageTasks),
                "task of {}",
                me.role
            );
        }
        let (_, hist) = app
            .get(
                &format!("organization/task/{}/history/", world.task),
                &admin,
            )
            .await;
        let changed = hist
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["action"] == "updated")
            .count();
        let managers = users
            .iter()
            .filter(|m| m.role.can(Permission::ManageTasks))
            .count();
        assert_eq!(changed, managers, "{hist}");
        // Notifications: A's changed by each manager in turn, the super admin last;
        // other_org's replaced by the super admin's.
        let (_, notes) = app.get("feature_control/event_notifications", &admin).await;
        let by_org: BTreeMap<i64, (i64, Value)> = notes
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                let org = n["Organization"].as_i64().unwrap();
                (org, (n["id"].as_i64().unwrap(), n["recipients"].clone()))
            })
            .collect();
        assert_eq!(by_org.len(), 2, "{notes}");
        assert_eq!(
            by_org[&world.org_a],
            (world.notification, json!(["admin@walk.test"]))
        );
        let (id, to) = &by_org[&world.other_org];
        assert_ne!(*id, world.doomed_notification);
        assert_eq!(*to, json!(["admin@walk.test"]));
        // E-mail (each role mails itself): sent by exactly the roles that may.
        for me in &users {
            let sent = gemba_cloud::db::outbox::list(&app.state.db, Some(&me.email), 100)
                .await
                .unwrap()
                .iter()
                // The list matches a part of the address (user@ in org_user@): exactly.
                .any(|m| m.subject == "Walk" && m.recipients == me.email);
            assert_eq!(
                sent,
                me.role.can(Permission::SendEmail),
                "mail of {}",
                me.role
            );
        }
        // Victims: deleted by exactly the roles that manage org users.
        for me in &users {
            let gone = gemba_cloud::db::users::by_id(&app.state.db, me.victim)
                .await
                .unwrap()
                .is_none();
            assert_eq!(
                gone,
                me.role.can(Permission::ManageOrgUsers),
                "victim of {}",
                me.role
            );
        }
    }
);
