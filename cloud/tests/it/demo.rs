//! `gemba-cloud serve --demo` (the real binary) where ONNX Runtime cannot be found
//! (issue 25, 9): the cloud serves on, says at start that the demo agent is not running
//! and how to fix it, and the demo station's page says the same. The demo's seeded
//! operation is one the API accepts as it is.
//!
//! Needs the demo footage (`GEMBA_MODELS`, made by `models/build.sh`) and the agent
//! binary beside this test's (`target/debug/gemba-agent`).

use std::process::Stdio;
use std::time::{Duration, Instant};

use gemba_cloud::demo;
use gemba_shared::api::v1::account::{LoginRequest, LoginUser};
use gemba_shared::api::v1::device::{Device, DeviceCreate, DeviceDetails, EnrolmentCode};
use gemba_shared::api::v1::task::{Task, TaskCreate};
use reqwest::StatusCode;
use serde::de::DeserializeOwned;

use crate::learning_loop::{agent_bin, models_dir};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_demo_without_onnx_runtime_says_so_at_start_and_on_the_station_page() {
    let models = models_dir();
    let dir = tempfile::tempdir().unwrap();
    let http = format!("127.0.0.1:{}", gemba_cloud::seed::free_port());
    let mqtt = format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair());
    let log = dir.path().join("cloud.log");
    let out = std::fs::File::create(&log).unwrap();
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_gemba-cloud"));
    c.arg("serve")
        .arg("--data")
        .arg(dir.path().join("data"))
        .args(["--http", &http, "--mqtt", &mqtt, "--demo"])
        .arg("--demo-footage")
        .arg(models.join("demo.mp4"))
        .arg("--demo-model")
        .arg(models.join("default"))
        .arg("--demo-agent")
        .arg(agent_bin())
        .env_remove("ORT_DYLIB_PATH")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .kill_on_drop(true);
    for (k, _) in std::env::vars() {
        if k.starts_with("GEMBA_") {
            c.env_remove(k);
        }
    }
    c.env(
        "GEMBA_MQTT_GROUP",
        format!("test-{}", uuid::Uuid::new_v4().simple()),
    );
    let mut cloud = c.spawn().unwrap();
    let api = |path: &str| format!("http://{http}/api/{path}");
    let http_client = reqwest::Client::new();
    let started = Instant::now();
    loop {
        if let Ok(r) = http_client.get(api("health")).send().await
            && r.status().is_success()
        {
            break;
        }
        assert!(
            cloud.try_wait().unwrap().is_none(),
            "the cloud stopped: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        assert!(started.elapsed() < Duration::from_secs(120), "never served");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // This cloud is a process of its own, not a `TestApp`: its answers are read as the
    // shared types through reqwest.
    let login: LoginUser = http_client
        .post(api("account/login_v2"))
        .json(&LoginRequest {
            email: demo::USER_EMAIL.into(),
            password: demo::USER_PASSWORD.into(),
        })
        .send()
        .await
        .unwrap()
        .json()
        .await
        .expect("signed in");
    let token = login.token;
    let org = login.organization.expect("an organisation").id;
    let call = |m: reqwest::Method, path: &str| {
        http_client
            .request(m, api(path))
            .bearer_auth(&token)
            .header("Organization", org.to_string())
    };
    async fn read<T: DeserializeOwned>(rb: reqwest::RequestBuilder) -> T {
        rb.send().await.unwrap().json().await.unwrap()
    }

    // The station's page says why it is offline, and the fix.
    let list: Vec<Device> = read(call(
        reqwest::Method::GET,
        &format!("device/device_org/{org}/"),
    ))
    .await;
    let station = list
        .iter()
        .find(|x| x.display_name == demo::DEVICE)
        .unwrap_or_else(|| panic!("no demo station in {list:?}"))
        .id;
    let details_path = format!("device/{station}/device_details/");
    let mut details = None;
    for _ in 0..150 {
        let d: DeviceDetails = read(call(reqwest::Method::GET, &details_path)).await;
        let noticed = d.notice.is_some();
        details = Some(d);
        if noticed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let details = details.unwrap();
    let notice = details
        .notice
        .as_deref()
        .unwrap_or_else(|| panic!("no notice on the demo station: {details:?}"));
    for part in [
        "The demo agent is not running",
        "ORT_DYLIB_PATH is not set",
        "./scripts/run",
        "libonnxruntime.so",
    ] {
        assert!(notice.contains(part), "{part:?} is not in {notice:?}");
    }
    assert!(!details.device.online, "{details:?}");
    // The cloud serves on, and its log said so at start.
    assert!(cloud.try_wait().unwrap().is_none(), "the cloud serves on");
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        said.contains("the demo could not start") && said.contains("ORT_DYLIB_PATH is not set"),
        "{said}"
    );
    // Other devices carry no notice.
    let press = DeviceCreate {
        display_name: Some("Press".into()),
        ..DeviceCreate::default()
    };
    let other: EnrolmentCode = read(call(reqwest::Method::POST, "device/").json(&press)).await;
    let other = other.device.id;
    let d: DeviceDetails = read(call(
        reqwest::Method::GET,
        &format!("device/{other}/device_details/"),
    ))
    .await;
    assert_eq!(d.notice, None, "{d:?}");

    // The demo's operation, as seeded, is one the API takes as it is (the save rules
    // of portal spec 5: each step with a sub-step).
    let tasks: Vec<Task> = read(call(reqwest::Method::GET, "organization/task/")).await;
    let detail = tasks[0].settings.task_detail.clone();
    let again = TaskCreate {
        task_name: Some("Assemble sensor again".into()),
        task_detail: Some(detail.clone()),
        ..TaskCreate::default()
    };
    let r = call(reqwest::Method::POST, "organization/task/")
        .json(&again)
        .send()
        .await
        .unwrap();
    let s = r.status();
    assert_eq!(
        s,
        StatusCode::CREATED,
        "{detail:?}: {}",
        r.text().await.unwrap()
    );
    cloud.kill().await.unwrap();
}
