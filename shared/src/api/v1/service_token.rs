//! Service tokens: the spec's cloud-function token (`generic/userpool/`, the admin's
//! `aws-token` screen). An integration (a script, a cloud function, an MES connector)
//! calls the API with `Authorization: Bearer <secret>` as one organisation and one
//! role, without a person's sign-in or one-time code. The super admin creates them; the
//! secret is answered once, only its hash is kept.

use serde::{Deserialize, Serialize};

/// Every service token's secret begins with this, so the server tells it from a
/// sign-in's access token (and a leaked one is easy to search for).
pub const SECRET_PREFIX: &str = "gst_";

/// Longest life of a service token, in days.
pub const MAX_EXPIRY_DAYS: i64 = 365;

/// The spec's message when a token cannot be created (section 8).
pub const CREATE_FAILED: &str = "Unable to create token";

/// `POST generic/userpool/`: a new service token.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServiceTokenCreate {
    /// What it is for ("MES connector, line 2").
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    /// The organisation it acts in.
    pub organization: i64,
    /// The role it acts as (the spec's role values; never `admin`).
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub role: String,
    /// Days until it expires, 1 to [`MAX_EXPIRY_DAYS`].
    pub expires_in_days: i64,
}

/// A service token as listed (never its secret).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServiceToken {
    pub id: i64,
    pub name: String,
    pub organization: i64,
    /// The organisation's display name.
    pub organization_name: String,
    /// The role it acts as.
    pub role: String,
    /// The account its calls are made as (what it writes is attributed to it).
    pub user_id: i64,
    /// The e-mail of the super admin who created it, if that account still exists.
    pub created_by: Option<String>,
    /// Times are ms since the epoch.
    pub created_at: i64,
    pub expires_at: i64,
    /// Its last use, to the minute; none yet: never used.
    pub last_used_at: Option<i64>,
    /// When it was revoked; a revoked token is refused.
    pub revoked_at: Option<i64>,
}

/// The answer to `POST generic/userpool/`: the token, and its secret, shown this once.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServiceTokenCreated {
    pub token: ServiceToken,
    /// `Authorization: Bearer {secret}`; the server keeps only its hash.
    pub secret: String,
}
