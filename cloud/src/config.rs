//! Settings: defaults → TOML file → `GEMBA_…` environment (`__` nests) → flags.
//!
//! Secrets are redacted in `Debug`. `gemba-cloud default-config` prints the
//! commented example (`deploy/gemba-cloud.example.toml`).

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

/// A string that never shows in logs.
#[derive(Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("\"<redacted>\"")
    }
}

/// How self-registered accounts get access.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SignupMode {
    /// A super admin approves each new account with a role, then assigns an organisation.
    AdminApproval,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    /// Folder for the SQLite database, objects, the e-mail outbox and generated keys.
    pub data: PathBuf,
    /// HTTP listen address.
    pub http: SocketAddr,
    /// HTTPS: the certificate chain (PEM, the server's certificate first) and its
    /// private key (PEM), both or neither; set, the listener at `http` serves HTTPS only
    /// (`crate::https`). Unset: plain HTTP, e.g. behind a reverse proxy that terminates
    /// TLS.
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    /// Live view's TURN relay: its UDP port on the HTTP listener's address (0: any free
    /// port; unset: no relay, and live view works only where browser and device reach
    /// each other).
    pub turn_port: Option<u16>,
    /// The host (or IP) browsers and devices reach the relay at; its address is also
    /// where relayed traffic goes. Unset: `public_url`'s host, else the listener's.
    pub turn_host: Option<String>,
    /// Embedded broker listen address (`127.0.0.1:1884`), or an external broker URL
    /// (`mqtt://host:1883`), in which case no broker is embedded.
    pub mqtt: String,
    /// The broker's address as agents reach it (`mqtt://host:port`), given to them at
    /// enrolment; unset: the external broker's URL, or the embedded broker's port on the
    /// host the agent reached the cloud at.
    pub mqtt_public_url: Option<String>,
    /// The shared subscription group the replicas of one deployment read devices'
    /// messages as (on an external broker), each message going to one of them.
    /// Deployments sharing a broker use groups of their own.
    pub mqtt_group: String,
    /// The cloud's username and password on an external broker (the embedded broker
    /// makes the cloud's own at each start). Devices log in with credentials derived
    /// from their keys (`gemba_shared::broker`).
    pub mqtt_username: Option<String>,
    pub mqtt_password: Option<Secret>,
    /// Keep the external broker's device logins and topic access in step with
    /// enrolments through Mosquitto's dynamic security plugin (the cloud's user needs
    /// its admin role; docs/architecture.md "Broker access").
    pub mqtt_dynsec: bool,
    /// The embedded broker speaks TLS (MQTT 3.1.1 and 5), with a certificate authority
    /// the cloud makes for itself in `{data}/mqtt-tls` and agents pin at enrolment;
    /// each device presents a client certificate of its own and reaches only its own
    /// topics. The cloud connects to a plain listener on loopback.
    pub mqtt_tls: bool,
    /// With `mqtt_tls`: the operator's certificate chain and key (PEM files) for the
    /// embedded broker instead of the one the cloud makes, and the authority (PEM)
    /// agents are to accept it from; all three or none, with `mqtt_public_url` naming a
    /// host the certificate is valid for (checked at start). Devices' client
    /// certificates still come from the cloud's own authority.
    pub mqtt_tls_cert: Option<PathBuf>,
    pub mqtt_tls_key: Option<PathBuf>,
    pub mqtt_tls_ca: Option<PathBuf>,
    /// `postgres://…` to use PostgreSQL; unset for SQLite in the data folder.
    pub database_url: Option<String>,
    /// Base domain: organisations are served at `{org}.{base_domain}`.
    pub base_domain: String,
    /// The host that serves the admin login.
    pub admin_host: String,
    /// The portal's address as users reach it, used in e-mail links and organisation
    /// addresses; unset: `http://{base_domain}:{port of http}` (`https://` with
    /// `tls_cert`; [`Settings::public_url`]).
    pub public_url: Option<String>,
    /// The operator's privacy policy (`/privacy-policy`): a Markdown or plain-text file,
    /// read at each request; unset: the default policy of `crate::privacy`.
    pub privacy_policy: Option<PathBuf>,
    /// Whom people ask about their data (an address or a sentence), shown with the
    /// privacy policy.
    pub privacy_contact: Option<String>,
    /// HMAC key for access tokens; generated into `{data}/jwt.key` when unset.
    pub jwt_secret: Option<Secret>,
    /// Key sealing authenticator-app (TOTP) secrets at rest: 32 bytes in base64;
    /// generated into `{data}/totp.key` when unset (`crate::totp_seal`).
    pub totp_key: Option<Secret>,
    pub access_token_ttl_secs: u64,
    pub refresh_token_ttl_secs: u64,
    /// New accounts require a second factor at sign-in.
    pub require_otp: bool,
    pub signup: SignupMode,
    pub mail_from: String,
    pub smtp: Option<Smtp>,
    pub login_limit: LoginLimit,
    /// Mails an hour the calls that mail an address the caller names may send, per
    /// address and per client.
    pub mail_limit: crate::limits::MailLimit,
    /// Reverse proxies whose `X-Forwarded-For` names the client (their own address
    /// does not); empty: the peer's address is the client's.
    pub trusted_proxies: Vec<IpAddr>,
    /// Single sign-on providers (OpenID Connect, `[sso.azure]`, `[sso.google]`); none
    /// by default, and the single sign-on calls then answer 501.
    #[serde(default)]
    pub sso: crate::oidc::SsoSettings,
    pub kdf: Kdf,
    /// Largest accepted request body, in bytes.
    pub max_body_bytes: usize,
    /// Largest video accepted for upload, in bytes (sent in parts of at most 8 MiB).
    pub max_video_bytes: i64,
    /// Largest file of the `generic/` file calls (an upload, a new URL's or a presigned
    /// post's), in bytes.
    pub max_file_bytes: i64,
    /// Keep objects (media, models, clips, releases, files) in this S3 bucket (AWS or
    /// an S3-compatible server) instead of `{data}/objects`.
    #[serde(default)]
    pub s3: Option<crate::objects::S3Settings>,
    /// The Ed25519 public key (base64) agent releases must be signed for (issue 30),
    /// given to every device at enrolment; the private key stays with whoever builds
    /// releases. Unset: the cloud makes a signing key once in the data folder
    /// (`release-signing.key`) and trusts its public key (`gemba-cloud release-key`
    /// prints it, `gemba-cloud sign-release` signs with it).
    pub release_public_key: Option<String>,
    /// Largest agent binary accepted for upload, in bytes.
    pub max_release_bytes: i64,
    /// Days a cycle's video clip is kept; 0: devices are asked for no clips (and those
    /// kept go at the next sweep).
    pub clip_days: i64,
    /// Seconds a device's upload link works (issue 28): a clip link from the
    /// acknowledgement that carried it, a recording link from the recording's end.
    pub upload_link_secs: i64,
    /// Threads that check the signatures of a batch of cycles side by side.
    pub ingest_workers: usize,
    /// How soon a device whose status still differs from what the portal set is sent
    /// the same command again after acknowledging it, in milliseconds; the wait doubles
    /// with each acknowledged repeat, up to 10 minutes (a camera whose source keeps
    /// failing is retried without a command every heartbeat).
    pub reconcile_retry_ms: u64,
    /// How often an open device stream (`/api/ws`) checks that its sign-in still
    /// holds, in milliseconds; it is closed once the sign-in ended.
    pub stream_recheck_ms: u64,
    /// How long `organization/get_screenshot` waits for the device's screenshot, in
    /// milliseconds.
    pub screenshot_wait_ms: u64,
    /// How often the cloud looks for devices due a screenshot at their interval (the
    /// device setting `screenshot_interval_secs`), in milliseconds.
    pub screenshot_tick_ms: u64,
    /// Days a screenshot is kept (0: until its device is deleted); the hourly sweep
    /// deletes older ones, and those of deleted devices, with their files.
    pub screenshot_days: i64,
    /// The built portal (`web/dist` of `npm run build`), served at `/`; relative to
    /// the working folder.
    pub web_dir: PathBuf,
    /// The Python that runs the training code (with numpy, onnx and onnxruntime;
    /// `GEMBA_MODELS_PYTHON`, as the scripts set it up).
    pub models_python: String,
    /// The training code (`models/train.py`), relative to the working folder.
    pub trainer_script: PathBuf,
    /// Run training jobs inside `serve` (one at a time); off when `gemba-cloud worker`
    /// processes take them.
    pub train_in_process: bool,
    /// The `gemba-agent` binary that validation runs evaluate with (default: beside
    /// `gemba-cloud`).
    pub agent_bin: Option<PathBuf>,
    /// First-start super admin (also `GEMBA_ADMIN_EMAIL` / `GEMBA_ADMIN_PASSWORD`).
    pub admin_email: Option<String>,
    pub admin_password: Option<Secret>,
    /// The Kaizen assistant's language model (an OpenAI-compatible endpoint); unset,
    /// its answers are the facts in plain sentences.
    #[serde(default)]
    pub assistant: Option<crate::assistant::llm::AssistantSettings>,
    /// `[assistant] embedding_model` (`GEMBA_ASSISTANT__EMBEDDING_MODEL`): the folder of
    /// the passage embedder `models/embedder/build.py` makes (`./scripts/run` builds it
    /// into `target/models/embedder`); set, document retrieval is full-text and semantic
    /// (`crate::assistant::retrieve`); unset, or when it fails, full-text alone. Read
    /// from the `[assistant]` table by [`Settings::load`], which needs no language model
    /// for it.
    #[serde(skip)]
    pub embedding_model: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Smtp {
    pub host: String,
    pub port: u16,
    pub username: Option<String>,
    pub password: Option<Secret>,
    /// `none` (plain, for a local relay), `starttls` or `tls`.
    pub security: SmtpSecurity,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SmtpSecurity {
    None,
    Starttls,
    Tls,
}

/// Sign-in throttling: `max_failures` failed attempts for an address within
/// `window_secs` lock it for `lockout_secs` (answered with 429).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LoginLimit {
    pub max_failures: u32,
    pub window_secs: u64,
    pub lockout_secs: u64,
}

/// Argon2id parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Kdf {
    pub memory_kib: u32,
    pub iterations: u32,
    pub parallelism: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            data: PathBuf::from("data"),
            http: "127.0.0.1:8080".parse().expect("valid address"),
            tls_cert: None,
            tls_key: None,
            turn_port: Some(3478),
            turn_host: None,
            mqtt: "127.0.0.1:1884".into(),
            mqtt_public_url: None,
            mqtt_group: "gemba-cloud".into(),
            mqtt_username: None,
            mqtt_password: None,
            mqtt_dynsec: false,
            mqtt_tls: true,
            mqtt_tls_cert: None,
            mqtt_tls_key: None,
            mqtt_tls_ca: None,
            database_url: None,
            base_domain: "localhost".into(),
            admin_host: "admin.localhost".into(),
            public_url: None,
            privacy_policy: None,
            privacy_contact: None,
            jwt_secret: None,
            totp_key: None,
            access_token_ttl_secs: 15 * 60,
            refresh_token_ttl_secs: 14 * 24 * 3600,
            require_otp: true,
            signup: SignupMode::AdminApproval,
            mail_from: "gemba <no-reply@gemba.local>".into(),
            smtp: None,
            login_limit: LoginLimit {
                max_failures: 5,
                window_secs: 60,
                lockout_secs: 60,
            },
            mail_limit: crate::limits::MailLimit::default(),
            trusted_proxies: Vec::new(),
            sso: crate::oidc::SsoSettings::default(),
            // OWASP's first argon2id recommendation.
            kdf: Kdf {
                memory_kib: 19 * 1024,
                iterations: 2,
                parallelism: 1,
            },
            max_body_bytes: 1024 * 1024,
            max_video_bytes: 4 * 1024 * 1024 * 1024,
            max_file_bytes: 100 * 1024 * 1024,
            s3: None,
            release_public_key: None,
            max_release_bytes: 512 * 1024 * 1024,
            clip_days: 30,
            upload_link_secs: 3600,
            ingest_workers: 2,
            reconcile_retry_ms: 30_000,
            stream_recheck_ms: 30_000,
            screenshot_wait_ms: 10_000,
            screenshot_tick_ms: 10_000,
            screenshot_days: 30,
            web_dir: PathBuf::from("web/dist"),
            models_python: "python3".into(),
            trainer_script: PathBuf::from("models/train.py"),
            train_in_process: true,
            agent_bin: None,
            admin_email: None,
            admin_password: None,
            assistant: None,
            embedding_model: None,
        }
    }
}

impl Settings {
    /// Defaults, then the TOML file (if given, or `gemba.toml` in the working folder
    /// when present), then `GEMBA_…` variables.
    pub fn load(file: Option<&Path>) -> Result<Settings, Box<figment::Error>> {
        let mut fig = Figment::from(Serialized::defaults(Settings::default()));
        match file {
            Some(f) => fig = fig.merge(Toml::file_exact(f)),
            None => fig = fig.merge(Toml::file("gemba.toml")),
        }
        let fig = fig.merge(Env::prefixed("GEMBA_").split("__"));
        let mut s: Settings = fig.extract().map_err(Box::new)?;
        s.embedding_model = fig
            .extract_inner::<Option<PathBuf>>("assistant.embedding_model")
            .ok()
            .flatten()
            .filter(|p| !p.as_os_str().is_empty());
        // `[assistant]` holding only the embedder: no language model.
        if s.assistant
            .as_ref()
            .is_some_and(|a| a.base_url.trim().is_empty())
        {
            if s.assistant
                .as_ref()
                .is_some_and(|a| !a.model.trim().is_empty())
            {
                return Err(Box::new(figment::Error::from(
                    "[assistant]: model is set without base_url: set both, or neither".to_string(),
                )));
            }
            s.assistant = None;
        }
        Ok(s)
    }

    /// The embedded broker's listen address, or `None` for an external broker.
    pub fn embedded_mqtt(&self) -> Option<SocketAddr> {
        if self.mqtt.contains("://") {
            None
        } else {
            self.mqtt.parse().ok()
        }
    }

    /// The portal's address: `public_url`, else the base domain on the HTTP port (over
    /// HTTPS when the cloud serves it).
    pub fn public_url(&self) -> String {
        match &self.public_url {
            Some(u) => u.trim_end_matches('/').to_string(),
            None => {
                let scheme = if self.tls_cert.is_some() {
                    "https"
                } else {
                    "http"
                };
                format!("{scheme}://{}:{}", self.base_domain, self.http.port())
            }
        }
    }

    /// Whether users reach the cloud over HTTPS: it serves TLS itself, or its public
    /// address behind a reverse proxy says `https://`.
    pub fn reached_over_https(&self) -> bool {
        self.public_url().starts_with("https://")
    }

    pub fn is_postgres(&self) -> bool {
        self.database_url
            .as_deref()
            .is_some_and(|u| u.starts_with("postgres"))
    }
}

/// The commented example configuration.
pub const EXAMPLE: &str = include_str!("../../deploy/gemba-cloud.example.toml");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_config_parses_to_the_defaults() {
        let fig =
            Figment::from(Serialized::defaults(Settings::default())).merge(Toml::string(EXAMPLE));
        let s: Settings = fig.extract().unwrap();
        assert_eq!(s.http, Settings::default().http);
        assert_eq!(s.mqtt, "127.0.0.1:1884");
    }

    #[test]
    fn the_embedding_model_needs_no_language_model() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("gemba.toml");
        std::fs::write(
            &f,
            "[assistant]\nembedding_model = \"target/models/embedder\"\n",
        )
        .unwrap();
        let s = Settings::load(Some(&f)).unwrap();
        // The environment's setting (scripts/lib.sh exports one) overrides the file's.
        let env = std::env::var_os("GEMBA_ASSISTANT__EMBEDDING_MODEL").map(PathBuf::from);
        assert_eq!(
            s.embedding_model,
            Some(
                env.clone()
                    .unwrap_or_else(|| "target/models/embedder".into())
            )
        );
        assert!(s.assistant.is_none());
        std::fs::write(
            &f,
            "[assistant]\nbase_url = \"http://127.0.0.1:8000/v1\"\nmodel = \"m\"\n",
        )
        .unwrap();
        let s = Settings::load(Some(&f)).unwrap();
        assert_eq!(s.embedding_model, env);
        assert_eq!(s.assistant.unwrap().model, "m");
        std::fs::write(&f, "[assistant]\nmodel = \"m\"\n").unwrap();
        assert!(Settings::load(Some(&f)).is_err());
    }

    #[test]
    fn secrets_are_redacted() {
        let s = Settings {
            jwt_secret: Some(Secret("hunter2".into())),
            totp_key: Some(Secret("hunter3".into())),
            ..Default::default()
        };
        assert!(!format!("{s:?}").contains("hunter2"));
        assert!(!format!("{s:?}").contains("hunter3"));
    }

    #[test]
    fn a_certificate_makes_the_public_url_https() {
        let plain = Settings::default();
        assert_eq!(plain.public_url(), "http://localhost:8080");
        assert!(!plain.reached_over_https());
        let tls = Settings {
            tls_cert: Some("cert.pem".into()),
            tls_key: Some("key.pem".into()),
            ..Default::default()
        };
        assert_eq!(tls.public_url(), "https://localhost:8080");
        assert!(tls.reached_over_https());
        let proxied = Settings {
            public_url: Some("https://gemba.example.com/".into()),
            ..Default::default()
        };
        assert!(proxied.reached_over_https());
    }

    #[test]
    fn external_broker_url_disables_the_embedded_one() {
        let s = Settings {
            mqtt: "mqtt://127.0.0.1:1883".into(),
            ..Default::default()
        };
        assert_eq!(s.embedded_mqtt(), None);
        assert!(Settings::default().embedded_mqtt().is_some());
    }
}
