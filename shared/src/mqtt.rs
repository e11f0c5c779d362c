//! The MQTT contract between agent and cloud, version 1 (`../shared/design/architecture.md`
//! "MQTT contract"): topics `gemba/v1/{org}/{device}/{channel}` and the JSON payloads,
//! each with its schema version `v`. Long because it is one job: the whole v1 contract
//! in one place (its messages in about 500 lines, then their tests), so agent and cloud
//! read the same definitions.

pub mod v1 {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    use crate::api::v1::device::check_camera;
    use crate::cycle::{BadReason, Cycle, Segment};

    mod config;
    pub use config::*;
    mod update;
    pub use update::*;
    mod health;
    pub use health::*;
    pub mod opcua;
    pub use opcua::*;

    /// The schema version of every payload below but commands.
    pub const VERSION: u32 = 1;
    /// The schema version of commands ([`CommandMessage`]): 2 since they say when they
    /// were sent and until when they hold (issue 28). An agent refuses a command of
    /// another version, saying so.
    pub const COMMAND_VERSION: u32 = 2;
    /// The topic prefix of this version.
    pub const PREFIX: &str = "gemba/v1";
    /// Largest payload either side accepts.
    pub const MAX_PAYLOAD_BYTES: usize = 256 * 1024;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Channel {
        Status,
        Cycles,
        Events,
        Cmd,
        CmdAck,
        /// Cloud → agent: a viewer's live view offer, or its end ([`RtcMessage`]).
        Rtc,
        /// Cloud → agent: the cycles the cloud has stored (the agent's outbox lets them go).
        CyclesAck,
        /// Agent → cloud: the device's answer to a live view offer ([`RtcReply`]). Its
        /// own topic beside `rtc`, so neither side hears its own messages back.
        RtcAnswer,
    }

    impl Channel {
        pub const ALL: [Channel; 8] = [
            Channel::Status,
            Channel::Cycles,
            Channel::Events,
            Channel::Cmd,
            Channel::CmdAck,
            Channel::Rtc,
            Channel::CyclesAck,
            Channel::RtcAnswer,
        ];

        pub fn as_str(self) -> &'static str {
            match self {
                Channel::Status => "status",
                Channel::Cycles => "cycles",
                Channel::Events => "events",
                Channel::Cmd => "cmd",
                Channel::CmdAck => "cmd/ack",
                Channel::Rtc => "rtc",
                Channel::CyclesAck => "cycles/ack",
                Channel::RtcAnswer => "rtc/answer",
            }
        }
    }

    /// The topic of `channel` for `device` of organisation `org`.
    pub fn topic(org: &str, device: &str, channel: Channel) -> String {
        format!("{PREFIX}/{org}/{device}/{}", channel.as_str())
    }

    mod live;
    pub use live::*;

    // ----- signing ------------------------------------------------------------------------

    /// A message of the contract: what [`verify`] reads, checked beyond its shape.
    pub trait Message: serde::de::DeserializeOwned {
        /// The message's own consistency, or why not.
        fn check(&self) -> Result<(), String> {
            Ok(())
        }
    }

    /// Any JSON (events, whose content is not read yet).
    impl Message for serde_json::Value {}

    /// Every payload either side publishes is a compact JWS (HS256) of the message's
    /// JSON, signed with the device's key; its header's `kid` names the key (the
    /// device's credential id), so a device speaks only for itself whatever broker is in
    /// between, and the agent obeys only its cloud.
    pub fn sign_json(key: &[u8], kid: &str, json: &[u8]) -> Result<Vec<u8>, String> {
        let text = std::str::from_utf8(json).map_err(|e| e.to_string())?;
        let raw = serde_json::value::RawValue::from_string(text.to_string())
            .map_err(|e| e.to_string())?;
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
        header.typ = None;
        header.kid = Some(kid.to_string());
        jsonwebtoken::encode(&header, &raw, &jsonwebtoken::EncodingKey::from_secret(key))
            .map(String::into_bytes)
            .map_err(|e| e.to_string())
    }

    /// [`sign_json`] of a message.
    pub fn sign<T: Serialize>(key: &[u8], kid: &str, msg: &T) -> Vec<u8> {
        let json = serde_json::to_vec(msg).expect("messages serialize");
        sign_json(key, kid, &json).expect("serialized JSON is UTF-8")
    }

    /// Checks a payload's signature with `key`, reads the message in it and checks it
    /// ([`Message::check`]).
    pub fn verify<T: Message>(key: &[u8], payload: &[u8]) -> Result<T, String> {
        verify_signed(key, None, payload)
    }

    /// [`verify`], and the payload must name `kid` as its key (one read of the token).
    pub fn verify_kid<T: Message>(key: &[u8], kid: &str, payload: &[u8]) -> Result<T, String> {
        verify_signed(key, Some(kid), payload)
    }

    fn verify_signed<T: Message>(
        key: &[u8],
        kid: Option<&str>,
        payload: &[u8],
    ) -> Result<T, String> {
        if payload.len() > MAX_PAYLOAD_BYTES {
            return Err(format!("payload over {MAX_PAYLOAD_BYTES} bytes"));
        }
        let text = std::str::from_utf8(payload).map_err(|_| "payload is not UTF-8".to_string())?;
        let mut v = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
        v.required_spec_claims.clear();
        v.validate_exp = false;
        v.validate_aud = false;
        let d = jsonwebtoken::decode::<T>(text, &jsonwebtoken::DecodingKey::from_secret(key), &v)
            .map_err(|e| match e.kind() {
            jsonwebtoken::errors::ErrorKind::InvalidSignature => "wrong signature".to_string(),
            jsonwebtoken::errors::ErrorKind::Json(j) => j.to_string(),
            _ => format!("not a signed message: {e}"),
        })?;
        match kid {
            Some(k) if d.header.kid.as_deref() != Some(k) => {
                Err("signed with a key that is not the device's".into())
            }
            _ => {
                d.claims.check()?;
                Ok(d.claims)
            }
        }
    }

    // ----- status, acknowledgements, commands ----------------------------------------------

    /// What a camera is doing, in a status message.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    #[serde(rename_all = "snake_case")]
    pub enum CameraState {
        /// It runs no task.
        #[default]
        Idle,
        /// Its task started and no frame has come through yet.
        Starting,
        /// Frames come through its task.
        Running,
        /// Its task is set but its source failed (`error`, `since_ms`); the agent
        /// tries again at `retry_at_ms`.
        Failed,
    }

    /// One camera's work, in a status message. Times are the device's clock, like
    /// the message's `ts_ms`.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    #[serde(deny_unknown_fields)]
    pub struct CameraStatus {
        pub camera: String,
        /// The task it is set to run, if any (also while it failed and waits to retry).
        pub task: Option<i64>,
        pub fps: f32,
        pub model_version: Option<String>,
        #[serde(default)]
        pub state: CameraState,
        /// The generation of the start it runs (see [`Command::StartTask`]; 0: none
        /// given).
        #[serde(default)]
        pub generation: i64,
        /// Why it failed, in words a technician can act on (camera, source, what).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub error: Option<String>,
        /// Something wrong that does not stop it, in the same words (a file that
        /// ends early, clips that cannot be made).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub warning: Option<String>,
        /// Failed since then.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub since_ms: Option<i64>,
        /// When the agent starts it again.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub retry_at_ms: Option<i64>,
        /// Drift: the share (0–1) of the last minute's frames whose most likely label
        /// the model gave less than [`UNSURE_BELOW`] (while it runs, once it has seen
        /// enough frames).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub unsure_share: Option<f32>,
        /// The same frames' mean brightness (luma, 0–255) as the model sees them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub brightness: Option<f32>,
        /// The model has been unsure of this camera's frames since then: the share
        /// rose over the agent's threshold then and stayed there.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub unsure_since_ms: Option<i64>,
        /// `unsure_share` and `brightness` when the model was last sure (before
        /// `unsure_since_ms`, or before the share last rose), to compare with now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sure_share: Option<f32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sure_brightness: Option<f32>,
        /// The schedule (`DeviceConfig::schedules`, by id) that started its task, while
        /// its window lasts: the cloud leaves the camera to it until then.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub schedule: Option<i64>,
        /// The barcode it read that started its task (an associated barcode,
        /// `DeviceConfig::barcodes`), until a start or stop from the cloud: the cloud
        /// leaves the camera to it, as to a schedule.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub barcode: Option<String>,
        /// Its faults while they last ([`Fault`]): offline, frozen, slow, model.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "ts", ts(optional, as = "Option<Vec<Fault>>"))]
        pub faults: Vec<Fault>,
    }

    /// A frame whose most likely label has a probability under this is one the model
    /// is unsure about.
    pub const UNSURE_BELOW: f32 = 0.6;

    impl CameraStatus {
        /// Its drift figures are in range (shares 0–1, brightness 0–255).
        fn drift_ok(&self) -> bool {
            let share = |x: Option<f32>| x.is_none_or(|x| (0.0..=1.0).contains(&x));
            let light = |x: Option<f32>| x.is_none_or(|x| (0.0..=255.0).contains(&x));
            share(self.unsure_share)
                && share(self.sure_share)
                && light(self.brightness)
                && light(self.sure_brightness)
        }
    }

    /// `status` (QoS 1, retained; also the last will with `online: false`): the
    /// agent's heartbeat.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    #[serde(deny_unknown_fields)]
    pub struct StatusMessage {
        pub v: u32,
        pub online: bool,
        /// The device's clock when it was sent; in the last will, when its connection
        /// began. The cloud takes an online status only when later than any it took, an
        /// offline one only when later than the last offline one (a replay changes
        /// nothing).
        pub ts_ms: i64,
        #[serde(default)]
        pub agent_version: String,
        #[serde(default)]
        pub cameras: Vec<CameraStatus>,
        /// Cycle records waiting in the outbox.
        #[serde(default)]
        pub outbox: u64,
        #[serde(default)]
        pub disk_free_mb: Option<u64>,
        #[serde(default)]
        pub temperature_c: Option<f32>,
        /// The version of the [`DeviceConfig`] the agent applies (0: none). Optional in
        /// TypeScript: an older agent's status has none.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<i64>", optional))]
        pub config_version: i64,
        /// What the agent was built for (`x86_64`, `aarch64`; empty from an older
        /// agent): the releases it can run. Optional in TypeScript, as
        /// `config_version`.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<String>", optional))]
        pub target: String,
        /// Whether a self-update can restart the agent (it runs under `gemba-agent
        /// supervise`). Optional in TypeScript, as `config_version`.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(as = "Option<bool>", optional))]
        pub updatable: bool,
        /// The device's latest self-update, until another begins.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub update: Option<UpdateReport>,
        /// The device's own faults while they last: outbox filling, disk low.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "ts", ts(optional, as = "Option<Vec<Fault>>"))]
        pub faults: Vec<Fault>,
    }

    impl Message for StatusMessage {
        fn check(&self) -> Result<(), String> {
            if self.v != VERSION {
                return Err(format!("unknown schema version {}", self.v));
            }
            if self.cameras.len() > 64
                || self.cameras.iter().any(|c| {
                    check_camera(&c.camera).is_err()
                        || !c.fps.is_finite()
                        || c.fps < 0.0
                        || !c.drift_ok()
                        || [&c.error, &c.warning]
                            .into_iter()
                            .any(|e| e.as_ref().is_some_and(|e| e.len() > 1000))
                        || check_faults(&c.faults).is_err()
                        || c.barcode.as_ref().is_some_and(|b| b.len() > 1000)
                })
            {
                return Err("bad camera list".into());
            }
            if self.agent_version.len() > 100 || self.target.len() > 32 {
                return Err("agent_version over 100 bytes or target over 32".into());
            }
            if let Some(u) = &self.update {
                u.check()?;
            }
            check_faults(&self.faults)?;
            Ok(())
        }
    }

    impl Message for CyclesAck {}

    impl Message for CommandMessage {
        fn check(&self) -> Result<(), String> {
            if self.v != COMMAND_VERSION {
                return Err(format!(
                    "a command of schema version {} (this agent reads {COMMAND_VERSION}): \
                     the cloud and the agent must be updated together",
                    self.v
                ));
            }
            if self.id.is_empty() || self.id.len() > 100 {
                return Err("a command id of 1 to 100 bytes".into());
            }
            if self.expires_ms <= self.sent_ms {
                return Err("a command that expires before it was sent".into());
            }
            match &self.command {
                Command::Config { config } => config.check(),
                Command::Screenshot { camera, .. } | Command::Rebaseline { camera } => {
                    check_camera(camera).map(|_| ())
                }
                Command::Opcua { request } => request.check(),
                _ => Ok(()),
            }
        }
    }

    impl Message for CommandAck {
        fn check(&self) -> Result<(), String> {
            if self.message.len() > 1000 {
                return Err("message over 1000 bytes".into());
            }
            self.opcua.as_ref().map_or(Ok(()), OpcuaReply::check)
        }
    }

    /// `cycles/ack` (cloud → agent, QoS 1): these cycles are stored.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CyclesAck {
        pub v: u32,
        pub ids: Vec<String>,
        /// Cycles the cloud will never store (their task is not the organisation's, or
        /// a person deleted them): the agent lets them go too, and logs them.
        #[serde(default)]
        pub refused: Vec<String>,
        /// Where the agent may upload the video clips of the cycles in `ids` (a link of
        /// this acknowledgement's own, for those cycles only, each clip once, good for
        /// an hour by default): one `PUT` of a clip's whole file to this URL followed
        /// by the cycle's id and `?start_ms=` (the time of the clip's first frame, on
        /// the cycle's clock). Absent: the cloud wants no clips.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub clip_url: Option<String>,
    }

    /// What the cloud asks of an agent on `cmd`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Command {
        /// Run `task` on `camera` (replacing what it ran), with the task's cycle rules.
        /// `generation` orders what the portal set for the camera (it grows with each
        /// change; 0: not given): the agent reports it back and a stop older than it
        /// leaves the camera running.
        StartTask {
            camera: String,
            task: i64,
            engine: crate::cycle::EngineConfig,
            #[serde(default)]
            generation: i64,
        },
        /// Stop what `camera` runs: only `task` when given, and only when the camera's
        /// start is not newer than `generation` (when not 0), so a stop sent on an old
        /// view never stops a newer start.
        StopTask {
            camera: String,
            #[serde(default)]
            task: Option<i64>,
            #[serde(default)]
            generation: i64,
        },
        /// The device's settings changed (the whole object).
        Settings { settings: serde_json::Value },
        /// Install model `version` for `task`: download the bundle (`model.onnx`) from
        /// `url` (signed, good for hours), check its size and SHA-256, and swap it into
        /// the cameras running `task` without a restart; later starts of `task` use it.
        Deploy {
            task: i64,
            version: String,
            url: String,
            sha256: String,
            size_bytes: i64,
        },
        /// Record `seconds` of `camera` as a training video and upload it with one
        /// `PUT` of the whole file to `url` (signed, good for hours). The
        /// acknowledgement comes when the upload is done (or failed), not at once.
        Record {
            camera: String,
            seconds: u32,
            url: String,
        },
        /// The device's whole configuration (remote cameras, blur regions, schedules),
        /// replacing the last: keep it and act on it, also while offline.
        Config { config: DeviceConfig },
        /// Take a JPEG of `camera` now, blur applied, and upload it with one `PUT` to
        /// `url` (an upload link of this screenshot only). Acknowledged once uploaded.
        Screenshot { camera: String, url: String },
        /// Take `camera`'s view now as its reference (it was moved on purpose, and a
        /// person accepted the new view): its `moved` fault ends. Refused while it is
        /// covered; a camera running no task forgets its reference and takes a new one
        /// when it runs next.
        Rebaseline { camera: String },
        /// Run release `release` (`version`, built for `target`): download the binary
        /// from `url` (signed, good for hours), check its size, SHA-256 and Ed25519
        /// `signature` against the release key of the enrolment, then restart into it;
        /// it must come back healthy or the device goes back to what it ran. Progress
        /// comes in the status ([`UpdateReport`]); the acknowledgement once the release
        /// is checked and in place (or refused).
        Update {
            release: i64,
            version: String,
            target: String,
            url: String,
            sha256: String,
            size_bytes: i64,
            signature: String,
        },
        /// Answer an OPC UA question (issue 32, `mqtt/v1/opcua.rs`): discover the servers
        /// the device reaches, browse a node's children, read a node. The answer is the
        /// acknowledgement's `opcua` ([`CommandAck::opcua`]), sent once the device has
        /// it (a server that does not answer: an error after a few seconds).
        Opcua { request: OpcuaRequest },
    }

    /// `cmd` (cloud → agent, QoS 1), version [`COMMAND_VERSION`]. Carried out once:
    /// the agent remembers its id until it expires, and refuses it once expired, both
    /// judged on the cloud's clock only (the newest `sent_ms` the agent has taken), so
    /// the device's clock may be anywhere.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CommandMessage {
        pub v: u32,
        /// Made by the cloud, unique; the acknowledgement names it.
        pub id: String,
        /// When the cloud sent it, on the cloud's clock (0 in an older version's).
        #[serde(default)]
        pub sent_ms: i64,
        /// Until when it holds, on the cloud's clock: once the agent has taken a
        /// command sent later than this, this one is refused as expired.
        #[serde(default)]
        pub expires_ms: i64,
        pub command: Command,
    }

    /// `cmd/ack` (agent → cloud, QoS 1): how a command went.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CommandAck {
        pub v: u32,
        pub id: String,
        pub ok: bool,
        #[serde(default)]
        pub message: String,
        /// The answer to a [`Command::Opcua`], when `ok`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub opcua: Option<OpcuaReply>,
    }

    /// A topic's organisation, device and channel; `None` for anything else (a wrong
    /// prefix, an empty or wildcard level, an unknown channel).
    pub fn parse_topic(topic: &str) -> Option<(&str, &str, Channel)> {
        let rest = topic.strip_prefix(PREFIX)?.strip_prefix('/')?;
        let (org, rest) = rest.split_once('/')?;
        let (device, channel) = rest.split_once('/')?;
        let level_ok = |s: &str| !s.is_empty() && !s.contains(['+', '#', '/']);
        if !level_ok(org) || !level_ok(device) {
            return None;
        }
        let channel = Channel::ALL.into_iter().find(|c| c.as_str() == channel)?;
        Some((org, device, channel))
    }

    /// One finished cycle, as the agent sends it on `cycles` (QoS 1) and the cloud
    /// ingests it, idempotently on `id`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CycleMessage {
        pub v: u32,
        /// A UUID made on the device.
        pub id: String,
        pub task: i64,
        pub camera: String,
        pub start_ms: i64,
        pub end_ms: i64,
        pub segments: Vec<Segment>,
        pub idle_ms: i64,
        pub good: bool,
        pub reasons: Vec<BadReason>,
        /// Free metadata (a barcode read at the station…).
        #[serde(default)]
        pub metadata: BTreeMap<String, String>,
    }

    impl CycleMessage {
        pub fn new(id: String, task: i64, camera: String, c: Cycle) -> CycleMessage {
            CycleMessage {
                v: VERSION,
                id,
                task,
                camera,
                start_ms: c.start_ms,
                end_ms: c.end_ms,
                segments: c.segments,
                idle_ms: c.idle_ms,
                good: c.good,
                reasons: c.reasons,
                metadata: BTreeMap::new(),
            }
        }
    }

    impl Message for CycleMessage {
        /// Version, id, times, segments inside the cycle and in order, the verdict
        /// matching its reasons.
        fn check(&self) -> Result<(), String> {
            if self.v != VERSION {
                return Err(format!("unknown schema version {}", self.v));
            }
            let id_ok = self.id.len() == 36
                && self.id.chars().enumerate().all(|(i, c)| {
                    if matches!(i, 8 | 13 | 18 | 23) {
                        c == '-'
                    } else {
                        c.is_ascii_hexdigit()
                    }
                });
            if !id_ok {
                return Err("id is not a UUID".into());
            }
            check_camera(&self.camera)?;
            if self.start_ms < 0 || self.end_ms < self.start_ms {
                return Err("the cycle ends before it starts".into());
            }
            let mut at = self.start_ms;
            for s in &self.segments {
                if s.start_ms < at || s.end_ms <= s.start_ms || s.end_ms > self.end_ms {
                    return Err("segments must lie inside the cycle, in order".into());
                }
                at = s.end_ms;
            }
            if self.idle_ms < 0 || self.idle_ms > self.end_ms - self.start_ms {
                return Err("idle time out of range".into());
            }
            if self.good != self.reasons.is_empty() {
                return Err("a good cycle has no reasons, a bad one at least one".into());
            }
            if self.metadata.len() > 50
                || self
                    .metadata
                    .iter()
                    .any(|(k, v)| k.len() > 100 || v.len() > 1000)
            {
                return Err("metadata too large".into());
            }
            Ok(())
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn cycle() -> CycleMessage {
            CycleMessage::new(
                "0f8fad5b-d9cb-469f-a165-70867728950e".into(),
                7,
                "cam0".into(),
                Cycle {
                    start_ms: 1000,
                    end_ms: 5000,
                    segments: vec![
                        Segment {
                            step: 0,
                            start_ms: 1000,
                            end_ms: 3000,
                        },
                        Segment {
                            step: 1,
                            start_ms: 3500,
                            end_ms: 5000,
                        },
                    ],
                    idle_ms: 500,
                    good: true,
                    reasons: vec![],
                },
            )
        }

        #[test]
        fn a_status_without_drift_figures_still_reads_and_bad_figures_are_refused() {
            // An older agent's status: no drift fields.
            let old = r#"{"v":1,"online":true,"ts_ms":5,"cameras":[{"camera":"cam0",
                "task":3,"fps":15.0,"model_version":"m1","state":"running"}]}"#;
            let s: StatusMessage = serde_json::from_str(old).unwrap();
            assert_eq!(s.cameras[0].unsure_since_ms, None);
            assert_eq!(s.check(), Ok(()));
            // None is not written, so a status without figures reads as before.
            let json = serde_json::to_string(&s.cameras[0]).unwrap();
            assert!(
                !json.contains("unsure") && !json.contains("bright"),
                "{json}"
            );
            let mut s = s;
            s.cameras[0].unsure_share = Some(0.4);
            s.cameras[0].brightness = Some(12.5);
            s.cameras[0].unsure_since_ms = Some(3);
            assert_eq!(s.check(), Ok(()));
            let back: StatusMessage =
                serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
            assert_eq!(back, s);
            for bad in [
                |c: &mut CameraStatus| c.unsure_share = Some(1.5),
                |c: &mut CameraStatus| c.sure_share = Some(-0.1),
                |c: &mut CameraStatus| c.brightness = Some(300.0),
                |c: &mut CameraStatus| c.sure_brightness = Some(f32::NAN),
            ] {
                let mut s = s.clone();
                bad(&mut s.cameras[0]);
                assert!(s.check().is_err(), "{:?}", s.cameras[0]);
            }
        }

        #[test]
        fn topics_round_trip_and_refuse_anything_else() {
            for c in Channel::ALL {
                let t = topic("acme", "dev-1", c);
                assert_eq!(parse_topic(&t), Some(("acme", "dev-1", c)), "{t}");
            }
            assert_eq!(
                topic("acme", "d", Channel::CmdAck),
                "gemba/v1/acme/d/cmd/ack"
            );
            for bad in [
                "gemba/v2/acme/d/cycles",
                "gemba/v1/acme/d/nope",
                "gemba/v1//d/cycles",
                "gemba/v1/acme/+/cycles",
                "gemba/v1/acme/#",
                "gemba/v1/acme/d",
                "other/v1/acme/d/cycles",
            ] {
                assert_eq!(parse_topic(bad), None, "{bad}");
            }
        }

        #[test]
        fn a_cycle_message_round_trips_and_bad_ones_say_why() {
            const K: &[u8] = b"0123456789abcdef0123456789abcdef";
            // Signed when it is JSON at all, as a device would.
            let read = |payload: &[u8]| {
                let signed = sign_json(K, "k", payload).unwrap_or_else(|_| payload.to_vec());
                verify::<CycleMessage>(K, &signed)
            };
            let m = cycle();
            let json = serde_json::to_vec(&m).unwrap();
            assert_eq!(read(&json), Ok(m.clone()));
            let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
            assert_eq!(v["v"], 1);
            assert_eq!(v["reasons"], serde_json::json!([]));
            let bad = |f: &dyn Fn(&mut CycleMessage)| {
                let mut b = cycle();
                f(&mut b);
                read(&serde_json::to_vec(&b).unwrap()).unwrap_err()
            };
            assert_eq!(bad(&|m| m.v = 2), "unknown schema version 2");
            assert_eq!(bad(&|m| m.id = "not-a-uuid".into()), "id is not a UUID");
            assert!(bad(&|m| m.end_ms = 500).contains("ends before"));
            assert!(bad(&|m| m.segments[1].start_ms = 2000).contains("segments"));
            assert!(bad(&|m| m.segments[1].end_ms = 6000).contains("segments"));
            assert!(bad(&|m| m.good = false).contains("reasons"));
            assert!(bad(&|m| m.idle_ms = -1).contains("idle"));
            assert!(bad(&|m| m.camera.clear()).contains("camera"));
            for payload in [&b"{"[..], b"[]", b"{\"v\":1}", b"null"] {
                assert!(read(payload).is_err());
            }
            let mut extra = serde_json::to_value(cycle()).unwrap();
            extra["device"] = "other".into();
            assert!(read(&serde_json::to_vec(&extra).unwrap()).is_err());
            assert!(read(&vec![b' '; MAX_PAYLOAD_BYTES + 1]).is_err());
        }

        #[test]
        fn signed_messages_verify_only_with_their_key_and_untouched() {
            let key = b"0123456789abcdef0123456789abcdef";
            let m = cycle();
            let signed = sign(key, "17", &m);
            assert_eq!(
                verify_kid::<CycleMessage>(key, "17", &signed),
                Ok(m.clone())
            );
            assert_eq!(
                verify_kid::<CycleMessage>(key, "18", &signed),
                Err("signed with a key that is not the device's".to_string())
            );
            assert_eq!(verify::<CycleMessage>(key, &signed), Ok(m.clone()));
            // The body signed as raw JSON reads back the same.
            let raw = sign_json(key, "17", &serde_json::to_vec(&m).unwrap()).unwrap();
            assert_eq!(verify::<CycleMessage>(key, &raw), Ok(m.clone()));
            assert_eq!(
                verify::<CycleMessage>(b"another key, as long as the first", &signed),
                Err("wrong signature".to_string())
            );
            // One changed byte of the body breaks the signature.
            let text = String::from_utf8(signed.clone()).unwrap();
            let parts: Vec<&str> = text.split('.').collect();
            let mut body = parts[1].as_bytes().to_vec();
            body[10] = if body[10] == b'A' { b'B' } else { b'A' };
            let forged = format!(
                "{}.{}.{}",
                parts[0],
                String::from_utf8(body).unwrap(),
                parts[2]
            );
            assert!(verify::<CycleMessage>(key, forged.as_bytes()).is_err());
            // Unsigned JSON, garbage and an unsigned ("none") token are refused.
            assert!(verify::<CycleMessage>(key, &serde_json::to_vec(&m).unwrap()).is_err());
            assert!(verify_kid::<CycleMessage>(key, "17", b"{}").is_err());
            assert!(verify::<CycleMessage>(key, b"\xff\xfe").is_err());
            let none = format!("eyJhbGciOiJub25lIn0.{}.", parts[1]);
            assert!(verify::<CycleMessage>(key, none.as_bytes()).is_err());
            // A signed message of the wrong shape says why.
            let ack = sign(
                key,
                "17",
                &CyclesAck {
                    v: 1,
                    ids: vec![],
                    refused: vec![],
                    clip_url: None,
                },
            );
            assert!(verify::<CycleMessage>(key, &ack).is_err());
            assert!(verify::<CycleMessage>(key, &vec![b'a'; MAX_PAYLOAD_BYTES + 1]).is_err());
        }

        #[test]
        fn commands_round_trip_by_type() {
            let c = CommandMessage {
                v: COMMAND_VERSION,
                id: "c1".into(),
                sent_ms: 1_000,
                expires_ms: 601_000,
                command: Command::StartTask {
                    camera: "cam0".into(),
                    task: 4,
                    engine: crate::cycle::EngineConfig::from_task(
                        &crate::api::v1::task::TaskSettings::new("T".into(), "T\n-A\n-B".into()),
                    ),
                    generation: 7,
                },
            };
            let v = serde_json::to_value(&c).unwrap();
            assert_eq!(v["command"]["type"], "start_task");
            assert_eq!(serde_json::from_value::<CommandMessage>(v).unwrap(), c);
            assert_eq!(c.check(), Ok(()));
            // A version 1 command (no times) reads, and is refused by its version.
            let old = serde_json::json!({"v": 1, "id": "c0",
                "command": {"type": "stop_task", "camera": "cam0"}});
            let old: CommandMessage = serde_json::from_value(old).unwrap();
            assert!(old.check().unwrap_err().contains("schema version 1"));
            let bad = |f: &dyn Fn(&mut CommandMessage)| {
                let mut m = c.clone();
                f(&mut m);
                m.check().unwrap_err()
            };
            assert!(bad(&|m| m.expires_ms = m.sent_ms).contains("expires before"));
            assert!(bad(&|m| m.id.clear()).contains("command id"));
            let s = StatusMessage {
                v: 1,
                online: true,
                ts_ms: 1,
                agent_version: "0.1.0".into(),
                cameras: vec![CameraStatus {
                    camera: "cam0".into(),
                    task: Some(4),
                    fps: f32::NAN,
                    model_version: None,
                    ..CameraStatus::default()
                }],
                outbox: 0,
                disk_free_mb: None,
                temperature_c: None,
                config_version: 0,
                target: String::new(),
                updatable: false,
                update: None,
                faults: vec![],
            };
            assert_eq!(s.check().unwrap_err(), "bad camera list");
            // A configuration command is checked as a configuration.
            let mut config = DeviceConfig::default();
            config.blur.push(BlurRegion {
                camera: "cam0".into(),
                x: 0.0,
                y: 0.0,
                width: 0.0,
                height: 1.0,
            });
            assert!(
                bad(&|m| m.command = Command::Config {
                    config: config.clone()
                })
                .contains("above 0")
            );
            assert!(
                bad(&|m| m.command = Command::Screenshot {
                    camera: "a b".into(),
                    url: "u".into()
                })
                .contains("camera name")
            );
            assert!(
                bad(&|m| m.command = Command::Rebaseline {
                    camera: "a/b".into()
                })
                .contains("camera name")
            );
        }
    }
}
