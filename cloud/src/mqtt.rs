//! MQTT: the embedded broker (rumqttd), started by `gemba-cloud serve` unless an
//! external broker URL is configured, and the cloud's own client link to whichever
//! broker is in use ([`Link`]): it ingests what devices send and sends them commands.
//! The topics are `gemba/v1/{org}/{device}/{channel}` (`gemba_shared::mqtt::v1`), with
//! numeric organisation and device ids.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use gemba_shared::mqtt::v1::{self, Channel};
use rumqttc::{AsyncClient, Event, Packet, QoS};
use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};
use tokio::sync::mpsc;

use crate::db::cycles::{self, Received, Stored};
use crate::db::{Db, devices};
use crate::events::OrgEvent;
use crate::state::AppState;
use gemba_shared::api::v1::stream::{DeviceStatusEvent, ServerEvent};

fn config(addr: SocketAddr) -> Config {
    let server = ServerSettings {
        name: "v4".into(),
        listen: addr,
        tls: None,
        next_connection_delay_ms: 1,
        connections: ConnectionSettings {
            connection_timeout_ms: 60_000,
            max_payload_size: 1024 * 1024,
            max_inflight_count: 200,
            auth: None,
            external_auth: None,
            dynamic_filters: true,
        },
    };
    let mut v4 = HashMap::new();
    v4.insert("1".to_string(), server.clone());
    let mut v5 = HashMap::new();
    // MQTT 5 on the next port (shared subscriptions for scaled ingestion).
    let mut s5 = server;
    s5.name = "v5".into();
    s5.listen = SocketAddr::new(addr.ip(), addr.port().wrapping_add(1));
    v5.insert("1".to_string(), s5);
    Config {
        id: 0,
        router: RouterConfig {
            max_connections: 10_010,
            max_outgoing_packet_count: 200,
            max_segment_size: 100 * 1024 * 1024,
            max_segment_count: 10,
            ..Default::default()
        },
        v4: Some(v4),
        v5: Some(v5),
        ..Default::default()
    }
}

/// Starts the broker on its own thread and waits until it accepts connections.
pub async fn start_embedded(addr: SocketAddr) -> anyhow::Result<()> {
    // Fail clearly when the port is taken (rumqttd would only log it on its thread).
    std::net::TcpListener::bind(addr).with_context(|| {
        format!("the MQTT address {addr} is in use; choose another with --mqtt")
    })?;
    let mut broker = Broker::new(config(addr));
    std::thread::Builder::new()
        .name("mqtt-broker".into())
        .spawn(move || {
            if let Err(e) = broker.start() {
                tracing::error!(error = %e, "embedded MQTT broker stopped");
            }
        })?;
    // Ready when it answers an MQTT CONNECT (a bare TCP probe makes the broker log an
    // error for a connection that never spoke MQTT).
    for _ in 0..100 {
        if answers_connect(addr).await {
            tracing::info!(%addr, "embedded MQTT broker listening");
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    anyhow::bail!("the embedded MQTT broker did not start on {addr}")
}

/// Does a broker at `addr` acknowledge a connection (within a second)?
async fn answers_connect(addr: SocketAddr) -> bool {
    let id = format!("gemba-cloud-probe-{}", &crate::auth::random_token()[..8]);
    let opts = rumqttc::MqttOptions::new(id, addr.ip().to_string(), addr.port());
    let (client, mut events) = AsyncClient::new(opts, 1);
    let acked = tokio::time::timeout(Duration::from_secs(1), async {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false);
    if acked {
        let _ = client.try_disconnect();
        // Let the event loop send the DISCONNECT.
        let _ = tokio::time::timeout(Duration::from_millis(100), events.poll()).await;
    }
    acked
}

/// Host and port of an `mqtt://host:port` URL (port 1883 when absent), or of a plain
/// `host:port` address.
pub fn broker_address(spec: &str) -> anyhow::Result<(String, u16)> {
    let rest = match spec.split_once("://") {
        Some(("mqtt" | "tcp", rest)) => rest,
        Some((scheme, _)) => {
            anyhow::bail!("unsupported broker scheme {scheme:?}: use mqtt://host:port")
        }
        None => spec,
    };
    let rest = rest.trim_end_matches('/');
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) => (
            h,
            p.parse()
                .with_context(|| format!("bad broker port in {spec:?}"))?,
        ),
        None => (rest, 1883),
    };
    if host.is_empty() {
        anyhow::bail!("no broker host in {spec:?}");
    }
    Ok((
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
        port,
    ))
}

/// What ingestion counted since the start (reported by `/api/health`).
#[derive(Default, Debug)]
pub struct Stats {
    /// Messages received on the channels the cloud reads.
    pub received: AtomicU64,
    /// Cycles stored for the first time.
    pub cycles: AtomicU64,
    /// Cycles received again (already stored; acknowledged again).
    pub duplicates: AtomicU64,
    /// Messages refused: malformed, oversized, unsigned, wrongly signed, from an unknown
    /// or revoked device, or for another device or organisation.
    pub rejected: AtomicU64,
}

/// The cloud's side of the MQTT contract: its client link to the broker, ingestion of
/// what devices send, and the commands and acknowledgements it sends them.
pub struct Link {
    /// Whether the broker acknowledged the reading connection, and the sending one.
    reading: AtomicBool,
    sending: AtomicBool,
    client: OnceLock<AsyncClient>,
    pub stats: Stats,
    /// Device keys by device id, each with when it was read (see [`KEY_TTL`]).
    keys: Mutex<HashMap<i64, (Instant, Option<DeviceKey>)>>,
}

/// How long a device's key is used from memory before it is read again: a revocation
/// made through another replica takes effect within this time (through this replica at
/// once).
pub const KEY_TTL: Duration = Duration::from_secs(10);

/// Messages handed from the client to ingestion and not yet taken, at most: beyond
/// this the client stops reading, and the broker holds the rest.
const QUEUE: usize = 10_000;
/// Messages stored in one transaction, at most.
const BATCH: usize = 1_000;

#[derive(Clone, Debug)]
struct DeviceKey {
    org: i64,
    kid: String,
    key: Vec<u8>,
}

impl DeviceKey {
    /// The message in `payload`, if this key signed it under its key id.
    fn open<T: v1::Message>(&self, payload: &[u8]) -> Result<T, String> {
        v1::verify_kid(&self.key, &self.kid, payload)
    }
}

impl Default for Link {
    fn default() -> Link {
        Link {
            reading: AtomicBool::new(false),
            sending: AtomicBool::new(false),
            client: OnceLock::new(),
            stats: Stats::default(),
            keys: Mutex::new(HashMap::new()),
        }
    }
}

impl Link {
    /// Whether the broker acknowledged both current connections.
    pub fn is_connected(&self) -> bool {
        self.reading.load(Ordering::Relaxed) && self.sending.load(Ordering::Relaxed)
    }

    /// The client, once the link is started.
    pub(crate) fn client(&self) -> Option<&AsyncClient> {
        self.client.get()
    }

    /// Drops device `id`'s key from memory (after an enrolment or revocation).
    pub fn forget(&self, id: i64) {
        self.keys.lock().expect("keys lock").remove(&id);
    }

    async fn key(&self, db: &Db, id: i64) -> sqlx::Result<Option<DeviceKey>> {
        if let Some((at, k)) = self.keys.lock().expect("keys lock").get(&id)
            && at.elapsed() < KEY_TTL
        {
            return Ok(k.clone());
        }
        let k = devices::auth(db, id).await?.and_then(|a| {
            Some(DeviceKey {
                org: a.organization_id,
                kid: a.credential_id.to_string(),
                key: STANDARD.decode(a.credential_key?).ok()?,
            })
        });
        self.keys
            .lock()
            .expect("keys lock")
            .insert(id, (Instant::now(), k.clone()));
        Ok(k)
    }

    /// Sends device `device` of `org` a message on `channel`, signed with its key.
    pub async fn send<T: serde::Serialize>(
        &self,
        db: &Db,
        org: i64,
        device: i64,
        channel: Channel,
        msg: &T,
    ) -> anyhow::Result<()> {
        let client = self.client.get().context("the MQTT link is not started")?;
        let k = self
            .key(db, device)
            .await?
            .filter(|k| k.org == org)
            .context("the device has no credentials")?;
        let payload = v1::sign(&k.key, &k.kid, msg);
        client
            .publish(
                v1::topic(&org.to_string(), &device.to_string(), channel),
                QoS::AtLeastOnce,
                false,
                payload,
            )
            .await?;
        Ok(())
    }

    /// Records `command` for device `device` of `org` and sends it; answers its id. A
    /// device that is not connected misses it, and is told what its cameras should run
    /// when it next says it is online ([`crate::reconcile`]).
    pub async fn command(
        &self,
        db: &Db,
        org: i64,
        device: i64,
        command: v1::Command,
    ) -> sqlx::Result<String> {
        let id = new_command_id();
        self.command_with_id(db, org, device, &id, command).await?;
        Ok(id)
    }

    /// [`Self::command`] with an id made beforehand by [`new_command_id`] (for a
    /// command whose acknowledgement something recorded first waits for).
    pub async fn command_with_id(
        &self,
        db: &Db,
        org: i64,
        device: i64,
        id: &str,
        command: v1::Command,
    ) -> sqlx::Result<()> {
        let id = id.to_string();
        let json = serde_json::to_string(&command).expect("commands serialise");
        devices::insert_command(db, &id, device, &json).await?;
        let msg = v1::CommandMessage {
            v: v1::VERSION,
            id: id.clone(),
            command,
        };
        if let Err(e) = self.send(db, org, device, Channel::Cmd, &msg).await {
            tracing::warn!(device, error = %e, "sending a command");
        }
        Ok(())
    }

    fn reject(&self, topic: &str, why: &str) {
        self.stats.rejected.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(topic, why, "MQTT message rejected");
    }
}

/// A new command's id.
pub fn new_command_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The topics the cloud reads; with a `group`, as members of that shared subscription
/// group, so that replicas split the messages between them.
fn subscriptions(group: Option<&str>) -> Vec<String> {
    [
        Channel::Cycles,
        Channel::Status,
        Channel::CmdAck,
        Channel::Events,
    ]
    .into_iter()
    .map(|c| {
        let t = format!("{}/+/+/{}", v1::PREFIX, c.as_str());
        match group {
            Some(g) => format!("$share/{g}/{t}"),
            None => t,
        }
    })
    .collect()
}

/// Keeps the cloud's two connections to the broker up (reconnecting with back-off):
/// one reads what devices send (subscribed, as members of a shared subscription group
/// when `shared`, so that replicas split the messages) and hands it to ingestion; the
/// other sends commands, acknowledgements and stream events. Sending on the reading
/// connection cut the broker's deliveries to it to about a quarter under load
/// (`docs/benchmarks.md`).
pub fn spawn_link(state: AppState, host: String, port: u16, shared: bool) {
    let id = format!("gemba-cloud-{}", &crate::auth::random_token()[..12]);
    let options = |role: &str| {
        let mut opts = rumqttc::MqttOptions::new(format!("{id}-{role}"), host.clone(), port);
        opts.set_keep_alive(Duration::from_secs(15));
        opts.set_max_packet_size(v1::MAX_PAYLOAD_BYTES + 1024, v1::MAX_PAYLOAD_BYTES + 1024);
        opts
    };
    let (sender, mut sending) = AsyncClient::new(options("tx"), 1024);
    let (reader, mut reading) = AsyncClient::new(options("rx"), 16);
    let _ = state.mqtt.client.set(sender);
    let (tx, rx) = mpsc::channel::<(String, Bytes)>(QUEUE);
    tokio::spawn(ingest(state.clone(), rx));
    let s3 = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(crate::events::CYCLES_EVERY);
        loop {
            tick.tick().await;
            s3.events.flush_cycles(&s3.mqtt);
        }
    });
    let s2 = state.clone();
    let (h2, p2) = (host.clone(), port);
    tokio::spawn(async move {
        let up = &s2.mqtt.sending;
        let mut backoff = Duration::from_millis(200);
        loop {
            next_event(&mut sending, up, &mut backoff, &h2, p2).await;
        }
    });
    tokio::spawn(async move {
        let link = &state.mqtt;
        let mut backoff = Duration::from_millis(200);
        loop {
            match next_event(&mut reading, &link.reading, &mut backoff, &host, port).await {
                Event::Incoming(Packet::ConnAck(_)) => {
                    // Every replica reads every stream event: not a shared subscription.
                    let events = state.events.topic().to_string();
                    let group = shared.then_some(state.settings.mqtt_group.as_str());
                    for t in subscriptions(group).into_iter().chain([events]) {
                        if let Err(e) = reader.try_subscribe(t, QoS::AtLeastOnce) {
                            tracing::error!(error = %e, "MQTT subscribe");
                        }
                    }
                }
                Event::Incoming(Packet::Publish(p)) if p.topic == state.events.topic() => {
                    if let Err(why) = state.events.receive(&p.payload) {
                        link.reject(&p.topic, &why);
                    }
                }
                Event::Incoming(Packet::Publish(p)) => {
                    let topic = p.topic.clone();
                    if tx.send((topic, p.payload)).await.is_err() {
                        return;
                    }
                }
                _ => {}
            }
        }
    });
}

/// The next event of one of the link's connections. `up` says whether the broker
/// acknowledged it; on an error it is marked down and polled again after `backoff`
/// (doubling up to 10 s; back to 200 ms once connected).
async fn next_event(
    events: &mut rumqttc::EventLoop,
    up: &AtomicBool,
    backoff: &mut Duration,
    host: &str,
    port: u16,
) -> Event {
    loop {
        match events.poll().await {
            Ok(event) => {
                if let Event::Incoming(Packet::ConnAck(_)) = event {
                    up.store(true, Ordering::Relaxed);
                    *backoff = Duration::from_millis(200);
                    tracing::info!(%host, port, "connected to the MQTT broker");
                }
                return event;
            }
            Err(e) => {
                if up.swap(false, Ordering::Relaxed) {
                    tracing::warn!(%host, port, error = %e, "lost the MQTT broker");
                } else {
                    tracing::debug!(%host, port, error = %e, "MQTT broker unreachable");
                }
                tokio::time::sleep(*backoff).await;
                *backoff = (*backoff * 2).min(Duration::from_secs(10));
            }
        }
    }
}

/// Takes what the client received, in batches, and checks each message (the cycles'
/// signatures on `ingest_workers` threads); hands the cycles of a batch to [`store`],
/// which writes the previous batch meanwhile (checking and writing overlap).
async fn ingest(state: AppState, mut rx: mpsc::Receiver<(String, Bytes)>) {
    let (to_store, stored) = mpsc::channel::<Vec<Received>>(STORE_QUEUE);
    tokio::spawn(store(state.clone(), stored));
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        if rx.recv_many(&mut batch, BATCH).await == 0 {
            return;
        }
        let link = &state.mqtt;
        link.stats
            .received
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        let mut pending: Vec<Unchecked> = Vec::new();
        for (topic, payload) in batch.drain(..) {
            match read(&state, &topic, &payload).await {
                Ok(Some(c)) => pending.push(c),
                Ok(None) => {}
                Err(Refused::Db(e)) => tracing::error!(error = %e, "MQTT ingestion: storage"),
                Err(Refused::Bad(why)) => link.reject(&topic, &why),
            }
        }
        let mut cycles: Vec<Received> = Vec::with_capacity(pending.len());
        for c in open_all(pending, state.settings.ingest_workers).await {
            match c {
                Ok(c) => cycles.push(c),
                Err((topic, why)) => link.reject(&topic, &why),
            }
        }
        if !cycles.is_empty() && to_store.send(cycles).await.is_err() {
            return;
        }
    }
}

/// Checked batches waiting for [`store`], at most.
const STORE_QUEUE: usize = 2;

/// Batches being stored at once, at most: on PostgreSQL each in a transaction of its own
/// connection; on SQLite queued to its one writer, so that it never waits for the next.
fn writing_at_once(db: &Db) -> usize {
    match db.backend {
        crate::db::Backend::Sqlite => 2,
        crate::db::Backend::Postgres => 4,
    }
}

/// Stores checked batches, each in a transaction ([`writing_at_once`] at a time), then
/// tells each device which of its cycles are stored.
async fn store(state: AppState, mut rx: mpsc::Receiver<Vec<Received>>) {
    let most = writing_at_once(&state.db);
    let mut writing = tokio::task::JoinSet::new();
    while let Some(cycles) = rx.recv().await {
        while writing.len() >= most {
            writing.join_next().await;
        }
        writing.spawn(store_batch(state.clone(), cycles));
    }
    while writing.join_next().await.is_some() {}
}

async fn store_batch(state: AppState, cycles: Vec<Received>) {
    let link = &state.mqtt;
    // Stored or not, nothing is acknowledged until the transaction committed: a batch
    // that cannot be stored is not acknowledged, and its devices send it again.
    let stored = match cycles::insert_cycles(&state.db, &cycles).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, n = cycles.len(), "storing cycles; the devices will send them again");
            return;
        }
    };
    // Per device: the ids stored, and those refused (which it need not send again).
    let mut acks: BTreeMap<(i64, i64), v1::CyclesAck> = BTreeMap::new();
    // The devices with new cycles, for the stream.
    let mut fresh: BTreeSet<(i64, i64)> = BTreeSet::new();
    for (c, s) in cycles.into_iter().zip(stored) {
        if s == Stored::New {
            fresh.insert((c.org, c.device));
        }
        let counter = match s {
            Stored::New => &link.stats.cycles,
            Stored::Again => &link.stats.duplicates,
            Stored::Refused => &link.stats.rejected,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        let ack = acks
            .entry((c.org, c.device))
            .or_insert_with(|| v1::CyclesAck {
                v: v1::VERSION,
                ids: vec![],
                refused: vec![],
                clip_url: None,
            });
        if s != Stored::Refused {
            ack.ids.push(c.cycle.id);
        } else {
            ack.refused.push(c.cycle.id.clone());
            tracing::warn!(
                device = c.device,
                task = c.cycle.task,
                "MQTT message rejected: the cycle's task is not one of the organisation's"
            );
        }
    }
    for (org, device) in fresh {
        state.events.cycles_stored(link, org, device);
    }
    for ((org, device), mut ack) in acks {
        if !ack.ids.is_empty() {
            ack.clip_url = crate::media::clips::clip_url(&state, org, device).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "signing a clip URL");
                None
            });
        }
        if let Err(e) = link
            .send(&state.db, org, device, Channel::CyclesAck, &ack)
            .await
        {
            tracing::warn!(device, error = %e, "acknowledging cycles");
        }
    }
}

enum Refused {
    Bad(String),
    Db(sqlx::Error),
}

impl From<sqlx::Error> for Refused {
    fn from(e: sqlx::Error) -> Self {
        Refused::Db(e)
    }
}

/// A cycle message whose topic and device are known, its signature not yet checked.
struct Unchecked {
    topic: String,
    payload: Bytes,
    org: i64,
    device: i64,
    key: DeviceKey,
}

impl Unchecked {
    /// The cycle, if the device's key signed it and its content holds; else why not.
    fn open(self) -> Result<Received, (String, String)> {
        match self.key.open::<v1::CycleMessage>(&self.payload) {
            Ok(cycle) => Ok(Received {
                org: self.org,
                device: self.device,
                cycle,
            }),
            Err(why) => Err((self.topic, why)),
        }
    }
}

/// Opens the cycles of a batch (signature and content), on `workers` threads when the
/// batch is large enough to be worth it; in the batch's order.
async fn open_all(
    pending: Vec<Unchecked>,
    workers: usize,
) -> Vec<Result<Received, (String, String)>> {
    if workers <= 1 || pending.len() < 64 {
        return pending.into_iter().map(Unchecked::open).collect();
    }
    let size = pending.len().div_ceil(workers);
    let mut rest = pending.into_iter();
    let mut parts = Vec::with_capacity(workers);
    loop {
        let chunk: Vec<Unchecked> = rest.by_ref().take(size).collect();
        if chunk.is_empty() {
            break;
        }
        parts.push(tokio::task::spawn_blocking(move || {
            chunk.into_iter().map(Unchecked::open).collect::<Vec<_>>()
        }));
    }
    let mut out = Vec::new();
    for p in parts {
        out.extend(p.await.expect("checking cycles"));
    }
    out
}

/// Checks one message: its topic, its device and organisation. A cycle is answered to
/// be opened ([`open_all`]); status and command acknowledgements are checked and
/// recorded here.
async fn read(
    state: &AppState,
    topic: &str,
    payload: &Bytes,
) -> Result<Option<Unchecked>, Refused> {
    let bad = |s: &str| Refused::Bad(s.to_string());
    let (org, device, channel) = v1::parse_topic(topic).ok_or_else(|| bad("unknown topic"))?;
    let (Ok(org), Ok(device)) = (org.parse::<i64>(), device.parse::<i64>()) else {
        return Err(bad("unknown topic"));
    };
    if payload.len() > v1::MAX_PAYLOAD_BYTES {
        return Err(bad("payload too large"));
    }
    let key = state
        .mqtt
        .key(&state.db, device)
        .await?
        .ok_or_else(|| bad("unknown or revoked device"))?;
    if key.org != org {
        return Err(bad("the device is not the topic's organisation's"));
    }
    match channel {
        Channel::Cycles => Ok(Some(Unchecked {
            topic: topic.to_string(),
            payload: payload.clone(),
            org,
            device,
            key,
        })),
        Channel::Status => {
            let s: v1::StatusMessage = key.open(payload).map_err(Refused::Bad)?;
            let json = serde_json::to_string(&s).expect("status serialises");
            let now = crate::db::now_ms();
            let before = devices::set_status(&state.db, device, s.online, &json, now).await?;
            crate::db::camera_events::note_status(
                &state.db,
                device,
                before.status.as_ref(),
                &s,
                now,
            )
            .await?;
            if s.online {
                // Back online (a restarted agent may now do what it refused) or with
                // other cameras: nothing held back.
                let names = |s: &v1::StatusMessage| {
                    s.cameras
                        .iter()
                        .map(|c| c.camera.clone())
                        .collect::<Vec<_>>()
                };
                let cameras_changed = before
                    .status
                    .as_ref()
                    .is_some_and(|b| names(b) != names(&s));
                use crate::reconcile::{Why, reconcile};
                let why = if !before.online {
                    Why::Back
                } else if cameras_changed {
                    Why::Changed
                } else {
                    Why::Heartbeat
                };
                reconcile(state, org, device, &s, why).await?;
            }
            let event = ServerEvent::DeviceStatus(DeviceStatusEvent {
                id: device,
                online: s.online,
                last_seen: now,
                status: s,
            });
            state
                .events
                .raise(&state.mqtt, OrgEvent { org, device, event });
            Ok(None)
        }
        Channel::CmdAck => {
            let a: v1::CommandAck = key.open(payload).map_err(Refused::Bad)?;
            let Some(command) =
                devices::ack_command(&state.db, device, &a.id, a.ok, &a.message).await?
            else {
                return Err(bad("no such command waiting"));
            };
            // Stored by `Link::command`: one written by another version may not read.
            match serde_json::from_str::<v1::Command>(&command) {
                Ok(v1::Command::StartTask { camera, task, .. }) => {
                    let refused = (!a.ok).then_some(a.message.as_str());
                    crate::db::camera_tasks::answered_start(
                        &state.db, device, &camera, task, refused,
                    )
                    .await?;
                }
                // A new model may be what a refused start lacked.
                Ok(v1::Command::Deploy { .. }) if a.ok => {
                    crate::reconcile::reconcile_stored(state, org, device).await?;
                }
                Ok(v1::Command::Record { .. }) if !a.ok => {
                    // A recording the device could not make or upload says why.
                    crate::db::videos::fail_recording(&state.db, None, Some(&a.id), &a.message)
                        .await?;
                }
                _ => {}
            }
            Ok(None)
        }
        Channel::Events => {
            let _: serde_json::Value = key.open(payload).map_err(Refused::Bad)?;
            Ok(None)
        }
        Channel::Cmd | Channel::CyclesAck | Channel::Rtc => Err(bad("not a device's channel")),
    }
}

#[cfg(test)]
mod tests {
    use super::{DeviceKey, Unchecked, broker_address, open_all};
    use gemba_shared::cycle::Cycle;
    use gemba_shared::mqtt::v1;

    /// A batch large enough to be split: every cycle comes back in its place, opened or
    /// refused with why, whatever the number of threads.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_batch_opens_in_order_on_any_number_of_threads() {
        let key = DeviceKey {
            org: 1,
            kid: "9".into(),
            key: vec![7; 32],
        };
        let batch = |n: usize| -> Vec<Unchecked> {
            (0..n)
                .map(|i| {
                    let c = v1::CycleMessage::new(
                        uuid::Uuid::new_v4().to_string(),
                        i as i64,
                        "cam0".into(),
                        Cycle {
                            start_ms: 0,
                            end_ms: 1,
                            segments: vec![],
                            idle_ms: 1,
                            good: true,
                            reasons: vec![],
                        },
                    );
                    // Every seventh signed with another key.
                    let k: &[u8] = if i % 7 == 3 { &[8; 32] } else { &key.key };
                    Unchecked {
                        topic: format!("t{i}"),
                        payload: v1::sign(k, "9", &c).into(),
                        org: 1,
                        device: 2,
                        key: key.clone(),
                    }
                })
                .collect()
        };
        for workers in [1, 2, 3] {
            let out = open_all(batch(301), workers).await;
            assert_eq!(out.len(), 301);
            for (i, r) in out.iter().enumerate() {
                match r {
                    Ok(c) => assert_eq!((c.cycle.task, i % 7 == 3), (i as i64, false)),
                    Err((topic, why)) => {
                        assert_eq!(
                            (topic.as_str(), why.as_str()),
                            (format!("t{i}").as_str(), "wrong signature")
                        );
                        assert_eq!(i % 7, 3);
                    }
                }
            }
        }
    }

    #[test]
    fn broker_addresses() {
        assert_eq!(
            broker_address("mqtt://broker:1883").unwrap(),
            ("broker".into(), 1883)
        );
        assert_eq!(
            broker_address("mqtt://broker").unwrap(),
            ("broker".into(), 1883)
        );
        assert_eq!(
            broker_address("127.0.0.1:1884").unwrap(),
            ("127.0.0.1".into(), 1884)
        );
        assert!(broker_address("https://x:1").is_err());
        assert!(broker_address("mqtt://:1883").is_err());
        assert!(broker_address("mqtt://h:port").is_err());
    }
}
