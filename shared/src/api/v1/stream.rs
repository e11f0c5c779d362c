//! The device stream: the WebSocket `/api/ws` (spec section 7 "Device stream event
//! names"). Every frame is a JSON text `{"event": NAME, "data": …}`.
//!
//! The client says what it watches with `subscribe` and `unsubscribe` (device ids, or
//! none for every device of the organisation); the server answers each with `devices`
//! (the devices now watched, as they are) and then sends `device_status` when a watched
//! device's status changes, `device_settings` when its settings are changed, and
//! `cycles` when its new cycles were stored. A frame the server cannot take is answered
//! with `error` and changes nothing.
//!
//! Live view (`webrtc_stream_offer`, both ways, its `type` saying which step): the
//! client sends `request` (a device and camera) and gets `ready` (a session and the
//! ICE servers to use, the relay's credentials only for it); it sends its `offer`
//! (all candidates gathered) and gets the device's `answer`, or `refused` with why;
//! `ended` says the device ended it; `close` ends it from the client (as does
//! closing the stream).
//!
//! The OPC UA explorer (`discover_devices_opcua`, both ways, issue 32): the client asks
//! a device of the organisation to discover servers, browse a node or read one
//! ([`OpcuaAsk`]); the server answers at once `sent` (the request's id) or `error`, and
//! later `answer` (the device's reply) or `failed` (the device's error, or no answer
//! in time), only to the stream that asked.

use serde::{Deserialize, Serialize};

use super::device::{Device, DeviceSettings};
use crate::mqtt::v1::{IceServer, OpcuaReply, OpcuaRequest, StatusMessage};

/// Ids a `subscribe` or `unsubscribe` may name, at most.
pub const MAX_STREAM_DEVICES: usize = 1_000;
/// Largest frame the server reads, in bytes.
pub const MAX_STREAM_FRAME_BYTES: usize = 64 * 1024;
/// The sub-protocol of this stream; a browser names it beside `bearer.{access token}`
/// (browsers cannot send an `Authorization` header with a WebSocket).
pub const STREAM_PROTOCOL: &str = "gemba.v1";

/// What the client sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum ClientEvent {
    /// Watch these devices besides those watched; an absent `devices` watches every
    /// device of the organisation.
    Subscribe(StreamDevices),
    /// Stop watching these devices; an absent `devices` stops watching any.
    Unsubscribe(StreamDevices),
    /// A step of a live view (see the module's text).
    WebrtcStreamOffer(LiveRequest),
    /// An OPC UA request to a device (see the module's text).
    DiscoverDevicesOpcua(OpcuaAsk),
}

/// `discover_devices_opcua` from the client: `request` for `device`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct OpcuaAsk {
    pub device: i64,
    pub request: OpcuaRequest,
}

/// `discover_devices_opcua` from the server, `type` saying which.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum OpcuaEvent {
    /// The request went to the device as `id`.
    Sent {
        id: String,
        device: i64,
        request: OpcuaRequest,
    },
    /// The device's reply to request `id`.
    Answer {
        id: String,
        device: i64,
        request: OpcuaRequest,
        reply: OpcuaReply,
    },
    /// No reply to request `id`, and why (the device's error, or no answer in time).
    Failed {
        id: String,
        device: i64,
        request: OpcuaRequest,
        message: String,
    },
}

impl OpcuaEvent {
    /// The request it is about.
    pub fn id(&self) -> &str {
        match self {
            OpcuaEvent::Sent { id, .. }
            | OpcuaEvent::Answer { id, .. }
            | OpcuaEvent::Failed { id, .. } => id,
        }
    }
}

/// The client's steps of a live view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LiveRequest {
    /// To watch `camera` of `device`: answered `ready`.
    Request { device: i64, camera: String },
    /// The offer of a session given by `ready`, with all its candidates.
    Offer { session: String, sdp: String },
    /// Leaves the session.
    Close { session: String },
}

/// The server's steps of a live view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LiveEvent {
    /// The session made for a `request`, and the ICE servers its peer connection uses.
    Ready {
        session: String,
        device: i64,
        camera: String,
        ice_servers: Vec<IceServer>,
    },
    /// The device's answer to the offer.
    Answer { session: String, sdp: String },
    /// No stream, and why (the device said so, is offline or did not answer).
    Refused { session: String, message: String },
    /// The device ended the stream, and why.
    Ended { session: String, message: String },
}

impl LiveEvent {
    /// The session it is about.
    pub fn session(&self) -> &str {
        match self {
            LiveEvent::Ready { session, .. }
            | LiveEvent::Answer { session, .. }
            | LiveEvent::Refused { session, .. }
            | LiveEvent::Ended { session, .. } => session,
        }
    }
}

/// The devices a subscription names.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct StreamDevices {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub devices: Option<Vec<i64>>,
}

/// What the server sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum ServerEvent {
    /// The devices now watched, as they are (after `subscribe` or `unsubscribe`, and
    /// again when the server may have missed changes).
    Devices(Vec<Device>),
    /// A watched device said it is online or offline, or sent a heartbeat.
    DeviceStatus(DeviceStatusEvent),
    /// A watched device's settings were changed.
    DeviceSettings(DeviceSettings),
    /// New cycles of a watched device were stored (ours, beside the spec's names: the
    /// screens showing cycles ask for them again). At most one a second a device.
    Cycles(CyclesEvent),
    /// A step of a live view (see the module's text); only to the session's stream.
    WebrtcStreamOffer(LiveEvent),
    /// An OPC UA request's fate (see the module's text); only to the stream that asked.
    DiscoverDevicesOpcua(OpcuaEvent),
    /// A frame the server could not take, and why; nothing changed.
    Error(StreamError),
}

/// `device_status`: what the device said, and when the cloud heard it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeviceStatusEvent {
    pub id: i64,
    pub online: bool,
    pub last_seen: i64,
    pub status: StatusMessage,
}

/// `cycles`: the device whose new cycles were stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CyclesEvent {
    pub id: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StreamError {
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_as_the_spec_names_them() {
        let c: ClientEvent =
            serde_json::from_str(r#"{"event":"subscribe","data":{"devices":[1,2]}}"#).unwrap();
        assert_eq!(
            c,
            ClientEvent::Subscribe(StreamDevices {
                devices: Some(vec![1, 2])
            })
        );
        let c: ClientEvent = serde_json::from_str(r#"{"event":"unsubscribe","data":{}}"#).unwrap();
        assert_eq!(c, ClientEvent::Unsubscribe(StreamDevices::default()));
        let c: ClientEvent = serde_json::from_str(
            r#"{"event":"webrtc_stream_offer","data":{"type":"request","device":3,"camera":"cam0"}}"#,
        )
        .unwrap();
        assert_eq!(
            c,
            ClientEvent::WebrtcStreamOffer(LiveRequest::Request {
                device: 3,
                camera: "cam0".into()
            })
        );
        let c: ClientEvent = serde_json::from_str(
            r#"{"event":"discover_devices_opcua","data":{"device":3,"request":{"op":"browse","endpoint":"opc.tcp://plc:4840"}}}"#,
        )
        .unwrap();
        assert_eq!(
            c,
            ClientEvent::DiscoverDevicesOpcua(OpcuaAsk {
                device: 3,
                request: OpcuaRequest::Browse {
                    endpoint: "opc.tcp://plc:4840".into(),
                    node_id: None
                }
            })
        );
        for bad in [
            r#"{"event":"discover_devices_opcua","data":{"device":3}}"#,
            r#"{"event":"discover_devices_opcua","data":{"device":3,"request":{"op":"scan"}}}"#,
            r#"{"event":"subscribe","data":{"devices":"all"}}"#,
            r#"{"event":"subscribe","data":{"device":[1]}}"#,
            r#"{"event":"webrtc_stream_offer","data":{}}"#,
            r#"{"event":"webrtc_stream_offer","data":{"type":"request","device":"1","camera":"c"}}"#,
            r#"{"event":"webrtc_stream_offer","data":{"type":"answer","session":"s","sdp":"v=0"}}"#,
            r#"{"data":{}}"#,
            "[]",
        ] {
            assert!(serde_json::from_str::<ClientEvent>(bad).is_err(), "{bad}");
        }
        let e = ServerEvent::Error(StreamError {
            message: "x".into(),
        });
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"event": "error", "data": {"message": "x"}})
        );
        let e = ServerEvent::DiscoverDevicesOpcua(OpcuaEvent::Failed {
            id: "r".into(),
            device: 3,
            request: OpcuaRequest::Discover { urls: vec![] },
            message: "no".into(),
        });
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            serde_json::json!({"event": "discover_devices_opcua", "data": {"type": "failed",
                "id": "r", "device": 3, "request": {"op": "discover", "urls": []}, "message": "no"}})
        );
    }
}
