//! The agent's side of live view: the cloud's messages to [`crate::live`], its replies
//! to the outbox, and the cameras opened for viewers tended each second.

use gemba_shared::mqtt::v1::{Channel, RtcAnswer, RtcMessage, RtcReply, VERSION, topic};

use super::Agent;
use crate::clock::now_ms;
use crate::outbox::Kind;

impl Agent {
    pub(super) fn live_request(&mut self, m: RtcMessage) {
        let (cameras, workers) = (self.cameras(), &self.workers);
        self.live.take(
            m,
            |c| cameras.iter().any(|k| k.name == c),
            |c| workers.get(c).is_some_and(|w| !w.ended()),
        );
    }

    /// Sends what the device says of a session (through the outbox, like
    /// acknowledgements).
    pub(super) fn live_reply(&self, session: String, answer: RtcAnswer) -> anyhow::Result<()> {
        let reply = RtcReply {
            v: VERSION,
            session,
            answer,
        };
        let t = topic(&self.org, &self.device, Channel::RtcAnswer);
        self.outbox.lock().expect("outbox lock").push(
            Kind::Droppable,
            None,
            &t,
            &serde_json::to_vec(&reply)?,
            now_ms(),
        )?;
        Ok(())
    }

    pub(super) fn tend_live(&mut self) {
        let cameras = self.cameras();
        let (workers, blur) = (&self.workers, &self.blur);
        self.live.tend(
            |c| workers.get(c).is_some_and(|w| !w.ended()),
            |c| {
                cameras
                    .iter()
                    .find(|k| k.name == c)
                    .map(|k| (k.source.clone(), blur.get(c).cloned().unwrap_or_default()))
            },
            self.cfg.fps,
            self.cfg.looped,
        );
    }
}
