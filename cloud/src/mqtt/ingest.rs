//! Ingestion: what devices send, read in batches (topic → device → key → signature →
//! content); statuses and command acknowledgements recorded at once, the cycles of a
//! batch opened on worker threads, then stored in one transaction while the next
//! batches are checked, then acknowledged to each device.
//!
//! A message published again is refused by what it is: a status not newer than the
//! device's last (its `ts_ms`, `db::devices::status`; the last one itself, which the
//! broker retains, is passed over quietly), an acknowledgement of a command already
//! acknowledged; a cycle is stored once by its id (acknowledged again), or
//! refused by its tombstone. Cycles are not refused by age: an agent keeps them in its
//! outbox for as long as it is away.

use std::sync::atomic::Ordering;

use bytes::Bytes;
use gemba_shared::api::v1::stream::{DeviceStatusEvent, LiveEvent, ServerEvent};
use gemba_shared::mqtt::v1::{self, Channel};
use tokio::sync::mpsc;

use crate::db::cycles::{self, Received};
use crate::db::{Db, devices};
use crate::events::OrgEvent;
use crate::mqtt::ack::{outcome, wants_clip_url};
use crate::mqtt::link::DeviceKey;
use crate::reconcile::{Why, reconcile};
use crate::state::AppState;

/// Messages stored in one transaction, at most.
const BATCH: usize = 1_000;

/// Takes what the client received, in batches, and checks each message (the cycles'
/// signatures on `ingest_workers` threads); hands the cycles of a batch to [`store`],
/// which writes the previous batch meanwhile (checking and writing overlap).
pub(super) async fn ingest(state: AppState, mut rx: mpsc::Receiver<(String, Bytes)>) {
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
    let out = outcome(cycles, &stored);
    link.stats.cycles.fetch_add(out.new, Ordering::Relaxed);
    link.stats
        .duplicates
        .fetch_add(out.again, Ordering::Relaxed);
    link.stats.rejected.fetch_add(
        (out.refused.len() + out.deleted.len()) as u64,
        Ordering::Relaxed,
    );
    for &(device, task) in &out.refused {
        tracing::warn!(
            device,
            task,
            "MQTT message rejected: the cycle's task is not one of the organisation's"
        );
    }
    for (device, cycle) in &out.deleted {
        tracing::warn!(
            device,
            cycle,
            "MQTT message rejected: a person deleted the cycle (its tombstone); acknowledged refused"
        );
    }
    for (org, device) in out.fresh {
        state.events.cycles_stored(link, org, device);
    }
    // Each ack's clip URL uploads the clips of the cycles it names (one write for all).
    let wanted: Vec<((i64, i64), &[String])> = out
        .acks
        .iter()
        .filter(|(_, a)| wants_clip_url(a))
        .map(|(k, a)| (*k, a.ids.as_slice()))
        .collect();
    let mut urls = crate::media::clips::clip_urls(&state, &wanted).await;
    for ((org, device), mut ack) in out.acks {
        ack.clip_url = urls.remove(&(org, device));
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
    let (org, device, channel) = (state.mqtt)
        .parse_topic(topic)
        .ok_or_else(|| bad("unknown topic"))?;
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
            // Not newer than what the cloud has (`db::devices::status`): a replay, or
            // the last one again (retained by the broker), which is no news.
            let before = match devices::set_status(&state.db, device, s.online, s.ts_ms, &json, now)
                .await?
            {
                devices::Taken::New(before) => before,
                devices::Taken::Again => return Ok(None),
                devices::Taken::Stale => {
                    return Err(Refused::Bad(format!(
                        "a status (online {}, ts_ms {}) not newer than the device's \
                             last: a replay",
                        s.online, s.ts_ms
                    )));
                }
            };
            let opened = crate::db::camera_events::note_status(
                &state.db,
                device,
                before.status.as_ref(),
                &s,
                now,
            )
            .await?;
            if !opened.is_empty() {
                let state = state.clone();
                tokio::spawn(async move {
                    crate::tampering::on_opened(&state, org, device, &opened).await;
                    crate::health::mail_opened(&state, org, device, &opened).await;
                });
            }
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
                let why = if !before.online {
                    Why::Back
                } else if cameras_changed {
                    Why::Changed
                } else {
                    Why::Heartbeat
                };
                reconcile(state, org, device, &s, why).await?;
                crate::device_config::on_status(state, org, device, &s, why).await?;
                crate::releases::on_status(state, device, &s, why == Why::Back).await?;
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
                // Never sent to this device, or acknowledged already (once only).
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
                Ok(v1::Command::Update { release, .. }) => {
                    crate::releases::on_ack(state, device, &a.id, release, a.ok, &a.message)
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
                // An explorer's request: its answer goes to the stream that asked.
                Ok(v1::Command::Opcua { request }) => {
                    let event = crate::opcua::answered(a.id.clone(), device, request, &a);
                    state.events.raise(
                        &state.mqtt,
                        OrgEvent {
                            org,
                            device,
                            event: ServerEvent::DiscoverDevicesOpcua(event),
                        },
                    );
                }
                Ok(v1::Command::Config { config }) if !a.ok => {
                    tracing::warn!(
                        device,
                        version = config.version,
                        why = %a.message,
                        "a device refused its configuration"
                    );
                }
                _ => {}
            }
            Ok(None)
        }
        Channel::Events => {
            let _: serde_json::Value = key.open(payload).map_err(Refused::Bad)?;
            Ok(None)
        }
        Channel::RtcAnswer => {
            // To the stream whose session it is, on whichever replica holds it.
            let r: v1::RtcReply = key.open(payload).map_err(Refused::Bad)?;
            let session = r.session;
            let event = match r.answer {
                v1::RtcAnswer::Answer { sdp } => LiveEvent::Answer { session, sdp },
                v1::RtcAnswer::Refused { message } => LiveEvent::Refused { session, message },
                v1::RtcAnswer::Ended { message } => LiveEvent::Ended { session, message },
            };
            state.events.raise(
                &state.mqtt,
                OrgEvent {
                    org,
                    device,
                    event: ServerEvent::WebrtcStreamOffer(event),
                },
            );
            Ok(None)
        }
        Channel::Cmd | Channel::CyclesAck | Channel::Rtc => Err(bad("not a device's channel")),
    }
}

#[cfg(test)]
mod tests {
    use super::{DeviceKey, Unchecked, open_all};
    use crate::mqtt::ack::tests::message;
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
                    let c = message(uuid::Uuid::new_v4().to_string(), i as i64);
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
}
