//! The HTTP API. Every area is a module with its own `router()`; the whole URL table
//! is assembled here, under `/api/`, with the OpenAPI document generated from the
//! handlers' annotations at `/api/openapi.json`.

pub mod account;
pub mod admin;
pub mod admin_reports;
pub mod annotations;
pub mod assistant;
pub mod audit;
pub mod barcodes;
pub mod client_ip;
pub mod clips;
pub mod devices;
pub mod error;
pub mod extract;
pub mod feature_control;
pub mod files;
pub mod labeler;
pub mod model_types;
pub mod models;
pub mod monitoring;
pub mod organization;
pub mod portal;
pub mod privacy;
pub mod push;
pub mod queue;
pub mod recording;
pub mod releases;
pub mod screenshots;
pub mod security;
pub mod service_tokens;
pub mod stream;
pub mod tasks;
pub mod telemetry;
pub mod validation;
pub mod videos;

use axum::extract::{DefaultBodyLimit, State};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::Backend;
use crate::state::AppState;
use error::ApiError;

#[derive(OpenApi)]
#[openapi(
    info(title = "gemba API", description = "The gemba cloud's REST API. Paths are relative to /api."),
    servers((url = "/api")),
    modifiers(&Security),
    security(("bearer" = []), ("organization" = []), ("session_key" = []))
)]
struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let c = openapi.components.get_or_insert_with(Default::default);
        c.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
        c.add_security_scheme(
            "organization",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("Organization"))),
        );
        c.add_security_scheme(
            "session_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("SessionKey"))),
        );
    }
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct Health {
    pub status: &'static str,
    pub database: &'static str,
    /// `connected` when the cloud's link to the MQTT broker is up, else `disconnected`.
    pub mqtt: &'static str,
    pub version: &'static str,
    /// What MQTT ingestion counted since the start.
    pub ingest: IngestCounts,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct IngestCounts {
    pub received: u64,
    pub cycles: u64,
    pub duplicates: u64,
    pub rejected: u64,
}

/// Answers when the service is ready (database migrated, broker listening).
#[utoipa::path(get, path = "/health", tag = "service", security(()), responses((status = 200, body = Health)))]
async fn health(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    sqlx::query("SELECT 1").execute(&state.db.pool).await?;
    Ok(Json(Health {
        status: "ok",
        database: match state.db.backend {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        },
        mqtt: if state.mqtt.is_connected() {
            "connected"
        } else {
            "disconnected"
        },
        version: env!("CARGO_PKG_VERSION"),
        ingest: {
            let s = &state.mqtt.stats;
            let n = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
            IngestCounts {
                received: n(&s.received),
                cycles: n(&s.cycles),
                duplicates: n(&s.duplicates),
                rejected: n(&s.rejected),
            }
        },
    }))
}

/// The API routes and their OpenAPI document.
pub fn api() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health))
        .routes(routes!(security::report))
        .merge(account::router())
        .merge(organization_router())
        .merge(admin::router())
        .merge(admin_reports::router())
        .merge(annotations::router())
        .merge(audit::router())
        .merge(barcodes::router())
        .merge(feature_control::router())
        .merge(push::router())
        .merge(queue::router())
        .merge(monitoring::router())
        .merge(tasks::router())
        .merge(devices::router())
        .merge(videos::router())
        .merge(recording::router())
        .merge(clips::router())
        .merge(screenshots::router())
        .merge(models::router())
        .merge(model_types::router())
        .merge(releases::router())
        .merge(labeler::router())
        .merge(service_tokens::router())
        .merge(privacy::router())
        .merge(files::router())
        .merge(telemetry::router())
        .merge(assistant::router())
        .merge(validation::router())
        .split_for_parts()
}

fn organization_router() -> OpenApiRouter<AppState> {
    use organization as o;
    OpenApiRouter::new()
        .routes(routes!(o::list, o::create))
        .routes(routes!(o::get_organizations))
        .routes(routes!(o::patch, o::delete))
        .routes(routes!(o::departments, o::create_department))
        .routes(routes!(o::organization_switch))
        .routes(routes!(o::organization_switch_user))
        .routes(routes!(o::linked_organizations))
        .routes(routes!(o::link_organization))
        .routes(routes!(o::unlink_organization))
        .routes(routes!(o::switch_user_organization))
        .routes(routes!(o::fetch_local_storage_data))
}

/// The whole application: `/api/…`, and the portal at every other path.
pub fn app(state: AppState) -> Router {
    let (api, doc) = api();
    let api = api
        .route("/openapi.json", get(move || async move { Json(doc) }))
        // A WebSocket, not a REST call: outside the OpenAPI document.
        .route("/ws", get(stream::ws))
        .fallback(|| async { ApiError::NotFound })
        // Last, so that it wraps every route above (see `audit`).
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            audit::record,
        ));
    let web_dir = &state.settings.web_dir;
    if !web_dir.join("index.html").is_file() {
        tracing::warn!(web_dir = %web_dir.display(), "the portal is not built; only the API is served");
    }
    let portal = Router::new()
        .route("/portal-config.json", get(portal::config))
        .fallback_service(portal::files(web_dir))
        .layer(axum::middleware::from_fn(portal::cache_headers))
        .layer(tower_http::compression::CompressionLayer::new());
    let mut app = Router::new()
        .nest("/api", api)
        .merge(portal)
        .layer(DefaultBodyLimit::max(state.settings.max_body_bytes))
        .layer(axum::middleware::from_fn(security::headers));
    if state.settings.reached_over_https() {
        app = app.layer(axum::middleware::from_fn(security::strict_transport));
    }
    app.layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}
