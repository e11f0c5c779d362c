//! Annotation images and object boxes (spec section 7 "Annotation, media and depth"):
//! frames of a real video (made by GStreamer, uploaded as the portal does) taken by the
//! cloud's media path as images, listed paged, ordered and filtered; boxes saved,
//! checked, deleted, reverted, following their task objects; images deleted in bulk,
//! all or none; the depth and projector calls answering that none is attached; other
//! organisations and roles refused. On both backends.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::annotation::{
    AnnotationIds, AnnotationImage, NO_DEPTH_CAMERA, NO_PROJECTOR,
};
use gemba_shared::api::v1::task::TaskObject;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::devices::World;
use crate::videos::{clip, subscribed_world, upload_video};

const TAKE: &str = "organization/task/annotation_image/";
const BOXES: &str = "organization/task/task_object/update_delete";
const REVERT: &str = "generic/revert_object_list/";
const BULK: &str = "organization/annotations/bulk-delete/";

/// A 2 s clip of A's task, uploaded by A's engineer: its id.
async fn video(app: &TestApp, w: &World) -> i64 {
    let dir = tempfile::tempdir().unwrap();
    let bytes = clip(dir.path(), 2);
    upload_video(app, &w.eng, w.task, "bench.mp4", &bytes, 64 * 1024)
        .await
        .id
}

async fn take(app: &TestApp, tok: &str, video: i64, at: i64) -> (StatusCode, Value) {
    app.post(TAKE, json!({"video": video, "frame_ms": at}), Some(tok))
        .await
}

async fn taken(app: &TestApp, tok: &str, video: i64, at: i64) -> AnnotationImage {
    let (s, v) = take(app, tok, video, at).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    serde_json::from_value(v).unwrap()
}

/// The bytes behind a media URL (no sign-in).
async fn media(app: &TestApp, url: &str) -> (StatusCode, Vec<u8>) {
    let origin = app.base.trim_end_matches("/api");
    let r = app
        .client
        .get(format!("{origin}{url}"))
        .send()
        .await
        .unwrap();
    (r.status(), r.bytes().await.unwrap().to_vec())
}

async fn object(app: &TestApp, tok: &str, task: i64, name: &str) -> TaskObject {
    app.create_as(
        "organization/task/task_object/",
        &json!({"task": task, "name": name}),
        tok,
    )
    .await
}

fn boxed(object: i64, x: f64, y: f64, w: f64, h: f64) -> Value {
    json!({"task_object": object, "x": x, "y": y, "width": w, "height": h})
}

async fn video_count(app: &TestApp, tok: &str, task: i64) -> i64 {
    let (_, v) = app
        .get(&format!("organization/task/videos/{task}"), tok)
        .await;
    v["count"].as_i64().unwrap()
}

fn first(v: &Value, field: &str) -> String {
    v[field][0]
        .as_str()
        .unwrap_or_else(|| panic!("a message on {field}: {v}"))
        .to_string()
}

async fn all(app: &TestApp, tok: &str, task: i64, query: &str) -> Vec<AnnotationImage> {
    app.get_as(
        &format!("organization/task/fetch_all_annotation_image_list/{task}{query}"),
        tok,
    )
    .await
}

both!(
    frames_of_a_video_become_images_listed_paged_and_ordered,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let v = video(&app, &w).await;

        let late = taken(&app, &w.eng, v, 1000).await;
        assert_eq!(
            (late.task, late.video, late.frame_ms),
            (w.task, Some(v), 1000)
        );
        assert_eq!((late.width, late.height), (320, 240));
        assert!(late.objects.is_empty() && !late.can_revert);
        let (s, jpeg) = media(&app, &late.image_url).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(&jpeg[..2], &[0xff, 0xd8], "a JPEG");
        // The ball moves: the first frame is another picture.
        let early = taken(&app, &w.eng, v, 0).await;
        let (_, early_jpeg) = media(&app, &early.image_url).await;
        assert_ne!(jpeg, early_jpeg);
        // The same frame again is the same image.
        let (s, again) = take(&app, &w.eng, v, 1000).await;
        assert_eq!(s, StatusCode::OK, "{again}");
        assert_eq!(again["id"], json!(late.id));
        // Outside the video, and an unknown video.
        for at in [-1, 2000, 60_000] {
            let (s, e) = take(&app, &w.eng, v, at).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{at}: {e}");
            assert!(first(&e, "frame_ms").starts_with("A frame is taken within the video"));
        }
        assert_eq!(
            take(&app, &w.eng, 999_999, 0).await.0,
            StatusCode::NOT_FOUND
        );
        let mid = taken(&app, &w.eng, v, 500).await;

        // Paged, in the order taken (the default) or by place in the video.
        let list = |q: &str| format!("organization/task/annotation_image_list/{}/{q}", w.task);
        let p: Page<AnnotationImage> = app.get_as(&list("?page_size=2"), &w.eng).await;
        assert_eq!(p.count, 3);
        assert_eq!(
            p.results.iter().map(|i| i.id).collect::<Vec<_>>(),
            vec![late.id, early.id]
        );
        let p: Page<AnnotationImage> = app.get_as(&list("?page_size=2&page=2"), &w.eng).await;
        assert_eq!(
            p.results.iter().map(|i| i.id).collect::<Vec<_>>(),
            vec![mid.id]
        );
        let p: Page<AnnotationImage> = app.get_as(&list("?ordering=-frame_ms"), &w.eng).await;
        assert_eq!(
            p.results.iter().map(|i| i.frame_ms).collect::<Vec<_>>(),
            vec![1000, 500, 0]
        );
        let by_frame = all(&app, &w.eng, w.task, "?ordering=frame_ms").await;
        assert_eq!(
            by_frame.iter().map(|i| i.frame_ms).collect::<Vec<_>>(),
            vec![0, 500, 1000]
        );
        for (q, field) in [
            ("?ordering=name", "ordering"),
            ("?page_size=0", "page_size"),
            ("?page_size=101", "page_size"),
            ("?page=0", "page"),
        ] {
            let (s, e) = app.get(&list(q), &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{q}: {e}");
            assert!(e.get(field).is_some(), "{q}: {e}");
        }
        let (s, e) = app
            .get(
                &format!(
                    "organization/task/fetch_all_annotation_image_list/{}?filter=boxes",
                    w.task
                ),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");

        // The analytics user sees no videos; B's admin does not find A's task or video.
        assert_eq!(
            app.get(&list(""), &w.analyst).await.0,
            StatusCode::FORBIDDEN
        );
        assert_eq!(take(&app, &w.analyst, v, 0).await.0, StatusCode::FORBIDDEN);
        assert_eq!(app.get(&list(""), &w.boss_b).await.0, StatusCode::NOT_FOUND);
        assert_eq!(take(&app, &w.boss_b, v, 250).await.0, StatusCode::NOT_FOUND);
        let p: Page<AnnotationImage> = app.get_as(&list(""), &w.eng).await;
        assert_eq!(p.count, 3, "nothing taken by the refused calls");
    }
);

both!(
    boxes_are_checked_saved_deleted_reverted_and_follow_their_objects,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let v = video(&app, &w).await;
        let jig = object(&app, &w.eng, w.task, "Jig").await;
        let screw = object(&app, &w.eng, w.task, "Screw").await;
        let img = taken(&app, &w.eng, v, 0).await;
        let bare = taken(&app, &w.eng, v, 1500).await;

        let (s, e) = app
            .post(REVERT, json!({"image": img.id}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "nothing to revert yet: {e}");

        let two = json!({"image": img.id, "objects": [
            boxed(jig.id, 0.1, 0.2, 0.3, 0.4),
            boxed(screw.id, 0.5, 0.5, 0.25, 0.25),
        ]});
        let (s, saved) = app.patch(BOXES, two, Some(&w.eng)).await;
        assert_eq!(s, StatusCode::OK, "{saved}");
        let saved: AnnotationImage = serde_json::from_value(saved).unwrap();
        assert_eq!(saved.objects.len(), 2);
        assert_eq!(saved.objects[0].task_object, jig.id);
        assert_eq!(
            (
                saved.objects[0].x,
                saved.objects[0].y,
                saved.objects[0].width,
                saved.objects[0].height
            ),
            (0.1, 0.2, 0.3, 0.4)
        );
        assert!(saved.can_revert);

        // Refused boxes change nothing: outside the image, empty, another task's object.
        let other: TaskObject = {
            let (eng_b, b_task) = crate::videos::b_task(&app, &w).await;
            object(&app, &eng_b, b_task, "Theirs").await
        };
        for (b, says) in [
            (
                boxed(jig.id, 0.8, 0.0, 0.5, 0.5),
                "A box must end inside the image",
            ),
            (boxed(jig.id, 0.1, 0.1, 0.0, 0.5), "A box must have a width"),
            (
                boxed(jig.id, -0.1, 0.1, 0.2, 0.2),
                "A box's corner must be inside",
            ),
            (
                boxed(other.id, 0.1, 0.1, 0.2, 0.2),
                "is not an object of this operation",
            ),
        ] {
            let (s, e) = app
                .patch(
                    BOXES,
                    json!({"image": img.id, "objects": [b]}),
                    Some(&w.eng),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
            assert!(first(&e, "objects").contains(says), "{e}");
        }
        let now = all(&app, &w.eng, w.task, "?filter=annotated").await;
        assert_eq!(now.len(), 1);
        assert_eq!(now[0].objects, saved.objects);
        let rest = all(&app, &w.eng, w.task, "?filter=not_annotated").await;
        assert_eq!(rest.iter().map(|i| i.id).collect::<Vec<_>>(), vec![bare.id]);
        let ids: AnnotationIds = app
            .send_as(
                Method::POST,
                "organization/task/fetch_annotation_ids_object/",
                &json!({"task": w.task, "task_object": screw.id}),
                &w.eng,
            )
            .await;
        assert_eq!(ids.ids, vec![img.id]);

        // Delete the screw's box, revert, and revert the revert.
        let screw_box = saved.objects[1].id;
        let (s, one) = app
            .call(
                Method::DELETE,
                BOXES,
                Some(json!({"image": img.id, "ids": [screw_box]})),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{one}");
        assert_eq!(one["objects"].as_array().unwrap().len(), 1);
        let (s, _) = app
            .call(
                Method::DELETE,
                BOXES,
                Some(json!({"image": img.id, "ids": [screw_box]})),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND, "a box no longer there");
        let back: AnnotationImage = app
            .send_as(Method::POST, REVERT, &json!({"image": img.id}), &w.eng)
            .await;
        assert_eq!(back.objects.len(), 2);
        assert_eq!(back.objects[1].task_object, screw.id);
        let undone: AnnotationImage = app
            .send_as(Method::POST, REVERT, &json!({"image": img.id}), &w.eng)
            .await;
        assert_eq!(undone.objects.len(), 1);

        // Another organisation, and a role without the labelling, are refused.
        let (s, _) = app
            .patch(
                BOXES,
                json!({"image": img.id, "objects": []}),
                Some(&w.boss_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .patch(
                BOXES,
                json!({"image": img.id, "objects": []}),
                Some(&w.analyst),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // A task object deleted takes its boxes with it.
        let (s, e) = app
            .delete(
                &format!("organization/task/task_object/{}/", jig.id),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{e}");
        let left = all(&app, &w.eng, w.task, "?filter=annotated").await;
        assert!(left.is_empty(), "{left:?}");

        // Bulk delete: all or none, the files too.
        let (s, e) = app
            .patch(
                BULK,
                json!({"task": w.task, "ids": [img.id, 999_999]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
        assert_eq!(all(&app, &w.eng, w.task, "").await.len(), 2);
        let (s, e) = app
            .patch(BULK, json!({"task": w.task, "ids": []}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
        let (s, e) = app
            .patch(
                BULK,
                json!({"task": w.task, "ids": [img.id]}),
                Some(&w.boss_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
        let (s, e) = app
            .patch(
                BULK,
                json!({"task": w.task, "ids": [img.id, img.id]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{e}");
        assert_eq!(e["msg"], "Data deleted successfully!");
        let left = all(&app, &w.eng, w.task, "").await;
        assert_eq!(left.iter().map(|i| i.id).collect::<Vec<_>>(), vec![bare.id]);
        assert_eq!(media(&app, &img.image_url).await.0, StatusCode::NOT_FOUND);

        // The static image: the task's first.
        let s: AnnotationImage = app
            .send_as(
                Method::POST,
                "organization/annotation_image/get_static_image/",
                &json!({"task": w.task}),
                &w.eng,
            )
            .await;
        assert_eq!(s.id, bare.id);
    }
);

both!(
    depth_and_projector_calls_say_none_is_attached,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let t = w.task;
        let plane: Value = app
            .create_as(
                "organization/task/plane_objects/",
                &json!({"task": t, "name": "Bench", "points": [[0, 0], [1, 0], [1, 1]]}),
                &w.eng,
            )
            .await;
        let plane = plane["id"].as_i64().unwrap();

        let is3d = format!("organization/task/is_3d/{t}/");
        let (s, v) = app.get(&is3d, &w.eng).await;
        assert_eq!((s, v), (StatusCode::OK, json!({"is_3d": false})));
        let no_depth = [
            (Method::GET, format!("organization/task/depth_frame/{t}/")),
            (Method::POST, format!("organization/task/depth_frame/{t}/")),
            (
                Method::GET,
                format!("organization/task/zero_depth_pixel/{t}/"),
            ),
            (
                Method::PUT,
                format!("organization/task/reset_plane_objects/{t}/"),
            ),
            (
                Method::PUT,
                format!("organization/task/calculate_plane_object_equation/{plane}/"),
            ),
            (
                Method::GET,
                format!("organization/task/get_overlay_frame/{t}/?plane_id={plane}"),
            ),
        ];
        for (m, path) in &no_depth {
            let (s, v) = app.call(m.clone(), path, None, Some(&w.eng)).await;
            assert_eq!(s, StatusCode::CONFLICT, "{m} {path}: {v}");
            assert_eq!(v["detail"], NO_DEPTH_CAMERA, "{m} {path}");
            // Another organisation's task or plane is not found.
            let (s, _) = app.call(m.clone(), path, None, Some(&w.boss_b)).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{m} {path}");
        }
        let (s, v) = app
            .get(&format!("organization/task/get_overlay_frame/{t}/"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let (s, _) = app
            .get(
                &format!("organization/task/get_overlay_frame/{t}/?plane_id=999999"),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Reading is the task's readers'; changing its changers'.
        assert_eq!(app.get(&is3d, &w.analyst).await.0, StatusCode::OK);
        let (s, _) = app
            .call(Method::POST, &no_depth[1].1, None, Some(&w.analyst))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        let p: Page<AnnotationImage> = app
            .get_as(
                &format!("organization/task/projector_annotation_image_list/{t}/?page=1"),
                &w.eng,
            )
            .await;
        assert_eq!(p.count, 0);
        for (m, path) in [
            (Method::PUT, "generic/update_projector_region/"),
            (Method::PATCH, "generic/copy_projector_media/"),
        ] {
            let (s, v) = app
                .call(m.clone(), path, Some(json!({"task": t})), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::CONFLICT, "{m} {path}: {v}");
            assert_eq!(v["detail"], NO_PROJECTOR);
            let (s, _) = app
                .call(m.clone(), path, Some(json!({"task": t})), Some(&w.boss_b))
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{m} {path}");
        }
    }
);

both!(
    a_frame_becomes_a_videos_thumbnail,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let v = video(&app, &w).await;
        let thumb = "organization/task/upload_thumbnail/";
        let (_, before) = app
            .get(&format!("organization/task_record/{v}/"), &w.eng)
            .await;
        let old_url = before["thumbnail_url"].as_str().unwrap().to_string();
        let (_, old) = media(&app, &old_url).await;

        let (s, after) = app
            .post(thumb, json!({"video": v, "frame_ms": 1500}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{after}");
        let new_url = after["thumbnail_url"].as_str().unwrap();
        assert_ne!(new_url, old_url);
        let (s, new) = media(&app, new_url).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(&new[..2], &[0xff, 0xd8], "a JPEG");
        assert_ne!(new, old, "another frame than the first");
        // The list shows it; the old picture is gone.
        let (_, listed) = app
            .get(&format!("organization/task_record/{v}/"), &w.eng)
            .await;
        assert_eq!(listed["thumbnail_url"], new_url);
        assert_eq!(media(&app, &old_url).await.0, StatusCode::NOT_FOUND);

        let (s, e) = app
            .post(thumb, json!({"video": v, "frame_ms": 2000}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
        assert!(first(&e, "frame_ms").starts_with("A frame is taken within the video"));
        let body = json!({"video": v, "frame_ms": 0});
        assert_eq!(
            app.post(thumb, body.clone(), Some(&w.analyst)).await.0,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            app.post(thumb, body, Some(&w.boss_b)).await.0,
            StatusCode::NOT_FOUND
        );
        let (_, still) = app
            .get(&format!("organization/task_record/{v}/"), &w.eng)
            .await;
        assert_eq!(
            still["thumbnail_url"], new_url,
            "refused calls change nothing"
        );
    }
);

both!(
    videos_of_a_task_are_joined_into_a_new_one,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let dir = tempfile::tempdir().unwrap();
        let long = upload_video(
            &app,
            &w.eng,
            w.task,
            "long.mp4",
            &clip(dir.path(), 2),
            64 * 1024,
        )
        .await
        .id;
        let short = upload_video(
            &app,
            &w.eng,
            w.task,
            "short.mp4",
            &clip(dir.path(), 1),
            64 * 1024,
        )
        .await
        .id;
        let merge = "organization/task/merge_video_sequences/";

        let (s, v) = app
            .post(
                merge,
                json!({"task": w.task, "videos": [long, short]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(v["status"], "ready");
        assert_eq!(v["file_name"], "Merged 2 videos.mp4");
        assert_eq!(
            (v["width"].as_i64(), v["height"].as_i64()),
            (Some(320), Some(240))
        );
        let ms = v["duration_ms"].as_i64().unwrap();
        assert!((2700..=3300).contains(&ms), "{ms} ms");
        // Its frames are images like any video's.
        let id = v["id"].as_i64().unwrap();
        let img = taken(&app, &w.eng, id, 2500).await;
        assert_eq!(img.video, Some(id));

        // Refused: one video, a video of another task, another organisation, a role
        // without the videos; nothing is made by them.
        let before = video_count(&app, &w.eng, w.task).await;
        let (s, e) = app
            .post(
                merge,
                json!({"task": w.task, "videos": [long, long]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
        assert!(first(&e, "videos").starts_with("Give 2 to 20"), "{e}");
        let (eng_b, b_task) = crate::videos::b_task(&app, &w).await;
        let (s, e) = app
            .post(
                merge,
                json!({"task": b_task, "videos": [long, short]}),
                Some(&eng_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
        let (s, e) = app
            .post(
                merge,
                json!({"task": w.task, "videos": [long, short]}),
                Some(&w.boss_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
        let (s, _) = app
            .post(
                merge,
                json!({"task": w.task, "videos": [long, short]}),
                Some(&w.analyst),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(video_count(&app, &w.eng, w.task).await, before);
    }
);
