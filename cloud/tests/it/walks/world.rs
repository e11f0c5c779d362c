//! The walks' set-up: signed-in users, the records of organisation A that the role
//! matrix names, organisation B that the tenancy walk tries to reach, and their makers.

use gemba_shared::Role;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::*;

/// A signed-in user as the walks need it.
pub(super) struct Me {
    pub(super) role: Role,
    pub(super) token: String,
    pub(super) id: i64,
    pub(super) email: String,
    pub(super) password: &'static str,
    pub(super) refresh: String,
    pub(super) session_key: String,
    /// An activity session of this user.
    pub(super) activity: i64,
    /// A user of the caller's organisation this caller may try to delete.
    pub(super) victim: i64,
}

pub(super) async fn me(
    app: &TestApp,
    role: Role,
    login: Value,
    password: &'static str,
    victim: i64,
) -> Me {
    let token = token(&login);
    let id = login["id"].as_i64().unwrap();
    let (s, v) = app
        .post(
            "account/session/create/",
            json!({"user": id, "browser": "walk", "browser_version": "1"}),
            Some(&token),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    Me {
        role,
        token,
        id,
        email: login["email"].as_str().unwrap().into(),
        password,
        refresh: login["refresh"].as_str().unwrap().into(),
        session_key: login["session_key"].as_str().unwrap().into(),
        activity: v["id"].as_i64().unwrap(),
        victim,
    }
}

pub(super) async fn user_id(app: &TestApp, email: &str) -> i64 {
    gemba_cloud::db::users::by_email(&app.state.db, email)
        .await
        .unwrap()
        .unwrap()
        .id
}

/// Registers `email` and confirms the address: an account awaiting approval.
pub(super) async fn pending(app: &TestApp, email: &str) -> i64 {
    app.signed_up(email, "Walk").await;
    user_id(app, email).await
}

pub(super) async fn role_id(app: &TestApp, admin: &str, role: Role) -> i64 {
    let (_, roles) = app.get("account/roles/", admin).await;
    roles
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == role.as_str())
        .unwrap()["id"]
        .as_i64()
        .unwrap()
}

/// An approved user with `role` in `org` who has not signed in.
pub(super) async fn approved(
    app: &TestApp,
    admin: &str,
    email: &str,
    role: Role,
    org: Option<i64>,
) -> i64 {
    let id = pending(app, email).await;
    app.approve(admin, email, role.as_str(), org).await;
    id
}

/// The records the role matrix's calls name.
pub(super) struct World {
    pub(super) org_a: i64,
    /// An organisation the super admin deletes.
    pub(super) doomed: i64,
    /// `linked` is linked to it; the super admin removes the link.
    pub(super) other_org: i64,
    pub(super) linked: i64,
    /// A workstation user of A (password resets, links, switches).
    pub(super) ws: i64,
    pub(super) pending_email: String,
    pub(super) pending_id: i64,
    pub(super) user_role: i64,
    /// An address locked out after failed sign-ins.
    pub(super) locked: &'static str,
    /// A feature no organisation is subscribed to; the super admin subscribes A.
    pub(super) feature: i64,
    /// A feature the super admin deletes.
    pub(super) doomed_feature: i64,
    /// `other_org`'s subscription to `feature`; the super admin ends it.
    pub(super) subscription: i64,
    /// A's event notification ('Task Update'), which A's managers read and change.
    pub(super) notification: i64,
    /// `other_org`'s event notification: the super admin deletes it (and then creates
    /// the next); A's managers are answered as for an unknown id.
    pub(super) doomed_notification: i64,
    /// A task of A (A is subscribed to Define Operation) and its first history entry.
    pub(super) task: i64,
    pub(super) task_history: i64,
    /// The task's object, plane object and step rule.
    pub(super) detector: Detector,
    /// A's device, one the super admin deletes, and a department of A (A is subscribed
    /// to Devices).
    pub(super) devices: Devices,
    /// A video of the task, still uploading (A is subscribed to Record Training Set),
    /// with a tag of A and a comment.
    pub(super) video: Media,
    /// A model type (the platform's default one).
    pub(super) model_type: i64,
}

#[derive(Clone, Copy)]
pub(super) struct Devices {
    pub(super) device: i64,
    pub(super) doomed: i64,
    pub(super) dept: i64,
}

#[derive(Clone, Copy)]
pub(super) struct Media {
    pub(super) video: i64,
    pub(super) tag: i64,
    pub(super) comment: i64,
    pub(super) time_tag: i64,
    /// A model version of the task (the org is subscribed to Deploy Model).
    pub(super) model: i64,
}

/// Organisation B as the tenancy walk sees it.
pub(super) struct TenantB {
    pub(super) org: i64,
    /// Its sub-domain name.
    pub(super) name: String,
    pub(super) admin: i64,
    pub(super) ws: i64,
    /// A workstation user of B also linked to A.
    pub(super) shared: i64,
    /// A signed-in user of B.
    pub(super) user: Me,
    /// A feature B is subscribed to, the subscription, and B's event notification.
    pub(super) feature: i64,
    pub(super) subscription: i64,
    pub(super) notification: i64,
    /// B's task and its first history entry, and its detector's parts.
    pub(super) task: i64,
    pub(super) task_history: i64,
    pub(super) detector: Detector,
    pub(super) devices: Devices,
    /// A video of B's task, a tag of B and a comment.
    pub(super) video: Media,
    /// A line of B's task on B's device.
    pub(super) line: i64,
}

/// The id in a 201 answer to the super admin's `body` on `path`.
pub(super) async fn created(app: &TestApp, admin: &str, path: &str, body: Value) -> i64 {
    let (s, v) = app.post(path, body, Some(admin)).await;
    assert_eq!(s, StatusCode::CREATED, "{path}: {v}");
    v["id"].as_i64().unwrap()
}

pub(super) async fn new_feature(app: &TestApp, admin: &str, name: &str) -> i64 {
    created(
        app,
        admin,
        "feature_control/feature/",
        json!({"name": name}),
    )
    .await
}

pub(super) async fn new_subscription(app: &TestApp, admin: &str, feature: i64, org: i64) -> i64 {
    created(
        app,
        admin,
        "feature_control/subscribed_feature/",
        json!({"Feature": feature, "Organization": org}),
    )
    .await
}

/// Organisation `org`'s 'Task Update' notification, to `to`.
pub(super) async fn new_notification(app: &TestApp, admin: &str, org: i64, to: &str) -> i64 {
    created(
        app,
        admin,
        "feature_control/event_notifications",
        json!({"event_type": "Task Update", "recipients": [to], "Organization": org}),
    )
    .await
}

/// Subscribes `org` to Define Operation and defines a task there as the super admin;
/// answers the task and its first history entry.
pub(super) async fn new_task(app: &TestApp, admin: &str, org: i64, name: &str) -> (i64, i64) {
    app.subscribe(admin, org, "Define Operation").await;
    let (s, v) = app
        .call_with(
            Method::POST,
            "organization/task/",
            Some(json!({"taskName": name, "task_detail": "x\nStep:\nSub;\n"})),
            Some(admin),
            &[("Organization", &org.to_string())],
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let task = v["id"].as_i64().unwrap();
    let (_, h) = app
        .get(&format!("organization/task/{task}/history/"), admin)
        .await;
    (task, h[0]["id"].as_i64().unwrap())
}

/// A line of `org` with one station, `task` on `device`.
pub(super) async fn new_line(app: &TestApp, admin: &str, org: i64, task: i64, device: i64) -> i64 {
    let o = org.to_string();
    let (s, v) = app
        .call_with(
            Method::POST,
            "telemetry/trace/line/",
            Some(json!({"name": "Line", "stations": [{"task": task, "device": device}]})),
            Some(admin),
            &[("Organization", o.as_str())],
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

/// Subscribes `org` to Record Training Set and uploads a video of `task` there as the
/// super admin (a one-second clip, ready); a tag, a comment and a time-stamp tag on it.
pub(super) async fn new_video(app: &TestApp, admin: &str, org: i64, task: i64) -> Media {
    app.subscribe(admin, org, "Record Training Set").await;
    app.subscribe(admin, org, "Deploy Model").await;
    let o = org.to_string();
    let h = [("Organization", o.as_str())];
    let made = |path: String, body: Value| async move {
        let (s, v) = app
            .call_with(Method::POST, &path, Some(body), Some(admin), &h)
            .await;
        assert_eq!(s, StatusCode::CREATED, "{path}: {v}");
        v["id"].as_i64().unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let bytes = crate::videos::clip(dir.path(), 1);
    let video = made(
        format!("organization/task/videos/{task}"),
        json!({"file_name": "walk.mp4", "size_bytes": bytes.len()}),
    )
    .await;
    let r = app
        .client
        .put(format!(
            "{}/organization/task_record/{video}/content/",
            app.base
        ))
        .bearer_auth(admin)
        .header("Organization", &o)
        .header(
            "Content-Range",
            format!("bytes 0-{}/{}", bytes.len() - 1, bytes.len()),
        )
        .body(bytes)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "{}", r.text().await.unwrap());
    let tag = made(
        "organization/task_record/tags".into(),
        json!({"tag_name": "Walk"}),
    )
    .await;
    Media {
        model: fixture_model(app, org, task).await,
        video,
        tag,
        comment: made(
            "organization/task_record/comments".into(),
            json!({"entity_id": video, "text": "Walked"}),
        )
        .await,
        time_tag: made(
            "organization/tag_time_stamp_videos_view".into(),
            json!({"task_record": video, "tag": tag, "time_ms": 500}),
        )
        .await,
    }
}

/// The platform's first model type (the migration makes it).
pub(super) async fn default_model_type(app: &TestApp, admin: &str) -> i64 {
    let (s, v) = app.get("organization/model_types", admin).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v[0]["id"].as_i64().unwrap()
}

/// Subscribes `org` to Devices and adds two devices and a department there as the super
/// admin.
pub(super) async fn new_devices(app: &TestApp, admin: &str, org: i64) -> Devices {
    app.subscribe(admin, org, "Devices").await;
    let mut ids = vec![];
    for name in ["Walk bench", "Doomed bench"] {
        let (s, v) = app
            .call_with(
                Method::POST,
                "device/",
                Some(json!({"display_name": name})),
                Some(admin),
                &[("Organization", &org.to_string())],
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        ids.push(v["device"]["id"].as_i64().unwrap());
    }
    Devices {
        device: ids[0],
        doomed: ids[1],
        dept: created(
            app,
            admin,
            &format!("organization/{org}/department/"),
            json!({"name": "Walk dept"}),
        )
        .await,
    }
}

/// What a task's object detector works with, one of each.
#[derive(Clone, Copy)]
pub(super) struct Detector {
    pub(super) object: i64,
    pub(super) plane: i64,
    pub(super) rule: i64,
}

pub(super) async fn new_detector(app: &TestApp, admin: &str, task: i64) -> Detector {
    Detector {
        object: created(
            app,
            admin,
            "organization/task/task_object/",
            json!({"task": task, "name": "Jig", "is_static": true}),
        )
        .await,
        plane: created(
            app,
            admin,
            "organization/task/plane_objects/",
            json!({"task": task, "name": "Bench", "points": [[0, 0], [1, 0], [1, 1]]}),
        )
        .await,
        rule: created(
            app,
            admin,
            &format!("organization/task/object_detection_rule/{task}/"),
            json!({"step": 0}),
        )
        .await,
    }
}

/// A model version of `task`, registered as a finished training run registers one (its
/// bundle is not stored: the walks never download it).
pub(super) async fn fixture_model(app: &TestApp, org: i64, task: i64) -> i64 {
    use gemba_cloud::db::training;
    let db = &app.state.db;
    let t = gemba_cloud::db::tasks::get(db, 0, Some(org), task)
        .await
        .unwrap()
        .unwrap();
    let run = training::start(
        db,
        training::NewRun {
            org,
            task,
            task_version: t.version,
            epochs: 1,
            train_videos: &[],
            holdout_videos: &[],
            by: 1,
        },
    )
    .await
    .unwrap()
    .unwrap();
    assert!(training::begin(db, run.id).await.unwrap());
    let metrics = gemba_shared::api::v1::training::Metrics::default();
    let m = training::succeed(
        db,
        &run,
        training::NewModel {
            model_type_id: None,
            version: &format!("walk-{task}"),
            object_key: "models/walk/model.onnx",
            sha256: "00",
            size_bytes: 1,
            metrics: Some(&metrics),
        },
    )
    .await
    .unwrap()
    .unwrap();
    m.id
}
