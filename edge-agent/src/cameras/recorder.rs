//! One camera running one task: its frames go through the cycle engine, and every
//! finished cycle is written to the outbox (with a UUID made here) before anything else
//! happens to it. The UUID is a version 7 one, time-ordered: the cloud's key index on
//! the cycle id then grows at its end instead of everywhere (docs/decisions.md). A cycle
//! the full outbox refuses is kept in memory and offered again with the next frame, so
//! recorded work is not dropped. What the station read (a barcode) goes on the cycle
//! that finishes next ([`Recorder::attach`]) and no further.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use gemba_shared::cycle::{CycleEngine, EngineConfig, Event};
use gemba_shared::mqtt::v1::{Channel, CycleMessage, topic};

use crate::outbox::{Kind, Outbox, PushError};

pub struct Recorder {
    engine: CycleEngine,
    task: i64,
    camera: String,
    topic: String,
    outbox: Arc<Mutex<Outbox>>,
    /// Cycles the outbox refused (full of cycles), oldest first: (id, payload).
    waiting: VecDeque<(String, Vec<u8>)>,
    /// Cycles rejected as too short, counted for the status message.
    pub rejected: u64,
    /// For the cycle that finishes next (a barcode read at the station).
    metadata: BTreeMap<String, String>,
    /// For every cycle it finishes, until changed (a PLC's latest values, OPC UA).
    held: BTreeMap<String, String>,
}

impl Recorder {
    pub fn new(
        cfg: EngineConfig,
        org: &str,
        device: &str,
        task: i64,
        camera: &str,
        outbox: Arc<Mutex<Outbox>>,
    ) -> Recorder {
        Recorder {
            engine: CycleEngine::new(cfg),
            task,
            camera: camera.into(),
            topic: topic(org, device, Channel::Cycles),
            outbox,
            waiting: VecDeque::new(),
            rejected: 0,
            metadata: BTreeMap::new(),
            held: BTreeMap::new(),
        }
    }

    /// Puts `values` on every cycle it finishes from now on (a value attached for the
    /// next cycle alone wins over one of the same key).
    pub fn hold(&mut self, values: BTreeMap<String, String>) {
        self.held = values;
    }

    /// Whether its cycles start and end from outside (a PLC): see
    /// `CycleEngine::set_outside`.
    pub fn outside(&mut self, starts: bool, ends: bool) {
        self.engine.set_outside(starts, ends);
    }

    /// A cycle starts at `t_ms` (told from outside); answers the cycle it finished.
    pub fn start_at(&mut self, t_ms: i64) -> Result<Vec<CycleMessage>, PushError> {
        let events = self.engine.start_at(t_ms);
        self.record(events, t_ms)
    }

    /// The open cycle ends at `t_ms` (told from outside).
    pub fn end_at(&mut self, t_ms: i64) -> Result<Vec<CycleMessage>, PushError> {
        let events = self.engine.end_at(t_ms);
        self.record(events, t_ms)
    }

    /// Puts `key` = `value` on the cycle that finishes next (a later value of the same
    /// key replaces it).
    pub fn attach(&mut self, key: &str, value: &str) {
        self.metadata.insert(key.into(), value.into());
    }

    /// One frame of the model's probabilities; answers the cycles it finished.
    pub fn frame(&mut self, t_ms: i64, probs: &[f32]) -> Result<Vec<CycleMessage>, PushError> {
        let events = self.engine.push(t_ms, probs);
        self.record(events, t_ms)
    }

    /// The camera stops (or the input ends).
    pub fn finish(&mut self, t_ms: i64) -> Result<Vec<CycleMessage>, PushError> {
        let events = self.engine.finish(t_ms);
        self.record(events, t_ms)
    }

    /// Offers the waiting cycles to the outbox again.
    pub fn flush(&mut self, now_ms: i64) -> Result<(), PushError> {
        self.record(vec![], now_ms).map(|_| ())
    }

    /// Cycles waiting for room in the outbox.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    fn record(&mut self, events: Vec<Event>, now_ms: i64) -> Result<Vec<CycleMessage>, PushError> {
        let mut done = vec![];
        for e in events {
            match e {
                Event::Cycle(c) => {
                    let mut m = CycleMessage::new(
                        uuid::Uuid::now_v7().to_string(),
                        self.task,
                        self.camera.clone(),
                        c,
                    );
                    m.metadata = self.held.clone();
                    m.metadata.extend(std::mem::take(&mut self.metadata));
                    self.waiting.push_back((
                        m.id.clone(),
                        serde_json::to_vec(&m).expect("a cycle message serialises"),
                    ));
                    done.push(m);
                }
                Event::Rejected { .. } => self.rejected += 1,
            }
        }
        // Most frames finish no cycle: the outbox (shared with the link, which may be
        // writing) is not touched for them.
        if self.waiting.is_empty() {
            return Ok(done);
        }
        let mut outbox = self.outbox.lock().expect("outbox lock");
        while let Some((id, payload)) = self.waiting.front() {
            match outbox.push(Kind::Cycle, Some(id), &self.topic, payload, now_ms) {
                Ok(_) => {
                    self.waiting.pop_front();
                }
                Err(PushError::Full(_)) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use gemba_shared::mqtt::v1::Message;

    /// A two-step engine: a cycle starts at step 0, of any length.
    pub(crate) fn cfg() -> EngineConfig {
        EngineConfig {
            steps: 2,
            start_steps: [0].into(),
            end_steps: BTreeSet::new(),
            optional_steps: BTreeSet::new(),
            negative_steps: BTreeSet::new(),
            similar_steps: vec![],
            smoothing: 1,
            verify_frames: 1,
            min_share_to_end: 1.0,
            min_cycle_ms: 0,
            max_cycle_ms: i64::MAX,
            strict_order: false,
            background_to_step: false,
        }
    }

    #[test]
    fn finished_cycles_go_to_the_outbox_and_wait_when_it_is_full() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Arc::new(Mutex::new(
            Outbox::open(&dir.path().join("o.db"), 2).unwrap(),
        ));
        let mut r = Recorder::new(cfg(), "acme", "dev-1", 7, "cam0", outbox.clone());
        let (a, b) = ([0.9, 0.05, 0.05], [0.05, 0.9, 0.05]);
        let mut made = vec![];
        let mut t = 0;
        // Four cycles of step 0 then step 1.
        for _ in 0..4 {
            for p in [a, b] {
                made.extend(r.frame(t, &p).unwrap());
                t += 100;
            }
        }
        made.extend(r.finish(t).unwrap());
        assert_eq!(made.len(), 4);
        assert!(
            made.iter()
                .all(|m| m.check().is_ok() && m.task == 7 && m.camera == "cam0")
        );
        let ids: Vec<&str> = made.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            ids.iter().collect::<BTreeSet<_>>().len(),
            4,
            "each cycle its own id"
        );
        // Time-ordered (version 7): in the order the cycles were made.
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        assert!(ids.iter().all(|id| {
            uuid::Uuid::parse_str(id).unwrap().get_version() == Some(uuid::Version::SortRand)
        }));
        // The outbox holds 2; the other two wait in memory, in order.
        assert_eq!(r.waiting(), 2);
        let stored = outbox.lock().unwrap().next(10, 0).unwrap();
        assert_eq!(stored[0].topic, "gemba/v1/acme/dev-1/cycles");
        let first: CycleMessage = serde_json::from_slice(&stored[0].payload).unwrap();
        assert_eq!(first, made[0]);
        // Room again: the waiting ones go in with the next frame.
        for m in &stored {
            outbox.lock().unwrap().ack(m.id).unwrap();
        }
        r.frame(t + 100, &a).unwrap();
        assert_eq!(r.waiting(), 0);
        let rest: Vec<CycleMessage> = outbox
            .lock()
            .unwrap()
            .next(10, 0)
            .unwrap()
            .iter()
            .map(|m| serde_json::from_slice(&m.payload).unwrap())
            .collect();
        assert_eq!(rest, made[2..]);
    }

    #[test]
    fn what_the_station_read_goes_on_the_next_cycle_only() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Arc::new(Mutex::new(
            Outbox::open(&dir.path().join("o.db"), 10).unwrap(),
        ));
        let mut r = Recorder::new(cfg(), "acme", "dev-1", 7, "cam0", outbox);
        let (a, b) = ([0.9, 0.05, 0.05], [0.05, 0.9, 0.05]);
        let mut made = vec![];
        let mut t = 0;
        for i in 0..3 {
            for (j, p) in [a, b].iter().enumerate() {
                // Read while the second cycle runs.
                if (i, j) == (1, 1) {
                    r.attach("barcode", "SN-1");
                    r.attach("barcode", "SN-2");
                }
                made.extend(r.frame(t, p).unwrap());
                t += 100;
            }
        }
        made.extend(r.finish(t).unwrap());
        let barcodes: Vec<Option<&str>> = made
            .iter()
            .map(|m| m.metadata.get("barcode").map(String::as_str))
            .collect();
        // The first cycle finished before the read; the third has none of it.
        assert_eq!(barcodes, [None, Some("SN-2"), None]);
    }
}
