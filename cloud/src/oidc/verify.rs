//! Checking an OpenID Connect ID token, without I/O: the provider's keys (its JWKS)
//! and what the token must say are given; [`check`] answers the identity or why the
//! token is refused (OpenID Connect Core 1.0 §3.1.3.7).
//!
//! A token passes only when: it is a JWS signed with an asymmetric algorithm (never
//! `none` or HMAC, whose key would be the client id's secret or nothing) by a key of
//! the set (by `kid`, or the set's only key when the token names none); its `iss` is
//! the configured issuer; its `aud` holds our client id (and with several audiences,
//! `azp` is our client id); `exp` is not past (a few seconds of clock drift allowed);
//! `sub` is present; and its `nonce` is the one the portal put in its authorization
//! request (binding the token to that browser's sign-in).

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;

/// Seconds of clock drift allowed on `exp` and `nbf`.
pub const LEEWAY_SECS: u64 = 5;

/// What the token must say.
#[derive(Debug, Clone)]
pub struct Expect<'a> {
    pub issuer: &'a str,
    /// Our client id at the provider.
    pub audience: &'a str,
    pub nonce: &'a str,
}

/// Who the provider says signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub issuer: String,
    pub subject: String,
    pub email: Option<String>,
    /// The provider vouches that the person controls `email`.
    pub email_verified: bool,
    pub given_name: Option<String>,
    pub family_name: Option<String>,
    pub name: Option<String>,
}

/// Why a token is refused; the text is the API's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("The identity token is not a signed token.")]
    Malformed,
    #[error("The identity token is signed in a way this server does not accept.")]
    Algorithm,
    #[error("The identity token is signed with a key the identity provider does not publish.")]
    UnknownKey,
    #[error("The identity token's signature is not valid.")]
    Signature,
    #[error("The identity token comes from another identity provider.")]
    Issuer,
    #[error("The identity token is for another application.")]
    Audience,
    #[error("The identity token has expired. Please sign in again.")]
    Expired,
    #[error("The identity token does not belong to this sign-in. Please sign in again.")]
    Nonce,
    #[error("The identity token lacks a required claim ({0}).")]
    MissingClaim(String),
}

/// Asymmetric signatures only.
const ACCEPTED: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

#[derive(Deserialize)]
struct Claims {
    iss: String,
    sub: String,
    /// One audience or several (`jsonwebtoken` checked that ours is among them).
    #[serde(default)]
    aud: serde_json::Value,
    #[serde(default)]
    azp: Option<String>,
    #[serde(default)]
    nonce: Option<String>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    email_verified: Option<serde_json::Value>,
    /// Microsoft Entra ID's "e-mail domain owner verified" (its optional claim for what
    /// `email_verified` says elsewhere).
    #[serde(default)]
    xms_edov: Option<serde_json::Value>,
    #[serde(default)]
    given_name: Option<String>,
    #[serde(default)]
    family_name: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

/// The key of `jwks` that signed a token whose header names `kid`.
pub fn key_for<'a>(jwks: &'a JwkSet, kid: Option<&str>) -> Option<&'a Jwk> {
    match kid {
        Some(k) => jwks.find(k),
        None if jwks.keys.len() == 1 => jwks.keys.first(),
        None => None,
    }
}

/// The `kid` a token's header names (to tell whether the cached keys know it).
pub fn kid_of(token: &str) -> Option<String> {
    decode_header(token).ok().and_then(|h| h.kid)
}

/// Checks `token` against the provider's keys and `expect`.
pub fn check(jwks: &JwkSet, token: &str, expect: &Expect<'_>) -> Result<Identity, Refusal> {
    let header = decode_header(token.trim()).map_err(|_| Refusal::Malformed)?;
    if !ACCEPTED.contains(&header.alg) {
        return Err(Refusal::Algorithm);
    }
    let jwk = key_for(jwks, header.kid.as_deref()).ok_or(Refusal::UnknownKey)?;
    let key = DecodingKey::from_jwk(jwk).map_err(|_| Refusal::UnknownKey)?;
    let mut v = Validation::new(header.alg);
    v.leeway = LEEWAY_SECS;
    v.set_issuer(&[expect.issuer]);
    v.set_audience(&[expect.audience]);
    v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    let claims = decode::<Claims>(token.trim(), &key, &v)
        .map_err(|e| {
            use jsonwebtoken::errors::ErrorKind as K;
            match e.into_kind() {
                K::ExpiredSignature | K::ImmatureSignature => Refusal::Expired,
                K::InvalidIssuer => Refusal::Issuer,
                K::InvalidAudience => Refusal::Audience,
                K::InvalidSignature => Refusal::Signature,
                K::InvalidAlgorithm => Refusal::Algorithm,
                K::MissingRequiredClaim(c) => Refusal::MissingClaim(c),
                _ => Refusal::Malformed,
            }
        })?
        .claims;
    if let Some(list) = claims.aud.as_array()
        && list.len() > 1
        && claims.azp.as_deref() != Some(expect.audience)
    {
        return Err(Refusal::Audience);
    }
    if expect.nonce.is_empty() || claims.nonce.as_deref() != Some(expect.nonce) {
        return Err(Refusal::Nonce);
    }
    if claims.sub.is_empty() {
        return Err(Refusal::MissingClaim("sub".into()));
    }
    // Some providers send the flag as the string "true".
    let yes = |v: &Option<serde_json::Value>| match v {
        Some(serde_json::Value::Bool(b)) => *b,
        Some(serde_json::Value::String(s)) => s == "true",
        _ => false,
    };
    let email_verified = yes(&claims.email_verified) || yes(&claims.xms_edov);
    Ok(Identity {
        issuer: claims.iss,
        subject: claims.sub,
        email: claims.email.filter(|e| !e.trim().is_empty()),
        email_verified,
        given_name: claims.given_name,
        family_name: claims.family_name,
        name: claims.name,
    })
}

#[cfg(test)]
mod tests;
