//! Roll-out benchmark (issue 30): the time from "move to prod" until every one of
//! DEVICES simulated devices runs the new version, and the cloud's CPU for it.
//!
//! The cloud (SQLite, its embedded broker speaking TLS, as by default) runs in this
//! process; the devices run in a child process (this binary again, `devices FILE`), so
//! this process's CPU is the cloud's alone. Each device is an MQTT client with its own
//! credentials and certificate, as the agent: online with version 1.0.0, able to update
//! itself; on `Command::Update` it reports `downloading`, downloads the binary through
//! the command's signed URL (no other credentials) and checks its size, SHA-256 and
//! signature, acknowledges, reports `restarting`, then `done` running 2.0.0.
//!
//! A release of SIZE_MIB MiB is stored in `dev`, then moved to `prod` as
//! `binary_deployment/move_binaries_to_prod/` does (`gemba_cloud::releases::begin`),
//! and the clock runs until the release is `deployed`: every device done, the first
//! wave (a tenth) before the rest. Run by `bench/rollout.sh`:
//! `cargo run --release -p gemba-cloud --example rollout_bench -- [DEVICES] [SIZE_MIB] [RUNS]`

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::api::v1::device::Credentials;
use gemba_shared::mqtt::v1::{self, Channel, Command, UpdateReport, UpdateState};
use rumqttc::{AsyncClient, Event, Packet, QoS};
use sha2::{Digest, Sha256};

mod common;
use common::{Dev, Seed, Seeded, enrol, seeded};

/// CPU time of process `pid` (`self` for this one) so far, in ms.
fn cpu_ms(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(") ").map(|r| r.1).unwrap_or("");
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| f.get(i)?.parse::<f64>().ok())
        .sum();
    ticks * 10.0
}

fn status(version: &str, update: Option<UpdateReport>) -> v1::StatusMessage {
    // Through JSON: fields added later with their defaults.
    serde_json::from_value(serde_json::json!({
        "v": 1,
        "online": true,
        "ts_ms": 1,
        "agent_version": version,
        "cameras": [],
        "outbox": 0,
        "disk_free_mb": null,
        "temperature_c": null,
        "target": "x86_64",
        "updatable": true,
        "update": update,
    }))
    .expect("a status")
}

/// One simulated device: online at 1.0.0, answering update commands as the agent does.
async fn device(
    c: Credentials,
    addr: SocketAddr,
    http: reqwest::Client,
    ready: tokio::sync::mpsc::Sender<()>,
) -> anyhow::Result<()> {
    let key = STANDARD.decode(&c.key)?;
    let dev = Dev {
        org: c.organization,
        id: c.device,
        kid: c.credential_id.to_string(),
        key: key.clone(),
        tls: c.tls.clone(),
    };
    let (mut opts, prefix) = dev.options(addr);
    opts.set_keep_alive(Duration::from_secs(30));
    opts.set_max_packet_size(1 << 20, 1 << 20);
    let topic = |ch: Channel| {
        format!(
            "{prefix}{}",
            v1::topic(&c.organization.to_string(), &c.device.to_string(), ch)
        )
    };
    let (client, mut events) = AsyncClient::new(opts, 16);
    client
        .subscribe(topic(Channel::Cmd), QoS::AtLeastOnce)
        .await?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let cmd_topic = topic(Channel::Cmd);
    let (sub_tx, sub_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut sub = Some(sub_tx);
        while let Ok(ev) = events.poll().await {
            match ev {
                Event::Incoming(Packet::SubAck(_)) => {
                    if let Some(s) = sub.take() {
                        let _ = s.send(());
                    }
                }
                Event::Incoming(Packet::Publish(p)) if p.topic == cmd_topic => {
                    let _ = tx.send(p.payload.to_vec());
                }
                _ => {}
            }
        }
    });
    sub_rx.await.context("subscribed")?;
    let mut ts = 0i64;
    let kid = dev.kid.clone();
    let send_status = async |ts: &mut i64, s: v1::StatusMessage| -> anyhow::Result<()> {
        *ts = (*ts + 1).max(gemba_cloud::db::now_ms());
        let s = v1::StatusMessage { ts_ms: *ts, ..s };
        client
            .publish(
                topic(Channel::Status),
                QoS::AtLeastOnce,
                false,
                v1::sign(&key, &kid, &s),
            )
            .await?;
        Ok(())
    };
    let mut version = "1.0.0".to_string();
    send_status(&mut ts, status(&version, None)).await?;
    ready.send(()).await.ok();
    let release_key = c.release_key.clone().unwrap_or_default();
    while let Some(payload) = rx.recv().await {
        let Ok(m) = v1::verify::<v1::CommandMessage>(&key, &payload) else {
            continue;
        };
        let Command::Update {
            release,
            version: new,
            target,
            url,
            sha256,
            size_bytes,
            signature,
        } = m.command
        else {
            continue;
        };
        if version == new {
            continue;
        }
        let report = |state| UpdateReport {
            release,
            version: new.clone(),
            state,
            detail: None,
        };
        send_status(
            &mut ts,
            status(&version, Some(report(UpdateState::Downloading))),
        )
        .await?;
        let bytes = http
            .get(&url)
            .send()
            .await?
            .error_for_status()?
            .bytes()
            .await?;
        let sha = gemba_shared::hex(&Sha256::digest(&bytes));
        anyhow::ensure!(
            bytes.len() as i64 == size_bytes && sha == sha256,
            "a bad download"
        );
        gemba_shared::release::verify(&release_key, &signature, &target, &new, size_bytes, &sha)
            .map_err(anyhow::Error::msg)?;
        let ack = v1::CommandAck {
            v: 1,
            id: m.id.clone(),
            ok: true,
            message: "in place".into(),
            opcua: None,
        };
        client
            .publish(
                topic(Channel::CmdAck),
                QoS::AtLeastOnce,
                false,
                v1::sign(&key, &kid, &ack),
            )
            .await?;
        send_status(
            &mut ts,
            status(&version, Some(report(UpdateState::Restarting))),
        )
        .await?;
        version = new.clone();
        send_status(&mut ts, status(&version, Some(report(UpdateState::Done)))).await?;
    }
    Ok(())
}

/// The child: every device of the credentials in `file`, connected to `addr`.
async fn devices(file: &str, addr: SocketAddr) -> anyhow::Result<()> {
    let creds: Vec<Credentials> = serde_json::from_slice(&std::fs::read(file)?)?;
    let http = reqwest::Client::new();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(creds.len().max(1));
    let n = creds.len();
    let mut tasks = vec![];
    for c in creds {
        let (http, ready) = (http.clone(), ready_tx.clone());
        tasks.push(tokio::spawn(async move {
            if let Err(e) = device(c, addr, http, ready).await {
                eprintln!("a device failed: {e:#}");
            }
        }));
        // Not all at once: the reconnect benchmark is about that.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for _ in 0..n {
        ready_rx.recv().await;
    }
    println!("ready");
    for t in tasks {
        let _ = t.await;
    }
    Ok(())
}

/// Rows of `sql` (a count).
async fn count(state: &gemba_cloud::state::AppState, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&state.db.pool)
        .await
        .unwrap_or(0)
}

async fn run(n: i64, size_mib: usize, run: usize) -> anyhow::Result<(f64, f64, f64, f64)> {
    let dir = tempfile::tempdir()?;
    let seed = Seed {
        workers: 2,
        tls: true,
        ..Seed::default()
    };
    let Seeded { state, mqtt, .. } = seeded(&dir, seed).await?;
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
    // The release, in dev: SIZE_MIB of bytes, signed with the cloud's own key.
    let bytes: Vec<u8> = (0..size_mib * 1024 * 1024)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3])
        .collect();
    let sha = gemba_shared::hex(&Sha256::digest(&bytes));
    let key = gemba_cloud::release_key::signing_key(&gemba_cloud::release_key::key_path(
        &state.settings.data,
    ))?;
    let version = "2.0.0";
    let size = bytes.len() as i64;
    let name = format!("releases/bench-{run}.bin");
    use object_store::ObjectStoreExt;
    state
        .objects
        .put(
            &object_store::path::Path::from(format!("platform/{name}")),
            bytes.into(),
        )
        .await?;
    let id = gemba_cloud::db::releases::insert(
        &state.db,
        &gemba_cloud::db::releases::NewRelease {
            environment: "dev",
            branch: "main",
            version,
            target: "x86_64",
            size_bytes: size,
            sha256: &sha,
            signature: &key.sign("x86_64", version, size, &sha),
            object_key: &name,
            by: 1,
        },
    )
    .await?;
    // The devices, in a child process.
    let creds: Vec<Credentials> = devs
        .iter()
        .map(|d| Credentials {
            organization: d.org,
            device: d.id,
            display_name: format!("Bench {}", d.id),
            credential_id: d.kid.parse().unwrap_or(0),
            key: STANDARD.encode(&d.key),
            mqtt: format!("mqtts://{mqtt}"),
            tls: d.tls.clone(),
            release_key: Some(state.release_key.clone()),
        })
        .collect();
    let file = dir.path().join("devices.json");
    std::fs::write(&file, serde_json::to_vec(&creds)?)?;
    let mut child = tokio::process::Command::new(std::env::current_exe()?)
        .arg("devices")
        .arg(&file)
        .arg(mqtt.to_string())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let pid = child.id().context("the devices' process")?.to_string();
    {
        use tokio::io::AsyncBufReadExt;
        let out = child.stdout.take().context("stdout")?;
        let mut lines = tokio::io::BufReader::new(out).lines();
        while let Some(l) = lines.next_line().await? {
            if l == "ready" {
                break;
            }
        }
    }
    // Every device's status taken.
    let t_wait = Instant::now();
    while count(
        &state,
        "SELECT COUNT(*) FROM devices WHERE online = 1 AND status LIKE '%x86_64%'",
    )
    .await
        < n
    {
        anyhow::ensure!(
            t_wait.elapsed() < Duration::from_secs(120),
            "devices not online"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Move to prod, and the clock runs.
    let (c0, d0, t0) = (cpu_ms("self"), cpu_ms(&pid), Instant::now());
    let row = gemba_cloud::db::releases::get(&state.db, id)
        .await?
        .context("the release")?;
    gemba_cloud::releases::begin(&state, &row, "prod").await?;
    let mut first_wave = None;
    loop {
        let r = gemba_cloud::db::releases::get(&state.db, id)
            .await?
            .context("the release")?;
        if first_wave.is_none()
            && r.devices_done >= gemba_cloud::rollout::first_wave(n as usize) as i64
        {
            first_wave = Some(t0.elapsed().as_secs_f64());
        }
        if r.state == "deployed" {
            break;
        }
        anyhow::ensure!(
            r.state == "rolling_out" && t0.elapsed() < Duration::from_secs(600),
            "the roll-out is {} ({}): {} of {} done",
            r.state,
            r.reason.unwrap_or_default(),
            r.devices_done,
            r.devices_total
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let secs = t0.elapsed().as_secs_f64();
    let (cloud, devices) = (cpu_ms("self") - c0, cpu_ms(&pid) - d0);
    child.kill().await.ok();
    Ok((
        secs,
        first_wave.unwrap_or(0.0),
        cloud / 1000.0,
        devices / 1000.0,
    ))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("devices") {
        let addr: SocketAddr = args.get(3).context("the broker")?.parse()?;
        return devices(args.get(2).context("the file")?, addr).await;
    }
    let n: i64 = args.get(1).map_or(Ok(100), |s| s.parse())?;
    let size: usize = args.get(2).map_or(Ok(16), |s| s.parse())?;
    let runs: usize = args.get(3).map_or(Ok(3), |s| s.parse())?;
    for r in 0..runs {
        let (secs, first, cloud, devs) = run(n, size, r).await?;
        println!(
            "run {}: {n} devices, {size} MiB release: all on the new version {secs:.2} s after \
             the move (first wave {first:.2} s); cloud CPU {cloud:.2} s ({:.1} ms a device), \
             devices' CPU {devs:.2} s",
            r + 1,
            cloud * 1000.0 / n as f64
        );
    }
    Ok(())
}
