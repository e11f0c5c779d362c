//! `POST organization/task_record/extract_video_metadata`: a ready video's stored file
//! read again (length, frame rate, size, codec, container); a video still uploading is
//! refused on its field; another organisation's video is unknown.

use gemba_shared::api::v1::video::{Video, VideoCreate};
use gemba_shared::api::v1::video_metadata::{NOT_READY, VideoMetadata};
use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;
use crate::videos::{clip, upload_video};

const PATH: &str = "organization/task_record/extract_video_metadata";

both!(
    a_ready_videos_metadata_is_read_from_its_file,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let TaskOrgs {
            eng,
            analyst,
            eng_b,
            task,
            ..
        } = app.task_orgs(&admin, "Meta").await;
        let dir = tempfile::tempdir().unwrap();
        let bytes = clip(dir.path(), 2);
        let video = upload_video(&app, &eng, task.id, "pump.mp4", &bytes, 1 << 20).await;

        let (s, v) = app
            .post(PATH, json!({"task_record": video.id}), Some(&eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let m: VideoMetadata = serde_json::from_value(v).unwrap();
        assert_eq!(
            (m.task_record, m.file_name.as_str(), m.width, m.height),
            (video.id, "pump.mp4", 320, 240)
        );
        assert_eq!(m.size_bytes, bytes.len() as i64);
        assert!((m.frame_rate - 15.0).abs() < 1e-9, "{m:?}");
        assert!((1900..=2100).contains(&m.duration_ms), "{m:?}");
        assert!(m.codec.contains("H.264"), "{m:?}");
        // GStreamer names an MP4 by its caps, video/quicktime.
        assert_eq!(m.container.as_deref(), Some("Quicktime"), "{m:?}");
        assert!(!m.has_audio);

        // A video still uploading has no file to read.
        let pending: Video = app
            .create_as(
                &format!("organization/task/videos/{}", task.id),
                &VideoCreate {
                    file_name: "later.mp4".into(),
                    size_bytes: 1000,
                    is_uploaded_video: None,
                },
                &eng,
            )
            .await;
        let (s, v) = app
            .post(PATH, json!({"task_record": pending.id}), Some(&eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v["task_record"][0], NOT_READY);

        // Another organisation's video, and none.
        let (s, _) = app
            .post(PATH, json!({"task_record": video.id}), Some(&eng_b))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .post(PATH, json!({"task_record": 999_999_999}), Some(&eng))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // The analyst does not see videos.
        let (s, _) = app
            .post(PATH, json!({"task_record": video.id}), Some(&analyst))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);
