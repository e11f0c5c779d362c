//! A device's configuration (issue 29) through the real agent and the real cloud, set
//! from the portal's calls: a schedule starts and stops a task on a camera on time
//! while the device is offline (its broker down) at the start and at the end; a
//! screenshot taken through the cloud has the camera's blur region pixelated, and
//! only it.

use std::time::Duration;

use chrono::{Datelike, Timelike, Utc};
use gemba_agent::capture::blur::{Rect, area, block_size, pixels};
use gemba_agent::capture::first_frame;
use reqwest::Method;
use serde_json::{Value, json};

mod common;
use common::{Broker, Cloud, camera, demo, device_status, interrupt, live_station, wait_for};

/// The configuration version the device's last status says it applies.
async fn applied(c: &Cloud) -> i64 {
    device_status(c).await.map_or(0, |s| s.config_version)
}

/// The task camera `name` runs by the device's last status, and the schedule that runs it.
async fn runs(c: &Cloud, name: &str) -> (Option<i64>, Option<i64>) {
    camera(c, name)
        .await
        .map_or((None, None), |x| (x.task, x.schedule))
}

/// What the agent in `data` keeps of what runs where.
fn running(data: &std::path::Path) -> Value {
    std::fs::read(data.join("running.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null)
}

/// Sleeps until the wall clock passes `ms`.
async fn until(ms: i64) {
    let now = Utc::now().timestamp_millis();
    if ms > now {
        tokio::time::sleep(Duration::from_millis((ms - now) as u64)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schedule_starts_and_stops_its_task_on_time_while_the_device_is_offline() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let port = gemba_cloud::seed::free_port_pair();
    let broker = Broker::start(dir.path(), port);
    // The portal runs the task on cam0; cam1 is left to the schedule.
    let footage = d.footage.display();
    let (c, portal, agent) = live_station(
        dir.path(),
        &d,
        Some(format!("mqtt://127.0.0.1:{port}")),
        &[format!("cam0={footage}"), format!("cam1={footage}")],
        &[],
    )
    .await;
    let data = dir.path().join("agent");
    wait_for("cam0 running its task", 60, async || {
        runs(&c, "cam0").await.0 == Some(c.task)
    })
    .await;

    // Today (UTC, the organisation's time zone), from the next minute at least 15 s
    // away, for a minute.
    if Utc::now().hour() == 23 && Utc::now().minute() >= 57 {
        tokio::time::sleep(Duration::from_secs(240)).await;
    }
    let now = Utc::now();
    let ahead = now + chrono::Duration::seconds(75);
    let start = ahead.with_second(0).unwrap().with_nanosecond(0).unwrap();
    let end = start + chrono::Duration::minutes(1);
    let hhmm = |t: chrono::DateTime<Utc>| format!("{:02}:{:02}", t.hour(), t.minute());
    let (code, made) = portal
        .send(
            Method::POST,
            "device/add_schedules",
            &json!({
                "device": c.device, "camera": "cam1", "task": c.task,
                "days": [start.weekday().num_days_from_monday()],
                "start": hhmm(start), "end": hhmm(end),
            }),
        )
        .await;
    assert_eq!(code, 201, "{made}");
    let schedule = made["id"]
        .as_i64()
        .unwrap_or_else(|| made[0]["id"].as_i64().unwrap());
    let version = gemba_cloud::db::device_config::version(&c.state.db, c.device)
        .await
        .unwrap()
        .unwrap();
    wait_for("the agent applying the configuration", 30, async || {
        applied(&c).await == version
    })
    .await;
    assert_eq!(runs(&c, "cam1").await, (None, None));

    // Offline before the start: the broker goes.
    drop(broker);
    until(start.timestamp_millis() + 4_000).await;
    let kept = running(&data);
    assert_eq!(
        kept["cameras"]["cam1"][0], c.task,
        "started on time: {kept}"
    );
    assert_eq!(
        kept["scheduled"]["runs"]["cam1"]["schedule"], schedule,
        "{kept}"
    );
    // Back online: the status says the schedule runs it, and the cloud leaves it.
    let broker = Broker::start(dir.path(), port);
    wait_for("cam1 reported running by its schedule", 60, async || {
        runs(&c, "cam1").await == (Some(c.task), Some(schedule))
    })
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(runs(&c, "cam1").await.0, Some(c.task));

    // Offline again before the end.
    drop(broker);
    until(end.timestamp_millis() + 4_000).await;
    let kept = running(&data);
    assert!(kept["cameras"]["cam1"].is_null(), "stopped on time: {kept}");
    assert_eq!(kept["cameras"]["cam0"][0], c.task, "{kept}");
    let _broker = Broker::start(dir.path(), port);
    wait_for("cam1 reported stopped", 60, async || {
        runs(&c, "cam1").await == (None, None) && runs(&c, "cam0").await.0 == Some(c.task)
    })
    .await;
    // Its cycles of the window reached the cloud.
    wait_for("cam1's cycles stored", 60, async || {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM cycles WHERE device_id = $1 AND camera = 'cam1' \
             AND start_ms >= $2 AND end_ms <= $3",
        )
        .bind(c.device)
        .bind(start.timestamp_millis())
        .bind(end.timestamp_millis() + 5_000)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
        n >= 1
    })
    .await;
    interrupt(agent);
}

/// The largest standard deviation of a colour over the inner half of a block of
/// `region` (the blur's grid) in an RGB frame `w` wide.
fn roughest_block(rgb: &[u8], w: usize, h: usize, region: &Rect) -> f64 {
    let (x0, y0, x1, y1) = area(region, w, h);
    let block = block_size(x1 - x0, y1 - y0);
    let mut worst = 0f64;
    for by in (y0..y1 - block + 1).step_by(block) {
        for bx in (x0..x1 - block + 1).step_by(block) {
            let q = block / 4;
            for ch in 0..3 {
                let vals: Vec<f64> = (by + q..by + block - q)
                    .flat_map(|y| (bx + q..bx + block - q).map(move |x| (x, y)))
                    .map(|(x, y)| f64::from(rgb[(y * w + x) * 3 + ch]))
                    .collect();
                let mean = vals.iter().sum::<f64>() / vals.len() as f64;
                let var = vals.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / vals.len() as f64;
                worst = worst.max(var.sqrt());
            }
        }
    }
    worst
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screenshot_through_the_cloud_has_its_blur_region_pixelated() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let (c, portal, agent) = live_station(
        dir.path(),
        &d,
        None,
        &[format!("cam0={}", d.footage.display())],
        &[],
    )
    .await;
    wait_for("cam0 running its task", 60, async || {
        runs(&c, "cam0").await.0 == Some(c.task)
    })
    .await;
    let shot = |name: &'static str| {
        let (portal, dir, url) = (&portal, dir.path(), c.url.clone());
        async move {
            let s = portal
                .get(&format!(
                    "organization/get_screenshot?device={}&camera=cam0",
                    c.device
                ))
                .await;
            assert_eq!(s["camera"], "cam0", "{s}");
            let link = s["url"].as_str().unwrap();
            let link = if link.starts_with('/') {
                format!("{url}{link}")
            } else {
                link.to_string()
            };
            let jpeg = reqwest::get(&link).await.unwrap().bytes().await.unwrap();
            assert_eq!(jpeg[..3], [0xFF, 0xD8, 0xFF], "a JPEG");
            assert_eq!(s["size_bytes"], jpeg.len());
            let path = dir.join(name);
            std::fs::write(&path, &jpeg).unwrap();
            path
        }
    };
    // The demo's 640 × 480: the region holds the blue bin's corner (sharp edges).
    let (w, h) = (640, 480);
    let region = Rect {
        x: 0.1,
        y: 0.1,
        width: 0.2,
        height: 0.25,
    };
    let plain = first_frame(&shot("plain.jpg").await, w, h).unwrap();
    let rough = roughest_block(&plain, w as usize, h as usize, &region);
    assert!(rough > 15.0, "the region has detail to hide: {rough:.1}");

    let (code, v) = portal
        .send(
            Method::POST,
            "device/blur_regions",
            &json!({"device": c.device, "camera": "cam0", "regions": [
                {"x": region.x, "y": region.y, "width": region.width, "height": region.height}
            ]}),
        )
        .await;
    assert_eq!(code, 201, "{v}");
    let version = gemba_cloud::db::device_config::version(&c.state.db, c.device)
        .await
        .unwrap()
        .unwrap();
    wait_for("the agent applying the blur", 30, async || {
        applied(&c).await == version
    })
    .await;
    // Frames captured before it, still queued, pass first.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let blurred = first_frame(&shot("blurred.jpg").await, w, h).unwrap();
    let rough = roughest_block(&blurred, w as usize, h as usize, &region);
    assert!(
        rough < 3.0,
        "every block of the region is one colour: {rough:.1}"
    );
    // The rest of the frame is the footage's: the red bin, which nothing covers, as in
    // the plain screenshot. The two frames are seconds apart, and the footage's light
    // flickers (4% deep, a gain over the whole frame): the plain one is brought to the
    // blurred one's light first.
    let red = Rect {
        x: 0.4,
        y: 0.12,
        width: 0.15,
        height: 0.2,
    };
    let (x0, y0, x1, y1) = pixels(&red, w as usize, h as usize);
    let at: Vec<usize> = (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .flat_map(|(x, y)| (0..3).map(move |ch| (y * w as usize + x) * 3 + ch))
        .collect();
    let sum = |f: &[u8]| at.iter().map(|&i| f64::from(f[i])).sum::<f64>();
    let gain = sum(&blurred) / sum(&plain);
    assert!(
        (0.85..1.15).contains(&gain),
        "the light's change: {gain:.3}"
    );
    let mut diffs: Vec<f64> = at
        .iter()
        .map(|&i| (f64::from(plain[i]) * gain - f64::from(blurred[i])).abs())
        .collect();
    diffs.sort_unstable_by(f64::total_cmp);
    // The median: the hand may pass over a part of it.
    let median = diffs[diffs.len() / 2];
    assert!(
        median <= 3.0,
        "outside the region, the frame is the same: {median:.1} (light {gain:.3})"
    );
    interrupt(agent);
}
