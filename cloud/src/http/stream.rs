//! The device stream: the WebSocket `/api/ws` (its frames: `gemba_shared::api::v1::stream`).
//!
//! Opening it needs a full sign-in and `ViewDevices` in the organisation it names (the
//! `Organization` header or `?organization=`, else the host's sub-domain, else the
//! user's current one); the refusal is the REST API's (401, 403) before any upgrade.
//! A session only ever hears of its organisation's devices, and only of those it
//! watches. It is closed (code [`SIGNED_OUT`]) once the sign-in ends: the session is
//! checked again every `stream_recheck_ms` (30 s by default).

use std::collections::BTreeSet;
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use gemba_shared::Permission;
use gemba_shared::api::v1::device::Device;
use gemba_shared::api::v1::stream::{
    ClientEvent, MAX_STREAM_DEVICES, MAX_STREAM_FRAME_BYTES, STREAM_PROTOCOL, ServerEvent,
    StreamDevices, StreamError,
};
use tokio::sync::broadcast::error::RecvError;

use crate::db::devices::{self, Filter};
use crate::http::error::ApiResult;
use crate::http::extract::{AuthUser, StreamUser};
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
    let mut events = state.events.subscribe();
    let mut watch = Watch::Nothing;
    let recheck = Duration::from_millis(state.settings.stream_recheck_ms.max(100));
    let mut check = tokio::time::interval(recheck);
    check.tick().await;
    loop {
        let reply = tokio::select! {
            frame = socket.recv() => match frame {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return Ok(()),
                Some(Ok(Message::Text(text))) => {
                    Some(take(&state, &me, org, &mut watch, text.as_str()).await?)
                }
                Some(Ok(Message::Binary(_))) => Some(error("Send JSON text frames.")),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => None,
            },
            event = events.recv() => match event {
                Ok(e) if e.org == org && watch.has(e.device) => Some(e.event.clone()),
                Ok(_) => None,
                // Missed some: the devices as they are now stand in for what was missed.
                Err(RecvError::Lagged(_)) => match watch {
                    Watch::Nothing => None,
                    _ => Some(ServerEvent::Devices(watched(&state, &me, org, &watch).await?)),
                },
                Err(RecvError::Closed) => return Ok(()),
            },
            _ = check.tick() => {
                if me.still_signed_in(&state, org).await? {
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
            let text = serde_json::to_string(&r)?;
            socket.send(Message::Text(text.into())).await?;
        }
    }
}

fn error(message: impl Into<String>) -> ServerEvent {
    ServerEvent::Error(StreamError {
        message: message.into(),
    })
}

/// Takes one frame from the client: changes what it watches and answers the devices now
/// watched, or answers why not and changes nothing.
async fn take(
    state: &AppState,
    me: &AuthUser,
    org: i64,
    watch: &mut Watch,
    text: &str,
) -> anyhow::Result<ServerEvent> {
    let event = match serde_json::from_str::<ClientEvent>(text) {
        Ok(e) => e,
        Err(e) => return Ok(error(why_not(text, &e))),
    };
    let (subscribe, StreamDevices { devices: ids }) = match event {
        ClientEvent::Subscribe(d) => (true, d),
        ClientEvent::Unsubscribe(d) => (false, d),
    };
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
        Some(other) => format!(
            "Unknown event {other:?}: send \"subscribe\" or \"unsubscribe\"."
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
