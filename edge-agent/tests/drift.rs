//! Drift on the station (issue 26, item 5), through the real agent and the real cloud:
//! demo footage whose light falls to near black before half way, played at real
//! time and looped. The dark frames count as unsure (`gemba_agent::cameras::drift`); the agent's status
//! says since when, with the share of unsure frames and the brightness now and when it
//! was sure; the device's page (the cloud's API) shows it and keeps the event, which
//! ends once the loop brings the light back.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

mod common;
use common::{demo, interrupt, live_station, wait_for};

/// Seconds of footage, and when its light falls: lit long enough for the first figures
/// (a second of frames) to be read with a margin, dark long enough for the 5 s window
/// and 5 s sustain to raise the event and for it to be read before the loop brings the
/// light back. Each second is a second of the test's wall time and ~0.5 s of CPU to make.
const SECONDS: u32 = 36;
const DARK_AT: u32 = 16;
/// The light's level after the fall (1: as lit): near black (luma about 4 of 255, from
/// about 90). Measured with the default demo model: there it is not unsure by its
/// probabilities (it says "background" at 1.00 for every frame), so the event comes
/// from the light, more than a stop from the light the model was sure in; a model that
/// is unsure by its probabilities only adds to the same share.
const DARK: &str = "0.08";

/// The demo generator's footage of the demo operation, darkening at [`DARK_AT`].
fn darkening(dir: &Path) -> PathBuf {
    let out = dir.join("dark");
    let python = std::env::var_os("GEMBA_MODELS_PYTHON").unwrap_or_else(|| "python3".into());
    let st = std::process::Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/demo.py"))
        .args(["--seed", "2", "--seconds", &SECONDS.to_string()])
        .args([
            "--light-after",
            DARK,
            "--light-change-at",
            &DARK_AT.to_string(),
        ])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("GEMBA_MODELS_PYTHON (scripts/lib.sh sets it up)");
    assert!(st.success(), "making the darkening footage");
    out.with_extension("mp4")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_unsure_on_footage_that_darkens_is_an_event_on_the_device_page() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let footage = darkening(dir.path());
    // Real time, looped; a heartbeat a second; drift over 5 s, sustained 5 s.
    let (c, portal, agent) = live_station(
        dir.path(),
        &d,
        None,
        &[format!("cam0={}", footage.display())],
        &["--drift-window", "5", "--drift-sustain", "5"],
    )
    .await;
    let page = format!("device/{}/device_details/", c.device);
    let cam0 = |d: &Value| d["status"]["cameras"][0].clone();

    // Lit: the camera runs and its model is sure.
    let mut details = Value::Null;
    wait_for("cam0 to run with drift figures", 60, async || {
        details = portal.get(&page).await;
        cam0(&details)["unsure_share"].is_number()
    })
    .await;
    let running_at = gemba_cloud::db::now_ms();
    let lit = cam0(&details);
    eprintln!("lit: {lit}");
    assert!(lit["unsure_since_ms"].is_null(), "{lit}");
    assert!(lit["brightness"].as_f64().unwrap() > 60.0, "{lit}");

    // The light falls at DARK_AT: within the fall, the window and the sustain time (and a
    // margin for a loaded machine), the model is unsure since the fall.
    // (The page reads the device, then its events: a status may land between the two.)
    wait_for("the model unsure on cam0", 60, async || {
        details = portal.get(&page).await;
        cam0(&details)["unsure_since_ms"].is_number()
            && details["camera_events"]
                .as_array()
                .is_some_and(|e| !e.is_empty())
    })
    .await;
    let dark = cam0(&details);
    eprintln!("dark: {dark}");
    let (share, light) = (
        dark["unsure_share"].as_f64().unwrap(),
        dark["brightness"].as_f64().unwrap(),
    );
    let (sure_share, sure_light) = (
        dark["sure_share"].as_f64().unwrap(),
        dark["sure_brightness"].as_f64().unwrap(),
    );
    assert!(share > 0.3 && sure_share < 0.15, "{dark}");
    assert!(light * 4.0 < sure_light, "the light fell: {dark}");
    let events = details["camera_events"].as_array().unwrap().clone();
    assert_eq!(events.len(), 1, "{details}");
    let e = &events[0];
    assert_eq!(
        (&e["camera"], &e["kind"]),
        (&json!("cam0"), &json!("unsure"))
    );
    assert!(e["ended_at"].is_null(), "{e}");
    // It began after the lit part had played (the camera ran a while before).
    let started = e["started_at"].as_i64().unwrap();
    assert!(started > running_at, "{e} began before {running_at}");
    assert!(e["sure_brightness"].as_f64().unwrap() > 4.0 * e["brightness"].as_f64().unwrap());

    // The loop brings the light back at SECONDS: the model is sure again, and the event
    // ends and stays on the page.
    wait_for("the event to end", 60, async || {
        details = portal.get(&page).await;
        details["camera_events"][0]["ended_at"].is_number()
            && cam0(&details)["unsure_since_ms"].is_null()
    })
    .await;
    assert!(cam0(&details)["unsure_since_ms"].is_null(), "{details}");
    assert_eq!(details["camera_events"][0]["started_at"], started);
    assert!(details["camera_events"][0]["ended_at"].as_i64().unwrap() > started);
    interrupt(agent);
}
