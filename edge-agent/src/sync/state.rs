//! The link's in-flight window, apart from its sockets and timers (as rumqttc keeps its
//! `state.rs` beside its `eventloop.rs`): which outbox messages were handed to the MQTT
//! client, which packet id each got, and which the broker has not acknowledged yet.
//! Its methods change that state and answer what to send or what was delivered; the
//! event loop (`super::eventloop`) only carries their answers out.
//!
//! Invariants:
//! - Publishes are handed to the client, and get their packet ids, in one order: the
//!   `n`-th publish the client reports sending is the `n`-th handed to it.
//! - An outbox message is in flight at most once per connection: it is not picked
//!   again until the broker acknowledged it (then a cycle waits in the outbox for the
//!   cloud's word, and comes again only after `resend_after`).
//! - Statuses count against the window until the client sent them, but are not the
//!   outbox's: their acknowledgement delivers nothing.
//! - The window lives for one connection; a new connection starts with an empty one
//!   (what was in flight is in the outbox still, and goes again).

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use crate::outbox::Message;

/// Outbox messages (and statuses) handed to the client and not yet acknowledged by the
/// broker.
#[derive(Debug)]
pub struct Window {
    /// The most published and not yet acknowledged.
    size: usize,
    /// How long a cycle the broker took waits for the cloud's word before it goes again.
    resend_after_ms: i64,
    /// Publishes handed to the client in order, waiting for their packet id: an outbox
    /// id, or `None` for a status.
    queued: VecDeque<Option<i64>>,
    /// Packet id → outbox id, until the broker's PUBACK.
    in_flight: HashMap<u16, i64>,
    /// The outbox ids queued or in flight.
    sent_ids: HashSet<i64>,
}

impl Window {
    pub fn new(size: usize, resend_after: Duration) -> Window {
        Window {
            size,
            resend_after_ms: i64::try_from(resend_after.as_millis()).unwrap_or(i64::MAX),
            queued: VecDeque::new(),
            in_flight: HashMap::new(),
            sent_ids: HashSet::new(),
        }
    }

    /// How many more messages may be handed to the client now.
    pub fn room(&self) -> usize {
        self.size
            .saturating_sub(self.queued.len() + self.in_flight.len())
    }

    /// What to ask the outbox for at `now_ms`: at most this many messages (the window's
    /// size), and cycles sent before the time answered are due again.
    pub fn wanted(&self, now_ms: i64) -> (usize, i64) {
        (self.size, now_ms.saturating_sub(self.resend_after_ms))
    }

    /// Of the outbox's next messages, those to send now, in order: not in flight
    /// already, and as many as there is room for.
    pub fn pick(&self, next: Vec<Message>) -> Vec<Message> {
        let room = self.room();
        next.into_iter()
            .filter(|m| !self.sent_ids.contains(&m.id))
            .take(room)
            .collect()
    }

    /// Outbox message `id` was handed to the client.
    pub fn published(&mut self, id: i64) {
        self.sent_ids.insert(id);
        self.queued.push_back(Some(id));
    }

    /// A status was handed to the client.
    pub fn published_status(&mut self) {
        self.queued.push_back(None);
    }

    /// The client sent the oldest publish handed to it, as packet `pkid`.
    pub fn sent(&mut self, pkid: u16) {
        if let Some(Some(id)) = self.queued.pop_front() {
            self.in_flight.insert(pkid, id);
        }
    }

    /// The broker acknowledged packet `pkid`: the outbox message delivered, if it was
    /// one (a status, or a packet of an earlier connection, delivers none).
    pub fn acked(&mut self, pkid: u16) -> Option<i64> {
        let id = self.in_flight.remove(&pkid)?;
        self.sent_ids.remove(&id);
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Window;
    use crate::outbox::Message;

    fn msgs(ids: &[i64]) -> Vec<Message> {
        ids.iter()
            .map(|&id| Message {
                id,
                topic: "t".into(),
                payload: b"{}".to_vec(),
                attempts: 0,
                cycle: true,
            })
            .collect()
    }

    fn ids(m: &[Message]) -> Vec<i64> {
        m.iter().map(|m| m.id).collect()
    }

    fn window(size: usize) -> Window {
        Window::new(size, Duration::from_secs(20))
    }

    #[test]
    fn a_message_in_flight_is_not_sent_again_until_the_broker_acknowledged_it() {
        let mut w = window(8);
        let first = w.pick(msgs(&[1, 2]));
        assert_eq!(ids(&first), [1, 2]);
        w.published(1);
        w.published(2);
        // The outbox answers them again (not delivered yet): only the new one goes.
        assert_eq!(ids(&w.pick(msgs(&[1, 2, 3]))), [3]);
        w.sent(10);
        w.sent(11);
        assert_eq!(ids(&w.pick(msgs(&[1, 2]))), Vec::<i64>::new());
        assert_eq!(w.acked(10), Some(1));
        // Acknowledged: when the outbox answers it again (a cycle the cloud never
        // confirmed, after `resend_after`), it goes again.
        assert_eq!(ids(&w.pick(msgs(&[1, 2]))), [1]);
    }

    #[test]
    fn packet_ids_follow_the_order_publishes_were_handed_over_statuses_included() {
        let mut w = window(8);
        w.published_status();
        w.published(5);
        w.published(6);
        w.sent(1); // the status
        w.sent(2);
        w.sent(3);
        // A status's acknowledgement delivers nothing; each message's its own.
        assert_eq!(w.acked(1), None);
        assert_eq!(w.acked(3), Some(6));
        assert_eq!(w.acked(2), Some(5));
        // Twice, or a packet id of an earlier connection: nothing.
        assert_eq!(w.acked(2), None);
        assert_eq!(w.acked(99), None);
        assert_eq!(w.room(), 8);
    }

    #[test]
    fn the_window_holds_at_most_its_size_queued_and_in_flight() {
        let mut w = window(3);
        w.published_status();
        assert_eq!(w.room(), 2);
        assert_eq!(ids(&w.pick(msgs(&[1, 2, 3, 4]))), [1, 2]);
        w.published(1);
        w.published(2);
        assert_eq!(w.room(), 0);
        assert!(w.pick(msgs(&[3, 4])).is_empty());
        w.sent(1); // the status: out of the window once sent
        w.sent(2); // message 1: in flight
        assert_eq!(w.room(), 1);
        assert_eq!(w.acked(2), Some(1));
        assert_eq!(ids(&w.pick(msgs(&[3, 4]))), [3, 4]);
    }

    #[test]
    fn cycles_the_broker_took_are_due_again_after_resend_after() {
        let w = Window::new(32, Duration::from_secs(20));
        assert_eq!(w.wanted(100_000), (32, 80_000));
        // A wait too long for the clock never wraps round.
        let w = Window::new(32, Duration::MAX);
        assert_eq!(w.wanted(i64::MIN).1, i64::MIN);
        assert!(w.wanted(0).1 < 0);
    }
}
