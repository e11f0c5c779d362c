//! `POST organization/create_kaizen_bucket`: the organisation's `kaizen` bucket made in
//! the object store (201), the same again (200), per organisation; its marker is not one
//! of the bucket's files; a role that does not write files is refused.

use gemba_shared::api::v1::kaizen::{BUCKET_MARKER, KAIZEN_BUCKET, KaizenBucket};
use object_store::ObjectStoreExt;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

const PATH: &str = "organization/create_kaizen_bucket";

async fn marker_exists(app: &TestApp, org: i64) -> bool {
    let k = gemba_cloud::objects::key(org, &format!("files/{KAIZEN_BUCKET}/{BUCKET_MARKER}"));
    app.state.objects.head(&k).await.is_ok()
}

both!(
    the_kaizen_bucket_is_made_once_per_organization,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Kaizen A").await;
        let b = app.create_org(&admin, "Kaizen B").await;
        let eng = app.signed_in("eng@kaizen-a.test", "org_user", a).await;
        let analyst = app
            .signed_in("analyst@kaizen-a.test", "analytics_user", a)
            .await;
        let eng_b = app.signed_in("eng@kaizen-b.test", "org_user", b).await;

        // A role that does not write files makes nothing.
        let (s, _) = app.post(PATH, Value::Null, Some(&analyst)).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert!(!marker_exists(&app, a).await);

        let made = KaizenBucket {
            bucket_name: "kaizen".into(),
            created: true,
        };
        let (s, v) = app.post(PATH, Value::Null, Some(&eng)).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(serde_json::from_value::<KaizenBucket>(v).unwrap(), made);
        assert!(marker_exists(&app, a).await);
        assert!(!marker_exists(&app, b).await);
        let (s, v) = app.post(PATH, Value::Null, Some(&eng)).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert!(!serde_json::from_value::<KaizenBucket>(v).unwrap().created);
        // B's is its own.
        let (s, v) = app.post(PATH, Value::Null, Some(&eng_b)).await;
        assert_eq!(
            (s, v["created"].clone()),
            (StatusCode::CREATED, json!(true))
        );
        assert!(marker_exists(&app, b).await);

        // The marker is not a file of the bucket: the new bucket has none.
        let (s, v) = app
            .post(
                "generic/get_bucket_folder_presigned_url/",
                json!({"bucket_name": "kaizen"}),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    }
);
