//! The README's run command underneath: `gemba-cloud serve --demo` (the real binary) seeds
//! the organisation `demo` and starts a real `gemba-agent` that enrols itself and
//! replays the demo footage in real time with the default model. A newcomer signed in
//! as the demo user sees the demo station online and its cycles arrive, through the
//! same calls the portal makes.

use std::time::Instant;

use gemba_cloud::demo;
use serde_json::{Value, json};

mod common;
use common::{Served, demo, wait_for};

/// The JSON a request is answered with.
async fn answer(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_demo_shows_the_demo_stations_cycles_to_the_demo_user() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let mqtt = format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair());
    let served = Served::new(dir.path().join("cloud"), mqtt, None);
    let agent = env!("CARGO_BIN_EXE_gemba-agent");
    let footage = d.footage.display().to_string();
    let model = d.model.display().to_string();
    let started = Instant::now();
    let mut cloud = served
        .start_with(&[
            "--demo",
            "--demo-footage",
            &footage,
            "--demo-model",
            &model,
            "--demo-agent",
            agent,
        ])
        .await;

    // The demo user signs in (no second factor) and names the demo organisation: from
    // the server's first answer (the demo is seeded before it answers).
    let http = reqwest::Client::new();
    let api = |path: &str| format!("{}/api/{path}", served.url());
    let sign_in = async |email: &str| -> Value {
        answer(
            http.post(api("account/login_v2"))
                .json(&json!({"email": email, "password": demo::USER_PASSWORD})),
        )
        .await
    };
    let login = sign_in(demo::USER_EMAIL).await;
    let token = login["token"]
        .as_str()
        .unwrap_or_else(|| panic!("signed in: {login}"))
        .to_string();
    let org = login["Organization"]["id"]
        .as_i64()
        .expect("the demo organisation");
    let get = async |path: String| -> Value {
        answer(
            http.get(api(&path))
                .bearer_auth(&token)
                .header("Organization", org.to_string()),
        )
        .await
    };

    // The demo organisation has the screens a newcomer tries: operations, devices,
    // recording training video and deploying models.
    let subs = get("feature_control/subscribed_feature/".into()).await;
    for name in [
        "Define Operation",
        "Devices",
        "Record Training Set",
        "Deploy Model",
    ] {
        assert!(
            subs.as_array()
                .unwrap()
                .iter()
                .any(|s| s["feature_name"] == name),
            "{name} is not among {subs}"
        );
    }

    // Its operation has the demo footage as labelled training video, ready to train on.
    let tasks = get("organization/task/".into()).await;
    let task = tasks[0]["id"].as_i64().expect("the demo operation");
    // (Seeded beside the server's start: the videos are read while it already answers.)
    let mut training = Value::Null;
    for _ in 0..300 {
        training = get(format!("organization/trained_task/{task}")).await;
        if training["labelled_videos"] == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(training["train_status"], "in_annotation", "{training}");
    assert_eq!(training["labelled_videos"], 2, "{training}");
    assert_eq!(training["ready_videos"], 2, "{training}");

    // The devices list shows the demo station; it comes online and its cycles arrive.
    let list = get(format!("device/device_org/{org}/")).await;
    let station = list
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["display_name"] == demo::DEVICE)
        .unwrap_or_else(|| panic!("no demo station in {list}"))["id"]
        .as_i64()
        .unwrap();
    let mut details = Value::Null;
    wait_for("the demo station's first cycle", 90, async || {
        details = get(format!("device/{station}/device_details/")).await;
        details["recent_cycles"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
    })
    .await;
    let after = started.elapsed();
    assert_eq!(details["online"], true, "{details}");
    assert_eq!(details["enrolled"], true);
    let cycle = &details["recent_cycles"][0];
    assert_eq!(cycle["camera"], demo::CAMERA);
    assert!(!cycle["segments"].as_array().unwrap().is_empty(), "{cycle}");
    // How soon is reported, not asserted (timing belongs to benchmarks); the wait above
    // gives up after 90 s.
    eprintln!(
        "first demo cycle {:.1} s after serve --demo started",
        after.as_secs_f64()
    );
    // The cycle's clip follows it, and plays from its details; the demo line has the
    // station, and its figures count the cycles.
    let id = cycle["id"].as_str().unwrap().to_string();
    let mut trace = Value::Null;
    wait_for("the first cycle's clip", 60, async || {
        trace = get(format!(
            "telemetry/trace/trace_single_cycle_details/?cycle_id={id}"
        ))
        .await;
        !trace["clip"].is_null()
    })
    .await;
    let clip = &trace["clip"];
    assert!(
        clip["start_ms"].as_i64() <= cycle["start_ms"].as_i64(),
        "{clip} {cycle}"
    );
    let played = http
        .get(format!("{}{}", served.url(), clip["url"].as_str().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(played.status(), 200);
    assert_eq!(played.headers()["content-type"], "video/mp4");
    let lines = get("telemetry/trace/line/".into()).await;
    assert_eq!(lines[0]["name"], demo::LINE, "{lines}");
    let line = lines[0]["id"].as_i64().unwrap();
    let today = chrono::DateTime::from_timestamp_millis(cycle["start_ms"].as_i64().unwrap())
        .unwrap()
        .format("%Y-%m-%d");
    let stats = get(format!(
        "telemetry/line_stats?line={line}&datetime_start={today}&datetime_end={today}"
    ))
    .await;
    assert_eq!(stats["bottleneck"], 0, "{stats}");
    assert!(
        stats["stations"][0]["figures"]["cycles"].as_i64() >= Some(1),
        "{stats}"
    );
    // The demo's analytics user signs in and reads the same cycles.
    let analyst = sign_in(demo::ANALYST_EMAIL).await;
    let (s, v) = {
        let r = http
            .get(api(&format!("telemetry/trace/v2?task={task}")))
            .bearer_auth(analyst["token"].as_str().unwrap())
            .header("Organization", org.to_string())
            .send()
            .await
            .unwrap();
        (r.status(), r.json::<Value>().await.unwrap())
    };
    assert_eq!(s, 200, "{v}");
    assert!(v["count"].as_i64() >= Some(1), "{v}");

    // Stopped as a service manager stops it (SIGTERM): the demo agent goes with it.
    let data = served.data.display().to_string();
    let agents = || -> usize {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .filter(|c| {
                c.split(' ')
                    .next()
                    .is_some_and(|b| b.ends_with("gemba-agent"))
            })
            .filter(|c| c.contains(&data))
            .count()
    };
    assert_eq!(agents(), 1, "the demo agent runs");
    assert!(
        cloud.terminate().success(),
        "the cloud ends cleanly on SIGTERM"
    );
    wait_for("the demo agent to stop with the cloud", 10, async || {
        agents() == 0
    })
    .await;
}
