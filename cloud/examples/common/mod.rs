//! What the cloud's benchmarks share: a cloud's state on a temporary database with one
//! organisation and task, and devices enrolled in it.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_cloud::config::{Kdf, Settings};
use gemba_cloud::db::devices;

/// A device as the benchmark drives it.
#[allow(dead_code, reason = "each benchmark reads the fields it needs")]
pub struct Dev {
    pub org: i64,
    pub id: i64,
    pub kid: String,
    pub key: Vec<u8>,
    /// Its TLS to the embedded broker, when the cloud's broker speaks it.
    pub tls: Option<gemba_shared::api::v1::device::BrokerTls>,
}

impl Dev {
    /// Its connection options to the broker at `addr` as its agent's (its login; TLS
    /// with its certificate when it has one), and the prefix of its topics.
    #[allow(dead_code, reason = "each benchmark reads the fields it needs")]
    pub fn options(&self, addr: SocketAddr) -> (rumqttc::MqttOptions, String) {
        use gemba_shared::broker;
        let mut o = rumqttc::MqttOptions::new(
            broker::client_id(self.id, &self.key),
            addr.ip().to_string(),
            addr.port(),
        );
        o.set_credentials(broker::username(self.id), broker::password(&self.key));
        let prefix = match &self.tls {
            None => String::new(),
            Some(t) => {
                let (c, prefix) = broker::tls::of_device(t).expect("TLS");
                o.set_transport(rumqttc::Transport::tls_with_config(
                    rumqttc::TlsConfiguration::Rustls(std::sync::Arc::new(c)),
                ));
                prefix
            }
        };
        (o, prefix)
    }
}

/// What a benchmark's cloud has besides the defaults.
#[allow(dead_code, reason = "each benchmark sets the fields it needs")]
pub struct Seed {
    /// PostgreSQL at this URL; SQLite in the temporary folder when absent.
    pub database_url: Option<String>,
    /// Ingestion workers.
    pub workers: usize,
    /// The embedded broker speaks TLS.
    pub tls: bool,
    /// The assistant's passage embedder (`Settings::embedding_model`): none when absent.
    pub embedding_model: Option<PathBuf>,
}

impl Default for Seed {
    fn default() -> Self {
        Self {
            database_url: None,
            workers: 1,
            tls: false,
            embedding_model: None,
        }
    }
}

/// A seeded cloud: its state, its one organisation with its admin and task, and the
/// address its embedded broker is to listen on.
#[allow(dead_code, reason = "each benchmark reads the fields it needs")]
pub struct Seeded {
    pub state: gemba_cloud::state::AppState,
    pub org: i64,
    /// The super admin, who made the organisation.
    pub admin: i64,
    pub task: i64,
    pub mqtt: SocketAddr,
}

/// A cloud's state on a temporary database in `dir` as `seed` says, with one
/// organisation and task.
pub async fn seeded(dir: &tempfile::TempDir, seed: Seed) -> anyhow::Result<Seeded> {
    let mqtt: SocketAddr = format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair()).parse()?;
    let http = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let settings = Settings {
        data: dir.path().join("data"),
        http,
        mqtt: mqtt.to_string(),
        database_url: seed.database_url,
        ingest_workers: seed.workers,
        mqtt_tls: seed.tls,
        embedding_model: seed.embedding_model,
        kdf: Kdf {
            memory_kib: 4096,
            iterations: 1,
            parallelism: 1,
        },
        ..Settings::default()
    };
    let state = gemba_cloud::build_state(settings).await?;
    let admin = gemba_cloud::create_admin(&state, "admin@bench.test", "Bench-pass-1").await?;
    let (org, task) = gemba_cloud::seed::organization_with_task(
        &state,
        "bench",
        "Pump\nA:\na;\nB:\nb;\nC:\nc;\n",
        admin,
    )
    .await?;
    Ok(Seeded {
        state,
        org,
        admin,
        task,
        mqtt,
    })
}

/// `devices` devices of the state's one organisation, enrolled.
#[allow(dead_code, reason = "the assistant's benchmark enrols no device")]
pub async fn enrol(state: &gemba_cloud::state::AppState, devices: i64) -> anyhow::Result<Vec<Dev>> {
    let org: i64 = sqlx::query_scalar("SELECT id FROM organizations")
        .fetch_one(&state.db.pool)
        .await?;
    // The authority the cloud's broker uses (the same folder `launch` opens).
    let pki = state
        .settings
        .mqtt_tls
        .then(|| gemba_cloud::mqtt::Pki::open(&state.settings.data.join("mqtt-tls")))
        .transpose()?;
    let mut devs = vec![];
    for i in 0..devices {
        let code = format!("BENCH{i:07}");
        gemba_cloud::seed::device_with_code(state, org, &format!("Bench {i}"), &code).await?;
        // Each its own key (and so its own broker password).
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&i.to_le_bytes());
        let (org, id, _, kid) = devices::enrol(
            &state.db,
            &gemba_cloud::auth::enrolment_code_hash(&code),
            &STANDARD.encode(key),
        )
        .await?
        .context("enrolled")?;
        devs.push(Dev {
            org,
            id,
            kid: kid.to_string(),
            key: key.to_vec(),
            tls: pki.as_ref().map(|p| p.device_tls(id)).transpose()?,
        });
    }
    Ok(devs)
}
