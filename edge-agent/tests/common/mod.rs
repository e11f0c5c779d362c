//! What the agent's tests share: a real cloud to talk to (in this process, or the
//! `gemba-cloud` binary as a process), the demo footage and model, the agent binary.
#![allow(dead_code)]

pub mod rtsp;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use gemba_cloud::config::Settings;
use gemba_shared::footage::Truth;
use serde_json::{Value, json};

pub use gemba_cloud::seed::AGENT_CODE;

pub struct Cloud {
    pub state: gemba_cloud::state::AppState,
    pub url: String,
    pub task: i64,
    pub device: i64,
    pub _dir: tempfile::TempDir,
}

/// A running cloud (`gemba_cloud::seed::local_cloud`): SQLite, an organisation with a
/// task defined by `operation` (task-detail text) and a device waiting to be enrolled
/// with [`AGENT_CODE`], set to run the task on `cam0`. `mqtt`: an external broker URL,
/// else an embedded broker.
pub async fn cloud(mqtt: Option<String>, operation: &str) -> Cloud {
    cloud_on(mqtt, operation, &["cam0"]).await
}

/// [`cloud`] with the device set to run the task on `cameras`.
pub async fn cloud_on(mqtt: Option<String>, operation: &str, cameras: &[&str]) -> Cloud {
    let dir = tempfile::tempdir().unwrap();
    let mqtt = mqtt.unwrap_or_else(|| format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair()));
    let c = gemba_cloud::seed::local_cloud(dir.path().join("data"), mqtt, operation, cameras)
        .await
        .unwrap();
    Cloud {
        state: c.state,
        url: c.url,
        task: c.task,
        device: c.device,
        _dir: dir,
    }
}

// ----- the demo and the agent binary ------------------------------------------------

pub struct Demo {
    pub footage: PathBuf,
    pub model: PathBuf,
    /// The footage's ground truth, and its file.
    pub truth: Truth,
    pub truth_file: PathBuf,
    /// Cycles the model finds in the footage (its evaluation, `eval.json`).
    pub cycles: u64,
}

pub fn demo() -> Demo {
    let dir = std::env::var_os("GEMBA_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/models"));
    let footage = dir.join("demo.mp4");
    let model = dir.join("default");
    assert!(
        footage.is_file() && model.join("eval.json").is_file(),
        "the demo footage and model are missing in {}: run models/build.sh (scripts/test does)",
        dir.display()
    );
    assert!(
        std::env::var_os("ORT_DYLIB_PATH").is_some(),
        "ORT_DYLIB_PATH is not set (scripts/lib.sh ensure_models_tools sets it)"
    );
    let truth_file = dir.join("demo.truth.json");
    let truth: Truth = serde_json::from_slice(&std::fs::read(&truth_file).unwrap()).unwrap();
    let eval: serde_json::Value =
        serde_json::from_slice(&std::fs::read(model.join("eval.json")).unwrap()).unwrap();
    Demo {
        footage,
        model,
        truth,
        truth_file,
        cycles: eval["found_cycles"].as_u64().unwrap(),
    }
}

pub fn agent(data: &std::path::Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gemba-agent"));
    c.arg("--data").arg(data).env("RUST_LOG", "warn");
    c
}

/// An agent process, killed if the test ends without stopping it.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn run(data: &std::path::Path, d: &Demo, extra: &[&str]) -> Running {
    let cam0 = format!("cam0={}", d.footage.display());
    run_cameras(
        data,
        d,
        &[cam0],
        &[&["--fast", "--heartbeat", "3600"], extra].concat(),
    )
}

/// The agent in `data` running `cameras` (each `NAME=SOURCE`) with the demo's model and
/// the arguments `args`.
pub fn run_cameras(data: &std::path::Path, d: &Demo, cameras: &[String], args: &[&str]) -> Running {
    let mut cmd = agent(data);
    cmd.arg("run").arg("--model").arg(&d.model);
    for c in cameras {
        cmd.arg("--camera").arg(c);
    }
    Running(cmd.args(args).stdin(Stdio::null()).spawn().unwrap())
}

/// A station at work: a cloud whose device is set to run the demo task on `cam0`, the
/// portal signed in, and the real agent enrolled in `{dir}/agent`, watching `cameras`
/// (each `NAME=SOURCE`) at real time, looped, a heartbeat a second, with `args` more.
pub async fn live_station(
    dir: &std::path::Path,
    d: &Demo,
    mqtt: Option<String>,
    cameras: &[String],
    args: &[&str],
) -> (Cloud, Portal, Running) {
    let c = cloud_on(mqtt, &d.truth.operation, &["cam0"]).await;
    let portal = Portal::sign_in(&c).await;
    let data = dir.join("agent");
    enroll(&data, &c.url);
    let agent = run_cameras(
        &data,
        d,
        cameras,
        &[&["--loop", "--heartbeat", "1"], args].concat(),
    );
    (c, portal, agent)
}

/// The ids of the cycles stored in `db`.
pub async fn stored(db: &gemba_cloud::db::Db) -> BTreeSet<String> {
    sqlx::query_scalar::<_, String>("SELECT id FROM cycles")
        .fetch_all(&db.pool)
        .await
        .unwrap()
        .into_iter()
        .collect()
}

pub async fn wait_for(what: &str, secs: u64, mut ok: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    while !ok().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "waited {secs} s for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Ctrl-C: the agent stops its cameras and link, and exits on its own.
pub fn interrupt(mut r: Running) {
    Command::new("kill")
        .args(["-INT", &r.0.id().to_string()])
        .status()
        .unwrap();
    let status = r.0.wait().unwrap();
    assert!(status.success(), "the agent exited with {status}");
}

/// A Mosquitto of the test's own on `port` (so that it can be stopped), killed with the
/// test.
pub struct Broker(Child);

impl Broker {
    pub fn start(dir: &std::path::Path, port: u16) -> Broker {
        let conf = dir.join("mosquitto.conf");
        std::fs::write(
            &conf,
            format!("listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n"),
        )
        .unwrap();
        let bin = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .expect("mosquitto is installed (scripts/test installs it)");
        // Held at once, so that it is killed whatever happens next.
        let broker = Broker(
            Command::new(bin)
                .arg("-c")
                .arg(&conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return broker;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("mosquitto did not start on port {port}");
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

// ----- the cloud as a process ---------------------------------------------------------

/// How to run `gemba-cloud serve` (the binary beside `gemba-agent`, which
/// `cargo test --workspace` builds) as a process that can be killed and started again
/// on the same data, addresses and database.
pub struct Served {
    pub data: PathBuf,
    pub http: std::net::SocketAddr,
    /// The embedded broker's address, or an external broker's URL.
    pub mqtt: String,
    pub database_url: Option<String>,
    /// The shared subscription group and token secret the replicas have in common.
    pub group: String,
    pub secret: String,
}

/// A running `gemba-cloud serve`, in a process group of its own; killed (SIGKILL) with
/// its children (a demo agent) when dropped.
pub struct CloudProcess(Child);

impl CloudProcess {
    /// Sends SIGTERM (as a service manager stops it) and waits for the process to end.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status()
            .unwrap();
        self.0.wait().unwrap()
    }
}

impl Drop for CloudProcess {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Served {
    pub fn new(data: PathBuf, mqtt: String, database_url: Option<String>) -> Served {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Served {
            data,
            http: format!("127.0.0.1:{port}").parse().unwrap(),
            mqtt,
            database_url,
            group: format!("test-{}", uuid::Uuid::new_v4().simple()),
            secret: format!("secret-{}", uuid::Uuid::new_v4().simple()),
        }
    }

    /// Another replica of the same deployment: same broker, database, group and
    /// secret; its own data folder and HTTP port.
    pub fn replica(&self, data: PathBuf) -> Served {
        Served {
            group: self.group.clone(),
            secret: self.secret.clone(),
            ..Served::new(data, self.mqtt.clone(), self.database_url.clone())
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.http)
    }

    /// Seeds the deployment's database (`gemba_cloud::seed::agent_workplace`) in this
    /// process; answers the task.
    pub async fn seed(&self, operation: &str) -> i64 {
        let settings = Settings {
            data: self.data.clone(),
            database_url: self.database_url.clone(),
            ..Settings::default()
        };
        let state = gemba_cloud::build_state(settings).await.unwrap();
        let (task, _) = gemba_cloud::seed::agent_workplace(&state, operation, &["cam0"])
            .await
            .unwrap();
        state.db.pool.close().await;
        task
    }

    /// The deployment's database, to read.
    pub async fn db(&self) -> gemba_cloud::db::Db {
        gemba_cloud::db::Db::open(self.database_url.as_deref(), &self.data)
            .await
            .unwrap()
    }

    /// Starts the process and waits until it serves and reached its broker.
    pub async fn start(&self) -> CloudProcess {
        self.start_with(&[]).await
    }

    /// [`Served::start`] with more arguments to `serve`.
    pub async fn start_with(&self, extra: &[&str]) -> CloudProcess {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_gemba-agent")).with_file_name("gemba-cloud");
        assert!(
            bin.is_file(),
            "{} is missing: build it (cargo build -p gemba-cloud; cargo test --workspace does)",
            bin.display()
        );
        let mut c = Command::new(bin);
        c.arg("serve")
            .arg("--data")
            .arg(&self.data)
            .args(["--http", &self.http.to_string(), "--mqtt", &self.mqtt])
            .env("GEMBA_MQTT_GROUP", &self.group)
            .env("GEMBA_JWT_SECRET", &self.secret)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null());
        if let Some(u) = &self.database_url {
            c.args(["--database-url", u]);
        }
        c.args(extra);
        std::os::unix::process::CommandExt::process_group(&mut c, 0);
        let process = CloudProcess(c.spawn().unwrap());
        let health = format!("{}/api/health", self.url());
        wait_for(
            "the cloud process to serve and reach its broker",
            60,
            async || match reqwest::get(&health).await {
                Ok(r) => r
                    .json::<serde_json::Value>()
                    .await
                    .is_ok_and(|h| h["mqtt"] == "connected"),
                Err(_) => false,
            },
        )
        .await;
        process
    }

    /// What `/api/health` of this replica says.
    pub async fn health(&self) -> serde_json::Value {
        reqwest::get(format!("{}/api/health", self.url()))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// Enrols an agent in `data` with the seeded code at the cloud at `url`.
pub fn enroll(data: &std::path::Path, url: &str) {
    let out = agent(data)
        .args(["enroll", "--cloud", url, "--code", AGENT_CODE])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The cycles waiting in the outbox of the agent in `data`.
pub fn outbox_cycles(data: &std::path::Path) -> BTreeSet<String> {
    let o = rusqlite::Connection::open(data.join("outbox.db")).unwrap();
    o.prepare("SELECT key FROM outbox WHERE key IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Sends the cloud's device `cmd` as the cloud does; answers how the agent acknowledged it.
pub async fn command(c: &Cloud, cmd: gemba_shared::mqtt::v1::Command) -> (bool, String) {
    let org: i64 = sqlx::query_scalar("SELECT organization_id FROM devices WHERE id = $1")
        .bind(c.device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    let db = &c.state.db;
    let id = c.state.mqtt.command(db, org, c.device, cmd).await.unwrap();
    answer(c, &id).await
}

/// The device's acknowledgement of command `id` (ok, message), once it came.
pub async fn answer(c: &Cloud, id: &str) -> (bool, String) {
    let db = &c.state.db;
    let mut answer = None;
    wait_for("the acknowledgement", 30, async || {
        answer = sqlx::query_as::<_, (Option<i64>, Option<String>)>(
            "SELECT ok, message FROM device_commands WHERE id = $1",
        )
        .bind(id)
        .fetch_one(&db.pool)
        .await
        .ok()
        .and_then(|(ok, m)| Some((ok? == 1, m.unwrap_or_default())));
        answer.is_some()
    })
    .await;
    answer.unwrap()
}

/// The device's last status as the cloud stored it.
pub async fn device_status(c: &Cloud) -> Option<gemba_shared::mqtt::v1::StatusMessage> {
    let s: Option<String> = sqlx::query_scalar("SELECT status FROM devices WHERE id = $1")
        .bind(c.device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    gemba_cloud::db::devices::parse_status(s.as_deref())
}

/// Camera `name` of the device's last status.
pub async fn camera(c: &Cloud, name: &str) -> Option<gemba_shared::mqtt::v1::CameraStatus> {
    device_status(c)
        .await?
        .cameras
        .into_iter()
        .find(|x| x.camera == name)
}

// ----- the portal's calls -------------------------------------------------------------

/// A session of the seeded super admin (its second factor turned off for the test), as
/// the portal would call with it: GET `path` of the API.
pub struct Portal {
    http: reqwest::Client,
    url: String,
    token: String,
}

impl Portal {
    pub async fn sign_in(c: &Cloud) -> Portal {
        sqlx::query("UPDATE users SET require_otp = 0 WHERE email = 'admin@agent.test'")
            .execute(&c.state.db.pool)
            .await
            .unwrap();
        let http = reqwest::Client::new();
        let login: Value = http
            .post(format!("{}/api/account/login_v2", c.url))
            .json(&json!({"email": "admin@agent.test", "password": "Admin-pass-1"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let token = login["token"]
            .as_str()
            .unwrap_or_else(|| panic!("signed in: {login}"))
            .to_string();
        Portal {
            http,
            url: c.url.clone(),
            token,
        }
    }

    pub async fn get(&self, path: &str) -> Value {
        let r = self
            .http
            .get(format!("{}/api/{path}", self.url))
            .bearer_auth(&self.token)
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        r.json().await.unwrap()
    }

    /// [`Portal::get`] in organisation `org` (the super admin's choice, the
    /// `organization` header, as the portal sends it).
    pub async fn get_in(&self, org: i64, path: &str) -> Value {
        let r = self
            .http
            .get(format!("{}/api/{path}", self.url))
            .bearer_auth(&self.token)
            .header("organization", org.to_string())
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body = r.text().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// `POST`s `bytes` as the raw body to `path` of the API: the status and the answer.
    pub async fn upload(&self, path: &str, bytes: Vec<u8>) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}/api/{path}", self.url))
            .bearer_auth(&self.token)
            .header("content-type", "application/octet-stream")
            .body(bytes)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// `method` `path` of the API with `body`: the status and the answer.
    pub async fn send(&self, method: reqwest::Method, path: &str, body: &Value) -> (u16, Value) {
        let r = self
            .http
            .request(method, format!("{}/api/{path}", self.url))
            .bearer_auth(&self.token)
            .json(body)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }
}
