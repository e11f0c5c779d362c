//! The command line: `admin create`, `default-config`, and settings from the file, then
//! the environment, then flags.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::account::UserSummary;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::account::{credentials, login};
use crate::both;
use crate::common::*;

/// `gemba-cloud` with `args`, no inherited `GEMBA_…` variables and `env` added.
fn cli(args: &[&str], env: &[(&str, &str)], cwd: &std::path::Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_gemba-cloud"));
    c.args(args).current_dir(cwd).kill_on_drop(true);
    for (k, _) in std::env::vars() {
        if k.starts_with("GEMBA_") {
            c.env_remove(k);
        }
    }
    c.env("RUST_LOG", "warn");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

async fn run(args: &[&str], env: &[(&str, &str)], cwd: &std::path::Path) -> (bool, String, String) {
    let out = cli(args, env, cwd).output().await.unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

both!(
    admin_create_on_the_command_line_makes_a_super_admin,
    |app: TestApp| async move {
        // The command works on the running server's storage.
        let data = app.data_dir();
        let mut base = vec!["admin", "create", "--data", data.to_str().unwrap()];
        let url = app.state.settings.database_url.clone();
        if let Some(u) = &url {
            base.extend(["--database-url", u.as_str()]);
        }
        let with = |extra: &[&'static str]| {
            let mut a = base.clone();
            a.extend_from_slice(extra);
            a
        };
        let cwd = app.dir.path();
        let (ok, out, err) = run(
            &with(&["--email", "Cli@Gemba.test", "--password", "cli-pass-123"]),
            &[],
            cwd,
        )
        .await;
        assert!(ok, "{err}");
        assert!(out.contains("created super admin"), "{out}");
        let full = login(&app, "cli@gemba.test", "cli-pass-123").await;
        assert_eq!(full.role.as_deref(), Some("admin"));
        let r = app
            .raw(
                Method::GET,
                "account/get-permissions/",
                Some(&full.token),
                &[],
            )
            .await;
        assert_eq!(r.text().await.unwrap(), "true");

        // The password may come from the environment.
        let (ok, _, err) = run(
            &with(&["--email", "env@gemba.test"]),
            &[("GEMBA_ADMIN_PASSWORD", "env-pass-123")],
            cwd,
        )
        .await;
        assert!(ok, "{err}");
        app.pending_login("env@gemba.test", "env-pass-123").await;

        // Bad input: clear errors, non-zero exit, nothing created.
        for (extra, msg) in [
            (
                vec!["--email", "cli@gemba.test", "--password", "cli-pass-456"],
                "already exists",
            ),
            (
                vec!["--email", "weak@gemba.test", "--password", "short1"],
                "This password is too short",
            ),
            (
                vec!["--email", "not-an-email", "--password", "cli-pass-123"],
                "Enter a valid email address.",
            ),
            (vec!["--password", "cli-pass-123"], "--email"),
            (vec!["--email", "nopw@gemba.test"], "--password"),
        ] {
            let (ok, _, err) = run(&with(&extra), &[], cwd).await;
            assert!(!ok, "{extra:?} succeeded");
            assert!(err.contains(msg), "{extra:?}: {err}");
        }
        for email in ["weak@gemba.test", "not-an-email", "nopw@gemba.test"] {
            assert!(
                gemba_cloud::db::users::by_email(&app.state.db, email)
                    .await
                    .unwrap()
                    .is_none()
            );
        }
        let v: Page<UserSummary> = app
            .get_as(
                "account/users_list/v2?is_admin=true&role__name=admin",
                &full.token,
            )
            .await;
        assert_eq!(v.count, 3);
    }
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_created_in_a_fresh_data_folder_signs_in_once_the_server_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("fresh");
    let (ok, out, err) = run(
        &[
            "admin",
            "create",
            "--data",
            data.to_str().unwrap(),
            "--email",
            "first@gemba.test",
            "--password",
            "first-pass-1",
        ],
        &[],
        tmp.path(),
    )
    .await;
    assert!(ok, "{err}");
    assert!(out.contains("first@gemba.test"));
    assert!(data.join("gemba.db").exists());
    let app = TestApp::start_with(Backend::Sqlite, |s| s.data = data.clone()).await;
    let full = login(&app, "first@gemba.test", "first-pass-1").await;
    assert_eq!(full.role.as_deref(), Some("admin"));
}

#[test]
fn default_config_output_loads_as_the_defaults_and_a_file_overrides_them() {
    use gemba_cloud::config::Settings;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gemba-cloud"))
        .arg("default-config")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gemba.toml");
    std::fs::write(&file, &text).unwrap();
    // Every value of the printed example is the default: loading it gives what an
    // empty file gives (both under the same environment, whatever it holds).
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let loaded = Settings::load(Some(&file)).unwrap();
    let defaults = Settings::load(Some(&empty)).unwrap();
    assert_eq!(format!("{loaded:?}"), format!("{defaults:?}"));

    // The file beats the defaults, nested tables included.
    let changed = text
        .replace(
            "base_domain = \"localhost\"",
            "base_domain = \"gemba.example\"",
        )
        .replace("max_failures = 5", "max_failures = 7");
    assert_ne!(changed, text);
    std::fs::write(&file, &changed).unwrap();
    let loaded = Settings::load(Some(&file)).unwrap();
    assert_eq!(loaded.base_domain, "gemba.example");
    assert_eq!(loaded.login_limit.max_failures, 7);
    assert_eq!(
        loaded.login_limit.window_secs,
        defaults.login_limit.window_secs
    );
    assert_eq!(loaded.mqtt, defaults.mqtt);

    // A bad value or a missing file is an error, not a silent default.
    std::fs::write(&file, "http = \"nowhere\"\n").unwrap();
    let e = Settings::load(Some(&file)).unwrap_err();
    assert!(e.to_string().contains("http"), "{e}");
    assert!(Settings::load(Some(&dir.path().join("missing.toml"))).is_err());
}

/// Starts `serve`, waits for `/api/health` on `port`, answers the child and the health body.
async fn serve(
    args: &[&str],
    env: &[(&str, &str)],
    cwd: &std::path::Path,
    port: u16,
) -> (tokio::process::Child, Value) {
    let mut child = cli(args, env, cwd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/api/health");
    for _ in 0..300 {
        if let Ok(r) = reqwest::get(&url).await
            && r.status().is_success()
        {
            return (child, r.json().await.unwrap());
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("serve {args:?} exited: {status}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("serve {args:?} did not answer on port {port}");
}

/// Failed sign-ins of an unknown address until the answer is 429; answers how many.
async fn failures_until_locked(port: u16) -> usize {
    let c = reqwest::Client::new();
    for n in 0..20 {
        let r = c
            .post(format!("http://127.0.0.1:{port}/api/account/login_v2"))
            .json(&credentials("nobody@gemba.test", "wrong-pass-1"))
            .send()
            .await
            .unwrap();
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            return n;
        }
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    }
    panic!("never locked");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_come_from_file_then_environment_then_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |n: &str| tmp.path().join(n);
    let (p_file, p_env, p_flag) = (free_port(), free_port(), free_port());
    let mqtt = free_port_pair();
    let config = dir("gemba.toml");
    std::fs::write(
        &config,
        format!(
            "data = {:?}\nhttp = \"127.0.0.1:{p_file}\"\nmqtt = \"127.0.0.1:{mqtt}\"\n\
             [login_limit]\nmax_failures = 3\n[kdf]\nmemory_kib = 4096\niterations = 1\n",
            dir("file-data")
        ),
    )
    .unwrap();
    let conf = config.to_str().unwrap();
    let env_data = dir("env-data");
    let flag_data = dir("flag-data");
    let (http_env, http_flag) = (format!("127.0.0.1:{p_env}"), format!("127.0.0.1:{p_flag}"));

    // All three layers: the flag wins for http, the environment for data and the
    // nested login limit, the file for mqtt (over the default).
    let env = [
        ("GEMBA_HTTP", http_env.as_str()),
        ("GEMBA_DATA", env_data.to_str().unwrap()),
        ("GEMBA_LOGIN_LIMIT__MAX_FAILURES", "2"),
    ];
    let (mut child, health) = serve(
        &["--config", conf, "serve", "--http", &http_flag],
        &env,
        tmp.path(),
        p_flag,
    )
    .await;
    assert_eq!(health["database"], "sqlite");
    assert!(env_data.join("gemba.db").exists());
    assert!(!dir("file-data").exists());
    drop(std::net::TcpStream::connect(("127.0.0.1", mqtt)).expect("the broker listens"));
    assert_eq!(failures_until_locked(p_flag).await, 2);
    child.kill().await.unwrap();
    child.wait().await.unwrap();

    // Environment over file; the --data flag over the environment.
    let (mut child, _) = serve(
        &[
            "--config",
            conf,
            "serve",
            "--data",
            flag_data.to_str().unwrap(),
        ],
        &env[..2],
        tmp.path(),
        p_env,
    )
    .await;
    assert!(flag_data.join("gemba.db").exists());
    assert_eq!(failures_until_locked(p_env).await, 3);
    child.kill().await.unwrap();
    child.wait().await.unwrap();

    // The file alone; GEMBA_CONFIG names it too.
    let (mut child, _) = serve(&["serve"], &[("GEMBA_CONFIG", conf)], tmp.path(), p_file).await;
    assert!(dir("file-data").join("gemba.db").exists());
    child.kill().await.unwrap();
    child.wait().await.unwrap();

    // Bad settings stop the start with a clear message.
    for (args, env, msg) in [
        (
            vec!["--config", conf, "serve", "--http", "nowhere"],
            vec![],
            "is not an address",
        ),
        (
            vec!["--config", conf, "serve"],
            vec![("GEMBA_HTTP", "nowhere")],
            "configuration",
        ),
        (
            vec!["--config", "/no/such/gemba.toml", "serve"],
            vec![],
            "configuration",
        ),
        (
            vec!["--config", conf, "serve", "--database-url", "mysql://x"],
            vec![],
            "unsupported database URL",
        ),
        (vec!["serve", "--no-such-flag"], vec![], "--no-such-flag"),
    ] {
        let (ok, _, err) = run(&args, &env, tmp.path()).await;
        assert!(!ok, "{args:?} started");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

/// The served data folder is the service's alone (issue 28): a folder the operator made
/// readable is tightened to 0700, and the database, the key and the outbox's mail (with
/// its one-time links) are 0600.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_folder_and_its_secrets_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (port, mqtt) = (free_port(), free_port_pair());
    let (http, mqtt) = (format!("127.0.0.1:{port}"), format!("127.0.0.1:{mqtt}"));
    let args = [
        "serve",
        "--data",
        data.to_str().unwrap(),
        "--http",
        &http,
        "--mqtt",
        &mqtt,
    ];
    let (_child, _) = serve(
        &args,
        &[("GEMBA_KDF__MEMORY_KIB", "4096")],
        tmp.path(),
        port,
    )
    .await;
    // A sign-up writes a verification mail with its link into the outbox.
    let r = reqwest::Client::new()
        .post(format!("http://{http}/api/account/register"))
        .json(&serde_json::json!({
            "name": "Nina", "lastname": "", "email": "nina@gemba.test", "password": PASSWORD,
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(mode(&data), 0o700);
    for f in ["gemba.db", "jwt.key"] {
        assert_eq!(mode(&data.join(f)), 0o600, "{f}");
    }
    let outbox = data.join("outbox");
    assert_eq!(mode(&outbox), 0o700);
    let mails: Vec<_> = std::fs::read_dir(&outbox)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!mails.is_empty());
    for m in mails {
        assert_eq!(mode(&m), 0o600, "{}", m.display());
    }
}
