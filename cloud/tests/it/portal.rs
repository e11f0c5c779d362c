//! The portal next to the API: files, the single-page fallback, cache headers, and
//! `/portal-config.json`.

use std::path::Path;

use reqwest::StatusCode;
use serde_json::Value;

use crate::common::{Backend, TestApp};

const INDEX: &str = "<!doctype html><title>gemba test portal</title><div id=root></div>";

/// A server whose `web_dir` holds an `index.html` and one hashed asset.
async fn with_portal() -> (TestApp, tempfile::TempDir) {
    let web = tempfile::tempdir().unwrap();
    write(web.path(), "index.html", INDEX);
    write(
        web.path(),
        "assets/index-abc123.js",
        "console.log('portal')",
    );
    let dir = web.path().to_path_buf();
    let app = TestApp::start_with(Backend::Sqlite, move |s| s.web_dir = dir).await;
    (app, web)
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// `GET {origin}{path}` as a script or `fetch` asks: status, Cache-Control, body.
async fn get(app: &TestApp, path: &str) -> (StatusCode, Option<String>, String) {
    get_accepting(app, path, "*/*").await
}

/// `GET {origin}{path}` as a browser navigation asks.
async fn navigate(app: &TestApp, path: &str) -> (StatusCode, Option<String>, String) {
    get_accepting(
        app,
        path,
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    )
    .await
}

async fn get_accepting(
    app: &TestApp,
    path: &str,
    accept: &str,
) -> (StatusCode, Option<String>, String) {
    let origin = app.base.trim_end_matches("/api");
    let r = app
        .client
        .get(format!("{origin}{path}"))
        .header("accept", accept)
        .send()
        .await
        .unwrap();
    let cache = r
        .headers()
        .get("cache-control")
        .map(|v| v.to_str().unwrap().to_string());
    (r.status(), cache, r.text().await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn portal_routes_answer_the_index_and_the_api_keeps_its_404() {
    let (app, _web) = with_portal().await;
    for path in [
        "/",
        "/login",
        "/user/home",
        "/admin/organizations",
        "/cycle-trace",
        "/labeler/videos/acme/Assembly%20v1.2/7",
    ] {
        let (status, cache, body) = navigate(&app, path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(body, INDEX, "{path}");
        assert_eq!(cache.as_deref(), Some("no-cache"), "{path}");
    }
    // Paths without a dot are pages whoever asks.
    let (status, _, body) = get(&app, "/user/home").await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, INDEX));
    // The API is unchanged: its own 404 in the API's shape, never the page.
    for path in ["/api/no-such", "/api/user/home", "/api/"] {
        let (status, _, body) = navigate(&app, path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        let v: Value = serde_json::from_str(&body).expect("API JSON");
        assert_eq!(v["detail"], "Not found.", "{path}");
    }
    let (status, _, body) = get(&app, "/api/health").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("\"status\":\"ok\""));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hashed_assets_are_cached_for_a_year_and_missing_files_are_404() {
    let (app, _web) = with_portal().await;
    let (status, cache, body) = get(&app, "/assets/index-abc123.js").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, "console.log('portal')");
    assert_eq!(
        cache.as_deref(),
        Some("public, max-age=31536000, immutable")
    );
    // A missing asset or file is not answered with the page (a stale tab would parse
    // HTML as JavaScript), and is not cached.
    for path in ["/assets/index-old999.js", "/assets/chunk", "/favicon.png"] {
        let (status, cache, body) = get(&app, path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_ne!(body, INDEX, "{path}");
        assert_eq!(cache, None, "{path}");
    }
    // Also when a browser navigates there.
    for path in ["/assets/index-old999.js", "/assets/chunk"] {
        let (status, cache, body) = navigate(&app, path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_ne!(body, INDEX, "{path}");
        assert_eq!(cache, None, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_portal_is_served_gzipped_to_browsers() {
    let (app, web) = with_portal().await;
    let big = "x".repeat(4096);
    write(web.path(), "assets/big-1.js", &big);
    let origin = app.base.trim_end_matches("/api");
    let r = app
        .client
        .get(format!("{origin}/assets/big-1.js"))
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert!(r.bytes().await.unwrap().len() < big.len() / 10);
}

/// `GET {origin}{path}` as a navigation accepting `encodings`: status, Content-Encoding,
/// Content-Type, body bytes.
async fn get_encoded(
    app: &TestApp,
    path: &str,
    encodings: &str,
) -> (StatusCode, Option<String>, String, Vec<u8>) {
    let origin = app.base.trim_end_matches("/api");
    let r = app
        .client
        .get(format!("{origin}{path}"))
        .header("accept", "text/html,*/*;q=0.8")
        .header("accept-encoding", encodings)
        .send()
        .await
        .unwrap();
    let header = |n: &str| r.headers().get(n).map(|v| v.to_str().unwrap().to_string());
    let (enc, kind) = (header("content-encoding"), header("content-type").unwrap());
    (r.status(), enc, kind, r.bytes().await.unwrap().to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_compressed_by_the_build_are_served_as_they_are() {
    let (app, web) = with_portal().await;
    // What the build writes beside each file (web/vite.config.ts); the bytes here only
    // tell which file was sent.
    write(web.path(), "assets/app-1.js", &"a".repeat(4096));
    write(web.path(), "assets/app-1.js.br", "brotli bytes");
    write(web.path(), "assets/app-1.js.gz", "gzip bytes");
    write(web.path(), "index.html.br", "brotli index");

    let (status, enc, kind, body) =
        get_encoded(&app, "/assets/app-1.js", "gzip, deflate, br").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(enc.as_deref(), Some("br"));
    assert!(kind.contains("javascript"), "{kind}");
    assert_eq!(body, b"brotli bytes");

    let (_, enc, _, body) = get_encoded(&app, "/assets/app-1.js", "gzip").await;
    assert_eq!(
        (enc.as_deref(), body.as_slice()),
        (Some("gzip"), &b"gzip bytes"[..])
    );

    // Not accepted: the file itself.
    let (_, enc, _, body) = get_encoded(&app, "/assets/app-1.js", "identity").await;
    assert_eq!((enc, body.len()), (None, 4096));

    // A page the router draws gets index.html's compressed copy, as `/` does.
    for path in ["/", "/user/home"] {
        let (status, enc, kind, body) = get_encoded(&app, path, "br").await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(enc.as_deref(), Some("br"), "{path}");
        assert!(kind.starts_with("text/html"), "{path}: {kind}");
        assert_eq!(body, b"brotli index", "{path}");
    }
    // No gzip copy of index.html here: compressed as it goes out.
    let (_, enc, _, _) = get_encoded(&app, "/user/home", "gzip").await;
    assert_eq!(enc.as_deref(), Some("gzip"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn portal_config_names_the_base_domain_and_the_admin_host() {
    let (app, _web) = with_portal().await;
    let (status, _, body) = get(&app, "/portal-config.json").await;
    assert_eq!(status, StatusCode::OK);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["base_domain"], app.state.settings.base_domain.as_str());
    assert_eq!(v["admin_host"], app.state.settings.admin_host.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_built_portal_pages_say_how_to_build_it_and_the_api_serves() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().to_path_buf();
    let app = TestApp::start_with(Backend::Sqlite, move |s| s.web_dir = dir).await;
    let (status, _, body) = navigate(&app, "/login").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.contains("npm run build"), "{body}");
    let (status, _, _) = get(&app, "/api/health").await;
    assert_eq!(status, StatusCode::OK);
}
