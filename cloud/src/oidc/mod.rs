//! OpenID Connect single sign-on (issue 28): the providers a deployment configures
//! (`[sso.azure]`, `[sso.google]`: issuer, client id, and a client secret for a
//! confidential client), their discovery documents and signing keys fetched over HTTPS
//! and kept, and ID tokens checked against them ([`verify`], no I/O).
//!
//! Invariants:
//! - a provider is used only when configured; an unconfigured one answers 501;
//! - the discovery document's `issuer` must be the configured issuer exactly (OpenID
//!   Connect Discovery §4.3), so keys are never taken from a document that speaks for
//!   another issuer;
//! - keys are kept for an hour; a token naming a key the kept set lacks fetches the set
//!   again (the provider rotated its keys), at most once a minute.

pub mod verify;

use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::config::Secret;
pub use verify::{Expect, Identity, Refusal};

/// The single sign-on providers of a deployment; none configured by default.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SsoSettings {
    /// Microsoft Entra ID (Azure AD): `azure-signin/`, `azure-signup/`,
    /// `refresh-azure-token/`.
    #[serde(default)]
    pub azure: Option<ProviderSettings>,
    /// Google: `google-sso/`.
    #[serde(default)]
    pub google: Option<ProviderSettings>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProviderSettings {
    /// The issuer (`https://login.microsoftonline.com/{tenant}/v2.0`,
    /// `https://accounts.google.com`); its discovery document is at
    /// `{issuer}/.well-known/openid-configuration`.
    pub issuer: String,
    /// The portal's client id at the provider (the ID tokens' audience).
    pub client_id: String,
    /// Set for a confidential client: sent when the cloud redeems an authorization code.
    #[serde(default)]
    pub client_secret: Option<Secret>,
}

/// The providers the portal may offer, as `/portal-config.json` tells it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct PortalSso {
    pub azure: Option<PortalProvider>,
    pub google: Option<PortalProvider>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PortalProvider {
    pub issuer: String,
    pub client_id: String,
    /// Where the portal sends the browser to sign in.
    pub authorization_endpoint: String,
}

/// Which provider a call is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Azure,
    Google,
}

impl Which {
    /// The name stored with a linked identity.
    pub fn name(self) -> &'static str {
        match self {
            Which::Azure => "azure",
            Which::Google => "google",
        }
    }
}

/// Why single sign-on could not be completed.
#[derive(Debug, thiserror::Error)]
pub enum SsoError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The provider answered a code redemption with an error (a spent or wrong code).
    #[error("The identity provider refused the sign-in: {0}")]
    Code(String),
    /// The provider could not be reached or answered nonsense.
    #[error("the identity provider is unavailable: {0}")]
    Unavailable(String),
}

#[derive(Debug, Clone, Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: String,
    jwks_uri: String,
    token_endpoint: Option<String>,
    userinfo_endpoint: Option<String>,
}

struct Cached {
    discovery: Discovery,
    jwks: JwkSet,
    fetched: Instant,
}

/// A failed request, with its causes (reqwest's own text names only the URL).
fn unavailable(e: reqwest::Error) -> SsoError {
    let mut why = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        why.push_str(": ");
        why.push_str(&s.to_string());
        source = s.source();
    }
    SsoError::Unavailable(why)
}

/// One configured provider and what was fetched from it.
pub struct Provider {
    pub settings: ProviderSettings,
    cache: Mutex<Option<Cached>>,
}

/// Keys are fetched again after this long.
const KEYS_TTL: Duration = Duration::from_secs(3600);
/// An unknown `kid` fetches the keys again only if they are older than this.
const REFETCH_AFTER: Duration = Duration::from_secs(60);

/// The deployment's providers, with one HTTP client.
pub struct Providers {
    http: reqwest::Client,
    azure: Option<Provider>,
    google: Option<Provider>,
}

impl Providers {
    pub fn new(s: &SsoSettings) -> Providers {
        let provider = |p: &Option<ProviderSettings>| {
            p.clone().map(|settings| Provider {
                settings,
                cache: Mutex::new(None),
            })
        };
        Providers {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("an HTTP client"),
            azure: provider(&s.azure),
            google: provider(&s.google),
        }
    }

    pub fn get(&self, which: Which) -> Option<&Provider> {
        match which {
            Which::Azure => self.azure.as_ref(),
            Which::Google => self.google.as_ref(),
        }
    }

    /// What the portal needs to offer the providers: each configured provider whose
    /// discovery document could be read (else it is left out, and logged).
    pub async fn portal(&self) -> PortalSso {
        PortalSso {
            azure: self.portal_one(self.azure.as_ref()).await,
            google: self.portal_one(self.google.as_ref()).await,
        }
    }

    async fn portal_one(&self, p: Option<&Provider>) -> Option<PortalProvider> {
        let p = p?;
        match self.keys(p, None).await {
            Ok((d, _)) => Some(PortalProvider {
                issuer: p.settings.issuer.clone(),
                client_id: p.settings.client_id.clone(),
                authorization_endpoint: d.authorization_endpoint,
            }),
            Err(e) => {
                tracing::warn!(issuer = %p.settings.issuer, "single sign-on not offered: {e}");
                None
            }
        }
    }

    async fn fetch(&self, p: &Provider) -> Result<Cached, SsoError> {
        let url = format!(
            "{}/.well-known/openid-configuration",
            p.settings.issuer.trim_end_matches('/')
        );
        let discovery: Discovery = self.json(self.http.get(&url)).await?;
        if discovery.issuer != p.settings.issuer {
            return Err(SsoError::Unavailable(format!(
                "{url} speaks for issuer {}, not {}",
                discovery.issuer, p.settings.issuer
            )));
        }
        let jwks: JwkSet = self.json(self.http.get(&discovery.jwks_uri)).await?;
        Ok(Cached {
            discovery,
            jwks,
            fetched: Instant::now(),
        })
    }

    async fn json<T: serde::de::DeserializeOwned>(
        &self,
        req: reqwest::RequestBuilder,
    ) -> Result<T, SsoError> {
        let res = req.send().await.map_err(unavailable)?;
        if !res.status().is_success() {
            return Err(SsoError::Unavailable(format!(
                "{} answered {}",
                res.url(),
                res.status()
            )));
        }
        res.json().await.map_err(unavailable)
    }

    /// The provider's discovery document and keys, fetched when missing, old, or
    /// (`kid`) lacking the key a token names.
    async fn keys(&self, p: &Provider, kid: Option<&str>) -> Result<(Discovery, JwkSet), SsoError> {
        let mut cache = p.cache.lock().await;
        let stale = match cache.as_ref() {
            None => true,
            Some(c) => {
                let age = c.fetched.elapsed();
                age > KEYS_TTL || (verify::key_for(&c.jwks, kid).is_none() && age > REFETCH_AFTER)
            }
        };
        if stale {
            match self.fetch(p).await {
                Ok(c) => *cache = Some(c),
                // Keep serving the kept keys while the provider is briefly away.
                Err(e) if cache.is_none() => return Err(e),
                Err(e) => tracing::warn!(issuer = %p.settings.issuer, "keys not refreshed: {e}"),
            }
        }
        let c = cache.as_ref().expect("fetched above");
        Ok((c.discovery.clone(), c.jwks.clone()))
    }

    /// Checks an ID token the portal got from provider `which`.
    pub async fn verify(
        &self,
        p: &Provider,
        id_token: &str,
        nonce: &str,
    ) -> Result<Identity, SsoError> {
        let kid = verify::kid_of(id_token);
        let (_, jwks) = self.keys(p, kid.as_deref()).await?;
        let expect = Expect {
            issuer: &p.settings.issuer,
            audience: &p.settings.client_id,
            nonce,
        };
        Ok(verify::check(&jwks, id_token, &expect)?)
    }

    /// Redeems an authorization code at the provider's token endpoint with the portal's
    /// PKCE verifier (and the client secret of a confidential client), answering the ID
    /// token.
    pub async fn redeem(
        &self,
        p: &Provider,
        code: &str,
        code_verifier: &str,
        redirect_uri: &str,
    ) -> Result<String, SsoError> {
        let (d, _) = self.keys(p, None).await?;
        let endpoint = d
            .token_endpoint
            .ok_or_else(|| SsoError::Unavailable("no token endpoint".into()))?;
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", code_verifier),
            ("redirect_uri", redirect_uri),
            ("client_id", p.settings.client_id.as_str()),
        ];
        if let Some(s) = &p.settings.client_secret {
            form.push(("client_secret", s.0.as_str()));
        }
        let res = self
            .http
            .post(&endpoint)
            .form(&form)
            .send()
            .await
            .map_err(unavailable)?;
        let status = res.status();
        let body: serde_json::Value = res.json().await.map_err(unavailable)?;
        if !status.is_success() {
            let why = body["error_description"]
                .as_str()
                .or(body["error"].as_str())
                .unwrap_or("unknown error");
            return Err(SsoError::Code(why.to_string()));
        }
        body["id_token"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| SsoError::Code("the answer holds no ID token".into()))
    }

    /// Asks the provider who holds `access_token` (its userinfo endpoint: the provider
    /// checks its own token). Answers the subject.
    pub async fn userinfo_subject(
        &self,
        p: &Provider,
        access_token: &str,
    ) -> Result<Option<String>, SsoError> {
        let (d, _) = self.keys(p, None).await?;
        let endpoint = d
            .userinfo_endpoint
            .ok_or_else(|| SsoError::Unavailable("no userinfo endpoint".into()))?;
        let res = self
            .http
            .get(&endpoint)
            .bearer_auth(access_token)
            .send()
            .await
            .map_err(unavailable)?;
        if res.status() == reqwest::StatusCode::UNAUTHORIZED
            || res.status() == reqwest::StatusCode::BAD_REQUEST
        {
            return Ok(None);
        }
        let body: serde_json::Value = res
            .error_for_status()
            .map_err(unavailable)?
            .json()
            .await
            .map_err(unavailable)?;
        Ok(body["sub"].as_str().map(str::to_string))
    }
}
