//! The device stream: the WebSocket `/api/ws` (its frames: `gemba_shared::api::v1::stream`).
//!
//! Opening it needs a full sign-in and `ViewDevices` in the organisation it names (the
//! `Organization` header or `?organization=`, else the host's sub-domain, else the
//! user's current one); the refusal is the REST API's (401, 403) before any upgrade.
//! A session only ever hears of its organisation's devices, and only of those it
//! watches. It is closed (code [`SIGNED_OUT`]) once the sign-in ends: the session is
//! checked again every `stream_recheck_ms` (30 s by default).
//!
//! Live view rides the same stream (`webrtc_stream_offer`, [`crate::live`]): a
//! session is made only for a device of the stream's organisation, its offer goes to
//! that device signed with its key, and only that device's answer comes back, to this
//! stream alone. Closing the stream ends its sessions on their devices.
//!
//! The OPC UA explorer rides it too (`discover_devices_opcua`, [`crate::opcua`]): a
//! request goes, as a command, only to an online device of the stream's organisation,
//! for a role with `ExploreOpcua` in an organisation holding the "OPCUA Explorer"
//! subscription; the device's reply (its command's acknowledgement) comes back to this
//! stream alone, or its failure after [`crate::opcua::ANSWER_WITHIN`].

use std::collections::BTreeSet;
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::Device;
use gemba_shared::api::v1::feature_control::Gated;
use gemba_shared::api::v1::stream::{
    ClientEvent, LiveEvent, LiveRequest, MAX_STREAM_DEVICES, MAX_STREAM_FRAME_BYTES, OpcuaAsk,
    OpcuaEvent, STREAM_PROTOCOL, ServerEvent, StreamDevices, StreamError,
};
use gemba_shared::mqtt::v1::{self, Channel, Command, RtcMessage, RtcRequest};
use tokio::sync::broadcast::error::RecvError;

use crate::db::devices::{self, Filter};
use crate::http::error::ApiResult;
use crate::http::extract::{AuthUser, StreamUser};
use crate::live::Viewing;
use crate::opcua::Exploring;
use crate::state::AppState;

/// The close code of a stream whose sign-in ended.
pub const SIGNED_OUT: u16 = 4401;

/// `GET /api/ws`: upgrades to the device stream.
pub async fn ws(
    State(state): State<AppState>,
    StreamUser(me): StreamUser,
    upgrade: WebSocketUpgrade,
) -> ApiResult<Response> {
    me.require(Permission::ViewDevices)?;
    let org = me.org()?;
    Ok(upgrade
        .protocols([STREAM_PROTOCOL])
        .max_message_size(MAX_STREAM_FRAME_BYTES)
        .max_frame_size(MAX_STREAM_FRAME_BYTES)
        .on_upgrade(move |socket| async move {
            if let Err(e) = session(state, me, org, socket).await {
                tracing::debug!(error = %e, "device stream ended");
            }
        }))
}

/// What a session watches.
#[derive(Debug, Default)]
enum Watch {
    #[default]
    Nothing,
    /// Every device of the organisation, present and future.
    All,
    Some(BTreeSet<i64>),
}

impl Watch {
    fn has(&self, device: i64) -> bool {
        match self {
            Watch::Nothing => false,
            Watch::All => true,
            Watch::Some(s) => s.contains(&device),
        }
    }
}

async fn session(
    state: AppState,
    me: AuthUser,
    org: i64,
    mut socket: WebSocket,
) -> anyhow::Result<()> {
    let mut kept = Kept::default();
    let r = stream(&state, &me, org, &mut socket, &mut kept).await;
    // The devices of sessions still open are told their viewer left.
    for (session, s) in kept.viewing.drain() {
        close_on_device(&state, org, s.device, &session).await;
    }
    r
}

/// What one stream keeps: the devices it watches, its live sessions, its OPC UA
/// requests waiting for their answers.
#[derive(Debug, Default)]
struct Kept {
    watch: Watch,
    viewing: Viewing,
    exploring: Exploring,
}

async fn stream(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    socket: &mut WebSocket,
    s: &mut Kept,
) -> anyhow::Result<()> {
    let mut events = state.events.subscribe();
    let recheck = Duration::from_millis(state.settings.stream_recheck_ms.max(100));
    let mut check = tokio::time::interval(recheck);
    check.tick().await;
    let mut live_tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        let reply = tokio::select! {
            frame = socket.recv() => match frame {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return Ok(()),
                Some(Ok(Message::Text(text))) => take(state, me, org, s, text.as_str()).await?,
                Some(Ok(Message::Binary(_))) => Some(error("Send JSON text frames.")),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => None,
            },
            event = events.recv() => match event {
                Ok(e) if e.org != org => None,
                Ok(e) => match &e.event {
                    ServerEvent::WebrtcStreamOffer(l) => {
                        s.viewing.heard(e.device, l).then(|| e.event.clone())
                    }
                    ServerEvent::DiscoverDevicesOpcua(o) => {
                        s.exploring.heard(e.device, o.id()).map(|_| e.event.clone())
                    }
                    _ if s.watch.has(e.device) => Some(e.event.clone()),
                    _ => None,
                },
                // Missed some: the devices as they are now stand in for what was missed.
                Err(RecvError::Lagged(_)) => match s.watch {
                    Watch::Nothing => None,
                    _ => Some(ServerEvent::Devices(watched(state, me, org, &s.watch).await?)),
                },
                Err(RecvError::Closed) => return Ok(()),
            },
            _ = live_tick.tick() => {
                let now = std::time::Instant::now();
                for late in s.viewing.overdue(now) {
                    send(socket, &ServerEvent::WebrtcStreamOffer(late)).await?;
                }
                for (id, a) in s.exploring.overdue(now) {
                    let failed = OpcuaEvent::Failed {
                        id,
                        device: a.device,
                        request: a.request,
                        message: crate::opcua::UNANSWERED.into(),
                    };
                    send(socket, &ServerEvent::DiscoverDevicesOpcua(failed)).await?;
                }
                None
            }
            _ = check.tick() => {
                if me.still_signed_in(state, org).await? {
                    None
                } else {
                    let close = CloseFrame {
                        code: SIGNED_OUT,
                        reason: "Your session has ended. Please sign in again.".into(),
                    };
                    socket.send(Message::Close(Some(close))).await?;
                    return Ok(());
                }
            }
        };
        if let Some(r) = reply {
            send(socket, &r).await?;
        }
    }
}

async fn send(socket: &mut WebSocket, e: &ServerEvent) -> anyhow::Result<()> {
    let text = serde_json::to_string(e)?;
    socket.send(Message::Text(text.into())).await?;
    Ok(())
}

fn error(message: impl Into<String>) -> ServerEvent {
    ServerEvent::Error(StreamError {
        message: message.into(),
    })
}

/// Takes one frame from the client: a step of a live view, an OPC UA request, or a
/// change to what it watches (answered with the devices now watched), or answers why
/// not and changes nothing.
async fn take(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    s: &mut Kept,
    text: &str,
) -> anyhow::Result<Option<ServerEvent>> {
    let event = match serde_json::from_str::<ClientEvent>(text) {
        Ok(e) => e,
        Err(e) => return Ok(Some(error(why_not(text, &e)))),
    };
    let (subscribe, devices) = match event {
        ClientEvent::Subscribe(d) => (true, d),
        ClientEvent::Unsubscribe(d) => (false, d),
        ClientEvent::WebrtcStreamOffer(step) => {
            return live_step(state, me, org, &mut s.viewing, step).await;
        }
        ClientEvent::DiscoverDevicesOpcua(ask) => {
            return opcua_step(state, me, org, &mut s.exploring, ask).await;
        }
    };
    watch_step(state, me, org, &mut s.watch, subscribe, devices)
        .await
        .map(Some)
}

/// A step of a live view (see [`crate::live`]).
async fn live_step(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    viewing: &mut Viewing,
    step: LiveRequest,
) -> anyhow::Result<Option<ServerEvent>> {
    let refused = |session: String, message: String| {
        Some(ServerEvent::WebrtcStreamOffer(LiveEvent::Refused {
            session,
            message,
        }))
    };
    match step {
        LiveRequest::Request { device, camera } => {
            if let Err(e) = gemba_shared::api::v1::device::check_camera(&camera) {
                return Ok(Some(error(format!("Camera {camera:?}: {e}"))));
            }
            // One row, not the organisation's whole list: this runs on every request.
            let row = devices::get(&state.db, me.user.id, Some(org), device).await?;
            if row.is_none_or(|r| r.archived) {
                return Ok(Some(error(format!("Device {device} not found."))));
            }
            let session = uuid::Uuid::new_v4().to_string();
            if let Err(e) = viewing.open(session.clone(), device, camera.clone()) {
                return Ok(Some(error(e)));
            }
            let ice_servers = state
                .relay
                .get()
                .map(|r| vec![r.ice_server(&session)])
                .unwrap_or_default();
            Ok(Some(ServerEvent::WebrtcStreamOffer(LiveEvent::Ready {
                session,
                device,
                camera,
                ice_servers,
            })))
        }
        LiveRequest::Offer { session, sdp } => {
            let s = match viewing.offer(&session, std::time::Instant::now()) {
                Ok(s) => s,
                Err(e) => return Ok(Some(error(e))),
            };
            let ice_servers = state
                .relay
                .get()
                .map(|r| vec![r.ice_server(&session)])
                .unwrap_or_default();
            let msg = RtcMessage::new(
                &session,
                crate::db::now_ms(),
                RtcRequest::Offer {
                    camera: s.camera,
                    sdp,
                    ice_servers,
                },
            );
            if let Err(e) = v1::Message::check(&msg) {
                viewing.close(&session);
                return Ok(refused(session, format!("The offer cannot be sent: {e}.")));
            }
            let row = devices::get(&state.db, me.user.id, Some(org), s.device).await?;
            if !row.is_some_and(|r| r.enrolled && r.online && !r.archived) {
                viewing.close(&session);
                return Ok(refused(session, "The device is offline.".into()));
            }
            if let Err(e) = state
                .mqtt
                .send(&state.db, org, s.device, Channel::Rtc, &msg)
                .await
            {
                tracing::warn!(device = s.device, error = %e, "a live view offer not sent");
                viewing.close(&session);
                return Ok(refused(
                    session,
                    "The offer could not reach the device.".into(),
                ));
            }
            Ok(None)
        }
        LiveRequest::Close { session } => {
            if let Some(s) = viewing.close(&session) {
                close_on_device(state, org, s.device, &session).await;
            }
            Ok(None)
        }
    }
}

/// An OPC UA request (see [`crate::opcua`]): sent to the device and answered `sent`,
/// or refused with why.
async fn opcua_step(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    exploring: &mut Exploring,
    OpcuaAsk { device, request }: OpcuaAsk,
) -> anyhow::Result<Option<ServerEvent>> {
    if !me.role.can(Permission::ExploreOpcua) {
        return Ok(Some(error("Your role may not use the OPC UA explorer.")));
    }
    let gate = Gated::OpcuaExplorer;
    if !me.is_admin() && !crate::db::features::enabled(&state.db, org, gate.name()).await? {
        return Ok(Some(error(format!(
            "{gate} is not enabled for this organization."
        ))));
    }
    if let Err(e) = request.check() {
        return Ok(Some(error(e)));
    }
    if let Err(e) = exploring.room() {
        return Ok(Some(error(e)));
    }
    let row = devices::get(&state.db, me.user.id, Some(org), device).await?;
    let Some(row) = row.filter(|r| !r.archived) else {
        return Ok(Some(error(format!("Device {device} not found."))));
    };
    if !row.enrolled || !row.online {
        return Ok(Some(error(format!(
            "{} is offline: try again once it is online.",
            row.display_name
        ))));
    }
    // Noted before it is sent, so the answer finds it however soon it comes.
    let id = crate::mqtt::new_command_id();
    exploring.asked(
        id.clone(),
        device,
        request.clone(),
        std::time::Instant::now(),
    );
    let command = Command::Opcua {
        request: request.clone(),
    };
    if let Err(e) = state
        .mqtt
        .command_with_id(&state.db, org, device, &id, command)
        .await
    {
        exploring.forget(&id);
        return Err(e.into());
    }
    Ok(Some(ServerEvent::DiscoverDevicesOpcua(OpcuaEvent::Sent {
        id,
        device,
        request,
    })))
}

/// Tells `device` that the viewer of `session` left.
async fn close_on_device(state: &AppState, org: i64, device: i64, session: &str) {
    let msg = RtcMessage::new(session, crate::db::now_ms(), RtcRequest::Close);
    if let Err(e) = state
        .mqtt
        .send(&state.db, org, device, Channel::Rtc, &msg)
        .await
    {
        tracing::debug!(device, error = %e, "a live view's end not sent");
    }
}

/// Changes what the stream watches and answers the devices now watched.
async fn watch_step(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    watch: &mut Watch,
    subscribe: bool,
    StreamDevices { devices: ids }: StreamDevices,
) -> anyhow::Result<ServerEvent> {
    if ids.as_ref().is_some_and(|i| i.len() > MAX_STREAM_DEVICES) {
        return Ok(error(format!(
            "Name at most {MAX_STREAM_DEVICES} devices at a time."
        )));
    }
    // Read once: checks the ids named, and answers what is watched after.
    let mut devices = org_devices(state, me, org).await?;
    let all: BTreeSet<i64> = devices.iter().map(|d| d.id).collect();
    let next = match (subscribe, ids) {
        (true, None) => Watch::All,
        (true, Some(ids)) => {
            if let Some(id) = ids.iter().find(|id| !all.contains(id)) {
                return Ok(error(format!("Device {id} not found.")));
            }
            match std::mem::take(watch) {
                Watch::All => Watch::All,
                Watch::Nothing => Watch::Some(ids.into_iter().collect()),
                Watch::Some(mut s) => {
                    s.extend(ids);
                    Watch::Some(s)
                }
            }
        }
        (false, None) => Watch::Nothing,
        (false, Some(ids)) => {
            let before = match std::mem::take(watch) {
                Watch::All => all,
                Watch::Nothing => BTreeSet::new(),
                Watch::Some(s) => s,
            };
            let ids: BTreeSet<i64> = ids.into_iter().collect();
            Watch::Some(before.difference(&ids).copied().collect())
        }
    };
    devices.retain(|d| next.has(d.id));
    *watch = next;
    Ok(ServerEvent::Devices(devices))
}

/// Why a frame is not one the server takes, in words.
fn why_not(text: &str, e: &serde_json::Error) -> String {
    let named = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("event").and_then(|e| e.as_str()).map(str::to_string));
    match named.as_deref() {
        Some("subscribe" | "unsubscribe") => {
            format!("Send {{\"devices\": [device ids]}} or {{}} as data: {e}")
        }
        Some("webrtc_stream_offer") => format!(
            "Send {{\"type\": \"request\", \"device\": id, \"camera\": name}}, \
             {{\"type\": \"offer\", \"session\": id, \"sdp\": text}} or \
             {{\"type\": \"close\", \"session\": id}} as data: {e}"
        ),
        Some("discover_devices_opcua") => format!(
            "Send {{\"device\": id, \"request\": {{\"op\": \"discover\"}}}}, \
             {{\"op\": \"browse\", \"endpoint\": url, \"node_id\": id}} or \
             {{\"op\": \"read\", \"endpoint\": url, \"node_id\": id}} as data: {e}"
        ),
        Some(other) => format!(
            "Unknown event {other:?}: send \"subscribe\", \"unsubscribe\", \
             \"webrtc_stream_offer\" or \"discover_devices_opcua\"."
        ),
        None => "Send a JSON object {\"event\": \"subscribe\" or \"unsubscribe\", \"data\": {\"devices\": [device ids]}}.".into(),
    }
}

async fn org_devices(state: &AppState, me: &AuthUser, org: i64) -> sqlx::Result<Vec<Device>> {
    let f = Filter {
        org: Some(org),
        ..Filter::default()
    };
    let (rows, _) = devices::list(&state.db, me.user.id, &f, None).await?;
    devices::with_tasks(&state.db, rows).await
}

/// The devices `watch` names, as they are now.
async fn watched(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    watch: &Watch,
) -> sqlx::Result<Vec<Device>> {
    if let Watch::Nothing = watch {
        return Ok(vec![]);
    }
    let mut all = org_devices(state, me, org).await?;
    all.retain(|d| watch.has(d.id));
    Ok(all)
}
