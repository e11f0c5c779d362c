//! The test harness: starts the real service and speaks HTTP to it (`calls.rs`: the
//! calls and mail; `accounts.rs`: users, organisations and sign-in).

mod accounts;
mod calls;

use std::net::SocketAddr;
use std::path::PathBuf;

use gemba_cloud::config::{Kdf, Settings};
use gemba_cloud::state::AppState;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

pub const ADMIN_EMAIL: &str = "admin@gemba.test";
pub const ADMIN_PASSWORD: &str = "admin-pass-1";
pub const PASSWORD: &str = "user-pass-12";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The test venv's Python (`GEMBA_TEST_PYTHON`, else `target/venv`, which
/// `scripts/test` sets up), for the tests that start a real server from PyPI; `need`
/// says which tests need it and for what, should it be missing.
pub fn test_python(need: &str) -> PathBuf {
    if let Ok(p) = std::env::var("GEMBA_TEST_PYTHON") {
        return p.into();
    }
    let venv = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/venv/bin/python"
    ));
    assert!(
        venv.exists(),
        "{need}: run scripts/test, which sets up target/venv and GEMBA_TEST_PYTHON"
    );
    venv
}

/// Runs a test body once on SQLite and once on PostgreSQL.
#[macro_export]
macro_rules! both {
    ($name:ident, $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let app = $crate::common::TestApp::start($crate::common::Backend::Sqlite).await;
                ($body)(app).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let app = $crate::common::TestApp::start($crate::common::Backend::Postgres).await;
                ($body)(app).await
            }
        }
    };
}

/// [`both!`] with the settings changed by `tweak` (a `fn(&mut Settings)`).
#[macro_export]
macro_rules! both_with {
    ($name:ident, $tweak:expr, $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let app =
                    $crate::common::TestApp::start_with($crate::common::Backend::Sqlite, $tweak)
                        .await;
                ($body)(app).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let app =
                    $crate::common::TestApp::start_with($crate::common::Backend::Postgres, $tweak)
                        .await;
                ($body)(app).await
            }
        }
    };
}

pub struct TestApp {
    pub base: String,
    pub state: AppState,
    pub client: reqwest::Client,
    pub dir: tempfile::TempDir,
    pub mqtt: SocketAddr,
    pg_db: Option<String>,
}

/// The PostgreSQL server tests use (a database is created per test).
pub fn pg_admin_url() -> String {
    std::env::var("GEMBA_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

pub use accounts::TaskOrgs;
pub use gemba_cloud::seed::{free_port, free_port_pair};

impl TestApp {
    pub async fn start(backend: Backend) -> TestApp {
        Self::start_with(backend, |_| {}).await
    }

    pub async fn start_with(backend: Backend, tweak: impl FnOnce(&mut Settings)) -> TestApp {
        Self::start_as(backend, tweak, None).await
    }

    /// [`TestApp::start_with`] serving HTTPS (`tweak` sets `tls_cert` and `tls_key`):
    /// `base` is `https://127.0.0.1:…`, and the client trusts `ca` (PEM) alone.
    pub async fn start_https(
        backend: Backend,
        ca: &str,
        tweak: impl FnOnce(&mut Settings),
    ) -> TestApp {
        Self::start_as(backend, tweak, Some(ca)).await
    }

    async fn start_as(
        backend: Backend,
        tweak: impl FnOnce(&mut Settings),
        ca: Option<&str>,
    ) -> TestApp {
        let _ = tracing_subscriber::fmt()
            .with_test_writer()
            .with_env_filter(std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()))
            .try_init();
        let dir = tempfile::tempdir().unwrap();
        let (pg_db, database_url) = match backend {
            Backend::Sqlite => (None, None),
            Backend::Postgres => {
                // A copy of the template migrated once: the server's start then
                // finds every migration applied (`gemba_cloud::pg_template`).
                let u = gemba_cloud::pg_template::migrated_database(&pg_admin_url(), "gemba_t")
                    .await
                    .expect("PostgreSQL must be running for the tests");
                (Some(u.clone()), Some(u))
            }
        };
        let mqtt: SocketAddr = format!("127.0.0.1:{}", free_port_pair()).parse().unwrap();
        let mut settings = Settings {
            data: dir.path().join("data"),
            http: "127.0.0.1:0".parse().unwrap(),
            mqtt: mqtt.to_string(),
            // Tests run side by side on one external broker: each cloud its own group.
            mqtt_group: format!("test-{}", uuid::Uuid::new_v4().simple()),
            // Live view's relay on a port of its own.
            turn_port: Some(0),
            database_url,
            admin_email: Some(ADMIN_EMAIL.into()),
            admin_password: Some(gemba_cloud::config::Secret(ADMIN_PASSWORD.into())),
            // One client (127.0.0.1) signs up and resets for every user of a test; the
            // limits' own tests (`hardening.rs`) set them back to the defaults.
            mail_limit: gemba_cloud::limits::MailLimit {
                per_address_per_hour: 1000,
                per_client_per_hour: 10_000,
            },
            // Real argon2id, smaller memory so parallel tests stay light.
            kdf: Kdf {
                memory_kib: 4096,
                iterations: 2,
                parallelism: 1,
            },
            // The training code and the Python that runs it (scripts/test sets it up).
            models_python: std::env::var("GEMBA_MODELS_PYTHON")
                .unwrap_or_else(|_| "python3".into()),
            trainer_script: PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../models/train.py"
            )),
            ..Settings::default()
        };
        tweak(&mut settings);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // The address the server really has (the portal's links are made from it).
        settings.http = addr;
        let state = gemba_cloud::build_state(settings).await.unwrap();
        let s2 = state.clone();
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = ready_tx;
            gemba_cloud::launch(s2, listener, std::future::pending())
                .await
                .unwrap();
        });
        let (scheme, client) = match ca {
            None => ("http", reqwest::Client::new()),
            Some(ca) => (
                "https",
                reqwest::Client::builder()
                    .tls_built_in_root_certs(false)
                    .add_root_certificate(reqwest::Certificate::from_pem(ca.as_bytes()).unwrap())
                    .build()
                    .unwrap(),
            ),
        };
        let app = TestApp {
            base: format!("{scheme}://{addr}/api"),
            state,
            client,
            dir,
            mqtt,
            pg_db,
        };
        for _ in 0..200 {
            if let Ok(r) = app.client.get(format!("{}/health", app.base)).send().await
                && r.status().is_success()
            {
                drop(ready_rx);
                return app;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("the server did not become healthy");
    }
}

/// The authenticator-app code for `secret` (base32) at unix time `at_secs`, computed
/// independently of the server (RFC 6238: SHA-1, 6 digits, 30 s).
pub fn totp_code(secret: &str, at_secs: u64) -> String {
    let key = totp_rs::Secret::Encoded(secret.to_string())
        .to_bytes()
        .expect("a base32 secret");
    totp_rs::TOTP::new_unchecked(totp_rs::Algorithm::SHA1, 6, 0, 30, key, None, String::new())
        .generate(at_secs)
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(url) = self.pg_db.take() {
            let admin = pg_admin_url();
            // Best effort, on a thread of its own: Drop cannot await.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                let _ = rt.block_on(gemba_cloud::seed::drop_database(&admin, &url));
            })
            .join();
        }
    }
}

pub fn token(v: &Value) -> String {
    v["token"].as_str().expect("a token").to_string()
}
