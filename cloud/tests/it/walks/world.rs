//! The walks' set-up: signed-in users, the records of organisation A that the role
//! matrix names, organisation B that the tenancy walk tries to reach, and their makers.

use gemba_shared::Role;
use gemba_shared::api::v1::account::{ActivitySession, LoginUser, RoleRecord, SessionCreate};
use gemba_shared::api::v1::barcode::{AssociateBarcode, AssociatedBarcode, Barcode, BarcodeCreate};
use gemba_shared::api::v1::cameras::{
    BlurRegionsWrite, DeviceBlurRegion, DeviceSchedule, Rect, RemoteCam, RemoteCamCreate,
    ScheduleCreate,
};
use gemba_shared::api::v1::device::{DeviceCreate, EnrolmentCode};
use gemba_shared::api::v1::feature_control::{
    EventNotification, EventNotificationCreate, Feature, FeatureCreate, SubscribedFeature,
    SubscribedFeatureCreate,
};
use gemba_shared::api::v1::line::{Line, LineBody, Station};
use gemba_shared::api::v1::opcua::{OpcuaBindingCreate, OpcuaBindingRecord};
use gemba_shared::api::v1::organization::{Department, DepartmentCreate};
use gemba_shared::api::v1::rectification::{RectificationStep, RectificationStepCreate};
use gemba_shared::api::v1::task::{
    DetectionRule, DetectionRuleWrite, PlaneObject, PlaneObjectWrite, Task, TaskCreate,
    TaskHistoryEntry, TaskObject, TaskObjectCreate,
};
use gemba_shared::api::v1::training::ModelType;
use gemba_shared::api::v1::video::{
    Comment, CommentCreate, OrgTag, OrgTagCreate, TimeTag, TimeTagCreate, Video, VideoCreate,
};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::account::{typed, wire};
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
    let login: LoginUser = typed(login);
    let session = SessionCreate {
        user: login.id,
        browser: "walk".into(),
        browser_version: "1".into(),
    };
    let v: ActivitySession = app
        .create_as("account/session/create/", &session, &login.token)
        .await;
    Me {
        role,
        token: login.token,
        id: login.id,
        email: login.email,
        password,
        refresh: login.refresh.expect("a full session's refresh token"),
        session_key: login.session_key,
        activity: v.id,
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
    let roles: Vec<RoleRecord> = app.get_as("account/roles/", admin).await;
    roles.iter().find(|r| r.name == role.as_str()).unwrap().id
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
    /// Barcodes of A, some associated with the task.
    pub(super) barcodes: Barcodes,
}

/// Barcodes of an organisation: `barcode` associated with the task (`association`),
/// one the walk deletes, one free that the walk associates, and the association of a
/// fourth that the walk removes.
#[derive(Clone, Copy)]
pub(super) struct Barcodes {
    pub(super) barcode: i64,
    pub(super) doomed: i64,
    pub(super) free: i64,
    pub(super) association: i64,
    pub(super) doomed_association: i64,
}

#[derive(Clone, Copy)]
pub(super) struct Devices {
    pub(super) device: i64,
    pub(super) doomed: i64,
    pub(super) dept: i64,
    /// Remote cameras of `device`: `door` (which the blur region and the schedule are
    /// on) and one the walk deletes.
    pub(super) remote_cam: i64,
    pub(super) doomed_cam: i64,
    /// A blur region of `door`, which the walk deletes.
    pub(super) blur: i64,
    /// Schedules of `door` (the task given, Sundays): one kept, one the walk deletes.
    pub(super) schedule: i64,
    pub(super) doomed_schedule: i64,
    /// A tampering request of `device` (its camera `door` covered, as if its status
    /// had said so).
    pub(super) tamper: i64,
    /// OPC UA node bindings of `door` (the org is subscribed to OPCUA Explorer): one
    /// kept, one the walk deletes.
    pub(super) binding: i64,
    pub(super) doomed_binding: i64,
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
    /// A document of B's for the assistant.
    pub(super) assistant_doc: i64,
    /// B's barcodes, associated with B's task.
    pub(super) barcodes: Barcodes,
    /// A rectification step of B's task.
    pub(super) rectification: i64,
    /// An annotation image of B's task (a frame of its video).
    pub(super) annotation: i64,
    /// B's validation group, video and run.
    pub(super) validation: crate::validation::WalkRecords,
    /// A message of B's on the job queue.
    pub(super) queue_message: i64,
}

/// The 201 answer to the super admin's `body` on `path`.
async fn created<B: Serialize, T: DeserializeOwned>(
    app: &TestApp,
    admin: &str,
    path: &str,
    body: &B,
) -> T {
    app.create_as(path, body, admin).await
}

/// The same, acting in `org` (the `Organization` header, which the typed client does
/// not send).
async fn created_in<B: Serialize, T: DeserializeOwned>(
    app: &TestApp,
    admin: &str,
    org: i64,
    path: &str,
    body: &B,
) -> T {
    let o = org.to_string();
    let (s, v) = app
        .call_with(
            Method::POST,
            path,
            Some(wire(body)),
            Some(admin),
            &[("Organization", o.as_str())],
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{path}: {v}");
    typed(v)
}

pub(super) async fn new_feature(app: &TestApp, admin: &str, name: &str) -> i64 {
    let body = FeatureCreate { name: name.into() };
    let f: Feature = created(app, admin, "feature_control/feature/", &body).await;
    f.id
}

pub(super) async fn new_subscription(app: &TestApp, admin: &str, feature: i64, org: i64) -> i64 {
    let body = SubscribedFeatureCreate {
        feature,
        organization: org,
        is_suppressed: false,
    };
    let s: SubscribedFeature =
        created(app, admin, "feature_control/subscribed_feature/", &body).await;
    s.id
}

/// Organisation `org`'s barcodes, made by the super admin, two associated with `task`.
pub(super) async fn new_barcodes(app: &TestApp, admin: &str, org: i64, task: i64) -> Barcodes {
    let mut ids = vec![];
    for v in ["walk-kept", "walk-doomed", "walk-free", "walk-unlinked"] {
        let body = BarcodeCreate {
            barcode_value: format!("{v}-{org}"),
            organization: Some(org),
        };
        let (s, b) = app
            .put(
                "account/create_custom_barcode/",
                serde_json::to_value(&body).unwrap(),
                admin,
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        ids.push(typed::<Barcode>(b).id);
    }
    let mut links = vec![];
    for barcode_id in [ids[0], ids[3]] {
        let a: AssociatedBarcode = created(
            app,
            admin,
            "account/associate_barcode/",
            &AssociateBarcode { task, barcode_id },
        )
        .await;
        links.push(a.id);
    }
    Barcodes {
        barcode: ids[0],
        doomed: ids[1],
        free: ids[2],
        association: links[0],
        doomed_association: links[1],
    }
}

/// Organisation `org`'s 'Task Update' notification, to `to`.
pub(super) async fn new_notification(app: &TestApp, admin: &str, org: i64, to: &str) -> i64 {
    let body = EventNotificationCreate {
        event_type: "Task Update".into(),
        recipients: vec![to.into()],
        organization: Some(org),
    };
    let n: EventNotification =
        created(app, admin, "feature_control/event_notifications", &body).await;
    n.id
}

/// Subscribes `org` to Define Operation and defines a task there as the super admin;
/// answers the task and its first history entry.
pub(super) async fn new_task(app: &TestApp, admin: &str, org: i64, name: &str) -> (i64, i64) {
    app.subscribe(admin, org, "Define Operation").await;
    let body = TaskCreate {
        task_name: Some(name.into()),
        task_detail: Some("x\nStep:\nSub;\n".into()),
        ..TaskCreate::default()
    };
    let task: Task = created_in(app, admin, org, "organization/task/", &body).await;
    let h: Vec<TaskHistoryEntry> = app
        .get_as(&format!("organization/task/{}/history/", task.id), admin)
        .await;
    (task.id, h[0].id)
}

/// A rectification step of `task` (of `org`), on its first step.
pub(super) async fn new_rectification(app: &TestApp, admin: &str, org: i64, task: i64) -> i64 {
    let body = RectificationStepCreate {
        task,
        step: 0,
        description: "Walk it back".into(),
    };
    let r: RectificationStep =
        created_in(app, admin, org, "organization/rectification_steps/", &body).await;
    r.id
}

/// A line of `org` with one station, `task` on `device`.
pub(super) async fn new_line(app: &TestApp, admin: &str, org: i64, task: i64, device: i64) -> i64 {
    let body = LineBody {
        name: Some("Line".into()),
        stations: Some(vec![Station { task, device }]),
        ..LineBody::default()
    };
    let line: Line = created_in(app, admin, org, "telemetry/trace/line/", &body).await;
    line.id
}

/// An annotation image of `task` (of `org`): the first frame of its first video.
pub(super) async fn new_annotation(app: &TestApp, admin: &str, org: i64, task: i64) -> i64 {
    let o = org.to_string();
    let (s, v) = app
        .call_with(
            Method::GET,
            &format!("organization/task/videos/{task}"),
            None,
            Some(admin),
            &[("Organization", o.as_str())],
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let video = v["results"][0]["id"].as_i64().expect("a video of the task");
    let body = gemba_shared::api::v1::annotation::AnnotationImageCreate { video, frame_ms: 0 };
    let image: gemba_shared::api::v1::annotation::AnnotationImage = created_in(
        app,
        admin,
        org,
        "organization/task/annotation_image/",
        &body,
    )
    .await;
    image.id
}

/// Subscribes `org` to Record Training Set and uploads a video of `task` there as the
/// super admin (a one-second clip, ready); a tag, a comment and a time-stamp tag on it.
pub(super) async fn new_video(app: &TestApp, admin: &str, org: i64, task: i64) -> Media {
    app.subscribe(admin, org, "Record Training Set").await;
    app.subscribe(admin, org, "Deploy Model").await;
    let o = org.to_string();
    let dir = tempfile::tempdir().unwrap();
    let bytes = crate::videos::clip(dir.path(), 1);
    let upload = VideoCreate {
        file_name: "walk.mp4".into(),
        size_bytes: bytes.len() as i64,
        is_uploaded_video: None,
    };
    let video: Video = created_in(
        app,
        admin,
        org,
        &format!("organization/task/videos/{task}"),
        &upload,
    )
    .await;
    let video = video.id;
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
    let tag = OrgTagCreate {
        tag_name: "Walk".into(),
    };
    let tag: OrgTag = created_in(app, admin, org, "organization/task_record/tags", &tag).await;
    let model = fixture_model(app, org, task).await;
    let comment = CommentCreate {
        entity_id: video,
        text: "Walked".into(),
    };
    let comment: Comment = created_in(
        app,
        admin,
        org,
        "organization/task_record/comments",
        &comment,
    )
    .await;
    let time_tag = TimeTagCreate {
        task_record: video,
        tag: tag.id,
        time_ms: 500,
    };
    let time_tag: TimeTag = created_in(
        app,
        admin,
        org,
        "organization/tag_time_stamp_videos_view",
        &time_tag,
    )
    .await;
    Media {
        model,
        video,
        tag: tag.id,
        comment: comment.id,
        time_tag: time_tag.id,
    }
}

/// The platform's first model type (the migration makes it).
pub(super) async fn default_model_type(app: &TestApp, admin: &str) -> i64 {
    let v: Vec<ModelType> = app.get_as("organization/model_types", admin).await;
    v[0].id
}

/// Subscribes `org` to Devices and adds two devices and a department there as the super
/// admin; on the first device, two remote cameras, a blur region and two schedules of
/// `task`.
pub(super) async fn new_devices(app: &TestApp, admin: &str, org: i64, task: i64) -> Devices {
    app.subscribe(admin, org, "Devices").await;
    let mut ids = vec![];
    for name in ["Walk bench", "Doomed bench"] {
        let body = DeviceCreate {
            display_name: Some(name.into()),
            ..DeviceCreate::default()
        };
        let v: EnrolmentCode = created_in(app, admin, org, "device/", &body).await;
        ids.push(v.device.id);
    }
    let dept = DepartmentCreate {
        name: "Walk dept".into(),
    };
    let dept: Department = created(
        app,
        admin,
        &format!("organization/{org}/department/"),
        &dept,
    )
    .await;
    let cam = |name: &str| RemoteCamCreate {
        name: name.into(),
        url: "rtsp://walker:secret@10.0.0.9/stream".into(),
        username: None,
        password: None,
    };
    let cams_path = format!("device/remote_cam/{}/", ids[0]);
    let door: RemoteCam = created_in(app, admin, org, &cams_path, &cam("door")).await;
    let gone: RemoteCam = created_in(app, admin, org, &cams_path, &cam("gone")).await;
    let blur = BlurRegionsWrite {
        device: ids[0],
        camera: "door".into(),
        regions: vec![Rect {
            x: 0.1,
            y: 0.1,
            width: 0.2,
            height: 0.2,
        }],
    };
    let blur: Vec<DeviceBlurRegion> =
        created_in(app, admin, org, "device/blur_regions", &blur).await;
    let schedule = |start: &str, end: &str| ScheduleCreate {
        device: ids[0],
        camera: "door".into(),
        task,
        days: vec![6],
        start: Some(start.into()),
        end: Some(end.into()),
    };
    let kept: DeviceSchedule = created_in(
        app,
        admin,
        org,
        "device/add_schedules",
        &schedule("01:00", "02:00"),
    )
    .await;
    let doomed: DeviceSchedule = created_in(
        app,
        admin,
        org,
        "device/add_schedules",
        &schedule("02:00", "03:00"),
    )
    .await;
    app.subscribe(admin, org, "OPCUA Explorer").await;
    let bind = |node: &str| OpcuaBindingCreate {
        endpoint: "opc.tcp://10.0.0.20:4840".into(),
        node_id: node.into(),
        camera: "door".into(),
        task: Some(task),
        role: "metadata".into(),
        key: Some(node.into()),
    };
    let bindings_path = format!("device/{}/opcua_bindings/", ids[0]);
    let binding: OpcuaBindingRecord =
        created_in(app, admin, org, &bindings_path, &bind("i=2258")).await;
    let doomed_binding: OpcuaBindingRecord =
        created_in(app, admin, org, &bindings_path, &bind("i=2259")).await;
    let tamper: i64 = sqlx::query_scalar(
        "INSERT INTO device_camera_events (device_id, camera, kind, device_since, started_at) \
         VALUES ($1, 'door', 'covered', 1, $2) RETURNING id",
    )
    .bind(ids[0])
    .bind(gemba_cloud::db::now_ms())
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    Devices {
        device: ids[0],
        doomed: ids[1],
        dept: dept.id,
        remote_cam: door.id,
        doomed_cam: gone.id,
        blur: blur[0].id,
        schedule: kept.id,
        doomed_schedule: doomed.id,
        tamper,
        binding: binding.id,
        doomed_binding: doomed_binding.id,
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
    let object = TaskObjectCreate {
        task,
        name: "Jig".into(),
        outline_color: None,
        is_static: true,
        step_id: None,
    };
    let object: TaskObject = created(app, admin, "organization/task/task_object/", &object).await;
    let plane = PlaneObjectWrite {
        task: Some(task),
        name: "Bench".into(),
        points: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]],
    };
    let plane: PlaneObject = created(app, admin, "organization/task/plane_objects/", &plane).await;
    let rule = DetectionRuleWrite {
        step: Some(0),
        ..DetectionRuleWrite::default()
    };
    let rule: DetectionRule = created(
        app,
        admin,
        &format!("organization/task/object_detection_rule/{task}/"),
        &rule,
    )
    .await;
    Detector {
        object: object.id,
        plane: plane.id,
        rule: rule.id.expect("a stored rule's id"),
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
