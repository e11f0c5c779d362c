//! `POST organization/entity/`: the comment entity of a video is the video; comments
//! sent with its `entity_id` are counted on it; asking again answers the same entity;
//! another organisation's video is unknown, and a role that does not see videos is
//! refused.

use gemba_shared::api::v1::video::{Video, VideoCreate};
use gemba_shared::api::v1::video_entity::Entity;
use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

const PATH: &str = "organization/entity/";

both!(
    a_videos_entity_carries_its_comments,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let TaskOrgs {
            eng,
            analyst,
            eng_b,
            task,
            ..
        } = app.task_orgs(&admin, "Entity").await;
        let video: Video = app
            .create_as(
                &format!("organization/task/videos/{}", task.id),
                &VideoCreate {
                    file_name: "line.mp4".into(),
                    size_bytes: 1000,
                    is_uploaded_video: None,
                },
                &eng,
            )
            .await;

        let (s, v) = app
            .post(PATH, json!({"task_record": video.id}), Some(&eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let e: Entity = serde_json::from_value(v).unwrap();
        assert_eq!(
            e,
            Entity {
                entity_id: video.id,
                task_record: video.id,
                task: task.id,
                no_of_comments: 0,
            }
        );

        // A comment on the entity is the video's, and the entity counts it.
        let (s, v) = app
            .post(
                "organization/task_record/comments",
                json!({"entity_id": e.entity_id, "text": "Step 2 is slow"}),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let (s, v) = app
            .post(PATH, json!({"task_record": video.id}), Some(&eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let again: Entity = serde_json::from_value(v).unwrap();
        assert_eq!((again.entity_id, again.no_of_comments), (e.entity_id, 1));
        let (s, v) = app
            .get(
                &format!(
                    "organization/task_record/comments?entity_id={}",
                    e.entity_id
                ),
                &eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v[0]["text"], "Step 2 is slow");

        // Another organisation's video, none, a bad body, and a role without videos.
        let (s, _) = app
            .post(PATH, json!({"task_record": video.id}), Some(&eng_b))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .post(PATH, json!({"task_record": 999_999_999}), Some(&eng))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, v) = app.post(PATH, json!({}), Some(&eng)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let (s, _) = app
            .post(PATH, json!({"task_record": video.id}), Some(&analyst))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);
