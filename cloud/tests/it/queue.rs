//! `POST generic/send_message_to_sqs/` and `GET generic/queue_message/{id}/`: a
//! `trim_video` message waits on the cloud's job queue, the in-process worker takes it
//! (`started`) and cuts the video, and the message ends `finished` with a new ready
//! video of the task, as long as the span; `update_task` changes the task as its PATCH
//! does (with the 'Task Update' mail), `cloning_task` copies it, and
//! `sample_images_for_detector` takes evenly spaced frames of its video as annotation
//! images, all as the sender; bad messages are refused on their field, another
//! organisation's video, task and message are unknown, and a job whose video or sender
//! went ends `failed` with why. On both backends.

use std::time::{Duration, Instant};

use gemba_shared::api::v1::queue::{FAILED, FINISHED, QUEUED, QueueMessage, QueueMessageCreate};
use gemba_shared::api::v1::task::{Task, TaskCreate, TaskPatch};
use gemba_shared::api::v1::video::Video;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::videos::{clip, upload_video};

const SEND: &str = "generic/send_message_to_sqs/";

fn read(id: i64) -> String {
    format!("generic/queue_message/{id}/")
}

/// Reads message `id` until it is finished or failed (a minute at most).
async fn settled(app: &TestApp, tok: &str, id: i64) -> QueueMessage {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let (s, v) = app.get(&read(id), tok).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let m: QueueMessage = serde_json::from_value(v).unwrap();
        if m.status == FINISHED || m.status == FAILED {
            return m;
        }
        assert!(Instant::now() < until, "still {}: {m:?}", m.status);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn refused(app: &TestApp, tok: &str, body: Value, want: StatusCode) -> Value {
    let (s, v) = app.post(SEND, body.clone(), Some(tok)).await;
    assert_eq!(s, want, "{body}: {v}");
    v
}

both!(
    a_trim_video_message_makes_a_new_video_of_the_span,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Queue A").await;
        let b = app.create_org(&admin, "Queue B").await;
        for org in [a, b] {
            for f in ["Define Operation", "Record Training Set"] {
                app.subscribe(&admin, org, f).await;
            }
        }
        let eng = app.signed_in("eng@queue-a.test", "org_user", a).await;
        let eng_b = app.signed_in("eng@queue-b.test", "org_user", b).await;
        let task: Task = app
            .create_as(
                "organization/task/",
                &TaskCreate {
                    task_detail: Some("Pump\nFit:\nPlace;\n".into()),
                    ..TaskCreate::default()
                },
                &eng,
            )
            .await;
        let dir = tempfile::tempdir().unwrap();
        let bytes = clip(dir.path(), 3);
        let video = upload_video(&app, &eng, task.id, "pump.mp4", &bytes, 1 << 20).await;

        let (s, v) = app
            .post(
                SEND,
                json!({"queue": "trim_video", "video_id": video.id, "start_ms": 1000, "end_ms": 2500}),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let sent: QueueMessage = serde_json::from_value(v).unwrap();
        assert_eq!(
            (sent.queue.as_str(), sent.status.as_str(), sent.video_id),
            ("trim_video", QUEUED, Some(video.id))
        );
        let done = settled(&app, &eng, sent.id).await;
        assert_eq!(done.status, FINISHED, "{done:?}");
        assert_eq!(done.message, "");
        let made = done.result_video_id.expect("the new video");
        assert_ne!(made, video.id);
        let row = gemba_cloud::db::videos::get(&app.state.db, a, made)
            .await
            .unwrap()
            .expect("the trimmed video is A's");
        assert_eq!(row.status, "ready");
        assert_eq!(row.task_id, task.id);
        assert_eq!(row.file_name, "pump (1.000-2.500 s).mp4");
        let ms = row.duration_ms.unwrap();
        assert!((1300..=1700).contains(&ms), "a 1.5 s span, {ms} ms long");
        assert_eq!((row.width, row.height), (Some(320), Some(240)));
        // The source is as it was.
        let src = gemba_cloud::db::videos::get(&app.state.db, a, video.id)
            .await
            .unwrap()
            .unwrap();
        assert!((2900..=3100).contains(&src.duration_ms.unwrap()));

        // Bad messages, on their field; nothing is queued.
        let body =
            |q: &str| json!({"queue": q, "video_id": video.id, "start_ms": 0, "end_ms": 500});
        let v = refused(&app, &eng, body("nope"), StatusCode::BAD_REQUEST).await;
        assert_eq!(
            v["queue"][0],
            "Unknown queue: use one of update_task, sample_images_for_detector, cloning_task, trim_video."
        );
        // A queue's fields are its own.
        let v = refused(&app, &eng, body("update_task"), StatusCode::BAD_REQUEST).await;
        assert_eq!(
            v["video_id"][0],
            "The queue update_task does not take video_id."
        );
        let v = refused(
            &app,
            &eng,
            json!({"queue": "trim_video", "video_id": video.id, "start_ms": 500, "end_ms": 500}),
            StatusCode::BAD_REQUEST,
        )
        .await;
        assert!(v["end_ms"][0].is_string(), "{v}");
        let v = refused(
            &app,
            &eng,
            json!({"queue": "trim_video", "video_id": video.id, "start_ms": 3500, "end_ms": 4000}),
            StatusCode::BAD_REQUEST,
        )
        .await;
        assert!(
            v["start_ms"][0]
                .as_str()
                .unwrap()
                .contains("past the video's end"),
            "{v}"
        );
        let v = refused(
            &app,
            &eng,
            json!({"queue": "trim_video", "start_ms": 0, "end_ms": 500}),
            StatusCode::BAD_REQUEST,
        )
        .await;
        assert!(v["video_id"][0].is_string(), "{v}");
        // Another organisation's video and message are unknown.
        refused(&app, &eng_b, body("trim_video"), StatusCode::NOT_FOUND).await;
        let (s, _) = app.get(&read(sent.id), &eng_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app.get(&read(i64::MAX), &eng).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM queue_messages")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(n, 1, "only the good message was kept");

        // A job whose video went ends failed, saying why.
        let gone = gemba_cloud::db::queue::create(
            &app.state.db,
            a,
            None,
            &QueueMessageCreate {
                queue: "trim_video".into(),
                video_id: Some(i64::MAX),
                start_ms: Some(0),
                end_ms: Some(100),
                ..QueueMessageCreate::default()
            },
        )
        .await
        .unwrap();
        gemba_cloud::queue::run(&app.state, gone.id).await.unwrap();
        let m = gemba_cloud::db::queue::get(&app.state.db, a, gone.id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(m.status, FAILED);
        assert_eq!(m.message, "the video is gone");

        task_queues(&app, &admin, &eng, &eng_b, (a, b), &task, &video).await;
    }
);

/// `update_task`, `cloning_task` and `sample_images_for_detector` on A's task `task`
/// with its ready video `video` (3 s), as `eng` of A; `eng_b` is of B.
async fn task_queues(
    app: &TestApp,
    admin: &str,
    eng: &str,
    eng_b: &str,
    (a, b): (i64, i64),
    task: &Task,
    video: &Video,
) {
    let send = |body: Value| async move {
        let (s, v) = app.post(SEND, body.clone(), Some(eng)).await;
        assert_eq!(s, StatusCode::CREATED, "{body}: {v}");
        let m: QueueMessage = serde_json::from_value(v).unwrap();
        assert_eq!(m.status, QUEUED);
        settled(app, eng, m.id).await
    };

    // update_task: the PATCH's change, its history and its 'Task Update' mail.
    let (s, v) = app
        .post(
            "feature_control/event_notifications",
            json!({"event_type": "Task Update", "recipients": ["lead@queue-a.test"], "Organization": a}),
            Some(admin),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let changes = TaskPatch {
        task_detail: Some("Pump\nFit:\nPlace;\nCheck:\nLook;\n".into()),
        ..TaskPatch::default()
    };
    let done = send(json!({"queue": "update_task", "task_id": task.id, "changes": changes})).await;
    assert_eq!(
        (done.status.as_str(), done.result_task_id),
        (FINISHED, Some(task.id)),
        "{done:?}"
    );
    let now: Task = app
        .get_as(&format!("organization/task/{}/", task.id), eng)
        .await;
    assert_eq!(now.steps_count, 2);
    let (subject, body) = app.last_mail("lead@queue-a.test").await.expect("the mail");
    assert_eq!(subject, "Task Update: Pump");
    assert!(body.contains("1: Check (Look)"), "{body}");
    // Changes that would not apply are refused when sent, on their field.
    let v = refused(
        app,
        eng,
        json!({"queue": "update_task", "task_id": task.id, "changes": {"taskName": " "}}),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(v["taskName"][0], "Task name is required!");
    let v = refused(
        app,
        eng,
        json!({"queue": "update_task", "task_id": task.id}),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(v["changes"][0].is_string(), "{v}");

    // cloning_task: a copy under the new name; a name taken by then fails the job.
    let done =
        send(json!({"queue": "cloning_task", "task_id": task.id, "task_name": "Pump copy"})).await;
    assert_eq!(done.status, FINISHED, "{done:?}");
    let copy = done.result_task_id.expect("the copy");
    assert_ne!(copy, task.id);
    let c: Task = app.get_as(&format!("organization/task/{copy}/"), eng).await;
    assert_eq!(
        (c.settings.task_name.as_str(), c.steps_count),
        ("Pump copy", 2)
    );
    let again =
        send(json!({"queue": "cloning_task", "task_id": task.id, "task_name": "Pump copy"})).await;
    assert_eq!(
        (again.status.as_str(), again.result_task_id),
        (FAILED, None)
    );
    assert!(again.message.starts_with("taskName: "), "{again:?}");
    // Into an organisation the sender is not in: refused when sent.
    let v = refused(
        app,
        eng,
        json!({"queue": "cloning_task", "task_id": task.id, "task_name": "Out", "organization": b}),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(v["organization"][0].is_string(), "{v}");

    // sample_images_for_detector: the middles of three equal parts of each ready video
    // (the source and its trimmed copy); sent again, the same images.
    let body =
        json!({"queue": "sample_images_for_detector", "task_id": task.id, "frames_per_video": 3});
    let done = send(body.clone()).await;
    assert_eq!(done.status, FINISHED, "{done:?}");
    assert_eq!(done.result_image_ids.len(), 6, "{done:?}");
    let mut frames = vec![];
    for &i in &done.result_image_ids {
        let img = gemba_cloud::db::annotations::get(&app.state.db, a, i)
            .await
            .unwrap()
            .expect("an image of A's");
        assert_eq!(img.task_id, task.id);
        if img.video_id == Some(video.id) {
            frames.push(img.frame_ms);
        }
    }
    let d = video.duration_ms.expect("a ready video's length");
    assert_eq!(frames, [d / 6, d / 2, 5 * d / 6]);
    let again = send(body).await;
    assert_eq!(again.result_image_ids, done.result_image_ids);
    let v = refused(
        app,
        eng,
        json!({"queue": "sample_images_for_detector", "task_id": task.id, "frames_per_video": 0}),
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(v["frames_per_video"][0].is_string(), "{v}");

    // Another organisation's task is unknown to each queue.
    for body in [
        json!({"queue": "update_task", "task_id": task.id, "changes": {"taskName": "Taken"}}),
        json!({"queue": "cloning_task", "task_id": task.id, "task_name": "Taken"}),
        json!({"queue": "sample_images_for_detector", "task_id": task.id}),
    ] {
        let (s, v) = app.post(SEND, body.clone(), Some(eng_b)).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{body}: {v}");
    }

    // A job whose sender is gone fails saying so, changing nothing.
    let orphan = gemba_cloud::db::queue::create(
        &app.state.db,
        a,
        None,
        &QueueMessageCreate {
            queue: "cloning_task".into(),
            task_id: Some(task.id),
            task_name: Some("Orphan".into()),
            ..QueueMessageCreate::default()
        },
    )
    .await
    .unwrap();
    gemba_cloud::queue::run(&app.state, orphan.id)
        .await
        .unwrap();
    let m = gemba_cloud::db::queue::get(&app.state.db, a, orphan.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (m.status.as_str(), m.message.as_str()),
        (FAILED, "the user who sent the message is gone")
    );
}

/// A message of `org` for the walks (queued, never run: no job carries it).
pub(crate) async fn walk_message(app: &TestApp, org: i64) -> i64 {
    gemba_cloud::db::queue::create(
        &app.state.db,
        org,
        None,
        &QueueMessageCreate {
            queue: "trim_video".into(),
            video_id: None,
            start_ms: Some(0),
            end_ms: Some(100),
            ..QueueMessageCreate::default()
        },
    )
    .await
    .unwrap()
    .id
}
