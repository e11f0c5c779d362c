//! Barcodes read by the real agent (issue 31), through GStreamer, the real cloud and its
//! portal calls. Two cameras watch the demo footage with a QR code drawn in its frames
//! (the test writes the videos: the footage decoded, the code painted, encoded again):
//! - cam0 shows the part's label `SN-0001` all along: the cycle that finishes after it
//!   is read carries `metadata.barcode` in the cloud;
//! - cam1 shows `GO-VALVE` first, a barcode the portal associated with a second task:
//!   the camera switches to that task, its status names the barcode and the cloud
//!   leaves it so; later it shows `SN-0001` too, which goes on a cycle of the new task.
//!
//! A line of the two tasks' stations, traced by barcode from cam1's cycle, finds cam0's
//! cycle: line traceability follows the label as the agent read it.

use std::path::Path;

use gemba_shared::api::v1::task::TaskSettings;
use gemba_shared::mqtt::v1::CameraState;
use gstreamer as gst;
use gstreamer::prelude::*;
use reqwest::Method;
use rxing::{BarcodeFormat, MultiFormatWriter, Writer};
use serde_json::json;

mod common;
use common::{Portal, camera, cloud_on, demo, enroll, interrupt, run_cameras, wait_for};

const PART: &str = "SN-0001";
const VALVE: &str = "GO-VALVE";

/// The QR code of `value`, painted into an RGB frame `width` pixels wide at (`x`,
/// `y`), its modules `scale` pixels wide, on white.
fn paint(rgb: &mut [u8], width: usize, value: &str, (x, y): (usize, usize), scale: usize) {
    let m = MultiFormatWriter
        .encode(value, &BarcodeFormat::QR_CODE, 0, 0)
        .unwrap();
    let (mw, mh) = (m.width() as usize, m.height() as usize);
    for dy in 0..mh * scale {
        for dx in 0..mw * scale {
            let dark = m.get((dx / scale) as u32, (dy / scale) as u32);
            let i = ((y + dy) * width + x + dx) * 3;
            rgb[i..i + 3].fill(if dark { 15 } else { 240 });
        }
    }
}

/// Frames of the demo footage (15 fps) the test's videos keep: its first 60 s. cam1's
/// part label (from 20 s) is on the cycle that ends after it (about 24–36 s in), all
/// the test waits for, and the loop starts again only after it; the footage's other
/// 60 s were decoded, painted and encoded twice for nothing.
const FOOTAGE_FRAMES: u32 = 900;

/// The demo footage's first [`FOOTAGE_FRAMES`] into `out` with, from each time (ms) of
/// `codes` on, that QR code drawn in its top right corner (over the bench, clear of the
/// bins and the lamp).
fn footage_with_codes(footage: &Path, out: &Path, codes: &'static [(u64, &'static str)]) {
    gst::init().unwrap();
    let p = gst::parse::launch(&format!(
        "filesrc name=src ! decodebin ! videoconvert ! video/x-raw,format=RGB,width=640,height=480 \
         ! identity name=draw eos-after={FOOTAGE_FRAMES} ! videoconvert \
         ! x264enc speed-preset=ultrafast key-int-max=15 ! mp4mux ! filesink name=out",
    ))
    .unwrap()
    .downcast::<gst::Pipeline>()
    .unwrap();
    p.by_name("src")
        .unwrap()
        .set_property("location", footage.to_str().unwrap());
    p.by_name("out")
        .unwrap()
        .set_property("location", out.to_str().unwrap());
    p.by_name("draw")
        .unwrap()
        .static_pad("src")
        .unwrap()
        .add_probe(gst::PadProbeType::BUFFER, move |_, info| {
            if let Some(gst::PadProbeData::Buffer(buffer)) = &mut info.data {
                let t = buffer.pts().map_or(0, |t| t.mseconds());
                if let Some((_, value)) = codes.iter().rev().find(|(from, _)| t >= *from) {
                    let b = buffer.make_mut();
                    let mut map = b.map_writable().unwrap();
                    paint(map.as_mut_slice(), 640, value, (520, 8), 3);
                }
            }
            gst::PadProbeReturn::Ok
        });
    p.set_state(gst::State::Playing).unwrap();
    let bus = p.bus().unwrap();
    let msg = bus
        .timed_pop_filtered(
            gst::ClockTime::from_seconds(300),
            &[gst::MessageType::Eos, gst::MessageType::Error],
        )
        .expect("the footage written in time");
    assert!(
        matches!(msg.view(), gst::MessageView::Eos(_)),
        "writing the footage: {msg:?}"
    );
    p.set_state(gst::State::Null).unwrap();
}

/// The stored cycles of `camera` whose barcode is `value`: (id, task).
async fn cycles_with(db: &gemba_cloud::db::Db, camera: &str, value: &str) -> Vec<(String, i64)> {
    sqlx::query_as::<_, (String, i64, String)>(
        "SELECT id, task_id, metadata FROM cycles WHERE camera = $1 ORDER BY start_ms",
    )
    .bind(camera)
    .fetch_all(&db.pool)
    .await
    .unwrap()
    .into_iter()
    .filter(|(_, _, m)| serde_json::from_str::<serde_json::Value>(m).unwrap()["barcode"] == value)
    .map(|(id, task, _)| (id, task))
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn barcodes_read_by_the_agent_go_on_cycles_start_their_task_and_trace_a_line() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let (part, valve) = (dir.path().join("part.mp4"), dir.path().join("valve.mp4"));
    footage_with_codes(&d.footage, &part, &[(0, PART)]);
    footage_with_codes(&d.footage, &valve, &[(0, VALVE), (20_000, PART)]);

    let c = cloud_on(None, &d.truth.operation, &["cam0", "cam1"]).await;
    let db = &c.state.db;
    let portal = Portal::sign_in(&c).await;
    let (org, admin): (i64, i64) = sqlx::query_as(
        "SELECT d.organization_id, u.id FROM devices d, users u \
         WHERE d.id = $1 AND u.email = 'admin@agent.test'",
    )
    .bind(c.device)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    // A second task of the same operation (the demo model serves both), which the
    // barcode GO-VALVE starts: associated from the portal.
    let valve_task = gemba_cloud::db::tasks::insert(
        db,
        org,
        &TaskSettings::new("Assemble valve".into(), d.truth.operation.clone()),
        "created",
        gemba_cloud::db::tasks::Author {
            id: admin,
            name: "test",
        },
    )
    .await
    .unwrap();
    let (code, made) = portal
        .send(
            Method::PUT,
            "account/create_custom_barcode/",
            &json!({"barcode_value": VALVE, "organization": org}),
        )
        .await;
    assert_eq!(code, 201, "{made}");
    let (code, link) = portal
        .send(
            Method::POST,
            "account/associate_barcode/",
            &json!({"task": valve_task, "barcode_id": made["id"]}),
        )
        .await;
    assert_eq!(code, 201, "{link}");

    let data = dir.path().join("agent");
    enroll(&data, &c.url);
    let agent = run_cameras(
        &data,
        &d,
        &[
            format!("cam0={}", part.display()),
            format!("cam1={}", valve.display()),
        ],
        &["--loop", "--heartbeat", "1"],
    );

    // cam1 read GO-VALVE: it runs the valve task, by the barcode, and stays so.
    wait_for("cam1 switched to the barcode's task", 120, async || {
        camera(&c, "cam1").await.is_some_and(|x| {
            x.task == Some(valve_task)
                && x.barcode.as_deref() == Some(VALVE)
                && x.state == CameraState::Running
        })
    })
    .await;
    let cam0 = camera(&c, "cam0").await.unwrap();
    assert_eq!((cam0.task, cam0.barcode), (Some(c.task), None));

    // The part's label on a cycle of each: cam0's (the first task), then cam1's (the
    // valve task, after the switch).
    let mut at_cam0 = vec![];
    let mut at_cam1 = vec![];
    wait_for(
        "cycles carrying the part's barcode at both",
        180,
        async || {
            at_cam0 = cycles_with(db, "cam0", PART).await;
            at_cam1 = cycles_with(db, "cam1", PART).await;
            !at_cam0.is_empty() && !at_cam1.is_empty()
        },
    )
    .await;
    // The label stays in view on cam0: one part, one cycle.
    assert_eq!(at_cam0.len(), 1, "{at_cam0:?}");
    assert_eq!(at_cam0[0].1, c.task);
    assert!(at_cam1.iter().all(|(_, t)| *t == valve_task), "{at_cam1:?}");
    // The barcode that started the valve task is on its first cycle.
    wait_for(
        "the valve task's first cycle with its barcode",
        60,
        async || {
            cycles_with(db, "cam1", VALVE)
                .await
                .iter()
                .any(|(_, t)| *t == valve_task)
        },
    )
    .await;
    // Still on the valve task: the cloud did not take the camera back.
    assert_eq!(camera(&c, "cam1").await.unwrap().task, Some(valve_task));

    // Traced by barcode along a line of the two stations: from cam1's cycle, the
    // first station's cycle is cam0's.
    let line = gemba_cloud::db::lines::create(
        db,
        org,
        "Sensor line",
        None,
        &[
            gemba_shared::api::v1::line::Station {
                task: c.task,
                device: c.device,
            },
            gemba_shared::api::v1::line::Station {
                task: valve_task,
                device: c.device,
            },
        ],
    )
    .await
    .unwrap();
    let trace = portal
        .get_in(
            org,
            &format!(
                "telemetry/trace/line_traceability/?line={line}&cycle_id={}&by=barcode",
                at_cam1[0].0
            ),
        )
        .await;
    assert_eq!(trace["by"], "barcode", "{trace}");
    assert_eq!(trace["barcode"], PART, "{trace}");
    assert_eq!(trace["position"], 1, "{trace}");
    let found: Vec<Option<&str>> = trace["stations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["cycle"]["id"].as_str())
        .collect();
    assert_eq!(
        found,
        [Some(at_cam0[0].0.as_str()), Some(at_cam1[0].0.as_str())],
        "{trace}"
    );
    interrupt(agent);
}
