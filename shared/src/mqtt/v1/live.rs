//! Live view signalling between cloud and agent (issue 29): the viewer's WebRTC offer
//! goes to the device on `rtc` ([`RtcMessage`]), the device's answer comes back on
//! `rtc/answer` ([`RtcReply`]); media then flows between browser and device directly or
//! through the cloud's TURN relay. Offers are not trickled: each side's description
//! carries all its candidates, so one message each way makes a stream.

use serde::{Deserialize, Serialize};

use super::{Message, VERSION};
use crate::api::v1::device::check_camera;

/// Largest session description either side sends, in bytes (a browser's offer with
/// its candidates is a few kilobytes).
pub const MAX_SDP_BYTES: usize = 32 * 1024;
/// How long a viewer's offer holds after the cloud sent it: an agent that takes it
/// later (a broker holding it while the device was away) refuses it.
pub const OFFER_VALID_MS: i64 = 30_000;

/// A STUN or TURN server for a peer connection, as a browser's `RTCIceServer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct IceServer {
    pub urls: Vec<String>,
    /// The relay's credentials (empty for a STUN server).
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub credential: String,
}

/// What the cloud asks of a device's live view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RtcRequest {
    /// A viewer's offer to watch `camera`: answer it (`sdp`, with every candidate)
    /// using `ice_servers` (the relay, with this session's credentials).
    Offer {
        camera: String,
        sdp: String,
        #[serde(default)]
        ice_servers: Vec<IceServer>,
    },
    /// The viewer left: end the session.
    Close,
}

/// `rtc` (cloud → agent, QoS 1). `session` names one viewer's stream; the agent
/// takes each session's offer once, and only until `expires_ms` on the cloud's clock
/// (compared with the newest `sent_ms` it has seen from the cloud, like commands).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtcMessage {
    pub v: u32,
    pub session: String,
    pub sent_ms: i64,
    pub expires_ms: i64,
    pub request: RtcRequest,
}

/// What a device says of a live view session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RtcAnswer {
    /// The device's answer, with every candidate.
    Answer { sdp: String },
    /// The device will not stream it, and why (no such camera, its source failed…).
    Refused { message: String },
    /// The stream ended on the device's side, and why.
    Ended { message: String },
}

/// `rtc/answer` (agent → cloud, QoS 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RtcReply {
    pub v: u32,
    pub session: String,
    pub answer: RtcAnswer,
}

/// A session id: what the cloud makes (a UUID) and nothing a topic or log could trip on.
pub fn check_session(s: &str) -> Result<(), String> {
    let ok =
        !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err("a live session id is 1 to 64 letters, digits or dashes".into())
    }
}

fn check_sdp(sdp: &str) -> Result<(), String> {
    if sdp.len() > MAX_SDP_BYTES {
        return Err(format!(
            "a session description is at most {MAX_SDP_BYTES} bytes"
        ));
    }
    if !sdp.starts_with("v=0") {
        return Err("a session description starts with v=0".into());
    }
    Ok(())
}

/// A message's version and session.
fn check_head(v: u32, session: &str) -> Result<(), String> {
    if v != VERSION {
        return Err(format!("live view messages are version {VERSION}, not {v}"));
    }
    check_session(session)
}

impl RtcMessage {
    /// `request` for `session`, sent now (`now_ms`, the cloud's clock) and holding
    /// [`OFFER_VALID_MS`].
    pub fn new(session: &str, now_ms: i64, request: RtcRequest) -> RtcMessage {
        RtcMessage {
            v: VERSION,
            session: session.into(),
            sent_ms: now_ms,
            expires_ms: now_ms + OFFER_VALID_MS,
            request,
        }
    }
}

impl Message for RtcMessage {
    fn check(&self) -> Result<(), String> {
        check_head(self.v, &self.session)?;
        if self.expires_ms <= self.sent_ms {
            return Err("an offer expires after it was sent".into());
        }
        match &self.request {
            RtcRequest::Offer {
                camera,
                sdp,
                ice_servers,
            } => {
                check_camera(camera)?;
                check_sdp(sdp)?;
                if ice_servers.len() > 8 {
                    return Err("at most 8 ICE servers".into());
                }
                Ok(())
            }
            RtcRequest::Close => Ok(()),
        }
    }
}

impl Message for RtcReply {
    fn check(&self) -> Result<(), String> {
        check_head(self.v, &self.session)?;
        match &self.answer {
            RtcAnswer::Answer { sdp } => check_sdp(sdp),
            RtcAnswer::Refused { message } | RtcAnswer::Ended { message } => {
                if message.len() > 1000 {
                    Err("a reason is at most 1000 bytes".into())
                } else {
                    Ok(())
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mqtt::v1::{sign, verify};

    fn offer() -> RtcMessage {
        RtcMessage {
            v: VERSION,
            session: "0b6f2c1e-aaaa-4bbb-8ccc-123456789abc".into(),
            sent_ms: 1_000,
            expires_ms: 1_000 + OFFER_VALID_MS,
            request: RtcRequest::Offer {
                camera: "cam0".into(),
                sdp: "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\n".into(),
                ice_servers: vec![IceServer {
                    urls: vec!["turn:127.0.0.1:3478?transport=udp".into()],
                    username: "1700000000:s".into(),
                    credential: "c".into(),
                }],
            },
        }
    }

    #[test]
    fn an_offer_travels_signed_and_checked() {
        let key = [3u8; 32];
        let m = offer();
        let back: RtcMessage = verify(&key, &sign(&key, "k", &m)).unwrap();
        assert_eq!(back, m);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["request"]["type"], "offer");
    }

    #[test]
    fn bad_offers_and_replies_are_refused_with_why() {
        let key = [3u8; 32];
        let cases: Vec<(RtcMessage, &str)> = vec![
            (RtcMessage { v: 2, ..offer() }, "version"),
            (
                RtcMessage {
                    session: "a/b".into(),
                    ..offer()
                },
                "session id",
            ),
            (
                RtcMessage {
                    expires_ms: 1_000,
                    ..offer()
                },
                "expires",
            ),
            (
                RtcMessage {
                    request: RtcRequest::Offer {
                        camera: "cam0".into(),
                        sdp: "hello".into(),
                        ice_servers: vec![],
                    },
                    ..offer()
                },
                "v=0",
            ),
            (
                RtcMessage {
                    request: RtcRequest::Offer {
                        camera: "cam0".into(),
                        sdp: format!("v=0{}", "a".repeat(MAX_SDP_BYTES)),
                        ice_servers: vec![],
                    },
                    ..offer()
                },
                "at most",
            ),
        ];
        for (m, why) in cases {
            let e = verify::<RtcMessage>(&key, &sign(&key, "k", &m)).unwrap_err();
            assert!(e.contains(why), "{e} should say {why}");
        }
        let reply = RtcReply {
            v: VERSION,
            session: "s-1".into(),
            answer: RtcAnswer::Refused {
                message: "x".repeat(1001),
            },
        };
        assert!(verify::<RtcReply>(&key, &sign(&key, "k", &reply)).is_err());
        let reply = RtcReply {
            answer: RtcAnswer::Answer {
                sdp: "v=0\r\n".into(),
            },
            ..reply
        };
        assert_eq!(
            verify::<RtcReply>(&key, &sign(&key, "k", &reply)).unwrap(),
            reply
        );
    }
}
