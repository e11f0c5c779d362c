//! Live view in the cloud (issue 29): the signalling between a viewer's device stream
//! (`/api/ws`, `webrtc_stream_offer`) and the device (`rtc`, `rtc/answer`), and the
//! TURN relay ([`turn`]). The media never passes through here but for the relay.
//!
//! [`Viewing`] is one stream's sessions, plain state: a session is made for a device
//! and camera of the stream's organisation, offered once, and hears only its own
//! device's answer, until it is answered, refused, ended or left; an offer the device
//! leaves unanswered is refused after [`ANSWER_WITHIN`].

pub mod turn;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use gemba_shared::api::v1::stream::LiveEvent;

/// Starts the TURN relay when `turn_port` is set, on the HTTP listener's address
/// (`http`), and notes where peers reach it. The server runs while the answer lives.
pub async fn start_relay(
    state: &crate::state::AppState,
    http: std::net::SocketAddr,
) -> anyhow::Result<Option<::turn::server::Server>> {
    let Some(port) = state.settings.turn_port else {
        return Ok(None);
    };
    let listen_ip = http.ip();
    let host = match (&state.settings.turn_host, &state.settings.public_url) {
        (Some(h), _) => h.clone(),
        (None, Some(u)) => url_host(u).unwrap_or_else(|| listen_ip.to_string()),
        (None, None) if listen_ip.is_unspecified() => "127.0.0.1".into(),
        (None, None) => listen_ip.to_string(),
    };
    let relay_ip = match host.trim_matches(['[', ']']).parse::<std::net::IpAddr>() {
        Ok(ip) => ip,
        Err(_) => tokio::net::lookup_host((host.as_str(), 0))
            .await
            .ok()
            .and_then(|mut a| a.next())
            .map(|a| a.ip())
            .ok_or_else(|| anyhow::anyhow!("turn_host {host:?}: no address found for it"))?,
    };
    let bind = std::net::SocketAddr::new(listen_ip, port);
    let relay = turn::Relay::new(state.relay_secret.clone(), String::new());
    let (server, local) = turn::serve(relay, bind, relay_ip).await?;
    let port = local.port();
    let public = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    tracing::info!(%bind, public, "live view's TURN relay listening");
    let _ = state
        .relay
        .set(turn::Relay::new(state.relay_secret.clone(), public));
    Ok(Some(server))
}

/// The host of an `http(s)://host[:port]/…` URL.
fn url_host(u: &str) -> Option<String> {
    let rest = u.split_once("://")?.1;
    let authority = rest.split('/').next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split_inclusive(']').next()?
    } else {
        host.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_string())
}

/// How long a device has to answer an offer.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(20);
/// Sessions one stream may hold at once (a wall of tiles).
pub const MAX_SESSIONS: usize = 32;

/// Where a session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Made; its offer not yet sent.
    Ready,
    /// Offered to the device, to be answered by then.
    Offered(Instant),
    /// The device answered: media flows (or is trying to).
    Streaming,
}

#[derive(Debug, Clone)]
pub struct Session {
    pub device: i64,
    pub camera: String,
    stage: Stage,
}

/// One device stream's live sessions.
#[derive(Debug, Default)]
pub struct Viewing {
    sessions: HashMap<String, Session>,
}

impl Viewing {
    /// A new session for `camera` of `device`, or why not.
    pub fn open(&mut self, id: String, device: i64, camera: String) -> Result<(), String> {
        if self.sessions.len() >= MAX_SESSIONS {
            return Err(format!(
                "Watch at most {MAX_SESSIONS} cameras at a time; close one first."
            ));
        }
        self.sessions.insert(
            id,
            Session {
                device,
                camera,
                stage: Stage::Ready,
            },
        );
        Ok(())
    }

    /// The session `id` offered now: its device and camera, or why it cannot be.
    pub fn offer(&mut self, id: &str, now: Instant) -> Result<Session, String> {
        let s = self.sessions.get_mut(id).ok_or_else(|| {
            format!("No live session {id:?} on this stream: send a request first.")
        })?;
        if s.stage != Stage::Ready {
            return Err(format!(
                "Session {id} was offered already; request a new one."
            ));
        }
        s.stage = Stage::Offered(now + ANSWER_WITHIN);
        Ok(s.clone())
    }

    /// Forgets session `id`; answers it when its device was offered it (and is to be
    /// told it ended).
    pub fn close(&mut self, id: &str) -> Option<Session> {
        self.sessions.remove(id).filter(|s| s.stage != Stage::Ready)
    }

    /// What `device` said of one of its sessions, to pass on: only for a session of
    /// this stream, on that device, offered; a refusal or an end forgets it.
    pub fn heard(&mut self, device: i64, e: &LiveEvent) -> bool {
        let id = e.session();
        let Some(s) = self.sessions.get_mut(id) else {
            return false;
        };
        if s.device != device || s.stage == Stage::Ready {
            return false;
        }
        match e {
            LiveEvent::Answer { .. } => {
                if !matches!(s.stage, Stage::Offered(_)) {
                    return false;
                }
                s.stage = Stage::Streaming;
            }
            LiveEvent::Refused { .. } | LiveEvent::Ended { .. } => {
                self.sessions.remove(id);
            }
            LiveEvent::Ready { .. } => return false,
        }
        true
    }

    /// Sessions whose device did not answer in time, forgotten, each refused.
    pub fn overdue(&mut self, now: Instant) -> Vec<LiveEvent> {
        let late: Vec<String> = self
            .sessions
            .iter()
            .filter(|(_, s)| matches!(s.stage, Stage::Offered(by) if by <= now))
            .map(|(id, _)| id.clone())
            .collect();
        late.into_iter()
            .map(|id| {
                self.sessions.remove(&id);
                LiveEvent::Refused {
                    session: id,
                    message: "The device did not answer. It may be offline or busy; try again."
                        .into(),
                }
            })
            .collect()
    }

    /// Every session offered to a device (to be told they ended when the stream
    /// closes), forgotten.
    pub fn drain(&mut self) -> Vec<(String, Session)> {
        self.sessions
            .drain()
            .filter(|(_, s)| s.stage != Stage::Ready)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: &str) -> LiveEvent {
        LiveEvent::Answer {
            session: id.into(),
            sdp: "v=0".into(),
        }
    }

    #[test]
    fn a_session_hears_only_its_own_devices_answer_once_offered() {
        let mut v = Viewing::default();
        let now = Instant::now();
        v.open("s".into(), 7, "cam0".into()).unwrap();
        // Not yet offered: nothing to hear.
        assert!(!v.heard(7, &answer("s")));
        let s = v.offer("s", now).unwrap();
        assert_eq!((s.device, s.camera.as_str()), (7, "cam0"));
        assert!(v.offer("s", now).unwrap_err().contains("already"));
        assert!(v.offer("nope", now).unwrap_err().contains("request"));
        // Another device cannot answer it, nor a session of another stream.
        assert!(!v.heard(8, &answer("s")));
        assert!(!v.heard(7, &answer("other")));
        assert!(v.heard(7, &answer("s")));
        // Answered once only.
        assert!(!v.heard(7, &answer("s")));
        let ended = LiveEvent::Ended {
            session: "s".into(),
            message: "the camera stopped".into(),
        };
        assert!(v.heard(7, &ended));
        assert!(v.close("s").is_none());
    }

    #[test]
    fn an_unanswered_offer_is_refused_in_time_and_a_closed_stream_tells_its_devices() {
        let mut v = Viewing::default();
        let now = Instant::now();
        for id in ["a", "b", "c"] {
            v.open(id.into(), 1, "cam0".into()).unwrap();
        }
        v.offer("a", now).unwrap();
        v.offer("b", now + Duration::from_secs(5)).unwrap();
        assert!(
            v.overdue(now + ANSWER_WITHIN - Duration::from_millis(1))
                .is_empty()
        );
        let late = v.overdue(now + ANSWER_WITHIN);
        assert_eq!(late.len(), 1);
        assert_eq!(late[0].session(), "a");
        // b was offered, c never was: only b's device is told.
        let told: Vec<String> = v.drain().into_iter().map(|(id, _)| id).collect();
        assert_eq!(told, vec!["b".to_string()]);
    }

    #[test]
    fn a_stream_holds_a_bounded_number_of_sessions() {
        let mut v = Viewing::default();
        for i in 0..MAX_SESSIONS {
            v.open(format!("s{i}"), 1, "cam0".into()).unwrap();
        }
        assert!(v.open("one more".into(), 1, "cam0".into()).is_err());
    }
}
