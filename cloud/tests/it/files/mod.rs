//! Files (issue 31, item 5): the `generic/` file calls over the object store, on the
//! local folder and on a real S3-compatible server (moto, [`moto`]), each on SQLite
//! and PostgreSQL; and a video uploaded to the cloud kept in S3 and played back from
//! its URL. Bad input: missing fields, path traversal, another organisation's bucket,
//! a file over the limit (nothing kept).

mod client;
mod moto;

use std::io::Read;

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::files::{FileUrl, NewUrl, PresignedPost, VerifiedFile};
use reqwest::StatusCode;
use serde_json::json;

use crate::common::*;
use crate::devices::World;
use crate::videos::{clip, subscribed_world, upload_video};
pub(crate) use client::{TENANT_FILE, put_tenant_file, read_tenant_file};
use client::{absolute, bytes_of, file, get, multipart, put_file, upload};
use moto::Moto;

const BUCKET: &str = "gemba-objects";
/// The largest file the tests' cloud takes.
const MAX: usize = 64 * 1024;

/// Every file call, as organisation A's engineer, with A's analyst (reads only) and
/// B's admin (another organisation) alongside.
async fn the_file_calls(app: &TestApp, w: &World) {
    let text = b"1. Fit the pump.\n2. Check the seal.\n".to_vec();
    let stored = put_file(app, &w.eng, "sop-files", "line1/steps.txt", &text).await;
    assert_eq!(
        (stored.object_path.as_str(), stored.size),
        ("line1/steps.txt", text.len() as u64)
    );
    // Its URL reads it, with no sign-in.
    assert_eq!(get(app, &stored.url).await, (StatusCode::OK, text.clone()));
    let (s, got) = bytes_of(
        app,
        "generic/file_read/",
        file("sop-files", "line1/steps.txt"),
        &w.analyst,
    )
    .await;
    assert_eq!((s, got), (StatusCode::OK, text.clone()));

    // Another organisation's bucket of that name is its own: nothing of A's in it.
    let (s, _) = bytes_of(
        app,
        "generic/file_read/",
        file("sop-files", "line1/steps.txt"),
        &w.boss_b,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = app
        .post(
            "generic/file_delete/",
            file("sop-files", "line1/steps.txt"),
            Some(&w.boss_b),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = app
        .post(
            "generic/get_bucket_folder_presigned_url/",
            json!({"bucket_name": "sop-files", "folder": ""}),
            Some(&w.boss_b),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // Names that climb out of the bucket, or are no names, are refused.
    for (bucket, path, field) in [
        ("sop-files", "../steps.txt", "object_path"),
        ("sop-files", "line1/../../x", "object_path"),
        ("sop-files", "/etc/passwd", "object_path"),
        ("..", "x.txt", "bucket_name"),
        ("../org", "x.txt", "bucket_name"),
        ("Sop_Files", "x.txt", "bucket_name"),
    ] {
        let (s, v) = app
            .post("generic/file_read/", file(bucket, path), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bucket} {path}: {v}");
        assert!(v[field].is_array(), "{bucket} {path}: {v}");
        let (s, v) = upload(
            app,
            &w.eng,
            &[
                ("bucket_name", bucket.as_bytes(), None),
                ("object_path", path.as_bytes(), None),
                ("file", b"x", Some("x")),
            ],
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bucket} {path}: {v}");
        assert!(v[field].is_array(), "{bucket} {path}: {v}");
    }
    // Missing fields.
    let (s, v) = upload(
        app,
        &w.eng,
        &[("object_path", b"a.txt", None), ("file", b"x", Some("x"))],
    )
    .await;
    assert_eq!(
        (s, v["bucket_name"].is_array()),
        (StatusCode::BAD_REQUEST, true),
        "{v}"
    );
    let (s, v) = upload(
        app,
        &w.eng,
        &[
            ("bucket_name", b"sop-files", None),
            ("object_path", b"a.txt", None),
        ],
    )
    .await;
    assert_eq!(
        (s, v["file"].is_array()),
        (StatusCode::BAD_REQUEST, true),
        "{v}"
    );
    let (s, v) = app
        .post(
            "generic/file_read/",
            json!({"bucket_name": "sop-files"}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    // Not a form at all.
    let (s, v) = app
        .post(
            "generic/file_upload/",
            file("sop-files", "a.txt"),
            Some(&w.eng),
        )
        .await;
    assert_eq!(
        (s, v["file"].is_array()),
        (StatusCode::BAD_REQUEST, true),
        "{v}"
    );
    // A file over the limit: 413, and nothing kept.
    let big = vec![7u8; MAX + 1];
    let (s, v) = upload(
        app,
        &w.eng,
        &[
            ("bucket_name", b"sop-files", None),
            ("object_path", b"line1/big.bin", None),
            ("file", &big, Some("big.bin")),
        ],
    )
    .await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    assert!(
        v["detail"].as_str().unwrap().contains(&MAX.to_string()),
        "{v}"
    );
    let (s, _) = bytes_of(
        app,
        "generic/file_read/",
        file("sop-files", "line1/big.bin"),
        &w.eng,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // A file of exactly the limit is taken.
    put_file(app, &w.eng, "sop-files", "line1/exact.bin", &big[..MAX]).await;
    // The analyst reads but does not write.
    let (s, _) = upload(
        app,
        &w.analyst,
        &[
            ("bucket_name", b"sop-files", None),
            ("object_path", b"a.txt", None),
            ("file", b"x", Some("x")),
        ],
    )
    .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = app
        .post(
            "generic/file_delete/",
            file("sop-files", "line1/steps.txt"),
            Some(&w.analyst),
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);

    // A new URL: the browser PUTs the file there itself, then asks what arrived.
    let (s, v) = app
        .post(
            "generic/generate_new_url/",
            json!({"bucket_name": "sop-files", "object_path": "line1/", "file": "photo.png"}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let new: NewUrl = serde_json::from_value(v).unwrap();
    assert_eq!(
        (new.object_path.as_str(), new.method.as_str()),
        ("line1/photo.png", "PUT")
    );
    let png = b"\x89PNG\r\n\x1a\nnot really".to_vec();
    let r = app
        .client
        .put(absolute(app, &new.url))
        .body(png.clone())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let (s, v) = app
        .post(
            "generic/generate_new_url/",
            json!({"bucket_name": "sop-files", "object_path": "line1", "file": "../x"}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(
        (s, v["file"].is_array()),
        (StatusCode::BAD_REQUEST, true),
        "{v}"
    );

    // A presigned post: a form with the fields given, the file last.
    let (s, v) = app
        .post(
            "generic/generate_presigned_post/",
            json!({"bucket_name": "sop-files", "object_path": "line1/deep", "file": "form.txt"}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let post: PresignedPost = serde_json::from_value(v).unwrap();
    assert_eq!(
        (post.object_path.as_str(), post.max_bytes),
        ("line1/deep/form.txt", MAX as i64)
    );
    let mut parts: Vec<(&str, &[u8], Option<&str>)> = post
        .fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_bytes(), None))
        .collect();
    parts.push(("file", b"posted", Some("form.txt")));
    let (ct, body) = multipart(&parts);
    let r = app
        .client
        .post(absolute(app, &post.url))
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());

    let (s, v) = app
        .post(
            "generic/verify_generate_new_url/",
            json!({"bucket_name": "sop-files", "files": ["line1/photo.png", "line1/deep/form.txt", "line1/never.txt"]}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let verified: Vec<VerifiedFile> = serde_json::from_value(v).unwrap();
    let seen: Vec<_> = verified
        .iter()
        .map(|f| (f.object_path.as_str(), f.uploaded, f.size))
        .collect();
    assert_eq!(
        seen,
        [
            ("line1/photo.png", true, Some(png.len() as u64)),
            ("line1/deep/form.txt", true, Some(6)),
            ("line1/never.txt", false, None),
        ]
    );
    let (s, v) = app
        .post(
            "generic/verify_generate_new_url/",
            json!({"bucket_name": "sop-files", "files": ["../x"]}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(
        (s, v["files"].is_array()),
        (StatusCode::BAD_REQUEST, true),
        "{v}"
    );

    // The folder's read URLs, and its zip.
    let (s, v) = app
        .post(
            "generic/get_bucket_folder_presigned_url/",
            json!({"bucket_name": "sop-files", "folder": "line1"}),
            Some(&w.analyst),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let urls: Vec<FileUrl> = serde_json::from_value(v).unwrap();
    let paths: Vec<_> = urls.iter().map(|u| u.object_path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "line1/deep/form.txt",
            "line1/exact.bin",
            "line1/photo.png",
            "line1/steps.txt"
        ]
    );
    for u in &urls {
        let (s, got) = get(app, &u.url).await;
        assert_eq!(
            (s, got.len() as u64),
            (StatusCode::OK, u.size),
            "{}",
            u.object_path
        );
    }
    let (s, zipped) = bytes_of(
        app,
        "generic/get_bucket_folder_zip/",
        json!({"bucket_name": "sop-files", "folder": "line1/"}),
        &w.analyst,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(zipped)).unwrap();
    let mut names: Vec<String> = zip.file_names().map(|n| n.unwrap().to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        ["deep/form.txt", "exact.bin", "photo.png", "steps.txt"]
    );
    let mut steps = Vec::new();
    zip.by_name("steps.txt")
        .unwrap()
        .read_to_end(&mut steps)
        .unwrap();
    assert_eq!(steps, text);
    let (s, _) = bytes_of(
        app,
        "generic/get_bucket_folder_zip/",
        json!({"bucket_name": "sop-files", "folder": "nothing-here"}),
        &w.eng,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = bytes_of(
        app,
        "generic/get_bucket_folder_zip/",
        json!({"bucket_name": "sop-files", "folder": "../.."}),
        &w.eng,
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);

    // Deleted: gone, and a second delete finds nothing.
    let (s, v) = app
        .post(
            "generic/file_delete/",
            file("sop-files", "line1/steps.txt"),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let m: Msg = serde_json::from_value(v).unwrap();
    assert_eq!(m.msg, "File deleted successfully");
    let (s, _) = bytes_of(
        app,
        "generic/file_read/",
        file("sop-files", "line1/steps.txt"),
        &w.eng,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = app
        .post(
            "generic/file_delete/",
            file("sop-files", "line1/steps.txt"),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

fn small_files(s: &mut gemba_cloud::config::Settings) {
    s.max_file_bytes = MAX as i64;
}

crate::both_with!(
    the_file_calls_work_on_the_local_folder,
    small_files,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        the_file_calls(&app, &w).await;
        // The files are in the data folder, under A's organisation.
        let kept = app.data_dir().join(format!(
            "objects/org/{}/files/sop-files/line1/photo.png",
            w.a
        ));
        assert!(kept.exists(), "{}", kept.display());
    }
);

async fn on_s3(backend: Backend) {
    let moto = Moto::start(BUCKET).await;
    let app = TestApp::start_with(backend, |s| {
        small_files(s);
        moto.configure(s, BUCKET);
    })
    .await;
    let w = subscribed_world(&app).await;
    the_file_calls(&app, &w).await;
    // The files are in the bucket, under A's organisation, and none in the folder.
    let keys = moto.keys(BUCKET, &format!("org/{}/files/", w.a)).await;
    assert!(
        keys.contains(&format!("org/{}/files/sop-files/line1/photo.png", w.a)),
        "{keys:?}"
    );
    assert!(!app.data_dir().join("objects/org").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_file_calls_work_on_s3_sqlite() {
    on_s3(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_file_calls_work_on_s3_postgres() {
    on_s3(Backend::Postgres).await;
}

/// A video uploaded to a cloud whose objects are in S3 is kept in the bucket, and
/// plays back, whole and by range, from its URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_video_kept_in_s3_plays_from_its_url() {
    let moto = Moto::start(BUCKET).await;
    let app = TestApp::start_with(Backend::Sqlite, |s| moto.configure(s, BUCKET)).await;
    let w = subscribed_world(&app).await;
    let tmp = tempfile::tempdir().unwrap();
    let bytes = clip(tmp.path(), 1);
    let v = upload_video(&app, &w.eng, w.task, "s3.mp4", &bytes, 64 * 1024).await;
    let url = absolute(&app, v.url.as_deref().unwrap());
    let r = app.client.get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.bytes().await.unwrap()[..] == bytes[..],
        "the video read back differs"
    );
    let r = app
        .client
        .get(&url)
        .header("Range", "bytes=10-19")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::PARTIAL_CONTENT);
    assert_eq!(&r.bytes().await.unwrap()[..], &bytes[10..20]);
    let keys = moto.keys(BUCKET, &format!("org/{}/", w.a)).await;
    assert!(keys.iter().any(|k| k.contains("videos/")), "{keys:?}");
    assert!(!app.data_dir().join("objects/org").exists());
}
