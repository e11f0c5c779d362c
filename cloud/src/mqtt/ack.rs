//! What a stored batch tells its devices, as plain logic (no I/O; in the manner of
//! rumqttc's `state.rs` beside `eventloop.rs`): given the batch's cycles and what became
//! of each, one `cycles/ack` per device naming its cycles stored (new or again) and
//! those refused, the devices with new cycles (for the stream), and what to count.
//! `ingest` makes the clip URLs, counts, logs and sends.
//!
//! Invariants: every cycle of the batch is named in exactly one ack, its device's, in
//! the batch's order; a device is fresh only when one of its cycles is new.

use std::collections::{BTreeMap, BTreeSet};

use gemba_shared::mqtt::v1;

use crate::db::cycles::{Received, Stored};

/// A device: its organisation's id and its own.
pub(super) type Device = (i64, i64);

/// What a stored batch means for its devices.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Outcome {
    /// Per device: the ids stored, and those refused (which it need not send again);
    /// no clip URL yet.
    pub(super) acks: BTreeMap<Device, v1::CyclesAck>,
    /// The devices with new cycles, for the stream.
    pub(super) fresh: BTreeSet<Device>,
    /// Cycles stored for the first time.
    pub(super) new: u64,
    /// Cycles stored before (replays), acknowledged again.
    pub(super) again: u64,
    /// The refused cycles (their task is not one of the organisation's): device and
    /// task of each, to log.
    pub(super) refused: Vec<(i64, i64)>,
    /// The cycles refused because a person deleted them (their tombstone): device and
    /// cycle id of each, to log.
    pub(super) deleted: Vec<(i64, String)>,
}

/// The acknowledgements of `cycles`, each stored as `stored` says (in the same order).
pub(super) fn outcome(cycles: Vec<Received>, stored: &[Stored]) -> Outcome {
    let mut out = Outcome::default();
    for (c, &s) in cycles.into_iter().zip(stored) {
        let ack = out
            .acks
            .entry((c.org, c.device))
            .or_insert_with(|| v1::CyclesAck {
                v: v1::VERSION,
                ids: vec![],
                refused: vec![],
                clip_url: None,
            });
        match s {
            Stored::New => {
                out.new += 1;
                out.fresh.insert((c.org, c.device));
                ack.ids.push(c.cycle.id);
            }
            Stored::Again => {
                out.again += 1;
                ack.ids.push(c.cycle.id);
            }
            Stored::Refused => {
                out.refused.push((c.device, c.cycle.task));
                ack.refused.push(c.cycle.id);
            }
            Stored::Deleted => {
                out.deleted.push((c.device, c.cycle.id.clone()));
                ack.refused.push(c.cycle.id);
            }
        }
    }
    out
}

/// Whether `ack` gets a clip URL: it names a stored cycle, whose clip may follow.
pub(super) fn wants_clip_url(ack: &v1::CyclesAck) -> bool {
    !ack.ids.is_empty()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use gemba_shared::cycle::Cycle;

    /// A cycle message `id` of task `task` (what it measured does not matter here).
    pub(in crate::mqtt) fn message(id: String, task: i64) -> v1::CycleMessage {
        let cycle = Cycle {
            start_ms: 0,
            end_ms: 1,
            segments: vec![],
            idle_ms: 1,
            good: true,
            reasons: vec![],
        };
        v1::CycleMessage::new(id, task, "cam0".into(), cycle)
    }

    /// The outcome of a batch of (organisation, device, cycle id, task, stored as).
    fn batch(rows: &[(i64, i64, &str, i64, Stored)]) -> Outcome {
        let cycles = rows.iter().map(|&(org, device, id, task, _)| Received {
            org,
            device,
            cycle: message(id.into(), task),
        });
        let stored: Vec<Stored> = rows.iter().map(|r| r.4).collect();
        outcome(cycles.collect(), &stored)
    }

    fn ack(ids: &[&str], refused: &[&str]) -> v1::CyclesAck {
        v1::CyclesAck {
            v: v1::VERSION,
            ids: ids.iter().map(|s| s.to_string()).collect(),
            refused: refused.iter().map(|s| s.to_string()).collect(),
            clip_url: None,
        }
    }

    use Stored::{Again, Deleted, New, Refused};

    #[test]
    fn new_and_replayed_cycles_are_acked_and_refused_ones_named_apart() {
        let out = batch(&[
            (1, 2, "a", 10, New),
            (1, 2, "b", 11, Again),
            (1, 2, "c", 12, Refused),
        ]);
        assert_eq!(
            out,
            Outcome {
                acks: BTreeMap::from([((1, 2), ack(&["a", "b"], &["c"]))]),
                fresh: BTreeSet::from([(1, 2)]),
                new: 1,
                again: 1,
                refused: vec![(2, 12)],
                deleted: vec![],
            }
        );
        assert!(wants_clip_url(&out.acks[&(1, 2)]));
    }

    #[test]
    fn each_device_gets_one_ack_with_its_cycles_in_the_batchs_order() {
        let out = batch(&[
            (1, 2, "a", 10, New),
            (3, 4, "b", 10, New),
            (1, 2, "c", 10, New),
            (1, 5, "d", 10, New),
            (3, 4, "e", 10, New),
        ]);
        assert_eq!(
            out.acks,
            BTreeMap::from([
                ((1, 2), ack(&["a", "c"], &[])),
                ((1, 5), ack(&["d"], &[])),
                ((3, 4), ack(&["b", "e"], &[])),
            ])
        );
        assert_eq!(out.fresh, BTreeSet::from([(1, 2), (1, 5), (3, 4)]));
        assert_eq!((out.new, out.again, out.refused.len()), (5, 0, 0));
    }

    #[test]
    fn only_devices_with_new_cycles_are_fresh_and_only_stored_ones_get_a_clip_url() {
        let out = batch(&[
            (1, 2, "a", 10, New),
            (1, 3, "b", 10, Again),
            (1, 4, "c", 99, Refused),
            (1, 3, "d", 10, Again),
        ]);
        assert_eq!(out.fresh, BTreeSet::from([(1, 2)]));
        assert_eq!(out.acks[&(1, 3)], ack(&["b", "d"], &[]));
        assert_eq!(out.acks[&(1, 4)], ack(&[], &["c"]));
        assert!(wants_clip_url(&out.acks[&(1, 3)]));
        assert!(!wants_clip_url(&out.acks[&(1, 4)]));
        assert_eq!((out.new, out.again), (1, 2));
        assert_eq!(out.refused, vec![(4, 99)]);
    }

    #[test]
    fn a_deleted_cycle_is_acknowledged_refused_and_named_to_log() {
        let out = batch(&[(1, 2, "a", 10, Deleted), (1, 2, "b", 10, New)]);
        assert_eq!(out.acks[&(1, 2)], ack(&["b"], &["a"]));
        assert_eq!(out.deleted, vec![(2, "a".to_string())]);
        assert_eq!((out.new, out.again, out.refused.len()), (1, 0, 0));
    }

    #[test]
    fn an_empty_batch_acknowledges_nothing() {
        assert_eq!(batch(&[]), Outcome::default());
    }
}
