//! `GET organization/task/s3_objects/{id}/`: a task's files in the object store, by the
//! records that name them, each with its size as the store has it (none once the store
//! lost it); another organisation's task is unknown.

use gemba_shared::api::v1::task_objects_store::StoredObject;
use reqwest::StatusCode;

use crate::both;
use crate::common::*;
use crate::videos::{clip, upload_video};

both!(
    a_tasks_stored_files_are_listed_with_their_sizes,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let TaskOrgs {
            a,
            eng,
            analyst,
            eng_b,
            task,
        } = app.task_orgs(&admin, "Store").await;
        let path = format!("organization/task/s3_objects/{}/", task.id);
        let none: Vec<StoredObject> = app.get_as(&path, &eng).await;
        assert!(none.is_empty(), "{none:?}");

        let dir = tempfile::tempdir().unwrap();
        let bytes = clip(dir.path(), 1);
        let video = upload_video(&app, &eng, task.id, "pump.mp4", &bytes, 1 << 20).await;
        let listed: Vec<StoredObject> = app.get_as(&path, &analyst).await;
        let kinds: Vec<&str> = listed.iter().map(|o| o.kind.as_str()).collect();
        assert_eq!(kinds, ["thumbnail", "video"], "{listed:?}");
        let v = &listed[1];
        assert_eq!(
            (v.record.as_str(), v.name.as_str(), v.size_bytes),
            (
                video.id.to_string().as_str(),
                "pump.mp4",
                Some(bytes.len() as i64)
            )
        );
        assert!(v.last_modified.is_some_and(|t| t > 0));
        assert!(listed[0].size_bytes.is_some_and(|s| s > 0));

        // The store lost the video's file: still listed, with no size.
        let file = app
            .data_dir()
            .join("objects")
            .join(format!("org/{a}"))
            .join(&v.key);
        std::fs::remove_file(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let listed: Vec<StoredObject> = app.get_as(&path, &eng).await;
        assert_eq!(
            (listed[1].size_bytes, listed[1].last_modified),
            (None, None)
        );

        // Another organisation's task, and none.
        assert_eq!(app.get(&path, &eng_b).await.0, StatusCode::NOT_FOUND);
        assert_eq!(
            app.get("organization/task/s3_objects/999999999/", &eng)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
    }
);
