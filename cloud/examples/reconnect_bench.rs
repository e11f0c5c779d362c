//! Reconnect-storm benchmark (issue 28): DEVICES enrolled devices connect to the
//! embedded broker all at once, as they do when it comes back after a restart, each
//! logging in as itself (the broker asks the cloud, which checks its key: `mqtt::access`).
//! Side by side in one process, in turn: over plain MQTT; over TLS, each device with its
//! client certificate and tenant (`mqtt_tls`, the default); and on a rumqttd with the
//! same settings, plain and with no login check (what the check costs).
//!
//! Prints, per run and side: seconds until every device has its CONNACK, and this
//! process's CPU per connection (µs; the clients' side of TLS included, as they run
//! here too). Run by `bench/reconnect.sh`:
//! `cargo run --release -p gemba-cloud --example reconnect_bench -- [DEVICES] [RUNS]`

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;
use gemba_shared::broker;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet};

mod common;
use common::{Dev, Seed, Seeded, enrol, seeded};

/// The cloud, on SQLite in `dir`, with `n` enrolled devices and its broker speaking TLS
/// when `tls`; started (embedded broker and link). Answers the broker's address and the
/// devices.
async fn cloud(
    dir: &tempfile::TempDir,
    n: i64,
    tls: bool,
) -> anyhow::Result<(SocketAddr, Vec<Dev>)> {
    let Seeded { state, mqtt, .. } = seeded(
        dir,
        Seed {
            tls,
            ..Seed::default()
        },
    )
    .await?;
    let devs = enrol(&state, n).await?;
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
    Ok((mqtt, devs))
}

/// A rumqttd with the embedded broker's settings and no login check.
fn open_broker() -> anyhow::Result<SocketAddr> {
    let addr: SocketAddr = format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair()).parse()?;
    let mut broker = rumqttd::Broker::new(gemba_cloud::mqtt::broker_config(addr));
    std::thread::spawn(move || {
        if let Err(e) = broker.start() {
            eprintln!("the open broker stopped: {e}");
        }
    });
    Ok(addr)
}

/// Every device connects at once to `addr` (as its agent does, logging in and over TLS
/// when it has a certificate, when `login`; else anonymously and plain); answers the
/// seconds until the last CONNACK and how many connections failed and were made again,
/// as the agent makes them (a client gives up on a CONNACK after 5 s). The devices
/// leave afterwards.
async fn storm(addr: SocketAddr, devs: &[Dev], login: bool) -> anyhow::Result<(f64, u32)> {
    let t0 = Instant::now();
    let mut clients = vec![];
    let mut acks = vec![];
    for d in devs {
        let mut o = if login {
            d.options(addr).0
        } else {
            let id = broker::client_id(d.id, &d.key);
            MqttOptions::new(id, addr.ip().to_string(), addr.port())
        };
        o.set_keep_alive(Duration::from_secs(60));
        let (client, mut events) = AsyncClient::new(o, 4);
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let mut tx = Some(tx);
            let mut failures = 0u32;
            loop {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(a))) => {
                        if let Some(tx) = tx.take() {
                            let _ = tx.send(Ok((a.code, Instant::now(), failures)));
                        }
                    }
                    Ok(_) => {}
                    // As the agent does: again after its back-off (the next poll
                    // connects anew), until the connection is in.
                    Err(_) if tx.is_some() && failures < 10 => {
                        failures += 1;
                        let wait = agent_backoff_ms(failures);
                        tokio::time::sleep(Duration::from_millis(wait)).await;
                    }
                    Err(e) => {
                        if let Some(tx) = tx.take() {
                            let _ = tx.send(Err(e.to_string()));
                        }
                        return;
                    }
                }
            }
        });
        clients.push(client);
        acks.push(rx);
    }
    let (mut last, mut again) = (t0, 0);
    for rx in acks {
        let (code, at, failures) = rx.await?.map_err(|e| anyhow::anyhow!(e))?;
        again += failures;
        anyhow::ensure!(
            code == rumqttc::ConnectReturnCode::Success,
            "refused: {code:?}"
        );
        last = last.max(at);
    }
    for c in clients {
        let _ = c.try_disconnect();
    }
    Ok(((last - t0).as_secs_f64(), again))
}

/// The agent's wait before connecting again after `failures` failures
/// (`gemba_agent::outbox::backoff_ms`: 500 ms doubling to 30 s).
fn agent_backoff_ms(failures: u32) -> u64 {
    (500u64 << failures.saturating_sub(1).min(6)).min(30_000)
}

/// CPU time of this process so far (ms).
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(") ").map(|r| r.1).unwrap_or("");
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| f.get(i)?.parse::<f64>().ok())
        .sum();
    ticks * 10.0
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let n: i64 = args.get(1).map_or(Ok(1000), |s| s.parse())?;
    let runs: usize = args.get(2).map_or(Ok(3), |s| s.parse())?;
    let dir = tempfile::tempdir()?;
    for run in 1..=runs {
        // A fresh broker each run: the storm meets it as after a restart.
        let run_dir = tempfile::tempdir_in(dir.path()).with_context(|| format!("run {run}"))?;
        let (plain, devs) = cloud(&run_dir, n, false).await?;
        let (plain_s, plain_again, plain_cpu) = measured(plain, &devs, true, n).await?;
        let tls_dir = tempfile::tempdir_in(dir.path()).with_context(|| format!("run {run}"))?;
        let (tls, tls_devs) = cloud(&tls_dir, n, true).await?;
        let (tls_s, tls_again, tls_cpu) = measured(tls, &tls_devs, true, n).await?;
        let open = open_broker()?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (open_s, open_again, open_cpu) = measured(open, &devs, false, n).await?;
        println!(
            "reconnect run {run}: {n} devices at once: plain with login check {plain_s:.2} s \
             ({plain_again} connections again), {plain_cpu:.0} µs CPU per connection; \
             TLS with login check {tls_s:.2} s ({tls_again} again), {tls_cpu:.0} µs; \
             open broker {open_s:.2} s ({open_again} again), {open_cpu:.0} µs; \
             time TLS / plain {:.2}, plain / open {:.2}",
            tls_s / plain_s,
            plain_s / open_s
        );
    }
    Ok(())
}

/// [`storm`], and this process's CPU per connection (µs) during it.
async fn measured(
    addr: SocketAddr,
    devs: &[Dev],
    login: bool,
    n: i64,
) -> anyhow::Result<(f64, u32, f64)> {
    let c0 = cpu_ms();
    let (secs, again) = storm(addr, devs, login).await?;
    Ok((secs, again, (cpu_ms() - c0) * 1000.0 / n as f64))
}
