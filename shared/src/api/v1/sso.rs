//! Single sign-on (OpenID Connect) payloads: the portal signs in at the identity
//! provider (authorization code with PKCE) and hands the cloud what it got.

use serde::{Deserialize, Serialize};

/// `azure-signin/`, `azure-signup/`, `google-sso/`: the nonce the portal put in its
/// authorization request, and either the authorization code the provider sent back
/// (`code`, with the PKCE `code_verifier` and the `redirect_uri`), which the cloud
/// redeems, or an ID token the client already redeemed itself (`id_token`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SsoSignIn {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", schema(max_length = 16384))]
    pub id_token: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_length = 1024))]
    pub nonce: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", schema(max_length = 1024))]
    pub code: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", schema(max_length = 1024))]
    pub code_verifier: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    #[cfg_attr(feature = "openapi", schema(max_length = 2048))]
    pub redirect_uri: Option<String>,
}

/// `refresh-azure-token/`: a fresh access token from the identity provider (the
/// portal's silent renewal there).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SsoRefresh {
    #[cfg_attr(feature = "openapi", schema(max_length = 16384))]
    pub access_token: String,
}
