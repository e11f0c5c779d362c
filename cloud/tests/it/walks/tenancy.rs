//! Walk 2, tenancy: a user of organisation A calls everything that takes an id with
//! B's ids, and every call with B in the `Organization` header or host; B is unchanged.

use std::collections::{BTreeMap, BTreeSet};

use gemba_shared::Role;
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::cross_tenant::cross_tenant;
use super::matrix::matrix;
use super::openapi::{openapi, ops};
use super::requests::{ids, is_error_shape};
use super::world::{
    TenantB, World, approved, default_model_type, me, new_barcodes, new_detector, new_devices,
    new_feature, new_line, new_notification, new_rectification, new_subscription, new_task,
    new_video, role_id,
};
use crate::both;
use crate::common::*;

/// B as the super admin reads it: the organisation, its departments, its users and
/// their links, the features, B's subscriptions and event notifications; and from the
/// database the users' rows (passwords, terms, current organisation…), activity
/// sessions and open sign-in sessions.
async fn state_of(app: &TestApp, admin: &str, b: i64) -> BTreeMap<String, String> {
    let mut st = BTreeMap::new();
    for (key, url) in [
        ("features", "feature_control/feature/".to_string()),
        (
            "subscriptions",
            format!("feature_control/subscribed_feature/?organization={b}"),
        ),
        (
            "notifications",
            format!("feature_control/event_notifications?organization={b}"),
        ),
        ("barcodes", format!("account/barcode/{b}")),
    ] {
        let (s, v) = app.get(&url, admin).await;
        assert_eq!(s, StatusCode::OK, "{url}: {v}");
        assert!(!v.as_array().unwrap().is_empty(), "B has {key}: {v}");
        st.insert(key.into(), v.to_string());
    }
    let (s, tasks) = app
        .get(&format!("organization/tasks/admin?organization={b}"), admin)
        .await;
    assert_eq!(s, StatusCode::OK, "{tasks}");
    assert!(tasks["count"].as_i64() > Some(0), "B has tasks: {tasks}");
    for id in ids(&tasks["results"], "id") {
        let (_, h) = app
            .get(&format!("organization/task/{id}/history/"), admin)
            .await;
        st.insert(format!("history of task {id}"), h.to_string());
    }
    st.insert("tasks".into(), tasks.to_string());
    for url in [
        "organization/validation-groups/".to_string(),
        "organization/validation-videos/retrieve".to_string(),
    ] {
        let (s, v) = app
            .call_with(
                Method::GET,
                &url,
                None,
                Some(admin),
                &[("Organization", &b.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{url}: {v}");
        assert!(!v.as_array().unwrap().is_empty(), "B has {url}: {v}");
        st.insert(url, v.to_string());
    }
    for id in ids(&tasks["results"], "id") {
        let (s, v) = app
            .call_with(
                Method::GET,
                &format!("organization/task/videos/{id}"),
                None,
                Some(admin),
                &[("Organization", &b.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // What a change would move; not the signed URLs, which are new on every call.
        let kept: Vec<String> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                format!(
                    "{} {} {} {}",
                    x["id"], x["file_name"], x["status"], x["received_bytes"]
                )
            })
            .collect();
        st.insert(format!("videos of task {id}"), kept.join("; "));
        for video in ids(&v["results"], "id") {
            let (s, c) = app
                .call_with(
                    Method::GET,
                    &format!("organization/task_record/comments?entity_id={video}"),
                    None,
                    Some(admin),
                    &[("Organization", &b.to_string())],
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{c}");
            st.insert(format!("comments of video {video}"), c.to_string());
            let (s, t) = app
                .call_with(
                    Method::GET,
                    &format!("organization/tag_time_stamp_videos_view?task_record={video}"),
                    None,
                    Some(admin),
                    &[("Organization", &b.to_string())],
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{t}");
            st.insert(format!("time tags of video {video}"), t.to_string());
        }
    }
    let (s, tags) = app
        .call_with(
            Method::GET,
            "organization/task_record/tags",
            None,
            Some(admin),
            &[("Organization", &b.to_string())],
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{tags}");
    st.insert("video tags".into(), tags.to_string());
    for archived in [false, true] {
        let (s, d) = app
            .get(
                &format!("device/device_org/{b}/?archived={archived}"),
                admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{d}");
        st.insert(format!("devices archived={archived}"), d.to_string());
    }
    // What B's devices keep (issue 29), whole rows.
    let pool = &app.state.db.pool;
    let cams: Vec<(i64, String, String, String, String)> = sqlx::query_as(
        "SELECT r.id, r.name, r.url, r.username, r.password FROM remote_cameras r \
         JOIN devices d ON d.id = r.device_id WHERE d.organization_id = $1 ORDER BY r.id",
    )
    .bind(b)
    .fetch_all(pool)
    .await
    .unwrap();
    let blur: Vec<(i64, String, f64, f64, f64, f64)> = sqlx::query_as(
        "SELECT r.id, r.camera, r.x, r.y, r.width, r.height FROM blur_regions r \
         JOIN devices d ON d.id = r.device_id WHERE d.organization_id = $1 ORDER BY r.id",
    )
    .bind(b)
    .fetch_all(pool)
    .await
    .unwrap();
    let schedules: Vec<(i64, String, i64, String, String, String)> = sqlx::query_as(
        "SELECT s.id, s.camera, s.task_id, s.days, s.start_time, s.end_time FROM schedules s \
         JOIN devices d ON d.id = s.device_id WHERE d.organization_id = $1 ORDER BY s.id",
    )
    .bind(b)
    .fetch_all(pool)
    .await
    .unwrap();
    let bindings: Vec<(i64, String, String, String, String, String)> = sqlx::query_as(
        "SELECT o.id, o.endpoint, o.node_id, o.camera, o.role, o.metadata_key \
         FROM opcua_bindings o JOIN devices d ON d.id = o.device_id \
         WHERE d.organization_id = $1 ORDER BY o.id",
    )
    .bind(b)
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(!bindings.is_empty());
    st.insert("OPC UA bindings".into(), format!("{bindings:?}"));
    assert!(!cams.is_empty() && !blur.is_empty() && !schedules.is_empty());
    st.insert("remote cameras".into(), format!("{cams:?}"));
    st.insert("blur regions".into(), format!("{blur:?}"));
    st.insert("schedules".into(), format!("{schedules:?}"));
    let versions: Vec<(i64, i64)> = sqlx::query_as(
        "SELECT id, config_version FROM devices WHERE organization_id = $1 ORDER BY id",
    )
    .bind(b)
    .fetch_all(&app.state.db.pool)
    .await
    .unwrap();
    st.insert("configuration versions".into(), format!("{versions:?}"));
    let (_, orgs) = app.get("organization/", admin).await;
    let org = orgs
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == b)
        .cloned();
    st.insert("org".into(), format!("{org:?}"));
    let (s, deps) = app
        .get(&format!("organization/{b}/department/"), admin)
        .await;
    assert_eq!(s, StatusCode::OK);
    st.insert("departments".into(), deps.to_string());
    let (s, users) = app
        .call_with(
            Method::GET,
            "account/users_list",
            None,
            Some(admin),
            &[("Organization", &b.to_string())],
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{users}");
    st.insert("users".into(), users.to_string());
    let (_, linked) = app
        .get(
            &format!("account/linked_users_list/?organization={b}"),
            admin,
        )
        .await;
    st.insert("linked users".into(), linked.to_string());
    for id in ids(&users, "id") {
        let (_, links) = app
            .get(
                &format!("account/linked_organizations/?user_id={id}"),
                admin,
            )
            .await;
        st.insert(format!("links of {id}"), links.to_string());
        let row = gemba_cloud::db::users::by_id(&app.state.db, id)
            .await
            .unwrap();
        st.insert(format!("row of {id}"), format!("{row:?}"));
        let activity: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT id, end_time FROM activity_sessions WHERE user_id = $1 ORDER BY id",
        )
        .bind(id)
        .fetch_all(&app.state.db.pool)
        .await
        .unwrap();
        st.insert(format!("activity of {id}"), format!("{activity:?}"));
        let open: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM auth_sessions WHERE user_id = $1 AND revoked = 0",
        )
        .bind(id)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
        st.insert(format!("open sessions of {id}"), open.to_string());
    }
    // B's file (`generic/` file calls), as the super admin acting in B reads it.
    let (s, file) = crate::files::read_tenant_file(app, admin, b).await;
    assert_eq!(s, StatusCode::OK, "B has its file");
    st.insert("file".into(), format!("{file:?}"));
    st
}

both!(
    a_user_of_one_org_changes_and_reads_nothing_of_another_by_any_call,
    |app: TestApp| async move {
        let doc = openapi(&app).await;
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Tenant A").await;
        let b = app.create_org(&admin, "Tenant B").await;
        for (org, name) in [(a, "Assembly"), (b, "Paint"), (b, "Weld")] {
            let (s, v) = app
                .post(
                    &format!("organization/{org}/department/"),
                    json!({"name": name}),
                    Some(&admin),
                )
                .await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
        }
        let a_ws = approved(&app, &admin, "ws@a.test", Role::WorkstationUser, Some(a)).await;
        let shared = approved(
            &app,
            &admin,
            "shared@b.test",
            Role::WorkstationUser,
            Some(b),
        )
        .await;
        let (s, v) = app
            .post(
                "account/linked_organizations",
                json!({"user_id": shared, "organization": a}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let b_user = app.user_in(&admin, "user@b.test", "user", Some(b)).await;
        // Feature control: B and A are subscribed to a feature and have a notification.
        let feature = new_feature(&app, &admin, "Tenant feature").await;
        let a_subscription = new_subscription(&app, &admin, feature, a).await;
        let a_notification = new_notification(&app, &admin, a, "lead@a.test").await;
        let (a_task, a_task_history) = new_task(&app, &admin, a, "Tenant A task").await;
        let (b_task, b_task_history) = new_task(&app, &admin, b, "Tenant B task").await;
        let b_devices = new_devices(&app, &admin, b, b_task).await;
        crate::files::put_tenant_file(&app, &admin, b).await;
        let tenant_b = TenantB {
            task: b_task,
            task_history: b_task_history,
            detector: new_detector(&app, &admin, b_task).await,
            line: new_line(&app, &admin, b, b_task, b_devices.device).await,
            assistant_doc: crate::assistant::walk_document(&app, &admin, b).await,
            devices: b_devices,
            video: new_video(&app, &admin, b, b_task).await,
            barcodes: new_barcodes(&app, &admin, b, b_task).await,
            rectification: new_rectification(&app, &admin, b, b_task).await,
            annotation: crate::walks::world::new_annotation(&app, &admin, b, b_task).await,
            validation: crate::validation::walk_records(&app, b, b_task).await,
            queue_message: crate::queue::walk_message(&app, b).await,
            feature,
            subscription: new_subscription(&app, &admin, feature, b).await,
            notification: new_notification(&app, &admin, b, "lead@b.test").await,
            org: b,
            name: "tenant-b".into(),
            admin: approved(&app, &admin, "admin@b.test", Role::OrgAdmin, Some(b)).await,
            ws: approved(&app, &admin, "ws@b.test", Role::WorkstationUser, Some(b)).await,
            shared,
            user: me(&app, Role::User, b_user, PASSWORD, 0).await,
        };
        let b_only: BTreeSet<i64> = [tenant_b.admin, tenant_b.ws, tenant_b.user.id].into();
        let mut callers = vec![];
        for role in [Role::OrgAdmin, Role::SupportUser, Role::User, Role::OrgUser] {
            let r = role.as_str();
            let login = app
                .user_in(&admin, &format!("{r}@a.test"), r, Some(a))
                .await;
            callers.push(me(&app, role, login, PASSWORD, a_ws).await);
        }
        let org_admin_role = role_id(&app, &admin, Role::OrgAdmin).await;
        let world_a = World {
            org_a: a,
            doomed: a,
            other_org: a,
            linked: a_ws,
            ws: a_ws,
            pending_email: "ws@a.test".into(),
            pending_id: a_ws,
            user_role: org_admin_role,
            locked: "ws@a.test",
            feature,
            doomed_feature: feature,
            subscription: a_subscription,
            notification: a_notification,
            doomed_notification: a_notification,
            task: a_task,
            task_history: a_task_history,
            detector: new_detector(&app, &admin, a_task).await,
            devices: new_devices(&app, &admin, a, a_task).await,
            video: new_video(&app, &admin, a, a_task).await,
            model_type: default_model_type(&app, &admin).await,
            barcodes: new_barcodes(&app, &admin, a, a_task).await,
        };

        // Every call that takes an id is in the table.
        let table = cross_tenant(&tenant_b, a, &world_a, org_admin_role, &callers[0]);
        let covered: BTreeSet<&str> = table.iter().map(|c| c.call.op).collect();
        let unlisted: Vec<String> = ops(&doc)
            .iter()
            .filter(|o| o.takes_id() && !covered.contains(o.key.as_str()))
            .map(|o| o.key.clone())
            .collect();
        assert!(
            unlisted.is_empty(),
            "calls taking an id with no cross-tenant entry: {unlisted:#?}"
        );

        // The host names the organisation (here for the super admin, who may act in B).
        let (s, v) = app
            .call_with(
                Method::GET,
                "account/users_list",
                None,
                Some(&admin),
                &[("Host", &format!("{}.localhost", tenant_b.name))],
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert!(ids(&v, "id").contains(&tenant_b.admin), "{v}");

        let before = state_of(&app, &admin, b).await;
        assert!(before.len() >= 20, "B has users to compare: {before:?}");
        let mut wrong = vec![];
        for me in &callers {
            // B's ids, in the path, query and body.
            for c in cross_tenant(&tenant_b, a, &world_a, org_admin_role, me) {
                let (s, v) = c.call.send(&app, &me.token, &[]).await;
                let refused = matches!(s, StatusCode::FORBIDDEN | StatusCode::NOT_FOUND)
                    || (s == StatusCode::BAD_REQUEST
                        && c.unknown.is_some_and(|f| v.get(f).is_some()));
                if c.platform {
                    // Read, and B's state (compared below) stays as it was.
                    if s != StatusCode::OK {
                        wrong.push(format!("{} {}: {s} {v}", me.role, c.call.op));
                    }
                    continue;
                }
                if !refused || !is_error_shape(&v) {
                    wrong.push(format!(
                        "{} {} ({}): {s} {v}",
                        me.role, c.call.op, c.call.url
                    ));
                }
            }
            // B as the request's organisation, by header or host: every scoped call.
            let host = format!("{}.localhost", tenant_b.name);
            for (h, val) in [("Organization", b.to_string()), ("Host", host)] {
                for c in matrix(&world_a, me).into_iter().filter(|c| c.need.scoped()) {
                    let (s, v) = c.send(&app, &me.token, &[(h, val.clone())]).await;
                    if s != StatusCode::FORBIDDEN || !is_error_shape(&v) {
                        wrong.push(format!("{} {} with {h} {val}: {s} {v}", me.role, c.op));
                    }
                }
            }
            // What A's users read holds nothing of B.
            for url in [
                "organization/".to_string(),
                "account/linked_organizations/".into(),
                "account/users_list/v2".into(),
                "account/users_list".into(),
                format!("account/linked_users_list/?organization={a}"),
                "feature_control/subscribed_feature/".into(),
                "feature_control/event_notifications".into(),
            ] {
                let (s, v) = app.get(&url, &me.token).await;
                let seen = ids(&v, "id").into_iter().chain(ids(&v, "organization"));
                let leaked: Vec<i64> = if url.starts_with("feature_control/") {
                    // Rows name their organisation as `Organization`; ids are B's rows'.
                    let b_row = if url.contains("subscribed") {
                        tenant_b.subscription
                    } else {
                        tenant_b.notification
                    };
                    let mut l: Vec<i64> = ids(&v, "Organization")
                        .into_iter()
                        .filter(|i| *i != a)
                        .collect();
                    l.extend(ids(&v, "id").into_iter().filter(|i| *i == b_row));
                    l
                } else if url == "organization/" || url.contains("linked_organizations") {
                    seen.filter(|i| *i == b).collect()
                } else {
                    seen.filter(|i| b_only.contains(i)).collect()
                };
                if s.is_server_error() || !leaked.is_empty() {
                    wrong.push(format!("{} read {url}: {s} leaks {leaked:?}: {v}", me.role));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "{} calls reached B:\n{}",
            wrong.len(),
            wrong.join("\n")
        );

        let after = state_of(&app, &admin, b).await;
        for (k, v) in &before {
            assert_eq!(Some(v), after.get(k), "B's {k} changed");
        }
        assert_eq!(before.len(), after.len());
        // B's signed-in user is still signed in.
        assert_eq!(
            app.get("account/roles/", &tenant_b.user.token).await.0,
            StatusCode::OK
        );
    }
);
