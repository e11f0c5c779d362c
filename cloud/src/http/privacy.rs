//! `GET /api/privacy_policy/`: the privacy policy for `/privacy-policy`, reachable signed
//! out (the text and its rules are `crate::privacy`).

use axum::extract::State;
use axum::http::StatusCode;
use gemba_shared::api::v1::privacy::PrivacyPolicy;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The privacy policy: the operator's text (`privacy_policy` in the configuration) or
/// the default one, with the operator's contact. No sign-in.
#[utoipa::path(get, path = "/privacy_policy/", tag = "service", security(()),
    responses((status = 200, body = PrivacyPolicy), (status = 503)))]
pub async fn get(State(state): State<AppState>) -> ApiResult<axum::Json<PrivacyPolicy>> {
    let s = &state.settings;
    let (markdown, custom) = match &s.privacy_policy {
        Some(path) => match crate::privacy::operator_policy(path).await {
            Ok(text) => (text, true),
            Err(e) => {
                tracing::error!(error = %e, "the configured privacy policy cannot be read");
                return Err(ApiError::Status(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The privacy policy cannot be shown right now.".into(),
                ));
            }
        },
        None => (crate::privacy::default_policy(s), false),
    };
    let contact = s
        .privacy_contact
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    Ok(axum::Json(PrivacyPolicy {
        markdown,
        custom,
        contact,
    }))
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get))
}
