//! `gemba-agent run`, the real binary, stopped as a service manager stops it: SIGTERM
//! (systemd's `KillSignal`, `docker stop`). Like Ctrl-C, it closes the cycle its camera
//! has open, delivers it, says it is offline and exits cleanly.

use std::process::Command;
use std::time::Duration;

use gemba_agent::clock::now_ms;

mod common;
use common::{cloud, demo, enroll, run_cameras, wait_for};

/// Stored cycles: start and end, wall clock (the footage read at real time).
async fn cycles(db: &gemba_cloud::db::Db) -> Vec<(i64, i64)> {
    sqlx::query_as("SELECT start_ms, end_ms FROM cycles ORDER BY start_ms")
        .fetch_all(&db.pool)
        .await
        .unwrap()
}

/// Cycles waiting in the outbox of the agent in `data`: start and end.
fn waiting(data: &std::path::Path) -> Vec<(i64, i64)> {
    let o = rusqlite::Connection::open(data.join("outbox.db")).unwrap();
    let payloads: Vec<Vec<u8>> = o
        .prepare("SELECT payload FROM outbox WHERE key IS NOT NULL")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    payloads
        .iter()
        .map(|p| {
            let m: gemba_shared::mqtt::v1::CycleMessage = serde_json::from_slice(p).unwrap();
            (m.start_ms, m.end_ms)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_closes_the_open_cycle_and_goes_offline() {
    let d = demo();
    let c = cloud(None, &d.truth.operation).await;
    let data = tempfile::tempdir().unwrap();
    enroll(data.path(), &c.url);
    // The footage at real time: a cycle's times are the wall clock.
    let mut child = run_cameras(
        data.path(),
        &d,
        &[format!("cam0={}", d.footage.display())],
        &["--heartbeat", "3600", "--clip-seconds", "0"],
    );
    // The footage's first cycle, stored: where the footage's time is on the clock.
    wait_for("the first cycle", 90, async || {
        !cycles(&c.state.db).await.is_empty()
    })
    .await;
    let first = d.truth.cycles[0].start_ms;
    let offset = cycles(&c.state.db).await[0].0 - first;
    // Stopped in its second cycle, three of its four steps done (what ends a cycle),
    // more than three seconds before its last step ends.
    let second = &d.truth.cycles[1];
    let at = offset + second.start_ms + 8_500;
    assert!(at + 3_000 < offset + second.end_ms);
    tokio::time::sleep(Duration::from_millis((at - now_ms()).max(0) as u64)).await;
    assert_eq!(cycles(&c.state.db).await.len(), 1, "the second is open");
    let stopped = now_ms();
    Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .unwrap();
    let status = child.0.wait().unwrap();
    assert!(status.success(), "the agent exited with {status}");
    // The open cycle was closed where the agent stopped: stored, or in the outbox to be
    // sent at the next start.
    let mut recorded = cycles(&c.state.db).await;
    recorded.extend(waiting(data.path()));
    recorded.sort();
    recorded.dedup();
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    let (start, end) = recorded[1];
    assert!(
        (start - (offset + second.start_ms)).abs() < 2_000,
        "the second cycle starts at {start}, the footage's at {}",
        offset + second.start_ms
    );
    assert!(
        (end - stopped).abs() < 1_500,
        "it ends at {end}, stopped at {stopped}"
    );
    // And it said it is offline.
    wait_for("the device offline", 10, async || {
        let online: i64 = sqlx::query_scalar("SELECT online FROM devices WHERE id = $1")
            .bind(c.device)
            .fetch_one(&c.state.db.pool)
            .await
            .unwrap();
        online == 0
    })
    .await;
}
