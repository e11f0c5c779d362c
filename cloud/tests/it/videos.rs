//! Videos (issue 6, media): uploads in parts with resume, GStreamer's reading of the
//! file, the list's filters, signed media URLs with ranges, bulk delete; bad uploads,
//! other organisations and forbidden roles; on both backends. The clips are made here
//! by GStreamer (`videotestsrc ! x264enc ! mp4mux`), real H.264 in MP4.

use std::path::Path;

use gemba_shared::api::v1::task::{BulkDelete, Task, TaskCreate, TrainStatus};
use gemba_shared::api::v1::video::{
    Comment, CommentCreate, LabelsPut, OrgTag, OrgTagCreate, TaskTag, TimeTag, TimeTagCreate,
    Video, VideoCreate, VideoLabels, VideoPatch, VideoStatus,
};
use gemba_shared::api::v1::{Msg, Page};
use gemba_shared::cycle::Segment;
use gstreamer as gst;
use gstreamer::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::devices::{World, world};

/// Runs a GStreamer pipeline to its end, writing `path`.
pub(crate) fn make_file(desc: &str, path: &Path) -> Vec<u8> {
    gst::init().unwrap();
    let p = gst::parse::launch(&format!("{desc} ! filesink name=out"))
        .unwrap()
        .downcast::<gst::Pipeline>()
        .unwrap();
    p.by_name("out")
        .unwrap()
        .set_property("location", path.to_str().unwrap());
    p.set_state(gst::State::Playing).unwrap();
    let bus = p.bus().unwrap();
    for msg in bus.iter_timed(gst::ClockTime::from_seconds(60)) {
        match msg.view() {
            gst::MessageView::Eos(..) => break,
            gst::MessageView::Error(e) => panic!("making {}: {}", path.display(), e.error()),
            _ => {}
        }
    }
    p.set_state(gst::State::Null).unwrap();
    std::fs::read(path).unwrap()
}

/// `seconds` of 320×240 H.264 at 15 fps in MP4.
pub(crate) fn clip(dir: &Path, seconds: u32) -> Vec<u8> {
    make_file(
        &format!(
            "videotestsrc num-buffers={} pattern=ball ! video/x-raw,width=320,height=240,framerate=15/1 \
             ! x264enc speed-preset=ultrafast ! mp4mux",
            seconds * 15
        ),
        &dir.join("clip.mp4"),
    )
}

pub(crate) async fn subscribed_world(app: &TestApp) -> World {
    let w = world(app).await;
    for org in [w.a, w.b] {
        app.subscribe(&w.admin, org, "Record Training Set").await;
    }
    w
}

/// Organisation B's engineer and a task of B's.
pub(crate) async fn b_task(app: &TestApp, w: &World) -> (String, i64) {
    let eng_b = app.signed_in("eng@b.test", "org_user", w.b).await;
    let body = TaskCreate {
        task_detail: Some("Other\nA:\na;\n".into()),
        ..TaskCreate::default()
    };
    let t: Task = app.create_as("organization/task/", &body, &eng_b).await;
    (eng_b, t.id)
}

/// The declaration of an upload of `size` bytes named `name`.
fn declared(name: &str, size: i64) -> VideoCreate {
    VideoCreate {
        file_name: name.into(),
        size_bytes: size,
        is_uploaded_video: None,
    }
}

/// Starts an upload of `size` bytes named `name` to `task`: the new video.
async fn start(app: &TestApp, tok: &str, task: i64, name: &str, size: usize) -> Video {
    app.create_as(
        &format!("organization/task/videos/{task}"),
        &declared(name, size as i64),
        tok,
    )
    .await
}

/// Starts an upload that is to be refused: the status and the error body.
async fn start_refused(
    app: &TestApp,
    tok: &str,
    task: i64,
    name: &str,
    size: usize,
) -> (StatusCode, Value) {
    app.send_refused(
        Method::POST,
        &format!("organization/task/videos/{task}"),
        &declared(name, size as i64),
        tok,
    )
    .await
}

/// Sends `bytes[first..=last]` of a `total`-byte upload as one part. The answer stays
/// untyped: a 409's `{"Content-Range": […], "received_bytes": N}` has no shared type.
async fn part(
    app: &TestApp,
    tok: &str,
    id: i64,
    bytes: &[u8],
    first: usize,
    last: usize,
) -> (StatusCode, Value) {
    let r = app
        .client
        .put(format!(
            "{}/organization/task_record/{id}/content/",
            app.base
        ))
        .bearer_auth(tok)
        .header(
            "Content-Range",
            format!("bytes {first}-{last}/{}", bytes.len()),
        )
        .body(bytes[first..=last].to_vec())
        .send()
        .await
        .unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// A part that is taken (200): the video as it now is.
async fn part_ok(
    app: &TestApp,
    tok: &str,
    id: i64,
    bytes: &[u8],
    first: usize,
    last: usize,
) -> Video {
    let (s, v) = part(app, tok, id, bytes, first, last).await;
    assert_eq!(s, StatusCode::OK, "bytes {first}-{last}: {v}");
    serde_json::from_value(v).unwrap()
}

/// Uploads `bytes` whole in parts of `step`; answers the last answer.
pub(crate) async fn upload(
    app: &TestApp,
    tok: &str,
    task: i64,
    name: &str,
    bytes: &[u8],
    step: usize,
) -> (StatusCode, Value) {
    let id = start(app, tok, task, name, bytes.len()).await.id;
    let mut at = 0;
    loop {
        let last = (at + step).min(bytes.len()) - 1;
        let (s, v) = part(app, tok, id, bytes, at, last).await;
        if last + 1 == bytes.len() || s != StatusCode::OK {
            return (s, v);
        }
        at = last + 1;
    }
}

/// [`upload`] of a usable video: the video, ready.
pub(crate) async fn upload_video(
    app: &TestApp,
    tok: &str,
    task: i64,
    name: &str,
    bytes: &[u8],
    step: usize,
) -> Video {
    let (s, v) = upload(app, tok, task, name, bytes, step).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    serde_json::from_value(v).unwrap()
}

/// GET on a media URL (no sign-in), with an optional Range.
async fn fetch(
    app: &TestApp,
    url: &str,
    range: Option<&str>,
) -> (StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let origin = app.base.trim_end_matches("/api");
    let mut rb = app.client.get(format!("{origin}{url}"));
    if let Some(r) = range {
        rb = rb.header("Range", r);
    }
    let r = rb.send().await.unwrap();
    let (s, h) = (r.status(), r.headers().clone());
    (s, h, r.bytes().await.unwrap().to_vec())
}

/// Every file under `dir` (recursively).
pub(crate) fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// New labels: `segments`, not marked checked.
fn labels(segments: Vec<Segment>) -> LabelsPut {
    LabelsPut {
        segments,
        reviewed: None,
    }
}

both!(
    a_video_is_uploaded_in_parts_resumed_read_listed_played_and_deleted,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let tmp = tempfile::tempdir().unwrap();
        let bytes = clip(tmp.path(), 2);
        let n = bytes.len();
        assert!(n > 3000, "{n}");
        let v = start(&app, &w.eng, w.task, "bench 1.MP4", n).await;
        assert_eq!((v.status, v.received_bytes), (VideoStatus::Uploading, 0));
        assert!(v.is_uploaded_video);
        assert!(v.url.is_none());
        let id = v.id;
        let third = n / 3;

        let v = part_ok(&app, &w.eng, id, &bytes, 0, third - 1).await;
        assert_eq!(v.received_bytes, third as i64, "{v:?}");
        // A part that skips ahead (or repeats) is told where the upload is.
        let (s, v) = part(&app, &w.eng, id, &bytes, 2 * third, n - 1).await;
        assert_eq!(
            (s, v["received_bytes"].as_i64()),
            (StatusCode::CONFLICT, Some(third as i64)),
            "{v}"
        );
        let (s, v) = part(&app, &w.eng, id, &bytes, 0, third - 1).await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        // Resumed as a client does after a break: ask where it is, go on from there.
        let v: Video = app
            .get_as(&format!("organization/task_record/{id}/"), &w.eng)
            .await;
        let at = v.received_bytes as usize;
        part_ok(&app, &w.eng, id, &bytes, at, 2 * third - 1).await;
        let v = part_ok(&app, &w.eng, id, &bytes, 2 * third, n - 1).await;
        assert_eq!(v.status, VideoStatus::Ready, "{v:?}");
        assert_eq!(
            (v.width, v.height, v.fps),
            (Some(320), Some(240), Some(15.0))
        );
        let d = v.duration_ms.unwrap();
        assert!((1900..=2100).contains(&d), "{d}");
        assert_eq!(v.received_bytes, n as i64);
        // Complete: no more parts.
        let (s, _) = part(&app, &w.eng, id, &bytes, n - 1, n - 1).await;
        assert_eq!(s, StatusCode::CONFLICT);

        // Played through its signed URL, whole and by range, with no sign-in.
        let url = v.url.clone().unwrap();
        let (s, h, body) = fetch(&app, &url, None).await;
        assert_eq!((s, body.len()), (StatusCode::OK, n));
        assert!(
            body == bytes,
            "the stored video differs from the uploaded one"
        );
        assert_eq!(h["content-type"], "video/mp4");
        // Kept by the browser while its URL stays the same (an hour, below).
        assert_eq!(h["cache-control"], "private, max-age=3600");
        let (s, h, body) = fetch(&app, &url, Some("bytes=100-199")).await;
        assert_eq!(
            (s, &body[..]),
            (StatusCode::PARTIAL_CONTENT, &bytes[100..200])
        );
        assert_eq!(h["content-range"], format!("bytes 100-199/{n}").as_str());
        let (s, _, _) = fetch(&app, &url, Some(&format!("bytes={}-", n + 10))).await;
        assert_eq!(s, StatusCode::RANGE_NOT_SATISFIABLE);
        let (s, h, thumb) = fetch(&app, v.thumbnail_url.as_deref().unwrap(), None).await;
        assert_eq!((s, &thumb[..2]), (StatusCode::OK, &[0xFF, 0xD8][..]));
        assert_eq!(h["content-type"], "image/jpeg");
        // A forged or altered URL plays nothing.
        let mut forged = url.clone();
        forged.pop();
        assert_eq!(fetch(&app, &forged, None).await.0, StatusCode::NOT_FOUND);
        // Read again over a second later: the same URLs (they expire at a whole hour),
        // so the browser's cache serves them again and a poll gives a player no new
        // source; unless that hour ended between the reads.
        let read = async || {
            let path = format!("organization/task_record/{id}/");
            let v: Video = app.get_as(&path, &w.eng).await;
            (v.url, v.thumbnail_url)
        };
        let hour = || gemba_cloud::db::now_ms() / 3_600_000;
        let (h0, first) = (hour(), read().await);
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let (second, h1) = (read().await, hour());
        assert!(first.0.is_some() && first.1.is_some(), "{first:?}");
        if h0 == h1 {
            assert_eq!(first, second);
        }

        // The list and its filters.
        let videos = format!("organization/task/videos/{}", w.task);
        let list = |q: &'static str| {
            let (app, tok, path) = (&app, w.eng.clone(), format!("{videos}?{q}"));
            async move { app.get_as::<Page<Video>>(&path, &tok).await }
        };
        let l = list("").await;
        assert_eq!(l.count, 1, "{l:?}");
        assert_eq!(l.results[0].file_name, "bench 1.MP4");
        assert_eq!(list("isUploadedVideo=true").await.count, 1);
        assert_eq!(list("isUploadedVideo=false").await.count, 0);
        assert_eq!(list("isUploadedVideo=").await.count, 1);
        assert_eq!(list("datetime_start=2099-01-01").await.count, 0);
        assert_eq!(list("datetime_end=2000-01-01").await.count, 0);
        assert_eq!(list("datetime_start=2000-01-01&datetime_end=2099-01-01T00:00:00Z&ordering=-no_of_comments").await.count, 1);
        for (q, field) in [
            ("isUploadedVideo=maybe", "isUploadedVideo"),
            ("datetime_start=yesterday", "datetime_start"),
            (
                "datetime_start=2026-11-24&datetime_end=2026-11-01",
                "datetime_end",
            ),
            ("ordering=name", "ordering"),
            ("page=0", "page"),
        ] {
            let (s, v) = app.get(&format!("{videos}?{q}"), &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{q}: {v}");
            assert!(v[field][0].is_string(), "{q}: {v}");
        }

        // The super admin's Task Videos lists them, naming no organisation: the task's
        // own, and they play.
        let l: Page<Video> = app.get_as(&videos, &w.admin).await;
        assert_eq!((l.count, l.results[0].id), (1, id), "{l:?}");
        let (s, _, body) = fetch(&app, l.results[0].url.as_deref().unwrap(), None).await;
        assert_eq!((s, body.len()), (StatusCode::OK, n));
        let (s, v) = app.get(&format!("{videos}?ordering=name"), &w.admin).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

        // Another organisation sees and changes nothing of it; a role without video
        // rights is refused.
        let (s, _) = app
            .get(&format!("organization/task_record/{id}/"), &w.boss_b)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app.get(&videos, &w.boss_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = start_refused(&app, &w.boss_b, w.task, "x.mp4", 10).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let bulk_delete = "organization/task_record/bulk_delete/";
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                bulk_delete,
                &BulkDelete { ids: vec![id] },
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["ids"][0],
            format!("Video {id} is not one of this organisation's videos; nothing was deleted.")
        );
        let (s, _) = app.get(&videos, &w.analyst).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = start_refused(&app, &w.analyst, w.task, "x.mp4", 10).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(list("").await.count, 1);

        // Deleted: gone from the list, its URLs and the object folder.
        let objects = app.data_dir().join("objects");
        assert_eq!(
            files_under(&objects).len(),
            2,
            "{:?}",
            files_under(&objects)
        );
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                bulk_delete,
                &BulkDelete {
                    ids: vec![id, 999_999],
                },
                &w.eng,
            )
            .await;
        // One unknown id: nothing is deleted.
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(list("").await.count, 1);
        let m: Msg = app
            .send_as(
                Method::PATCH,
                bulk_delete,
                &BulkDelete { ids: vec![id, id] },
                &w.eng,
            )
            .await;
        assert_eq!(m.msg, "1 video deleted.");
        assert_eq!(list("").await.count, 0);
        assert_eq!(fetch(&app, &url, None).await.0, StatusCode::NOT_FOUND);
        assert_eq!(files_under(&objects), Vec::<std::path::PathBuf>::new());
    }
);

both!(
    bad_uploads_are_refused_and_leave_nothing_behind,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let tmp = tempfile::tempdir().unwrap();
        let videos = format!("organization/task/videos/{}", w.task);
        let list_count = || async { app.get_as::<Page<Video>>(&videos, &w.eng).await.count };

        // The upload's declaration.
        let cases = [
            (declared("a.mp4", 0), "size_bytes", "The file is empty."),
            (
                declared("  ", 10),
                "file_name",
                "This field may not be blank.",
            ),
            (
                declared("a.mp4", 5_i64 << 30),
                "size_bytes",
                "The file is larger than the 4096 MiB a video may be.",
            ),
            (
                declared(&"a".repeat(256), 10),
                "file_name",
                "File name must be at most 255 characters.",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app.send_refused(Method::POST, &videos, &body, &w.eng).await;
            assert_eq!(
                (s, v[field][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{body:?}: {v}"
            );
        }
        let (s, _) = app
            .post(&videos, json!({"file_name": "a.mp4"}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let (s, _) = start_refused(&app, &w.eng, 999_999, "a.mp4", 10).await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Bytes that are not a video, audio with no picture, and a clip cut short: each is
        // refused when the last part arrives, and nothing of it stays.
        let text = b"a plain text file, not a video at all".to_vec();
        let audio = make_file(
            "audiotestsrc num-buffers=20 ! wavenc",
            &tmp.path().join("a.wav"),
        );
        let whole = clip(tmp.path(), 1);
        let cut = whole[..whole.len() / 2].to_vec();
        for (name, bytes, msg) in [
            (
                "notes.mp4",
                &text,
                "The file is not a video that can be read (corrupt, or of an unknown format).",
            ),
            ("tone.wav", &audio, "The file has no video stream."),
            (
                "cut.mp4",
                &cut,
                "The file is not a video that can be read (corrupt, or of an unknown format).",
            ),
        ] {
            let (s, v) = upload(&app, &w.eng, w.task, name, bytes, 4096).await;
            assert_eq!(
                (s, v["file"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(msg)),
                "{name}: {v}"
            );
        }
        assert_eq!(list_count().await, 0);
        assert_eq!(
            files_under(&app.data_dir().join("objects")),
            Vec::<std::path::PathBuf>::new()
        );
        assert_eq!(
            files_under(&app.data_dir().join("uploads")),
            Vec::<std::path::PathBuf>::new()
        );

        // Parts that do not say what they are.
        let id = start(&app, &w.eng, w.task, "clip.mp4", whole.len())
            .await
            .id;
        let path = format!("organization/task_record/{id}/content/");
        let n = whole.len();
        for (range, body_len, field_msg) in [
            (
                None,
                10,
                format!("Send each part with Content-Range: bytes FIRST-LAST/{n}."),
            ),
            (
                Some(format!("bytes 0-9/{}", n + 1)),
                10,
                format!("This video is {n} bytes, not {}.", n + 1),
            ),
            (
                Some(format!("bytes 5-2/{n}")),
                10,
                format!("Send each part with Content-Range: bytes FIRST-LAST/{n}."),
            ),
            (
                Some(format!("bytes 0-{n}/{n}")),
                10,
                format!("Send each part with Content-Range: bytes FIRST-LAST/{n}."),
            ),
            (
                Some(format!("bytes 0-19/{n}")),
                10,
                "The part holds 10 bytes, but Content-Range says 20.".to_string(),
            ),
        ] {
            let mut rb = app
                .client
                .put(format!("{}/{path}", app.base))
                .bearer_auth(&w.eng)
                .body(whole[..body_len].to_vec());
            if let Some(r) = &range {
                rb = rb.header("Content-Range", r);
            }
            let r = rb.send().await.unwrap();
            let s = r.status();
            let v: Value = r.json().await.unwrap();
            assert_eq!(
                (s, v["Content-Range"][0].as_str()),
                (StatusCode::BAD_REQUEST, Some(field_msg.as_str())),
                "{range:?}: {v}"
            );
        }
        let v: Video = app
            .get_as(&format!("organization/task_record/{id}/"), &w.eng)
            .await;
        assert_eq!(v.received_bytes, 0, "{v:?}");

        // Without the subscription nothing is uploaded (checked before the task is looked up).
        let admin = app.admin_token().await;
        let c = app
            .signed_in(
                "c@c.test",
                "org_admin",
                app.create_org(&admin, "Plant C").await,
            )
            .await;
        let (s, v) = start_refused(&app, &c, w.task, "a.mp4", 10).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        assert_eq!(
            v["detail"],
            "Record Training Set is not enabled for this organization."
        );
    }
);

both!(
    labels_are_checked_saved_in_order_and_move_a_new_task_to_annotation,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let tmp = tempfile::tempdir().unwrap();
        let bytes = clip(tmp.path(), 2);
        let v = upload_video(&app, &w.eng, w.task, "bench.mp4", &bytes, 1 << 20).await;
        let path = format!("organization/task_record/{}/labels/", v.id);
        let status = || async {
            app.get_as::<Task>(&format!("organization/task/{}/", w.task), &w.eng)
                .await
                .train_status
        };

        let l: VideoLabels = app.get_as(&path, &w.eng).await;
        assert_eq!(l.steps, ["Fit", "Check"]);
        assert!(l.segments.is_empty(), "{l:?}");
        assert!((1900..=2100).contains(&l.duration_ms), "{l:?}");
        assert_eq!(status().await, TrainStatus::NewTask);

        // Bad labels: each refused with its reason, nothing saved.
        for (segments, says) in [
            (
                vec![Segment::new(2, 0, 100)],
                "Step 2 is not one of the operation's 2 steps (0 to 1).",
            ),
            (
                vec![Segment::new(0, 0, 500), Segment::new(1, 400, 900)],
                "overlap",
            ),
            (vec![Segment::new(0, 1500, 5000)], "falls outside the video"),
            (vec![Segment::new(0, 300, 300)], "end after it starts"),
        ] {
            let (s, v) = app
                .send_refused(Method::PUT, &path, &labels(segments.clone()), &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{segments:?}: {v}");
            assert!(
                v["segments"][0].as_str().unwrap().contains(says),
                "{segments:?}: {v}"
            );
        }
        // A negative step is no step at all: the body does not read.
        let (s, v) = app
            .put(
                &path,
                json!({"segments": [{"step": -1, "start_ms": 0, "end_ms": 1}]}),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let now: VideoLabels = app.get_as(&path, &w.eng).await;
        assert!(now.segments.is_empty(), "{now:?}");
        assert_eq!(status().await, TrainStatus::NewTask);

        // Good ones, sent out of order: saved in time order; the task is in annotation.
        let good = labels(vec![Segment::new(1, 1000, 1500), Segment::new(0, 100, 900)]);
        let l: VideoLabels = app.send_as(Method::PUT, &path, &good, &w.eng).await;
        assert_eq!(l.segments[0].step, 0);
        assert_eq!(l.segments[1].start_ms, 1000);
        assert_eq!((l.reviewed, l.updated_by.is_some()), (false, true));
        assert_eq!(status().await, TrainStatus::InAnnotation);
        let now: VideoLabels = app.get_as(&path, &w.eng).await;
        assert_eq!(now.segments, l.segments);

        // Another organisation, a role that does not label, a video still uploading.
        let body = labels(vec![]);
        assert_eq!(app.get(&path, &w.boss_b).await.0, StatusCode::NOT_FOUND);
        assert_eq!(
            app.send_refused(Method::PUT, &path, &body, &w.boss_b)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            app.send_refused(Method::PUT, &path, &body, &w.analyst)
                .await
                .0,
            StatusCode::FORBIDDEN
        );
        let up = start(&app, &w.eng, w.task, "later.mp4", 10).await;
        let (s, v) = app
            .send_refused(
                Method::PUT,
                &format!("organization/task_record/{}/labels/", up.id),
                &body,
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{v}");
        let now: VideoLabels = app.get_as(&path, &w.eng).await;
        assert_eq!(now.segments.len(), 2);
    }
);

both!(
    tags_and_comments_are_the_organisations_and_counted_on_the_video,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let id = start(&app, &w.eng, w.task, "bench.mp4", 100).await.id;
        let video = format!("organization/task_record/{id}/");
        let tags = "organization/task_record/tags";
        let tag = |name: &str| OrgTagCreate {
            tag_name: name.into(),
        };

        // Tags: the organisation's vocabulary, one of each name.
        let t: OrgTag = app.create_as(tags, &tag(" Night shift "), &w.eng).await;
        assert_eq!(t.tag_name, "Night shift", "{t:?}");
        let night = t.id;
        let (s, v) = app
            .send_refused(Method::POST, tags, &tag("Night shift"), &w.eng)
            .await;
        assert_eq!(
            (s, v["tag_name"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some("A tag with this name already exists.")
            )
        );
        let (s, v) = app
            .send_refused(Method::POST, tags, &tag("  "), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let left = app
            .create_as::<_, OrgTag>(tags, &tag("Left hand"), &w.eng)
            .await
            .id;
        let b_tag = app
            .create_as::<_, OrgTag>(tags, &tag("Night shift"), &w.boss_b)
            .await
            .id;
        let all: Vec<OrgTag> = app.get_as(tags, &w.eng).await;
        assert_eq!(
            all,
            [
                OrgTag {
                    id: left,
                    tag_name: "Left hand".into()
                },
                OrgTag {
                    id: night,
                    tag_name: "Night shift".into()
                }
            ]
        );

        // A video's tags and name; another organisation's tag changes nothing.
        let change = VideoPatch {
            tags: Some(vec![night, left, night]),
            file_name: Some("Bench A.mp4".into()),
            is_uploaded_video: Some(false),
        };
        let v: Video = app.send_as(Method::PATCH, &video, &change, &w.eng).await;
        assert_eq!(
            (v.tags, v.file_name, v.is_uploaded_video),
            (
                vec!["Left hand".to_string(), "Night shift".into()],
                "Bench A.mp4".to_string(),
                false
            )
        );
        let other = VideoPatch {
            tags: Some(vec![b_tag]),
            file_name: Some("Other".into()),
            ..VideoPatch::default()
        };
        let (s, v) = app
            .send_refused(Method::PATCH, &video, &other, &w.eng)
            .await;
        assert_eq!(
            (s, v["tags"][0].as_str()),
            (
                StatusCode::BAD_REQUEST,
                Some(format!("Tag {b_tag} is not one of this organisation's tags.").as_str())
            ),
            "{v}"
        );
        let v: Video = app.get_as(&video, &w.eng).await;
        assert_eq!(
            (v.tags, v.file_name.as_str()),
            (
                vec!["Left hand".to_string(), "Night shift".into()],
                "Bench A.mp4"
            )
        );
        let l: Page<Video> = app
            .get_as(
                &format!("organization/task/videos/{}?isUploadedVideo=false", w.task),
                &w.eng,
            )
            .await;
        assert_eq!(l.results[0].tags, ["Left hand", "Night shift"]);
        // The task's tags: those on its videos, the most used first; a second video
        // with one of them counts it twice.
        let second = start(&app, &w.eng, w.task, "bench-2.mp4", 100).await.id;
        let only_night = VideoPatch {
            tags: Some(vec![night]),
            ..VideoPatch::default()
        };
        let _: Video = app
            .send_as(
                Method::PATCH,
                &format!("organization/task_record/{second}/"),
                &only_night,
                &w.eng,
            )
            .await;
        let task_tags = format!("organization/task/task_tags/{}", w.task);
        let used: Vec<TaskTag> = app.get_as(&task_tags, &w.eng).await;
        let used: Vec<(&str, i64)> = used
            .iter()
            .map(|t| (t.tag_name.as_str(), t.videos))
            .collect();
        assert_eq!(used, [("Night shift", 2), ("Left hand", 1)]);
        assert_eq!(
            app.get(&task_tags, &w.boss_b).await.0,
            StatusCode::NOT_FOUND
        );
        let rename = VideoPatch {
            file_name: Some("x".into()),
            ..VideoPatch::default()
        };
        assert_eq!(
            app.send_refused(Method::PATCH, &video, &rename, &w.boss_b)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            app.delete(&format!("{tags}/{night}"), &w.boss_b).await.0,
            StatusCode::NOT_FOUND
        );
        let (s, _) = app.delete(&format!("{tags}/{night}"), &w.eng).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert_eq!(
            app.get_as::<Video>(&video, &w.eng).await.tags,
            ["Left hand"]
        );

        // Comments count on the video; the writer or a manager deletes one.
        let comments = "organization/task_record/comments";
        let c = |text: &str| CommentCreate {
            entity_id: id,
            text: text.into(),
        };
        let first: Comment = app
            .create_as(comments, &c("Step 2 is cut short"), &w.eng)
            .await;
        assert_eq!(first.user_name, "Eng User", "{first:?}");
        let second: Comment = app
            .create_as(comments, &c("Relabel this one"), &w.boss)
            .await;
        assert_eq!(
            app.send_refused(Method::POST, comments, &c(" "), &w.eng)
                .await
                .0,
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            app.send_refused(Method::POST, comments, &c("x"), &w.boss_b)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            app.send_refused(Method::POST, comments, &c("x"), &w.analyst)
                .await
                .0,
            StatusCode::FORBIDDEN
        );
        let of_video = format!("{comments}?entity_id={id}");
        let list: Vec<Comment> = app.get_as(&of_video, &w.eng).await;
        assert_eq!(list.len(), 2, "{list:?}");
        assert_eq!(list[0].text, "Step 2 is cut short");
        assert_eq!(app.get_as::<Video>(&video, &w.eng).await.no_of_comments, 2);
        assert_eq!(app.get(&of_video, &w.boss_b).await.0, StatusCode::NOT_FOUND);
        let l: Page<Video> = app
            .get_as(
                &format!(
                    "organization/task/videos/{}?ordering=-no_of_comments",
                    w.task
                ),
                &w.eng,
            )
            .await;
        assert_eq!(l.results[0].no_of_comments, 2);
        // The writer deletes their own; another organisation cannot delete one.
        let (s, _) = app
            .delete(&format!("{comments}/{}", first.id), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert_eq!(
            app.delete(&format!("{comments}/{}", second.id), &w.boss_b)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(app.get_as::<Video>(&video, &w.eng).await.no_of_comments, 1);
    }
);

both!(
    time_stamp_tags_mark_moments_inside_the_video_with_the_organisations_tags,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let tmp = tempfile::tempdir().unwrap();
        let v = upload_video(
            &app,
            &w.eng,
            w.task,
            "bench.mp4",
            &clip(tmp.path(), 2),
            1 << 20,
        )
        .await;
        let (id, d) = (v.id, v.duration_ms.unwrap());
        let fumble = OrgTagCreate {
            tag_name: "Fumble".into(),
        };
        let tags = "organization/task_record/tags";
        let tag = app.create_as::<_, OrgTag>(tags, &fumble, &w.eng).await.id;
        let b_tag = app
            .create_as::<_, OrgTag>(tags, &fumble, &w.boss_b)
            .await
            .id;
        let at = |time_ms: i64, tag: i64| TimeTagCreate {
            task_record: id,
            tag,
            time_ms,
        };
        let path = "organization/tag_time_stamp_videos_view";

        let late: TimeTag = app.create_as(path, &at(1500, tag), &w.eng).await;
        assert_eq!(late.tag_name, "Fumble", "{late:?}");
        let early: TimeTag = app.create_as(path, &at(200, tag), &w.eng).await;
        for (body, field) in [
            (at(d + 1, tag), "time_ms"),
            (at(-1, tag), "time_ms"),
            (at(10, b_tag), "tag"),
        ] {
            let (s, v) = app.send_refused(Method::POST, path, &body, &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert!(v[field][0].is_string(), "{body:?}: {v}");
        }
        let (s, v) = app
            .post(path, json!({"task_record": id, "tag": tag}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            app.send_refused(Method::POST, path, &at(10, tag), &w.boss_b)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            app.send_refused(Method::POST, path, &at(10, tag), &w.analyst)
                .await
                .0,
            StatusCode::FORBIDDEN
        );
        let pending = start(&app, &w.eng, w.task, "later.mp4", 10).await;
        let (s, _) = app
            .send_refused(
                Method::POST,
                path,
                &TimeTagCreate {
                    task_record: pending.id,
                    tag,
                    time_ms: 0,
                },
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::CONFLICT);

        let of_video = format!("{path}?task_record={id}");
        let list: Vec<TimeTag> = app.get_as(&of_video, &w.eng).await;
        let times: Vec<i64> = list.iter().map(|t| t.time_ms).collect();
        assert_eq!(times, [200, 1500], "{list:?}");
        assert_eq!(app.get(&of_video, &w.boss_b).await.0, StatusCode::NOT_FOUND);
        let gone = format!("organization/tag_time_stamp_video/{}", early.id);
        assert_eq!(app.delete(&gone, &w.boss_b).await.0, StatusCode::NOT_FOUND);
        assert_eq!(app.delete(&gone, &w.eng).await.0, StatusCode::NO_CONTENT);
        assert_eq!(app.delete(&gone, &w.eng).await.0, StatusCode::NOT_FOUND);
        let list: Vec<TimeTag> = app.get_as(&of_video, &w.eng).await;
        assert_eq!(list.len(), 1, "{list:?}");
    }
);
