//! The one error type of the API, answering in the spec's shapes (section 8):
//! - 400: `{ "<field>": ["<message>"] }`; the portal shows the first field's first message.
//!   Sign-in errors use the field `non_field_errors`.
//! - 429: `{ "detail": "<message>" }`.
//! - every other error: `{ "detail": "<message>", "msg": "<message>" }` (deletes read
//!   `detail`, posts read `msg`).
//! - 303 (password change required) and 499 (session ended) carry a `detail` too.
//!
//! Internal errors are logged with their cause and answered with a plain 500.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

pub type ApiResult<T> = Result<T, ApiError>;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{field}: {message}")]
    Field { field: String, message: String },
    #[error("unauthorized: {0}")]
    Unauthorized(&'static str),
    #[error("forbidden")]
    Forbidden,
    #[error("not found")]
    NotFound,
    #[error("too many requests: {0}")]
    TooMany(String),
    #[error("password change required")]
    PasswordChangeRequired,
    #[error("session ended")]
    SessionEnded,
    #[error("not implemented: {0}")]
    NotImplemented(&'static str),
    #[error("payload too large")]
    TooLarge,
    #[error("{1}")]
    Status(StatusCode, String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl ApiError {
    /// A 400 on one field.
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError::Field {
            field: field.into(),
            message: message.into(),
        }
    }

    /// A 400 that is not about one field (sign-in and similar).
    pub fn non_field(message: impl Into<String>) -> ApiError {
        ApiError::field("non_field_errors", message)
    }

    /// A unique violation as a 400 on `field` saying `message`; any other database
    /// error as it is.
    pub fn unique_as(e: sqlx::Error, field: &str, message: impl Into<String>) -> ApiError {
        if is_unique_violation(&e) {
            ApiError::field(field, message)
        } else {
            e.into()
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Field { .. } => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden => StatusCode::FORBIDDEN,
            ApiError::NotFound => StatusCode::NOT_FOUND,
            ApiError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::PasswordChangeRequired => StatusCode::SEE_OTHER,
            ApiError::SessionEnded => StatusCode::from_u16(499).expect("valid status"),
            ApiError::NotImplemented(_) => StatusCode::NOT_IMPLEMENTED,
            ApiError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Status(s, _) => *s,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn body(&self) -> Value {
        let detail = |m: &str| json!({ "detail": m, "msg": m });
        match self {
            ApiError::Field { field, message } => json!({ field.as_str(): [message] }),
            ApiError::TooMany(m) => json!({ "detail": m }),
            ApiError::Unauthorized(m) => detail(m),
            ApiError::Forbidden => detail("You do not have permission to perform this action."),
            ApiError::NotFound => detail("Not found."),
            ApiError::PasswordChangeRequired => {
                detail("Your password must be changed before you continue.")
            }
            ApiError::SessionEnded => detail("Your session has ended. Please sign in again."),
            ApiError::NotImplemented(m) => detail(m),
            ApiError::TooLarge => detail("Request body is too large."),
            ApiError::Status(_, m) => detail(m),
            ApiError::Internal(_) => detail("Internal server error."),
        }
    }
}

/// A field over its longest length (`gemba_shared::validate::lengths`): a 400 on it.
impl From<gemba_shared::validate::TooLong> for ApiError {
    fn from(e: gemba_shared::validate::TooLong) -> Self {
        ApiError::field(e.field, e.message)
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        match e {
            sqlx::Error::RowNotFound => ApiError::NotFound,
            // A row written against one that a concurrent call has just deleted: what it
            // refers to is gone (every other reference cascades, docs/decisions.md).
            e if is_foreign_key_violation(&e) => ApiError::NotFound,
            e => ApiError::Internal(e.into()),
        }
    }
}

/// A video's part lock held by another writer: 409, try again when it is done.
impl From<crate::media::upload::Busy> for ApiError {
    fn from(e: crate::media::upload::Busy) -> Self {
        ApiError::Status(StatusCode::CONFLICT, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(e) = &self {
            tracing::error!(error = ?e, "internal error");
        }
        (self.status(), Json(self.body())).into_response()
    }
}

/// True when a database error is a foreign-key violation (PostgreSQL 23503, SQLite 787).
pub fn is_foreign_key_violation(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => {
            d.code().is_some_and(|c| c == "23503" || c == "787")
                || d.message().contains("FOREIGN KEY constraint failed")
        }
        _ => false,
    }
}

/// True when a database error is a unique-constraint violation (both backends).
pub fn is_unique_violation(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => {
            d.code()
                .is_some_and(|c| c == "23505" || c == "2067" || c == "1555")
                || d.message().contains("UNIQUE constraint failed")
        }
        _ => false,
    }
}

/// `1 video`, `2 videos`: a count with its noun.
pub fn count_of(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
