//! The cloud's client link to the broker ([`Link`]): two connections kept up with
//! back-off (one reads, one sends), the subscriptions, the device keys held in memory,
//! and the commands sent to devices.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use gemba_shared::mqtt::v1::{self, Channel};
use rumqttc::{AsyncClient, Event, Packet, QoS};
use tokio::sync::mpsc;

use crate::db::{Db, devices};
use crate::mqtt::access::Login;
use crate::mqtt::broker::MAX_PACKET_BYTES;
use crate::mqtt::dynsec;
use crate::mqtt::ingest::ingest;
use crate::state::AppState;

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
    /// The broker's host and port and the cloud's login there, once started.
    target: OnceLock<(String, u16, Option<Login>)>,
    /// Whether the broker's logins are kept through Mosquitto's dynamic security.
    dynsec: AtomicBool,
    /// The embedded broker's certificate authority (with `mqtt_tls`); with it, devices
    /// live in tenants of their own, their topics under `/tenants/d{id}/`.
    pki: OnceLock<super::pki::Pki>,
}

/// How long a device's key is used from memory before it is read again: a revocation
/// made through another replica takes effect within this time (through this replica at
/// once).
pub const KEY_TTL: Duration = Duration::from_secs(10);

/// The largest packet the link reads. An external broker may deliver more than the
/// contract allows ([`MAX_PACKET_BYTES`]); reading it and letting ingestion refuse it
/// keeps the connection (a packet over the client's limit ends it). Past this bound
/// the link reconnects: set the external broker's own limit (docs/decisions.md).
const LINK_MAX_INCOMING_BYTES: usize = 16 * 1024 * 1024;

/// Messages handed from the client to ingestion and not yet taken, at most: beyond
/// this the client stops reading, and the broker holds the rest.
const QUEUE: usize = 10_000;

/// A device's organisation and signing key.
#[derive(Clone, Debug)]
pub(super) struct DeviceKey {
    pub(super) org: i64,
    pub(super) kid: String,
    pub(super) key: Vec<u8>,
}

impl DeviceKey {
    /// The message in `payload`, if this key signed it under its key id.
    pub(super) fn open<T: v1::Message>(&self, payload: &[u8]) -> Result<T, String> {
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
            target: OnceLock::new(),
            dynsec: AtomicBool::new(false),
            pki: OnceLock::new(),
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

    /// The embedded broker's TLS: devices connect with certificates of `pki` and live
    /// in tenants of their own.
    pub(crate) fn use_pki(&self, pki: super::pki::Pki) {
        let _ = self.pki.set(pki);
    }

    /// A new client certificate for device `device`, when the broker speaks TLS.
    pub fn device_tls(
        &self,
        device: i64,
    ) -> Option<anyhow::Result<gemba_shared::api::v1::device::BrokerTls>> {
        self.pki.get().map(|p| p.device_tls(device))
    }

    /// Whether devices' topics are under their tenants (the embedded broker over TLS).
    pub fn tenants(&self) -> bool {
        self.pki.get().is_some()
    }

    /// The topic of `channel` of device `device` of `org` on this broker.
    pub fn device_topic(&self, org: i64, device: i64, channel: Channel) -> String {
        let t = v1::topic(&org.to_string(), &device.to_string(), channel);
        if self.tenants() {
            format!(
                "{}{t}",
                gemba_shared::broker::tenant_prefix(&gemba_shared::broker::tenant(device))
            )
        } else {
            t
        }
    }

    /// A device topic's organisation, device and channel, as [`v1::parse_topic`] reads
    /// them; among tenants, only under the device's own tenant.
    pub(super) fn parse_topic<'t>(&self, topic: &'t str) -> Option<(&'t str, &'t str, Channel)> {
        let (tenant, rest) = gemba_shared::broker::split_tenant(topic);
        let (org, device, channel) = v1::parse_topic(rest)?;
        let own = match (self.tenants(), tenant) {
            (false, None) => true,
            (true, Some(t)) => gemba_shared::broker::is_tenant_of(t, device),
            _ => false,
        };
        own.then_some((org, device, channel))
    }

    /// The broker's host and port and the cloud's login there, once started.
    pub fn target(&self) -> Option<(String, u16, Option<Login>)> {
        self.target.get().cloned()
    }

    /// Drops device `id`'s key from memory (after an enrolment or revocation).
    pub fn forget(&self, id: i64) {
        self.keys.lock().expect("keys lock").remove(&id);
    }

    pub(super) async fn key(&self, db: &Db, id: i64) -> sqlx::Result<Option<DeviceKey>> {
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

    /// Sends the broker's dynamic security `commands` (when the cloud keeps it).
    pub(super) fn control(&self, commands: Vec<serde_json::Value>) {
        if !self.dynsec.load(Ordering::Relaxed) || commands.is_empty() {
            return;
        }
        if let Some(c) = self.client.get()
            && let Err(e) = c.try_publish(
                dynsec::CONTROL,
                QoS::AtLeastOnce,
                false,
                dynsec::payload(commands),
            )
        {
            tracing::error!(error = %e, "sending the broker's access commands");
        }
    }

    /// Device `device` of `org` was enrolled with `key` (raw): the broker takes it.
    pub fn enrolled(&self, org: i64, device: i64, key: &[u8]) {
        self.forget(device);
        self.control(dynsec::admit(org, device, key));
    }

    /// Device `device` lost its credentials (revoked, archived, deleted): its key is
    /// forgotten, its connection (`connection`, read by [`Link::connection_of`] before
    /// the change) ended and the broker refuses it from now on.
    pub fn revoked(&self, device: i64, connection: Option<String>) {
        self.forget(device);
        self.kick(connection);
        self.control(dynsec::remove(device));
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
                self.device_topic(org, device, channel),
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
        // Kept without secrets (a configuration's camera passwords).
        let kept = crate::device_config::stored_form(&command);
        let json = serde_json::to_string(&kept).expect("commands serialise");
        devices::insert_command(db, &id, device, &json).await?;
        let sent_ms = crate::db::now_ms();
        let msg = v1::CommandMessage {
            v: v1::COMMAND_VERSION,
            id: id.clone(),
            sent_ms,
            expires_ms: sent_ms + COMMAND_VALID_MS,
            command,
        };
        if let Err(e) = self.send(db, org, device, Channel::Cmd, &msg).await {
            tracing::warn!(device, error = %e, "sending a command");
        }
        Ok(())
    }

    pub(super) fn reject(&self, topic: &str, why: &str) {
        self.stats.rejected.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(topic, why, "MQTT message rejected");
    }
}

/// How long a command holds once sent: a device takes it within seconds (commands go
/// only to devices online, over a clean session); one that comes later than this is
/// stale or replayed. The reconcile sends a new one when still needed.
pub const COMMAND_VALID_MS: i64 = 10 * 60 * 1000;

/// A new command's id.
pub fn new_command_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The topics the cloud reads (every tenant's, with `tenants`); with a `group`, as
/// members of that shared subscription group, so that replicas split the messages
/// between them.
fn subscriptions(group: Option<&str>, tenants: bool) -> Vec<String> {
    [
        Channel::Cycles,
        Channel::Status,
        Channel::CmdAck,
        Channel::Events,
        Channel::RtcAnswer,
    ]
    .into_iter()
    .map(|c| {
        let t = format!("{}/+/+/{}", v1::PREFIX, c.as_str());
        let t = if tenants {
            format!("/tenants/+/{t}")
        } else {
            t
        };
        match group {
            Some(g) => format!("$share/{g}/{t}"),
            None => t,
        }
    })
    .collect()
}

/// Keeps the cloud's two connections to the broker up (reconnecting with back-off, as
/// `login` when given): one reads what devices send (subscribed, as members of a shared subscription group
/// when `shared`, so that replicas split the messages) and hands it to ingestion; the
/// other sends commands, acknowledgements and stream events. Sending on the reading
/// connection cut the broker's deliveries to it to about a quarter under load
/// (`docs/benchmarks.md`).
pub fn spawn_link(state: AppState, host: String, port: u16, login: Option<Login>, shared: bool) {
    let _ = state.mqtt.target.set((host.clone(), port, login.clone()));
    let dynsec_on = shared && state.settings.mqtt_dynsec;
    state.mqtt.dynsec.store(dynsec_on, Ordering::Relaxed);
    let id = format!("gemba-cloud-{}", &crate::auth::random_token()[..12]);
    let options = |role: &str| {
        let mut opts = rumqttc::MqttOptions::new(format!("{id}-{role}"), host.clone(), port);
        if let Some(l) = &login {
            l.apply(&mut opts);
        }
        opts.set_keep_alive(Duration::from_secs(15));
        opts.set_max_packet_size(LINK_MAX_INCOMING_BYTES, MAX_PACKET_BYTES);
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
            let e = next_event(&mut sending, up, &mut backoff, &h2, p2).await;
            if dynsec_on && let Event::Incoming(Packet::ConnAck(_)) = e {
                tokio::spawn(keep_logins(s2.clone()));
            }
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
                    let answers = dynsec_on.then(|| dynsec::RESPONSE.to_string());
                    for t in subscriptions(group, link.tenants())
                        .into_iter()
                        .chain([events])
                        .chain(answers)
                    {
                        if let Err(e) = reader.try_subscribe(t, QoS::AtLeastOnce) {
                            tracing::error!(error = %e, "MQTT subscribe");
                        }
                    }
                }
                Event::Incoming(Packet::Publish(p)) if p.topic == dynsec::RESPONSE => {
                    for e in dynsec::errors(&p.payload) {
                        tracing::error!(error = e, "the broker refused an access command");
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

/// On (re)connecting to a broker whose access the cloud keeps: the cloud's own role,
/// and every enrolled device's login (made where missing).
async fn keep_logins(state: AppState) {
    let Some((_, _, Some(login))) = state.mqtt.target() else {
        tracing::error!("mqtt_dynsec needs the cloud's mqtt_username and mqtt_password");
        return;
    };
    state.mqtt.control(dynsec::cloud_role(&login.username));
    match devices::enrolled(&state.db).await {
        Ok(all) => {
            let commands = all
                .into_iter()
                .filter_map(|(id, org, key)| {
                    Some(dynsec::ensure(org, id, &STANDARD.decode(key).ok()?))
                })
                .flatten()
                .collect::<Vec<_>>();
            // In parts, each well under the broker's packet limit.
            for part in commands.chunks(200) {
                state.mqtt.control(part.to_vec());
            }
        }
        Err(e) => tracing::error!(error = %e, "reading the enrolled devices for the broker"),
    }
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
