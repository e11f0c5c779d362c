//! A real OpenID provider for the tests: `tests/oidc/provider.mjs` (the `oidc-provider`
//! npm package, installed by `scripts/test` with `npm ci` in `tests/oidc`), one per
//! test, stopped when dropped. Tokens come from it the way a browser gets them: the
//! authorization request, its sign-in page submitted, the code redeemed with PKCE.

use std::process::Stdio;

use base64::Engine;
use reqwest::StatusCode;
use reqwest::header::{COOKIE, LOCATION, SET_COOKIE};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

pub const REDIRECT: &str = "http://127.0.0.1/callback";

pub struct Provider {
    pub issuer: String,
    _child: Child,
    http: reqwest::Client,
}

/// What the provider's token endpoint answered.
pub struct Tokens {
    pub id_token: String,
    pub access_token: String,
}

/// An authorization code as the portal holds it before redeeming it.
pub struct Code {
    pub code: String,
    pub verifier: String,
}

fn script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/oidc/provider.mjs").to_string()
}

impl Provider {
    /// Starts a provider; with `keys`, its signing keys are shared through that file.
    pub async fn start(keys: Option<&std::path::Path>) -> Provider {
        let modules = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/oidc/node_modules");
        assert!(
            std::path::Path::new(modules).join("oidc-provider").exists(),
            "the test OpenID provider is not installed: run `npm ci` in tests/oidc \
             (scripts/test does)"
        );
        let mut cmd = Command::new(std::env::var("GEMBA_NODE").unwrap_or_else(|_| "node".into()));
        cmd.arg(script())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        if let Some(k) = keys {
            cmd.env("OIDC_KEYS_FILE", k);
        }
        let mut child = cmd.spawn().expect("node runs tests/oidc/provider.mjs");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        // (Its start makes signing keys: a full run of the suite once kept it past 30 s.)
        let first = tokio::time::timeout(std::time::Duration::from_secs(90), lines.next_line())
            .await
            .expect("the provider starts within 90 s")
            .unwrap()
            .expect("the provider prints its issuer");
        let v: Value = serde_json::from_str(&first).unwrap();
        Provider {
            issuer: v["issuer"].as_str().unwrap().to_string(),
            _child: child,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
        }
    }

    /// Signs `login` in at the provider for `client` (the sign-in page submitted as a
    /// browser would) and answers the authorization code.
    pub async fn code(&self, client: &str, login: &str, nonce: &str) -> Code {
        let verifier = format!(
            "v-{}-{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes()));
        let mut cookies: Vec<String> = Vec::new();
        let res = self
            .http
            .get(format!("{}/auth", self.issuer))
            .query(&[
                ("client_id", client),
                ("redirect_uri", REDIRECT),
                ("response_type", "code"),
                ("scope", "openid email profile"),
                ("nonce", nonce),
                ("state", "st"),
                ("code_challenge", &challenge),
                ("code_challenge_method", "S256"),
            ])
            .send()
            .await
            .unwrap();
        let interaction = self.follow(res, &mut cookies);
        let res = self
            .http
            .post(self.absolute(&interaction))
            .header(COOKIE, cookies.join("; "))
            .form(&[("prompt", "login"), ("login", login), ("password", "any")])
            .send()
            .await
            .unwrap();
        let resume = self.follow(res, &mut cookies);
        let res = self
            .http
            .get(self.absolute(&resume))
            .header(COOKIE, cookies.join("; "))
            .send()
            .await
            .unwrap();
        let back = self.follow(res, &mut cookies);
        assert!(back.starts_with(REDIRECT), "back to the client: {back}");
        let url = reqwest::Url::parse(&back).unwrap();
        let code = url
            .query_pairs()
            .find(|(k, _)| k == "code")
            .unwrap_or_else(|| panic!("a code in {back}"))
            .1
            .to_string();
        Code { code, verifier }
    }

    /// A real ID token (and access token) for `login` at `client`.
    pub async fn tokens(&self, client: &str, login: &str, nonce: &str) -> Tokens {
        let c = self.code(client, login, nonce).await;
        let res = self
            .http
            .post(format!("{}/token", self.issuer))
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", &c.code),
                ("redirect_uri", REDIRECT),
                ("client_id", client),
                ("code_verifier", &c.verifier),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let v: Value = res.json().await.unwrap();
        Tokens {
            id_token: v["id_token"].as_str().expect("an ID token").to_string(),
            access_token: v["access_token"]
                .as_str()
                .expect("an access token")
                .to_string(),
        }
    }

    fn absolute(&self, location: &str) -> String {
        if location.starts_with('/') {
            format!("{}{location}", self.issuer)
        } else {
            location.to_string()
        }
    }

    /// The redirect's target, keeping the cookies it sets.
    fn follow(&self, res: reqwest::Response, cookies: &mut Vec<String>) -> String {
        assert!(
            res.status().is_redirection(),
            "a redirect, not {}",
            res.status()
        );
        for c in res.headers().get_all(SET_COOKIE) {
            let pair = c.to_str().unwrap().split(';').next().unwrap().to_string();
            let name = pair.split('=').next().unwrap().to_string();
            cookies.retain(|k| k.split('=').next() != Some(name.as_str()));
            cookies.push(pair);
        }
        res.headers()[LOCATION].to_str().unwrap().to_string()
    }
}
