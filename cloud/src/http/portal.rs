//! The portal: the built single-page app (`settings.web_dir`) at `/`, next to the API.
//!
//! - Files that exist are served as they are; Vite's content-hashed `/assets/…` get a
//!   one-year immutable cache, everything else (`index.html`) `no-cache`, so a new
//!   build is picked up at the next load.
//! - Any other path that is not under `/api` answers `index.html` (the router in the
//!   browser draws the screen: `/user/home`, `/login`) when a browser navigates to it
//!   (`Accept: text/html`) or it does not look like a file. A missing file
//!   (`/assets/x.js`, a `fetch` of `/favicon.png`) is a 404, not the page: a stale tab
//!   would otherwise parse HTML as JavaScript. Route values may hold dots
//!   (`/labeler/videos/acme/Assembly v1.2/7`), hence the `Accept` test.
//! - The build writes each text file also Brotli- and gzip-compressed beside it
//!   (`web/vite.config.ts`); those are served to a browser that accepts them, so a
//!   file is compressed once at build time (Brotli's best, smaller than gzip) instead
//!   of at every answer. A file without them is compressed as it goes out.
//! - `/portal-config.json` tells the portal which hosts are the base domain and the
//!   admin host (spec section 2 "Route guard rules"), so one build serves every
//!   deployment.

use std::path::{Path, PathBuf};

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tower::ServiceExt;
use tower_http::services::{ServeDir, ServeFile};

use crate::http::error::ApiError;
use crate::state::AppState;

/// What the portal needs to know about the deployment's hosts.
#[derive(Serialize)]
pub struct PortalConfig {
    /// Organisations are served at `{org}.{base_domain}`.
    pub base_domain: String,
    /// The host that shows the admin login.
    pub admin_host: String,
    /// The single sign-on providers the portal offers (issuer, client id and
    /// authorization endpoint of each configured one); none: no sign-in buttons.
    pub sso: crate::oidc::PortalSso,
}

pub async fn config(State(state): State<AppState>) -> Json<PortalConfig> {
    Json(PortalConfig {
        base_domain: state.settings.base_domain.clone(),
        admin_host: state.settings.admin_host.clone(),
        sso: state.sso.portal().await,
    })
}

/// The static files, with the single-page fallback.
pub fn files(dir: &Path) -> ServeDir<SpaFallback> {
    ServeDir::new(dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(SpaFallback {
            index: dir.join("index.html"),
        })
}

/// Answers `index.html` for pages, 404 for everything under `/assets/` and for other
/// file-like paths (a last segment with a dot) that are not browser navigations.
#[derive(Clone)]
pub struct SpaFallback {
    index: PathBuf,
}

impl tower::Service<Request> for SpaFallback {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Response, Self::Error>> + Send + 'static>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let index = self.index.clone();
        Box::pin(async move {
            let path = req.uri().path();
            let last = path.rsplit('/').next().unwrap_or("");
            let navigation = req
                .headers()
                .get(header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.contains("text/html"));
            // `/api/` itself is not matched by the nested API router: still the API's 404.
            if path == "/api" || path.starts_with("/api/") {
                return Ok(ApiError::NotFound.into_response());
            }
            if path.starts_with("/assets/") || (last.contains('.') && !navigation) {
                return Ok(not_found("Not found."));
            }
            if !index.is_file() {
                return Ok(not_found(
                    "The portal is not built: run `npm run build` in web/ (scripts/run does).",
                ));
            }
            let res = ServeFile::new(index)
                .precompressed_br()
                .precompressed_gzip()
                .oneshot(req)
                .await?;
            Ok(res.map(axum::body::Body::new))
        })
    }
}

fn not_found(text: &'static str) -> Response {
    (StatusCode::NOT_FOUND, text).into_response()
}

/// Cache headers: immutable for the content-hashed assets, revalidate for the rest.
pub async fn cache_headers(req: Request, next: Next) -> Response {
    let hashed = req.uri().path().starts_with("/assets/");
    let mut res = next.run(req).await;
    if res.status().is_success() || res.status() == StatusCode::NOT_MODIFIED {
        let v = if hashed {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(v));
    }
    res
}
