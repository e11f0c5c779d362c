//! Security headers on every answer, the portal's and the API's (issue 28), and where
//! browsers report what the content security policy blocked. Served over HTTPS, answers
//! also carry `Strict-Transport-Security`.
//!
//! The policy allows what the built portal uses and nothing else: its own scripts
//! (no inline script, no `eval`), its own styles plus the inline `style` attributes
//! React and recharts set, images and media from the cloud or made in the page
//! (`blob:`, `data:`: thumbnails, the authenticator QR code, recordings), calls and the
//! device stream to the cloud only (and reading the page's own `blob:` objects), no
//! plugins, no framing by other sites. A violation
//! is reported to `POST /api/csp-report` and logged (at most [`REPORTS_PER_MINUTE`]).

use std::num::NonZeroU32;
use std::sync::OnceLock;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use serde_json::Value;

use super::error::{ApiError, ApiResult};
use super::extract::read_body;

/// The content security policy of every answer.
pub const CSP: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self' blob:; \
     connect-src 'self' blob:; font-src 'self'; object-src 'none'; base-uri 'self'; \
     form-action 'self'; frame-ancestors 'none'; report-uri /api/csp-report";

/// The headers every answer carries, unless a handler set its own.
const HEADERS: [(HeaderName, &str); 4] = [
    (header::CONTENT_SECURITY_POLICY, CSP),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    (header::X_FRAME_OPTIONS, "DENY"),
    // Links in pages carry tokens (reset and verification links): never sent on.
    (header::REFERRER_POLICY, "no-referrer"),
];

/// Adds [`HEADERS`] to the answer.
pub async fn headers(req: Request, next: Next) -> Response {
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    for (name, value) in HEADERS {
        if !h.contains_key(&name) {
            h.insert(name, HeaderValue::from_static(value));
        }
    }
    res
}

/// `Strict-Transport-Security` when users reach the cloud over HTTPS (its own
/// certificate, or a reverse proxy's `https://` `public_url`): browsers that saw it once
/// go to HTTPS for a year, even when given an `http://` link. Not `includeSubDomains`:
/// other services of the operator's domain may still speak plain HTTP.
pub const STRICT_TRANSPORT: &str = "max-age=31536000";

/// Adds [`STRICT_TRANSPORT`] to the answer (browsers ignore it over plain HTTP).
pub async fn strict_transport(req: Request, next: Next) -> Response {
    let mut res = next.run(req).await;
    res.headers_mut()
        .entry(header::STRICT_TRANSPORT_SECURITY)
        .or_insert(HeaderValue::from_static(STRICT_TRANSPORT));
    res
}

/// The largest report taken (a browser's is a few hundred bytes).
const REPORT_MAX_BYTES: usize = 64 * 1024;

/// Violation reports logged a minute, at most (a page in a loop or a flood of reports
/// must not fill the log).
pub const REPORTS_PER_MINUTE: u32 = 30;

fn report_budget() -> &'static DefaultDirectRateLimiter {
    static BUDGET: OnceLock<DefaultDirectRateLimiter> = OnceLock::new();
    BUDGET.get_or_init(|| {
        RateLimiter::direct(Quota::per_minute(
            NonZeroU32::new(REPORTS_PER_MINUTE).expect("not zero"),
        ))
    })
}

/// The fields of a report worth a log line, from either format browsers send
/// (`{"csp-report": {…}}`, or a Reporting API list of `{"type", "body": {…}}`).
pub fn summary(report: &Value) -> Option<(String, String, String)> {
    let body = report
        .get("csp-report")
        .or_else(|| report.get(0).and_then(|r| r.get("body")))
        .or_else(|| report.get("body"))?;
    let field = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| body.get(*n).and_then(Value::as_str))
            .unwrap_or("")
            .chars()
            .take(200)
            .collect::<String>()
    };
    Some((
        field(&["document-uri", "documentURL"]),
        field(&[
            "effective-directive",
            "violated-directive",
            "effectiveDirective",
        ]),
        field(&["blocked-uri", "blockedURL"]),
    ))
}

/// A browser's report of something the content security policy blocked: logged as a
/// warning. No answer body. Browsers send it as `application/csp-report` or
/// `application/reports+json`; any content type is read as JSON.
#[utoipa::path(post, path = "/csp-report", tag = "service", security(()),
    request_body(content = Object, content_type = "application/json"),
    responses((status = 204), (status = 400, description = "not a report")))]
pub async fn report(body: Body) -> ApiResult<StatusCode> {
    const NOT_A_REPORT: &str = "A content security policy report is a JSON object.";
    let body = read_body(body, REPORT_MAX_BYTES).await?;
    let v: Value = serde_json::from_slice(&body).map_err(|_| ApiError::non_field(NOT_A_REPORT))?;
    let (page, directive, blocked) = summary(&v).ok_or(ApiError::non_field(NOT_A_REPORT))?;
    if report_budget().check().is_ok() {
        tracing::warn!(%page, %directive, %blocked, "content security policy violation");
    }
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_report_formats_are_read() {
        let old = json!({"csp-report": {
            "document-uri": "http://h/login", "violated-directive": "script-src-elem",
            "blocked-uri": "inline"}});
        assert_eq!(
            summary(&old),
            Some((
                "http://h/login".into(),
                "script-src-elem".into(),
                "inline".into()
            ))
        );
        let new = json!([{"type": "csp-violation", "body": {
            "documentURL": "http://h/x", "effectiveDirective": "img-src",
            "blockedURL": "https://elsewhere/p.png"}}]);
        assert_eq!(
            summary(&new),
            Some((
                "http://h/x".into(),
                "img-src".into(),
                "https://elsewhere/p.png".into()
            ))
        );
        assert_eq!(summary(&json!({"nothing": 1})), None);
        assert_eq!(summary(&json!([])), None);
    }
}
