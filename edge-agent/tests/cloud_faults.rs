//! The cloud's faults while an agent works (issue 5, "Reliability"): the cloud killed
//! (SIGKILL) in the middle of ingestion and started again, on its embedded broker (which
//! dies with it) and on Mosquitto; and two replicas sharing ingestion on Mosquitto, one
//! killed mid-stream. The cloud is the real `gemba-cloud serve` process, the agent the
//! real `gemba-agent run` replaying the demo footage. Each time, every cycle the agent
//! recorded is stored, and the agent's outbox lets each go once the cloud confirmed it.

use std::collections::BTreeSet;

mod common;
use common::{Served, demo, enroll, interrupt, outbox_cycles, run, stored, wait_for};

/// The cycles the agent in `agent` recorded: stored in `db` or waiting in its outbox.
async fn recorded(db: &gemba_cloud::db::Db, agent: &std::path::Path) -> BTreeSet<String> {
    let mut all = stored(db).await;
    all.extend(outbox_cycles(agent));
    all
}

/// Waits until every cycle of `recorded` is stored and none waits in the outbox.
async fn all_arrive(
    db: &gemba_cloud::db::Db,
    agent: &std::path::Path,
    recorded: &BTreeSet<String>,
) {
    wait_for(
        "every recorded cycle stored and confirmed",
        120,
        async || {
            stored(db).await.is_superset(recorded)
                && outbox_cycles(agent).intersection(recorded).next().is_none()
        },
    )
    .await;
}

async fn killed_mid_ingestion_and_started_again(mqtt: String) {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let served = Served::new(dir.path().join("cloud"), mqtt, None);
    served.seed(&d.truth.operation).await;
    let cloud = served.start().await;
    let db = served.db().await;
    let agent = dir.path().join("agent");
    enroll(&agent, &served.url());
    let child = run(&agent, &d, &["--loop"]);
    wait_for("some cycles", 120, async || stored(&db).await.len() >= 5).await;

    drop(cloud);
    let at_kill = stored(&db).await;
    // The agent goes on recording into its outbox, and nothing reaches the database.
    wait_for("cycles recorded while the cloud is down", 60, async || {
        outbox_cycles(&agent).difference(&at_kill).count() >= 3
    })
    .await;
    assert_eq!(stored(&db).await, at_kill, "no cloud, nothing stored");
    let before_restart = recorded(&db, &agent).await;

    let _cloud = served.start().await;
    all_arrive(&db, &agent, &before_restart).await;
    let n = stored(&db).await.len();
    wait_for("new cycles after the restart", 60, async || {
        stored(&db).await.len() > n
    })
    .await;
    interrupt(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_killed_mid_ingestion_loses_nothing_embedded_broker() {
    let mqtt = format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair());
    killed_mid_ingestion_and_started_again(mqtt).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloud_killed_mid_ingestion_loses_nothing_through_mosquitto() {
    let url = std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or("mqtt://127.0.0.1:1883".into());
    killed_mid_ingestion_and_started_again(url).await;
}

/// Two replicas on one PostgreSQL database and Mosquitto share the agent's messages
/// (an MQTT 5 shared subscription); one is killed mid-stream: the other goes on alone,
/// and what the killed one had taken but not stored is sent again by the agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_ingestion_and_one_killed_mid_stream_loses_nothing() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let admin = std::env::var("GEMBA_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    // An empty database its replicas migrate (not a template copy, as the API suite's):
    // on the copy, this test once saw no cycle in 120 s beside the through-Mosquitto
    // test of this file (passing alone); the cause is not found yet (see the session
    // note of 2026-11-29), and this form has passed in every CI run.
    let pg = gemba_cloud::seed::create_database(&admin, "gemba_t")
        .await
        .expect("PostgreSQL must be running for the tests");
    let broker = std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or("mqtt://127.0.0.1:1883".into());
    let one = Served::new(dir.path().join("one"), broker, Some(pg.clone()));
    let two = one.replica(dir.path().join("two"));
    one.seed(&d.truth.operation).await;
    let p1 = one.start().await;
    let _p2 = two.start().await;
    let db = one.db().await;
    let agent = dir.path().join("agent");
    enroll(&agent, &one.url());
    let child = run(&agent, &d, &["--loop"]);

    // Both replicas take part.
    let cycles = |h: serde_json::Value| h["ingest"]["cycles"].as_u64().unwrap();
    wait_for("both replicas storing cycles", 120, async || {
        cycles(one.health().await) > 0 && cycles(two.health().await) > 0
    })
    .await;

    drop(p1);
    let at_kill = stored(&db).await.len();
    wait_for("the other replica storing on alone", 60, async || {
        stored(&db).await.len() >= at_kill + 10
    })
    .await;
    let so_far = recorded(&db, &agent).await;
    all_arrive(&db, &agent, &so_far).await;
    assert!(cycles(two.health().await) > 0);
    interrupt(child);
    db.pool.close().await;
    gemba_cloud::seed::drop_database(&admin, &pg).await.unwrap();
}
