//! The MQTT contract between agent and cloud, version 1 (`../shared/design/architecture.md`
//! "MQTT contract"): topics `gemba/v1/{org}/{device}/{channel}` and the JSON payloads,
//! each with its schema version `v`.

pub mod v1 {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    use crate::cycle::{BadReason, Cycle, Segment};

    /// The schema version of every payload below.
    pub const VERSION: u32 = 1;
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
        Rtc,
    }

    impl Channel {
        pub const ALL: [Channel; 6] = [
            Channel::Status,
            Channel::Cycles,
            Channel::Events,
            Channel::Cmd,
            Channel::CmdAck,
            Channel::Rtc,
        ];

        pub fn as_str(self) -> &'static str {
            match self {
                Channel::Status => "status",
                Channel::Cycles => "cycles",
                Channel::Events => "events",
                Channel::Cmd => "cmd",
                Channel::CmdAck => "cmd/ack",
                Channel::Rtc => "rtc",
            }
        }
    }

    /// The topic of `channel` for `device` of organisation `org`.
    pub fn topic(org: &str, device: &str, channel: Channel) -> String {
        format!("{PREFIX}/{org}/{device}/{}", channel.as_str())
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

        /// Reads and checks a payload: what the cloud ingests, or why not.
        pub fn from_payload(payload: &[u8]) -> Result<CycleMessage, String> {
            if payload.len() > MAX_PAYLOAD_BYTES {
                return Err(format!("payload over {MAX_PAYLOAD_BYTES} bytes"));
            }
            let m: CycleMessage = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
            m.check()?;
            Ok(m)
        }

        /// The message's own consistency: version, id, times, segments inside the
        /// cycle and in order, the verdict matching its reasons.
        pub fn check(&self) -> Result<(), String> {
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
            if self.camera.is_empty() || self.camera.len() > 100 {
                return Err("camera must be 1 to 100 bytes".into());
            }
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
            let m = cycle();
            let json = serde_json::to_vec(&m).unwrap();
            assert_eq!(CycleMessage::from_payload(&json), Ok(m.clone()));
            let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
            assert_eq!(v["v"], 1);
            assert_eq!(v["reasons"], serde_json::json!([]));
            let bad = |f: &dyn Fn(&mut CycleMessage)| {
                let mut b = cycle();
                f(&mut b);
                CycleMessage::from_payload(&serde_json::to_vec(&b).unwrap()).unwrap_err()
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
                assert!(CycleMessage::from_payload(payload).is_err());
            }
            let mut extra = serde_json::to_value(cycle()).unwrap();
            extra["device"] = "other".into();
            assert!(CycleMessage::from_payload(&serde_json::to_vec(&extra).unwrap()).is_err());
            assert!(CycleMessage::from_payload(&vec![b' '; MAX_PAYLOAD_BYTES + 1]).is_err());
        }
    }
}
