//! Cycle clips (issue 7), on both backends: a device's clip of one of its stored cycles,
//! sent to the URL its cycles' acknowledgement carries, plays through the cycle's
//! details (a signed media URL, with ranges); a second clip does not replace the first
//! (issue 28; the links themselves: `upload_links.rs`); the clip goes with its cycle and
//! after the retention. Bad tokens, other devices' and organisations' cycles, missing
//! times and files that are not video are refused with nothing kept.

use gemba_cloud::media::clips::{clip_url, clip_urls_for, sweep};
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::telemetry::{CycleClip, CycleDetails, Trace};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::devices::{added, world};
use crate::videos::{clip, make_file};

/// 2026-11-02T08:00:00Z.
const AT: i64 = 1_793_606_400_000;

/// Stores a 20-second cycle `id` of `task` from `device` of `org`, as ingestion does.
async fn store(app: &TestApp, org: i64, device: i64, task: i64, id: &str, start_ms: i64) {
    sqlx::query(
        "INSERT INTO cycles (id, organization_id, device_id, task_id, camera, start_ms, \
         end_ms, idle_ms, good, reasons, segments, metadata, received_at) \
         VALUES ($1, $2, $3, $4, 'cam0', $5, $6, 0, 1, '[]', $7, '{}', $6)",
    )
    .bind(id)
    .bind(org)
    .bind(device)
    .bind(task)
    .bind(start_ms)
    .bind(start_ms + 20_000)
    .bind(
        json!([
            {"step": 0, "start_ms": start_ms, "end_ms": start_ms + 8_000},
            {"step": 1, "start_ms": start_ms + 8_000, "end_ms": start_ms + 20_000}
        ])
        .to_string(),
    )
    .execute(&app.state.db.pool)
    .await
    .unwrap();
}

/// The clip token of the URL the acknowledgement of `device`'s cycles `ids` carries.
async fn token(app: &TestApp, org: i64, device: i64, ids: &[&str]) -> String {
    let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    let url = clip_url(&app.state, org, device, &ids)
        .await
        .unwrap()
        .expect("clips are kept");
    token_of(&url)
}

/// The token of a clip URL (`…/api/device/clip/{token}/`).
pub(crate) fn token_of(url: &str) -> String {
    assert!(url.ends_with('/'), "{url}");
    url.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap()
        .to_string()
}

/// `PUT` of `body` to `path` under the API (no user: a device's upload); the status
/// and the body.
pub(crate) async fn put_as_device(app: &TestApp, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let r = app
        .client
        .put(format!("{}/{path}", app.base))
        .body(body)
        .send()
        .await
        .unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// [`put_as_device`] of a clip: `path` under `device/clip/`.
async fn put(app: &TestApp, path: &str, body: Vec<u8>) -> (StatusCode, Value) {
    put_as_device(app, &format!("device/clip/{path}"), body).await
}

/// [`put`] of a clip that is kept (200): the clip.
async fn put_ok(app: &TestApp, path: &str, body: Vec<u8>) -> CycleClip {
    let (s, v) = put(app, path, body).await;
    assert_eq!(s, StatusCode::OK, "{path}: {v}");
    serde_json::from_value(v).unwrap()
}

/// The clip files of organisation `org` in the object folder.
fn files(app: &TestApp, org: i64) -> Vec<String> {
    let dir = app.data_dir().join(format!("objects/org/{org}/clips"));
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

both!(
    a_cycles_clip_plays_from_its_details_and_goes_with_it,
    |app: TestApp| async move {
        let w = world(&app).await;
        let dev = added(&app, &w.boss, "Bench").await.device.id;
        let other = added(&app, &w.boss, "Press").await.device.id;
        let (c1, c2, c3) = (
            uuid::Uuid::new_v4().to_string(),
            uuid::Uuid::new_v4().to_string(),
            uuid::Uuid::new_v4().to_string(),
        );
        store(&app, w.a, dev, w.task, &c1, AT).await;
        store(&app, w.a, dev, w.task, &c2, AT + 60_000).await;
        store(&app, w.a, other, w.task, &c3, AT + 120_000).await;
        let random = uuid::Uuid::new_v4();
        let tok = token(&app, w.a, dev, &[&c1, &c2, &c3, &random.to_string()]).await;
        let dir = tempfile::tempdir().unwrap();
        let mp4 = clip(dir.path(), 3);
        let details = async |id: &str| -> CycleDetails {
            app.get_as(
                &format!("telemetry/trace/trace_single_cycle_details/?cycle_id={id}"),
                &w.analyst,
            )
            .await
        };
        // No clip yet: the details say so.
        assert_eq!(details(&c1).await.clip, None);

        // Refused, nothing kept: a token that is not one, a media token, another
        // device's or organisation's, an unknown or malformed cycle, no start time, a
        // file that is not video, an empty one.
        let keys = &app.state.keys;
        let now = gemba_cloud::db::now_ms() / 1000;
        let media = keys.sign_media(w.a, "clips/x.mp4", now + 60).unwrap();
        let b_tok = token(&app, w.b, dev, &[&c1]).await;
        let other_tok = token(&app, w.a, other, &[&c1]).await;
        for (path, why) in [
            (format!("not-a-token/{c1}?start_ms=1"), "a made-up token"),
            (format!("{media}/{c1}?start_ms=1"), "a media token"),
            (format!("{b_tok}/{c1}?start_ms=1"), "organisation B's token"),
            (format!("{other_tok}/{c1}?start_ms=1"), "another device's"),
            (format!("{tok}/{c3}?start_ms=1"), "another device's cycle"),
            (format!("{tok}/{random}?start_ms=1"), "an unknown cycle"),
            (format!("{tok}/..%2F..%2Fx?start_ms=1"), "not a cycle id"),
        ] {
            let (s, v) = put(&app, &path, mp4.clone()).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{why}: {v}");
        }
        let (s, v) = put(&app, &format!("{tok}/{c1}"), mp4.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v["start_ms"][0],
            "Say when the clip's first frame was (start_ms)."
        );
        let (s, v) = put(&app, &format!("{tok}/{c1}?start_ms=x"), mp4.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        for body in [b"not a video at all".to_vec(), vec![], mp4[..40].to_vec()] {
            let (s, v) = put(&app, &format!("{tok}/{c1}?start_ms=1"), body).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(
                v["file"][0]
                    .as_str()
                    .unwrap()
                    .contains("not a video that can be read"),
                "{v}"
            );
        }
        assert_eq!(details(&c1).await.clip, None);
        assert!(files(&app, w.a).is_empty(), "{:?}", files(&app, w.a));
        assert!(
            std::fs::read_dir(app.data_dir().join("uploads"))
                .map(|d| d.count())
                .unwrap_or(0)
                == 0,
            "no staging file left"
        );

        // The device's clip of its cycle: kept, and played through the details.
        let start = AT - 1_500;
        let v = put_ok(&app, &format!("{tok}/{c1}?start_ms={start}"), mp4.clone()).await;
        let c = details(&c1).await.clip.unwrap();
        assert_eq!(c.start_ms, start);
        let len = c.duration_ms;
        assert!((2900..=3100).contains(&len), "{c:?}");
        assert_eq!((v.start_ms, v.duration_ms), (c.start_ms, c.duration_ms));
        let url = format!("{}{}", app.base.trim_end_matches("/api"), c.url);
        let got = app.client.get(&url).send().await.unwrap();
        assert_eq!(got.status(), StatusCode::OK);
        assert_eq!(got.headers()["content-type"], "video/mp4");
        assert_eq!(got.bytes().await.unwrap().to_vec(), mp4);
        let part = app
            .client
            .get(&url)
            .header("Range", "bytes=0-99")
            .send()
            .await
            .unwrap();
        assert_eq!(part.status(), StatusCode::PARTIAL_CONTENT);
        assert_eq!(part.bytes().await.unwrap().to_vec(), mp4[..100].to_vec());
        assert_clip_file(&files(&app, w.a), &c1, "mp4");
        // Organisation B sees neither the cycle nor its clip.
        let (s, _) = app
            .get(
                &format!("telemetry/trace/trace_single_cycle_details/?cycle_id={c1}"),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Sent again (the device did not hear the answer): refused, the first one stays
        // (issue 28: a link never replaces a clip).
        let longer = clip(dir.path(), 4);
        let (s, v) = put(&app, &format!("{tok}/{c1}?start_ms={}", AT - 500), longer).await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        assert_eq!(v["detail"], "This clip has already been uploaded.");
        let c = details(&c1).await.clip.unwrap();
        assert_eq!((c.start_ms, c.duration_ms), (start, len));
        assert_clip_file(&files(&app, w.a), &c1, "mp4");

        // A second cycle's clip, in WebM (VP8, as an agent with `--clip-format webm`
        // sends); then the first cycle is deleted: its clip goes too.
        let webm = make_file(
            "videotestsrc num-buffers=30 ! video/x-raw,width=320,height=240,framerate=15/1 \
             ! vp8enc deadline=1 ! webmmux",
            &dir.path().join("clip.webm"),
        );
        let v = put_ok(&app, &format!("{tok}/{c2}?start_ms={AT}"), webm.clone()).await;
        assert!((1900..=2100).contains(&v.duration_ms), "{v:?}");
        let url = format!("{}{}", app.base.trim_end_matches("/api"), v.url);
        let got = app.client.get(&url).send().await.unwrap();
        assert_eq!(got.headers()["content-type"], "video/webm");
        assert_eq!(got.bytes().await.unwrap().to_vec(), webm);
        // Trace lists the cycles with their clips (and the spec's first version alike);
        // a cycle without one says so; organisation B sees none of A's; bad ranges are
        // refused.
        for call in ["trace/v2", "trace/"] {
            let v: Page<Trace> = app
                .get_as(
                    &format!("telemetry/{call}?device={dev}&ordering=start_ms"),
                    &w.analyst,
                )
                .await;
            assert_eq!(v.count, 2);
            let clip = |i: usize| v.results[i].clip.as_ref().unwrap();
            assert_eq!(v.results[0].cycle.id, c1);
            assert_eq!(clip(0).start_ms, AT - 1_500);
            assert_eq!(v.results[1].cycle.id, c2);
            assert_eq!(clip(1).start_ms, AT);
            assert!(clip(1).url.starts_with("/api/media/"));
        }
        let v: Page<Trace> = app
            .get_as(&format!("telemetry/trace/v2?device={other}"), &w.analyst)
            .await;
        assert_eq!(v.results[0].clip, None, "{v:?}");
        let v: Page<Trace> = app.get_as("telemetry/trace/v2", &w.boss_b).await;
        assert_eq!(v.count, 0, "{v:?}");
        let (s, v) = app
            .get(
                "telemetry/trace/v2?datetime_start=2026-11-04&datetime_end=2026-11-03",
                &w.analyst,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(v["datetime_end"].is_array(), "{v}");

        let (s, v) = app.delete(&format!("telemetry/cycle/{c1}/"), &w.eng).await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        assert_clip_file(&files(&app, w.a), &c2, "webm");
        let (s, _) = put(&app, &format!("{tok}/{c2}?start_ms={AT}"), mp4.clone()).await;
        assert_eq!(
            s,
            StatusCode::CONFLICT,
            "the link's other cycle has its clip"
        );
        let (s, _) = put(&app, &format!("{tok}/{c1}?start_ms={AT}"), mp4.clone()).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "a deleted cycle takes no clip");

        // Kept for the retention: a sweep now keeps it; one past 30 days deletes it.
        assert_eq!(sweep(&app.state).await.unwrap(), 0);
        assert_eq!(files(&app, w.a).len(), 1);
        sqlx::query("UPDATE cycle_clips SET created_at = $1")
            .bind(gemba_cloud::db::now_ms() - 31 * 86_400_000)
            .execute(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(sweep(&app.state).await.unwrap(), 1);
        assert!(files(&app, w.a).is_empty());
        assert_eq!(details(&c2).await.clip, None);

        // A deployment that keeps no clips asks devices for none.
        let none = gemba_cloud::config::Settings {
            clip_days: 0,
            ..app.state.settings.clone()
        };
        let ids = [c2.clone()];
        let urls = clip_urls_for(&none, &app.state.db, &[((w.a, dev), &ids[..])])
            .await
            .unwrap();
        assert!(urls.is_empty(), "{urls:?}");
    }
);

/// Issue 25, 8: clip uploads while ingestion stores batch after batch on SQLite. Each
/// upload's write waits for the cycle writer's transaction to end instead of failing
/// with "database is locked": every upload is answered 200, none 5xx.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clip_uploads_during_ingestion_wait_their_turn_on_sqlite() {
    use gemba_cloud::db::cycles::{Received, insert_cycles};

    let app = TestApp::start(Backend::Sqlite).await;
    let w = world(&app).await;
    let dev = added(&app, &w.boss, "Bench").await.device.id;
    let sent = |n: usize| -> Vec<Received> {
        (0..n)
            .map(|_| Received {
                org: w.a,
                device: dev,
                cycle: crate::devices::cycle(w.task),
            })
            .collect()
    };
    // The cycles the clips are of, stored before.
    let first = sent(96);
    let ids: Vec<String> = first.iter().map(|r| r.cycle.id.clone()).collect();
    insert_cycles(&app.state.db, &first).await.unwrap();
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let tok = token(&app, w.a, dev, &id_refs).await;
    let dir = tempfile::tempdir().unwrap();
    let mp4 = clip(dir.path(), 1);

    // Ingestion: batch after batch through the cycle writer, until the uploads end.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ingest = {
        let db = app.state.db.clone();
        let done = done.clone();
        let batches: Vec<Vec<Received>> = (0..400).map(|_| sent(25)).collect();
        tokio::spawn(async move {
            let mut n = 0;
            for b in batches {
                if done.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
                insert_cycles(&db, &b).await.unwrap();
                n += 1;
            }
            n
        })
    };
    // Six devices' uploads at once, each of its cycles' clips (once: a cycle keeps its
    // first).
    let mut uploads = tokio::task::JoinSet::new();
    for k in 0..6 {
        let (client, base, tok, mp4) = (
            app.client.clone(),
            app.base.clone(),
            tok.clone(),
            mp4.clone(),
        );
        let mine: Vec<String> = ids.iter().skip(k).step_by(6).cloned().collect();
        uploads.spawn(async move {
            let mut answers = vec![];
            for (round, id) in mine.iter().enumerate() {
                let r = client
                    .put(format!("{base}/device/clip/{tok}/{id}?start_ms={round}"))
                    .body(mp4.clone())
                    .send()
                    .await
                    .unwrap();
                let s = r.status();
                answers.push((s, r.text().await.unwrap_or_default()));
            }
            answers
        });
    }
    let mut answers = vec![];
    while let Some(a) = uploads.join_next().await {
        answers.extend(a.unwrap());
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let batches = ingest.await.unwrap();
    assert!(batches > 0, "ingestion ran alongside");
    let failed: Vec<_> = answers
        .iter()
        .filter(|(s, _)| *s != StatusCode::OK)
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} uploads failed, e.g. {:?}",
        failed.len(),
        answers.len(),
        failed.first()
    );
}

/// The store holds one file, the clip of `cycle` (its key is the cycle's id, the
/// upload's own tag and the container's extension).
fn assert_clip_file(files: &[String], cycle: &str, ext: &str) {
    assert_eq!(files.len(), 1, "{files:?}");
    let name = &files[0];
    let tag = name
        .strip_prefix(&format!("{cycle}-"))
        .and_then(|n| n.strip_suffix(&format!(".{ext}")));
    assert!(
        tag.is_some_and(|t| t.len() == 8 && t.chars().all(|c| c.is_ascii_hexdigit())),
        "{files:?}"
    );
}
