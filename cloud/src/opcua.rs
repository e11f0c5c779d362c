//! The OPC UA explorer in the cloud (issue 32): the relay between a viewer's device
//! stream (`/api/ws`, `discover_devices_opcua`) and a device (a `cmd` command, its
//! answer by the command's id), and the checks of the node bindings a device keeps in
//! its configuration (`http::devices::opcua`).
//!
//! [`Exploring`] is one stream's requests, plain state: a request is made for a device
//! of the stream's organisation and hears only that device's answer to it, once; one
//! the device leaves unanswered fails after [`ANSWER_WITHIN`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

use gemba_shared::mqtt::v1::OpcuaRequest;

/// How long a device has to answer (a discovery may try several addresses).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(30);
/// Requests one stream may have waiting at once.
pub const MAX_WAITING: usize = 16;
/// Why a request failed that the device did not answer in time.
pub const UNANSWERED: &str = "The device did not answer in time. It may be busy, or the \
     server slow to answer; try again.";

/// A request sent to a device, waiting for its answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    pub device: i64,
    pub request: OpcuaRequest,
    until: Instant,
}

/// One device stream's requests waiting for their answers.
#[derive(Debug, Default)]
pub struct Exploring {
    waiting: HashMap<String, Asked>,
}

impl Exploring {
    /// Room for one more request, or why not.
    pub fn room(&self) -> Result<(), String> {
        if self.waiting.len() >= MAX_WAITING {
            return Err(format!(
                "At most {MAX_WAITING} OPC UA requests may wait at a time; wait for their answers."
            ));
        }
        Ok(())
    }

    /// Notes request `id` sent to `device` at `now` (after [`Self::room`]).
    pub fn asked(&mut self, id: String, device: i64, request: OpcuaRequest, now: Instant) {
        self.waiting.insert(
            id,
            Asked {
                device,
                request,
                until: now + ANSWER_WITHIN,
            },
        );
    }

    /// Forgets request `id` (it could not be sent).
    pub fn forget(&mut self, id: &str) {
        self.waiting.remove(id);
    }

    /// `device`'s answer to request `id`: the request when it is this stream's, sent
    /// to that device and still waiting (then no longer).
    pub fn heard(&mut self, device: i64, id: &str) -> Option<Asked> {
        match self.waiting.get(id) {
            Some(a) if a.device == device => self.waiting.remove(id),
            _ => None,
        }
    }

    /// The requests not answered in time, forgotten.
    pub fn overdue(&mut self, now: Instant) -> Vec<(String, Asked)> {
        let late: Vec<String> = self
            .waiting
            .iter()
            .filter(|(_, a)| a.until <= now)
            .map(|(id, _)| id.clone())
            .collect();
        late.into_iter()
            .filter_map(|id| self.waiting.remove(&id).map(|a| (id, a)))
            .collect()
    }
}

/// Device `device`'s node bindings as its configuration carries them: those of a
/// deleted task left out (kept for the portal to show), as schedules are.
pub async fn configured(
    state: &crate::state::AppState,
    org: i64,
    device: i64,
) -> sqlx::Result<Vec<gemba_shared::mqtt::v1::OpcuaBinding>> {
    let mut out = vec![];
    for row in crate::db::opcua::bindings(&state.db, device).await? {
        if let Some(task) = row.task_id {
            let live = crate::db::tasks::get(&state.db, 0, Some(org), task)
                .await?
                .is_some_and(|t| !t.settings().is_deleted);
            if !live {
                continue;
            }
        }
        out.extend(row.binding());
    }
    Ok(out)
}

/// The stream event for the device's acknowledgement `ack` of request `request` (`id`):
/// its reply when it has one that holds, else its failure in words.
pub fn answered(
    id: String,
    device: i64,
    request: OpcuaRequest,
    ack: &gemba_shared::mqtt::v1::CommandAck,
) -> gemba_shared::api::v1::stream::OpcuaEvent {
    use gemba_shared::api::v1::stream::OpcuaEvent;
    let failed = |message: String| OpcuaEvent::Failed {
        id: id.clone(),
        device,
        request: request.clone(),
        message,
    };
    if !ack.ok {
        let why = if ack.message.is_empty() {
            "The device could not do it (it gave no reason).".to_string()
        } else {
            ack.message.clone()
        };
        return failed(why);
    }
    match &ack.opcua {
        Some(reply) => match reply.check() {
            Ok(()) => OpcuaEvent::Answer {
                id: id.clone(),
                device,
                request: request.clone(),
                reply: reply.clone(),
            },
            Err(e) => failed(format!("The device's answer was malformed: {e}.")),
        },
        None => failed("The device answered without a result: its agent may be too old.".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemba_shared::api::v1::stream::OpcuaEvent;
    use gemba_shared::mqtt::v1::{CommandAck, OpcuaReply};

    fn browse() -> OpcuaRequest {
        OpcuaRequest::Browse {
            endpoint: "opc.tcp://plc:4840".into(),
            node_id: None,
        }
    }

    #[test]
    fn a_request_hears_only_its_own_devices_answer_once_and_fails_when_late() {
        let mut e = Exploring::default();
        let now = Instant::now();
        e.asked("a".into(), 7, browse(), now);
        e.asked("b".into(), 7, browse(), now + Duration::from_secs(5));
        // Another device cannot answer it, nor can a request of another stream be heard.
        assert!(e.heard(8, "a").is_none());
        assert!(e.heard(7, "other").is_none());
        assert_eq!(e.heard(7, "a").unwrap().device, 7);
        assert!(e.heard(7, "a").is_none());
        assert!(e.overdue(now + ANSWER_WITHIN).is_empty());
        let late = e.overdue(now + ANSWER_WITHIN + Duration::from_secs(5));
        assert_eq!(late.len(), 1);
        assert_eq!(late[0].0, "b");
        assert!(e.heard(7, "b").is_none());
        // Bounded.
        for i in 0..MAX_WAITING {
            e.room().unwrap();
            e.asked(format!("r{i}"), 1, browse(), now);
        }
        assert!(e.room().unwrap_err().contains("At most"));
        e.forget("r0");
        e.room().unwrap();
    }

    #[test]
    fn an_acknowledgement_is_the_reply_or_the_failure_in_words() {
        let ack = |ok: bool, message: &str, opcua: Option<OpcuaReply>| CommandAck {
            v: gemba_shared::mqtt::v1::VERSION,
            id: "a".into(),
            ok,
            message: message.into(),
            opcua,
        };
        let reply = OpcuaReply::Browse {
            endpoint: "opc.tcp://plc:4840".into(),
            node_id: None,
            nodes: vec![],
            truncated: false,
        };
        let got = answered("a".into(), 7, browse(), &ack(true, "", Some(reply.clone())));
        assert!(matches!(got, OpcuaEvent::Answer { reply: r, .. } if r == reply));
        let why = |e: OpcuaEvent| match e {
            OpcuaEvent::Failed { message, .. } => message,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            why(answered(
                "a".into(),
                7,
                browse(),
                &ack(false, "BadTimeout", None)
            )),
            "BadTimeout"
        );
        assert!(why(answered("a".into(), 7, browse(), &ack(true, "", None))).contains("without"));
        let bad = OpcuaReply::Browse {
            endpoint: "http://plc".into(),
            node_id: None,
            nodes: vec![],
            truncated: false,
        };
        assert!(
            why(answered("a".into(), 7, browse(), &ack(true, "", Some(bad)))).contains("malformed")
        );
    }
}
