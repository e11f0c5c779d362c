//! Training video recorded on a device (issue 6), through the API as the Record Training
//! Set screen calls it and the real agent binary: a camera running a task records
//! through its running capture, an idle camera records on its own, a camera that cannot
//! record fails the video with the device's words; bad requests change nothing; the
//! upload URL takes only its own recording, once. SQLite only: the calls are walked on both
//! backends in `walks/`, and the SQL is the videos' own.
//!
//! Needs what `learning_loop.rs` needs (the demo footage, the agent binary, ORT).

use gemba_shared::api::v1::device::{Device, DeviceDetails, StartTask};
use gemba_shared::api::v1::task::{BulkDelete, Task, TaskCreate};
use gemba_shared::api::v1::video::{RecordRequest, Video, VideoStatus};
use gemba_shared::api::v1::{Msg, Page};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::*;
use crate::devices::added;
use crate::learning_loop::{models_dir, run_agent, until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_records_training_video_from_its_cameras() {
    let app = TestApp::start(Backend::Sqlite).await;
    let dir = models_dir();
    let admin = app.admin_token().await;
    let org = app.create_org(&admin, "Record Works").await;
    let other = app.create_org(&admin, "Elsewhere").await;
    for f in ["Define Operation", "Devices"] {
        app.subscribe(&admin, org, f).await;
        app.subscribe(&admin, other, f).await;
    }
    let eng = app.signed_in("eng@rec.test", "org_user", org).await;
    let boss = app.signed_in("boss@rec.test", "org_admin", org).await;
    let analyst = app.signed_in("ana@rec.test", "analytics_user", org).await;
    let boss_b = app.signed_in("boss@else.test", "org_admin", other).await;
    let detail = "Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n\
                  Fasten screws:\nDrive;\nInspect:\nLook;\n";
    let task_in = async |tok: &str| {
        let body = TaskCreate {
            task_detail: Some(detail.into()),
            ..TaskCreate::default()
        };
        app.create_as::<_, Task>("organization/task/", &body, tok)
            .await
            .id
    };
    let task = task_in(&eng).await;
    let task_b = task_in(&boss_b).await;

    // A workstation with three cameras: the demo footage twice, and a file that is not
    // there (it can run nothing and record nothing).
    let bench = added(&app, &boss, "Bench 1").await;
    let device = bench.device.id;
    let footage = dir.join("demo.mp4");
    let nothing = std::env::temp_dir().join("gemba-no-such-video.mp4");
    let (_agent, _data) = run_agent(
        &app,
        &bench.code,
        &[
            ("cam0", footage.clone()),
            ("cam1", footage),
            ("gone", nothing),
        ],
    );
    let cloud = app.base.trim_end_matches("/api").to_string();
    let offline = added(&app, &boss, "Bench 2").await.device.id;
    let theirs = added(&app, &boss_b, "Theirs").await.device.id;
    let details_path = format!("device/{device}/device_details/");
    let details = async || app.get_as::<DeviceDetails>(&details_path, &eng).await;
    until("the device online", 60, async || {
        details().await.device.online
    })
    .await;

    let record = format!("organization/task/videos/{task}/record/");
    let ask_of = |device: i64, camera: &str, seconds: i64| RecordRequest {
        device,
        camera: camera.into(),
        seconds,
    };
    let ask = |camera: &str, seconds: i64| ask_of(device, camera, seconds);

    // Without the subscription: refused.
    let (s, v) = app
        .send_refused(Method::POST, &record, &ask("cam0", 5), &eng)
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    app.subscribe(&admin, org, "Record Training Set").await;

    // Bad requests: each says what is wrong, and nothing is made or sent.
    for (body, field, says) in [
        (
            ask("cam0", 4),
            "seconds",
            "Record between 5 and 600 seconds.",
        ),
        (
            ask("cam0", 601),
            "seconds",
            "Record between 5 and 600 seconds.",
        ),
        (ask("cam9", 5), "camera", "Bench 1 has no camera cam9."),
        (
            ask("cam 0;", 5),
            "camera",
            "Choose one of the device's cameras.",
        ),
        (
            ask_of(offline, "cam0", 5),
            "device",
            "Bench 2 is offline: try again once it is online.",
        ),
        (
            ask_of(theirs, "cam0", 5),
            "device",
            &*format!("Device {theirs} is not one of the organisation's devices."),
        ),
    ] {
        let (s, v) = app.send_refused(Method::POST, &record, &body, &eng).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
        assert_eq!(v[field][0], says, "{body:?}: {v}");
    }
    for body in [
        json!({"device": device, "camera": "cam0"}),
        json!({"device": device, "camera": "cam0", "seconds": "ten"}),
        json!({"device": device, "camera": "cam0", "seconds": 5, "extra": 1}),
        json!([]),
    ] {
        let (s, v) = app.post(&record, body.clone(), Some(&eng)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
    }
    let (s, _) = app
        .send_refused(Method::POST, &record, &ask("cam0", 5), &analyst)
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = app
        .send_refused(
            Method::POST,
            &format!("organization/task/videos/{task_b}/record/"),
            &ask("cam0", 5),
            &eng,
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let list = format!("organization/task/videos/{task}");
    let count = async || app.get_as::<Page<Video>>(&list, &eng).await.count;
    assert_eq!(count().await, 0);
    let d = details().await;
    assert!(d.commands.is_empty(), "{d:?}");

    // cam0 runs the task: it records through its running capture, and keeps running.
    let cam0_task = |d: &DeviceDetails| {
        d.device
            .status
            .as_ref()
            .and_then(|s| s.cameras.first())
            .and_then(|c| c.task)
    };
    let _: Device = app
        .send_as(
            Method::POST,
            &format!("device/{device}/start_task/"),
            &StartTask {
                camera: "cam0".into(),
                task,
            },
            &eng,
        )
        .await;
    until("the task on cam0", 60, async || {
        cam0_task(&details().await) == Some(task)
    })
    .await;
    let recording =
        async |body: &RecordRequest| -> Video { app.create_as(&record, body, &eng).await };
    let running = recording(&ask("cam0", 6)).await;
    assert_eq!(running.status, VideoStatus::Recording);
    assert_eq!(running.device, Some(device));
    assert_eq!(running.camera.as_deref(), Some("cam0"));
    assert!(
        running.file_name.starts_with("Bench 1 cam0 "),
        "{running:?}"
    );
    // cam1 runs nothing: it records on its own, at the same time.
    let idle = recording(&ask("cam1", 5)).await;
    // The missing file cannot be recorded: the device says why.
    let gone = recording(&ask("gone", 5)).await;

    let video = |v: &Video| format!("organization/task_record/{}/", v.id);
    let read = async |v: &Video| app.get_as::<Video>(&video(v), &eng).await;
    let mut done: Vec<Video> = vec![];
    until("the recordings", 120, async || {
        done.clear();
        for v in [&running, &idle, &gone] {
            done.push(read(v).await);
        }
        done.iter().all(|v| v.status != VideoStatus::Recording)
    })
    .await;
    for (v, seconds) in [(&done[0], 6.0), (&done[1], 5.0)] {
        assert_eq!(v.status, VideoStatus::Ready, "{v:?}");
        let d = v.duration_ms.unwrap() as f64 / 1000.0;
        assert!((d - seconds).abs() < 0.7, "{d} s, not {seconds}: {v:?}");
        assert_eq!((v.width, v.height), (Some(640), Some(480)), "{v:?}");
        assert!(v.thumbnail_url.is_some(), "{v:?}");
        assert!(v.size_bytes > 10_000, "{v:?}");
        // It plays: the signed URL serves it.
        let url = format!("{}{}", cloud, v.url.as_deref().unwrap());
        let r = app.client.get(url).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.bytes().await.unwrap().len() as i64, v.size_bytes);
    }
    assert_eq!(done[2].status, VideoStatus::Failed, "{:?}", done[2]);
    assert!(done[2].message.contains("no video file"), "{:?}", done[2]);
    // cam0 still runs its task.
    let d = details().await;
    assert_eq!(cam0_task(&d), Some(task), "{d:?}");
    // The list shows all three; a failed one can be deleted.
    assert_eq!(count().await, 3);
    let _: Msg = app
        .send_as(
            Method::PATCH,
            "organization/task_record/bulk_delete/",
            &BulkDelete {
                ids: vec![done[2].id],
            },
            &eng,
        )
        .await;

    // The upload URL: a token for nothing, and a recording that already arrived.
    let put = async |url: String, body: &'static [u8]| {
        let r = app.client.put(url).body(body).send().await.unwrap();
        let s = r.status();
        (s, r.json::<Value>().await.unwrap_or(Value::Null))
    };
    let (s, _) = put(format!("{}/device/recording/not-a-token", app.base), b"x").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // A link as the `record` command carries (issue 28: a random token, once).
    let link = async |org: i64, video: i64| -> String {
        gemba_cloud::http::recording::upload_link(&app.state, org, device, video, 600)
            .await
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string()
    };
    let ready_id = done[0].id;
    let token = link(org, ready_id).await;
    let (s, v) = put(format!("{}/device/recording/{token}", app.base), b"again").await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    // Unchanged; its URLs are signed anew at each read (with a later expiry once an
    // hour has turned), so they are left out of the comparison.
    let unsigned = |v: Video| Video {
        url: None,
        thumbnail_url: None,
        ..v
    };
    assert_eq!(unsigned(read(&done[0]).await), unsigned(done[0].clone()));
    // A media token is not an upload token.
    let media = done[0]
        .url
        .as_deref()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_string();
    let (s, _) = put(format!("{}/device/recording/{media}", app.base), b"x").await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // A recording that is not a video fails its video with why, and keeps nothing.
    let waiting = recording(&ask("cam1", 600)).await;
    let id = waiting.id;
    let token = link(org, id).await;
    let (s, _) = put(format!("{}/device/recording/{token}", app.base), b"").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(read(&waiting).await.status, VideoStatus::Recording);
    // The link worked once.
    let (s, v) = put(format!("{}/device/recording/{token}", app.base), b"x").await;
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["detail"], "This recording has already been uploaded.");
    let token = link(org, id).await;
    let (s, v) = put(
        format!("{}/device/recording/{token}", app.base),
        b"this is not a video at all",
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    let v = read(&waiting).await;
    assert_eq!(v.status, VideoStatus::Failed, "{v:?}");
    assert!(
        v.message
            .starts_with("The device's recording is not a usable video"),
        "{v:?}"
    );
    assert_eq!(
        crate::videos::files_under(&app.data_dir().join("uploads")),
        Vec::<std::path::PathBuf>::new()
    );
    // Another organisation's token cannot reach it.
    let token = link(other, id).await;
    let (s, _) = put(format!("{}/device/recording/{token}", app.base), b"x").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}
