//! Ingestion benchmark (issue "Edge agent"): N simulated devices publish M signed cycles
//! each, QoS 1, as fast as the broker takes them.
//!
//! 1. The broker alone: an embedded broker (rumqttd, as the cloud embeds it) with one
//!    subscriber counting the messages: the ceiling.
//! 2. The cloud: `gemba-cloud` in this process (its own embedded broker, SQLite or
//!    PostgreSQL), the same publishers; measured until every cycle is a row.
//!
//! Prints cycles/s for both, their ratio, and the latency from publishing a cycle to
//! its row (`received_at`, stamped in the transaction that stores it) at p50 and p99.
//! Run by `bench/ingest.sh`:
//! `cargo run --release -p gemba-cloud --example ingest_bench -- [sqlite|postgres] [DEVICES] [CYCLES] [RATE]`
//!
//! With RATE (cycles/s in all), only the cloud runs, the devices publishing at that
//! rate: the latency below saturation.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use gemba_cloud::db::now_ms;
use gemba_shared::cycle::{Cycle, Segment};
use gemba_shared::mqtt::v1::{self, Channel, CycleMessage};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

mod common;
use common::{Dev, Seed, Seeded, enrol, seeded};

fn cycle(task: i64, i: i64) -> CycleMessage {
    // Time-ordered ids as the agent makes them, or random ones with BENCH_IDS=v4 (read
    // once, not per cycle).
    static RANDOM_IDS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let random = *RANDOM_IDS.get_or_init(|| std::env::var("BENCH_IDS").as_deref() == Ok("v4"));
    let id = if random {
        uuid::Uuid::new_v4()
    } else {
        uuid::Uuid::now_v7()
    };
    let mut m = CycleMessage::new(
        id.to_string(),
        task,
        "cam0".into(),
        Cycle {
            start_ms: i * 60_000,
            end_ms: i * 60_000 + 45_000,
            segments: (0..3)
                .map(|s| Segment {
                    step: s,
                    start_ms: i * 60_000 + i64::from(s) * 15_000,
                    end_ms: i * 60_000 + i64::from(s + 1) * 15_000,
                })
                .collect(),
            idle_ms: 0,
            good: true,
            reasons: vec![],
        },
    );
    m.metadata.insert("sent_ms".into(), now_ms().to_string());
    m
}

/// Publishes `cycles` signed cycles per device, all devices at once: as fast as the
/// broker takes them, or at `rate` cycles/s in all (a tick every 10 ms); answers when
/// every publish was acknowledged by the broker.
async fn publish_all(broker: SocketAddr, devs: &[Dev], task: i64, cycles: i64, rate: Option<f64>) {
    let per_tick = rate.map(|r| r / 100.0 / devs.len() as f64);
    let mut handles = vec![];
    for d in devs {
        let (org, id, kid, key) = (d.org, d.id, d.kid.clone(), d.key.clone());
        let options = d.options(broker);
        handles.push(tokio::spawn(async move {
            // Each device as itself: the broker checks its login (gemba_shared::broker),
            // over TLS with its certificate when the broker speaks it.
            let (mut opts, prefix) = options;
            opts.set_keep_alive(Duration::from_secs(30));
            opts.set_inflight(100);
            let (client, mut events) = AsyncClient::new(opts, 200);
            let topic = v1::topic(&org.to_string(), &id.to_string(), Channel::Cycles);
            let topic = format!("{prefix}{topic}");
            let sender = tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_millis(10));
                let mut owed = 0.0;
                for i in 0..cycles {
                    if let Some(n) = per_tick {
                        while owed < 1.0 {
                            tick.tick().await;
                            owed += n;
                        }
                        owed -= 1.0;
                    }
                    let payload = v1::sign(&key, &kid, &cycle(task, i));
                    client
                        .publish(topic.clone(), QoS::AtLeastOnce, false, payload)
                        .await
                        .unwrap();
                }
                client
            });
            let mut acked = 0;
            while acked < cycles {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::PubAck(_))) => acked += 1,
                    Ok(_) => {}
                    Err(e) => panic!("publisher {id}: {e}"),
                }
            }
            let _client = sender.await.unwrap();
        }));
    }
    for h in handles {
        h.await.unwrap();
    }
}

/// The broker alone: cycles/s from publish to a subscriber, and the CPU time of this
/// process per message (µs).
async fn broker_only(devices: i64, cycles: i64) -> anyhow::Result<(f64, f64)> {
    // A cloud's state (SQLite) holds the devices' keys the broker checks logins with;
    // the cloud itself does not run.
    let dir = tempfile::tempdir()?;
    let Seeded {
        state, mqtt: addr, ..
    } = seeded(&dir, Seed::default()).await?;
    let devs = enrol(&state, devices).await?;
    let login = gemba_cloud::mqtt::Login::random();
    gemba_cloud::mqtt::start_embedded(addr, &state, &login, None).await?;
    let total = (devices * cycles) as u64;
    let seen = Arc::new(AtomicU64::new(0));
    let mut opts = MqttOptions::new("bench-sub", addr.ip().to_string(), addr.port());
    login.apply(&mut opts);
    opts.set_keep_alive(Duration::from_secs(30));
    let (sub, mut events) = AsyncClient::new(opts, 100);
    sub.subscribe(format!("{}/+/+/cycles", v1::PREFIX), QoS::AtLeastOnce)
        .await?;
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let s2 = seen.clone();
    tokio::spawn(async move {
        let _sub = sub;
        let mut ready = Some(ready_tx);
        while let Ok(ev) = events.poll().await {
            match ev {
                Event::Incoming(Packet::SubAck(_)) => {
                    if let Some(r) = ready.take() {
                        let _ = r.send(());
                    }
                }
                Event::Incoming(Packet::Publish(_)) => {
                    s2.fetch_add(1, Ordering::Relaxed);
                }
                _ => {}
            }
        }
    });
    ready_rx.await?;
    let (cpu0, _) = cpu_ms();
    let t0 = Instant::now();
    publish_all(addr, &devs, 1, cycles, None).await;
    while seen.load(Ordering::Relaxed) < total {
        anyhow::ensure!(
            t0.elapsed() < Duration::from_secs(300),
            "the subscriber stalled"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let rate = total as f64 / t0.elapsed().as_secs_f64();
    Ok((rate, (cpu_ms().0 - cpu0) * 1000.0 / total as f64))
}

/// What a run into the cloud measured.
struct Run {
    rate: f64,
    /// Publish-to-row latencies (ms), sorted.
    lat: Vec<i64>,
    /// CPU time per cycle (µs) of this process, and of the PostgreSQL server.
    cpu_us: (f64, f64),
}

/// The cloud: cycles/s from publish to row, the publish-to-row latencies and the CPU
/// time it took.
async fn cloud(
    backend: &str,
    devices: i64,
    cycles: i64,
    rate: Option<f64>,
    workers: usize,
    tls: bool,
) -> anyhow::Result<Run> {
    let dir = tempfile::tempdir()?;
    let database_url = match backend {
        "postgres" => {
            let admin = std::env::var("GEMBA_TEST_PG_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
            Some(gemba_cloud::seed::create_database(&admin, "gemba_ingest").await?)
        }
        _ => None,
    };
    let Seeded {
        state, task, mqtt, ..
    } = seeded(
        &dir,
        Seed {
            database_url,
            workers,
            tls,
            ..Seed::default()
        },
    )
    .await?;
    let devs = enrol(&state, devices).await?;
    let listener = tokio::net::TcpListener::bind(state.settings.http).await?;
    let s2 = state.clone();
    tokio::spawn(async move {
        gemba_cloud::launch(s2, listener, std::future::pending())
            .await
            .unwrap()
    });
    while !state.mqtt.is_connected() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let total = devices * cycles;
    let cpu0 = cpu_ms();
    let t0 = Instant::now();
    publish_all(mqtt, &devs, task, cycles, rate).await;
    // Counted by ingestion once a batch's transaction committed (polling COUNT(*) would
    // scan the growing table every few ms, on the database's CPU); checked below.
    while (state.mqtt.stats.cycles.load(Ordering::Relaxed) as i64) < total {
        anyhow::ensure!(
            t0.elapsed() < Duration::from_secs(600),
            "only {} of {total} stored",
            state.mqtt.stats.cycles.load(Ordering::Relaxed)
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let rate = total as f64 / t0.elapsed().as_secs_f64();
    let cpu1 = cpu_ms();
    let per = |a: f64, b: f64| (b - a) * 1000.0 / total as f64;
    let cpu_us = (per(cpu0.0, cpu1.0), per(cpu0.1, cpu1.1));
    let rows: Vec<(String, i64)> = sqlx::query_as("SELECT metadata, received_at FROM cycles")
        .fetch_all(&state.db.pool)
        .await?;
    anyhow::ensure!(
        rows.len() as i64 == total,
        "{} rows for {total} cycles",
        rows.len()
    );
    let mut lat: Vec<i64> = rows
        .into_iter()
        .map(|(m, at)| {
            let m: std::collections::BTreeMap<String, String> = serde_json::from_str(&m).unwrap();
            at - m["sent_ms"].parse::<i64>().unwrap()
        })
        .collect();
    lat.sort_unstable();
    if let Some(url) = &state.settings.database_url {
        let admin = std::env::var("GEMBA_TEST_PG_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
        state.db.pool.close().await;
        gemba_cloud::seed::drop_database(&admin, url).await?;
    }
    Ok(Run { rate, lat, cpu_us })
}

/// CPU time used so far, in ms: by this process (the broker, the publishers and the
/// cloud), and by the PostgreSQL server's processes on this machine (`postgres`).
fn cpu_ms() -> (f64, f64) {
    static TICK_MS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    let tick_ms = *TICK_MS.get_or_init(|| {
        let out = std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output();
        let hz: f64 = out
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100.0);
        1000.0 / hz
    });
    // utime + stime of /proc/PID/stat, and the process's name.
    let ticks = |dir: &std::path::Path| -> Option<(String, f64)> {
        let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
        let (name, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
        let f: Vec<&str> = rest.split(' ').collect();
        Some((
            name.to_string(),
            f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?,
        ))
    };
    let me = ticks(std::path::Path::new("/proc/self")).map_or(0.0, |t| t.1);
    let mut pg = 0.0;
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Some((name, t)) = ticks(&e.path())
            && name == "postgres"
        {
            pg += t;
        }
    }
    (me * tick_ms, pg * tick_ms)
}

fn pct(sorted: &[i64], p: f64) -> i64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let backend = args.first().map_or("sqlite", String::as_str).to_string();
    let devices: i64 = args.get(1).map_or(Ok(20), |s| s.parse())?;
    let cycles: i64 = args.get(2).map_or(Ok(500), |s| s.parse())?;
    if let Some(offered) = args.get(3) {
        let offered: f64 = offered.parse()?;
        let r = cloud(&backend, devices, cycles, Some(offered), 2, true).await?;
        println!(
            "ingest {backend}: {devices} devices x {cycles} cycles offered at {offered:.0} cycles/s: \
             stored {:.0} cycles/s, publish-to-row p50 {} ms, p99 {} ms",
            r.rate,
            pct(&r.lat, 0.5),
            pct(&r.lat, 0.99)
        );
        return Ok(());
    }
    let (broker, broker_us) = broker_only(devices, cycles).await?;
    // The same load with the signatures checked on one thread, then on two (the default),
    // plain; then the default over TLS (each device its certificate and tenant).
    let mut plain = 0.0;
    for (workers, tls) in [(1, false), (2, false), (2, true)] {
        let r = cloud(&backend, devices, cycles, None, workers, tls).await?;
        let (me_us, pg_us) = r.cpu_us;
        let over = if tls { "TLS" } else { "plain MQTT" };
        println!(
            "ingest {backend}: {devices} devices x {cycles} cycles: broker alone {broker:.0} msg/s, \
             into {backend} over {over} with {workers} checking thread(s) {:.0} cycles/s ({:.0}% of the broker), \
             publish-to-row p50 {} ms, p99 {} ms; CPU per cycle: broker alone {broker_us:.1} µs, \
             into {backend} {me_us:.1} µs in this process + {pg_us:.1} µs in PostgreSQL",
            r.rate,
            100.0 * r.rate / broker,
            pct(&r.lat, 0.5),
            pct(&r.lat, 0.99)
        );
        if tls {
            println!(
                "ingest {backend}: TLS against plain MQTT (2 threads, side by side): {:.0}% of the throughput",
                100.0 * r.rate / plain
            );
        } else {
            plain = r.rate;
        }
    }
    Ok(())
}
