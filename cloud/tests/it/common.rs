//! The test harness: starts the real service and speaks HTTP to it.

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
                let u = gemba_cloud::seed::create_database(&pg_admin_url(), "gemba_t")
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

    /// The PostgreSQL database of this app, if it runs on PostgreSQL.
    pub fn pg_url(&self) -> Option<&str> {
        self.pg_db.as_deref()
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Sends a request; `token` as bearer; answers status and JSON (or Null).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> (StatusCode, Value) {
        self.call_with(method, path, body, token, &[]).await
    }

    pub async fn call_with(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> (StatusCode, Value) {
        let mut rb = self.client.request(
            method,
            format!("{}/{}", self.base, path.trim_start_matches('/')),
        );
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        let r = rb.send().await.unwrap();
        let status = r.status();
        let text = r.text().await.unwrap();
        let v = serde_json::from_str(&text).unwrap_or(if text.is_empty() {
            Value::Null
        } else {
            Value::String(text)
        });
        (status, v)
    }

    pub async fn get(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, None, Some(token)).await
    }
    pub async fn post(&self, path: &str, body: Value, token: Option<&str>) -> (StatusCode, Value) {
        self.call(Method::POST, path, Some(body), token).await
    }
    pub async fn patch(&self, path: &str, body: Value, token: Option<&str>) -> (StatusCode, Value) {
        self.call(Method::PATCH, path, Some(body), token).await
    }
    pub async fn put(&self, path: &str, body: Value, token: &str) -> (StatusCode, Value) {
        self.call(Method::PUT, path, Some(body), Some(token)).await
    }
    pub async fn delete(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.call(Method::DELETE, path, None, Some(token)).await
    }

    /// The newest outbox message to `to` (subject, body).
    pub async fn last_mail(&self, to: &str) -> Option<(String, String)> {
        let rows = gemba_cloud::db::outbox::list(&self.state.db, Some(to), 1)
            .await
            .unwrap();
        rows.into_iter().next().map(|m| (m.subject, m.body))
    }

    /// The 6-digit code in the newest message to `to`.
    pub async fn last_code(&self, to: &str) -> String {
        let (_, body) = self.last_mail(to).await.expect("a message with a code");
        let i = body.find("code is ").expect("a code in the message") + 8;
        body[i..i + 6].to_string()
    }

    /// The token at the end of the newest link to `to` containing `marker`.
    pub async fn last_link_token(&self, to: &str, marker: &str) -> String {
        let (_, body) = self.last_mail(to).await.expect("a message with a link");
        let i = body.find(marker).expect("the link") + marker.len();
        body[i..].split_whitespace().next().unwrap().to_string()
    }

    /// Signs in through the whole flow (password, e-mail code) and answers the login body.
    pub async fn login(&self, email: &str, password: &str) -> Value {
        let v = self.pending_login(email, password).await;
        self.complete_login(email, v).await
    }

    /// Completes a sign-in answer `v` of `email` that may ask for its one-time code (by
    /// e-mail, as the portal does); the full login body.
    pub async fn complete_login(&self, email: &str, v: Value) -> Value {
        if v["require_otp"] == json!(false) {
            return v;
        }
        let temp = v["token"].as_str().unwrap().to_string();
        let (s, r) = if v["receive_otp_on"].is_null() {
            self.patch("account/set_mfa_method_email/", json!({}), Some(&temp))
                .await
        } else {
            self.call(Method::GET, "account/send_otp_code/", None, Some(&temp))
                .await
        };
        assert_eq!(s, StatusCode::OK, "{r}");
        let code = self.last_code(email).await;
        let (s, full) = self
            .post(
                "account/verify_otp_code/",
                json!({"otp": code}),
                Some(&temp),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{full}");
        full
    }

    /// The super admin's access token.
    pub async fn admin_token(&self) -> String {
        self.login(ADMIN_EMAIL, ADMIN_PASSWORD).await["token"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Creates an organisation as the super admin; answers its id.
    pub async fn create_org(&self, admin: &str, display: &str) -> i64 {
        let (s, v) = self
            .post(
                "organization/",
                json!({"org_name_to_display": display}),
                Some(admin),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        v["id"].as_i64().unwrap()
    }

    /// A signed-up, verified, approved user with `role` in `org`; answers a full login.
    /// The super admin approves `email` with `role` and assigns `org`.
    pub async fn approve(&self, admin: &str, email: &str, role: &str, org: Option<i64>) {
        let roles = self.get("account/roles/", admin).await.1;
        let role_id = roles
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == role)
            .unwrap()["id"]
            .clone();
        let (s, v) = self
            .put(
                "account/approve_user",
                json!({"email": email, "roleId": role_id}),
                admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        if let Some(o) = org {
            let (s, v) = self
                .put(
                    "account/assign_user_org",
                    json!({"email": email, "organization": o}),
                    admin,
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
    }

    /// The API's OpenAPI document.
    pub async fn openapi(&self) -> Value {
        self.public_json("openapi.json").await
    }

    /// `/api/health`, untyped: its answer is the cloud's own (`gemba_cloud::http::Health`,
    /// not a shared wire type, and only serialised).
    pub async fn health(&self) -> Value {
        self.public_json("health").await
    }

    /// `GET path` without a token, its body as JSON.
    async fn public_json(&self, path: &str) -> Value {
        self.client
            .get(format!("{}/{path}", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub async fn user_in(&self, admin: &str, email: &str, role: &str, org: Option<i64>) -> Value {
        self.signed_up(email, "Test").await;
        self.approve(admin, email, role, org).await;
        self.login(email, PASSWORD).await
    }
}

impl TestApp {
    /// Registers `email` (named `name`, password [`PASSWORD`]) and confirms the address
    /// through the mailed link: an account awaiting approval.
    pub async fn signed_up(&self, email: &str, name: &str) {
        let (s, v) = self
            .post(
                "account/register",
                json!({"name": name, "lastname": "User", "email": email, "password": PASSWORD}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let token = self.last_link_token(email, "/verify-email/").await;
        let (s, v) = self
            .patch(&format!("account/verify-email/{token}"), json!({}), None)
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }

    /// The first step of a sign-in: `login_v2`, expected to answer 200 (a temporary
    /// token when a code is required).
    pub async fn pending_login(&self, email: &str, password: &str) -> Value {
        let (s, v) = self
            .post(
                "account/login_v2",
                json!({"email": email, "password": password}),
                None,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "login {email}: {v}");
        v
    }

    /// The stored user (straight from the database).
    pub async fn user_row(&self, email: &str) -> gemba_cloud::db::UserRow {
        gemba_cloud::db::users::by_email(&self.state.db, email)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("no user {email}"))
    }

    /// `email`'s pending authenticator secret in plain, as the QR code shows it (the
    /// database holds it sealed with the server's TOTP key).
    pub async fn pending_totp_secret(&self, email: &str) -> String {
        let row = self.user_row(email).await;
        let sealed = row.totp_pending_secret.expect("a pending secret");
        self.state
            .totp
            .open(row.id, &sealed)
            .expect("a sealed secret")
    }

    /// A verified, approved user with `role` and password [`PASSWORD`], linked to `orgs`
    /// (the first becomes current), written straight to the database: quicker than
    /// [`TestApp::user_in`] where the sign-up itself is not under test. No MFA method
    /// is set up. Answers the id.
    /// The super admin subscribes `org` to the seeded feature `name`.
    pub async fn subscribe(&self, admin: &str, org: i64, name: &str) {
        let (_, features) = self.get("feature_control/feature/", admin).await;
        let id = features
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name} is seeded"))["id"]
            .clone();
        let (s, v) = self
            .post(
                "feature_control/subscribed_feature/",
                serde_json::json!({"Feature": id, "Organization": org}),
                Some(admin),
            )
            .await;
        assert!(s.is_success(), "{v}");
    }

    /// A user with `role` in `org`, signed in: the access token.
    pub async fn signed_in(&self, email: &str, role: &str, org: i64) -> String {
        self.quick_user(email, "Eng", role, &[org]).await;
        token(&self.login(email, PASSWORD).await)
    }

    pub async fn quick_user(&self, email: &str, name: &str, role: &str, orgs: &[i64]) -> i64 {
        use gemba_cloud::db::users;
        let hash = self.state.passwords.hash(PASSWORD.into()).await.unwrap();
        let id = users::insert(
            &self.state.db,
            &users::NewUser {
                email,
                name,
                lastname: "User",
                password_hash: &hash,
                role: Some(gemba_shared::Role::parse(role).expect("a role")),
                is_active: true,
                is_email_verified: true,
                is_approved: true,
                require_otp: true,
            },
        )
        .await
        .unwrap();
        for o in orgs {
            users::link(&self.state.db, id, *o).await.unwrap();
        }
        id
    }

    /// A raw request (for bodies that are not JSON, or headers of the answer).
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut rb = self.client.request(
            method,
            format!("{}/{}", self.base, path.trim_start_matches('/')),
        );
        if let Some(t) = token {
            rb = rb.bearer_auth(t);
        }
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        rb.send().await.unwrap()
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
