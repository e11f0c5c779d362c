//! Issue 28, items 4 (a deleted cycle's tombstone) and 5 (upload links): a device's
//! cycles sent through the real broker, acknowledged with a clip URL that uploads the
//! clips of that acknowledgement's cycles only, each once, until it expires; a
//! recording's upload URL used once; a cycle a person deleted, replayed as the same
//! signed message, is not stored again and is acknowledged refused. On both backends,
//! on the embedded broker and (the tombstone) on Mosquitto.

use std::time::Duration;

use gemba_shared::mqtt::v1::{self, Channel};
use reqwest::StatusCode;

use crate::clips::{put_as_device as put, token_of};
use crate::common::*;
use crate::devices::{TestDevice, cycle, enrolled, world};
use crate::videos::clip;
use crate::{both, both_with};

/// Sends cycle message `c` and answers the acknowledgement of it.
async fn sent(dev: &mut TestDevice, c: &v1::CycleMessage) -> v1::CyclesAck {
    dev.send_cycle(c).await;
    dev.next(Channel::CyclesAck).await
}

both!(
    a_clip_link_uploads_only_its_acks_cycles_each_once,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let mut dev = TestDevice::of(&creds).await;
        let (c1, c2) = (cycle(w.task), cycle(w.task));
        let ack1 = sent(&mut dev, &c1).await;
        let ack2 = sent(&mut dev, &c2).await;
        assert_eq!(
            (ack1.ids.clone(), ack2.ids.clone()),
            (vec![c1.id.clone()], vec![c2.id.clone()])
        );
        let (t1, t2) = (
            token_of(ack1.clip_url.as_deref().expect("a clip URL")),
            token_of(ack2.clip_url.as_deref().expect("a clip URL")),
        );
        assert_ne!(t1, t2, "each acknowledgement has its own link");
        // Only its hash is kept.
        let kept: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM device_upload_tokens WHERE token_hash = $1 OR token_hash = $2",
        )
        .bind(&t1)
        .bind(&t2)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
        assert_eq!(kept, 0);
        let dir = tempfile::tempdir().unwrap();
        let mp4 = clip(dir.path(), 2);

        // The first ack's link for the second ack's cycle: refused, nothing kept.
        let (s, v) = put(
            &app,
            &format!("device/clip/{t1}/{}?start_ms=1", c2.id),
            mp4.clone(),
        )
        .await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        assert_eq!(v["detail"], "This upload link is not for this cycle.");
        // Its own cycle: kept once; the same link again is refused, and so is another
        // link naming the same cycle (its replay's acknowledgement): the clip stays.
        let (s, v) = put(
            &app,
            &format!("device/clip/{t1}/{}?start_ms=7", c1.id),
            mp4.clone(),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (s, v) = put(
            &app,
            &format!("device/clip/{t1}/{}?start_ms=8", c1.id),
            mp4.clone(),
        )
        .await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        assert_eq!(v["detail"], "This clip has already been uploaded.");
        let again = sent(&mut dev, &c1).await;
        assert_eq!(again.ids, vec![c1.id.clone()]);
        let t3 = token_of(again.clip_url.as_deref().unwrap());
        let (s, v) = put(
            &app,
            &format!("device/clip/{t3}/{}?start_ms=9", c1.id),
            mp4.clone(),
        )
        .await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        let start: i64 = sqlx::query_scalar("SELECT start_ms FROM cycle_clips WHERE cycle_id = $1")
            .bind(&c1.id)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(start, 7, "the first clip was not replaced");
        // The second ack's link still uploads its own cycle's clip.
        let (s, v) = put(
            &app,
            &format!("device/clip/{t2}/{}?start_ms=1", c2.id),
            mp4.clone(),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // A link that is none.
        let (s, _) = put(
            &app,
            &format!("device/clip/not-a-link/{}?start_ms=1", c2.id),
            mp4,
        )
        .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);

both_with!(
    a_clip_link_expires,
    |s: &mut gemba_cloud::config::Settings| s.upload_link_secs = 1,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let mut dev = TestDevice::of(&creds).await;
        let c = cycle(w.task);
        let ack = sent(&mut dev, &c).await;
        let t = token_of(ack.clip_url.as_deref().unwrap());
        let dir = tempfile::tempdir().unwrap();
        let mp4 = clip(dir.path(), 1);
        tokio::time::sleep(Duration::from_millis(1_100)).await;
        let (s, v) = put(&app, &format!("device/clip/{t}/{}?start_ms=1", c.id), mp4).await;
        assert_eq!(s, StatusCode::GONE, "{v}");
        assert_eq!(v["detail"], "This upload link has expired.");
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM cycle_clips")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(n, 0);
    }
);

both_with!(
    a_recording_link_works_once_and_expires,
    |s: &mut gemba_cloud::config::Settings| s.upload_link_secs = 1,
    |app: TestApp| async move {
        use gemba_cloud::db::videos::{self, NewVideo, Recording};
        use gemba_cloud::http::recording::upload_link;
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let me = app.user_row("eng@a.test").await.id;
        let recording = async |name: &str| {
            videos::create(
                &app.state.db,
                NewVideo {
                    org: w.a,
                    task: w.task,
                    file_name: name,
                    extension: "mp4",
                    is_uploaded_video: true,
                    size_bytes: 0,
                    created_by: me,
                    recording: Some(Recording {
                        device: creds.device,
                        camera: "cam0",
                        command: &uuid::Uuid::new_v4().to_string(),
                    }),
                },
            )
            .await
            .unwrap()
            .id
        };
        let path = |url: &str| url.split("/api/").nth(1).unwrap().to_string();
        let dir = tempfile::tempdir().unwrap();
        let mp4 = clip(dir.path(), 1);

        let id = recording("first.mp4").await;
        let url = upload_link(&app.state, w.a, creds.device, id, 5)
            .await
            .unwrap();
        let (s, v) = put(&app, &path(&url), mp4.clone()).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["status"], "ready", "{v}");
        let (s, v) = put(&app, &path(&url), mp4.clone()).await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        assert_eq!(v["detail"], "This recording has already been uploaded.");

        // Good for the recording's seconds and then `upload_link_secs` (here 0 + 1 s).
        let id = recording("late.mp4").await;
        let url = upload_link(&app.state, w.a, creds.device, id, 0)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(1_100)).await;
        let (s, v) = put(&app, &path(&url), mp4).await;
        assert_eq!(s, StatusCode::GONE, "{v}");
        assert_eq!(v["detail"], "This upload link has expired.");
    }
);

/// A cycle stored, deleted by a person, then its very message published again.
async fn deleted_cycle_replayed(app: TestApp) {
    let w = world(&app).await;
    let creds = enrolled(&app, &w.boss, "Bench").await;
    let mut dev = TestDevice::of(&creds).await;
    let (gone, kept) = (cycle(w.task), cycle(w.task));
    let signed = v1::sign(&dev.key, &dev.kid, &gone);
    let topic = dev.topic(Channel::Cycles);
    dev.publish(topic.clone(), signed.clone()).await;
    let ack: v1::CyclesAck = dev.next(Channel::CyclesAck).await;
    assert_eq!(ack.ids, vec![gone.id.clone()]);
    assert_eq!(sent(&mut dev, &kept).await.ids, vec![kept.id.clone()]);
    let (s, v) = app
        .delete(&format!("telemetry/cycle/{}/", gone.id), &w.eng)
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
    let rejected = app.health().await["ingest"]["rejected"].as_u64().unwrap();

    // The same signed message again: acknowledged refused (the agent lets it go), not
    // stored, counted; a replay of a cycle that was not deleted is still acknowledged.
    dev.publish(topic, signed).await;
    let ack: v1::CyclesAck = dev.next(Channel::CyclesAck).await;
    assert_eq!((ack.ids, ack.refused), (vec![], vec![gone.id.clone()]));
    assert_eq!(ack.clip_url, None, "no clip for a refused cycle");
    let stored: Vec<String> = sqlx::query_scalar("SELECT id FROM cycles")
        .fetch_all(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(stored, vec![kept.id.clone()]);
    assert_eq!(
        app.health().await["ingest"]["rejected"].as_u64().unwrap(),
        rejected + 1
    );
    assert_eq!(sent(&mut dev, &kept).await.ids, vec![kept.id.clone()]);
    let t: (i64, Option<i64>) = sqlx::query_as(
        "SELECT organization_id, device_id FROM cycle_tombstones WHERE cycle_id = $1",
    )
    .bind(&gone.id)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(t, (w.a, Some(creds.device)));
}

both!(
    a_deleted_cycle_replayed_is_refused_not_stored,
    |app: TestApp| async move { deleted_cycle_replayed(app).await }
);

/// The same through Mosquitto (the external broker of the tests).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_cycle_replayed_through_mosquitto_is_refused() {
    let url =
        std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or_else(|_| "mqtt://127.0.0.1:1883".into());
    let app = TestApp::start_with(Backend::Sqlite, |s| s.mqtt = url).await;
    deleted_cycle_replayed(app).await;
}
