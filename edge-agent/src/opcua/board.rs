//! The board between the OPC UA links and the camera workers (plain state, no I/O): the
//! links post each bound node's latest value and the triggers that fired; each camera's
//! worker takes, between two frames, what applies to it while it runs its task.
//!
//! - A value is kept while its server is connected ([`Board::lost`] forgets the
//!   server's values): a cycle finished while the PLC is away carries none of its
//!   values rather than stale ones.
//! - A trigger waits for its camera's worker at most [`STALE_MS`] (a camera that runs
//!   nothing, or runs another task than the binding's, lets it go): a start that came
//!   while nothing ran does not open a cycle minutes later.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use gemba_shared::mqtt::v1::{OpcuaBinding, OpcuaRole};

/// How long a trigger waits for its camera's worker.
pub const STALE_MS: i64 = 5_000;
/// Most triggers waiting at once (the oldest go first).
pub const MAX_PENDING: usize = 256;

/// What a trigger asks of a camera's cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Close the open cycle and open the next.
    Start,
    /// Close the open cycle.
    End,
}

#[derive(Debug)]
struct Pending {
    camera: String,
    task: Option<i64>,
    edge: Edge,
    at_ms: i64,
}

#[derive(Debug, Default)]
struct State {
    bindings: Vec<OpcuaBinding>,
    /// The latest value of each bound node: (endpoint, node id) → text.
    values: HashMap<(String, String), String>,
    pending: VecDeque<Pending>,
    /// Grows with every change of bindings or values.
    version: u64,
}

/// Shared between the links (writers) and the camera workers (readers).
#[derive(Debug, Clone, Default)]
pub struct Board(Arc<Mutex<State>>);

/// What a camera's worker takes from the board.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Taken {
    /// A binding starts this camera's cycles (its start steps then open none).
    pub starts: bool,
    /// A binding ends this camera's cycles (its end rules then close none).
    pub ends: bool,
    /// The triggers that fired for it since it last took, oldest first.
    pub edges: Vec<Edge>,
    /// Its metadata from OPC UA now (key → latest value), when anything changed since
    /// the version it gave.
    pub metadata: Option<BTreeMap<String, String>>,
    /// The board's version now, to give back next time.
    pub version: u64,
}

impl Board {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().expect("OPC UA board lock")
    }

    /// The device's bindings changed: values of nodes no longer bound are forgotten,
    /// and so are triggers not taken yet.
    pub fn set_bindings(&self, bindings: Vec<OpcuaBinding>) {
        let mut s = self.state();
        s.values.retain(|(endpoint, node), _| {
            bindings
                .iter()
                .any(|b| &b.endpoint == endpoint && &b.node_id == node)
        });
        s.pending.clear();
        s.bindings = bindings;
        s.version += 1;
    }

    /// Node `node` of `endpoint` now holds `value` (`None`: none readable); `fired`: it
    /// fired its triggers, at `at_ms`.
    pub fn value(
        &self,
        endpoint: &str,
        node: &str,
        value: Option<String>,
        fired: bool,
        at_ms: i64,
    ) {
        let mut s = self.state();
        let key = (endpoint.to_string(), node.to_string());
        let changed = match value {
            Some(v) => s.values.insert(key, v.clone()).as_ref() != Some(&v),
            None => s.values.remove(&key).is_some(),
        };
        if changed {
            s.version += 1;
        }
        if !fired {
            return;
        }
        let fresh: Vec<Pending> = s
            .bindings
            .iter()
            .filter(|b| b.endpoint == endpoint && b.node_id == node)
            .filter_map(|b| {
                let edge = match b.role {
                    OpcuaRole::StartCycle => Edge::Start,
                    OpcuaRole::EndCycle => Edge::End,
                    OpcuaRole::Metadata { .. } => return None,
                };
                Some(Pending {
                    camera: b.camera.clone(),
                    task: b.task,
                    edge,
                    at_ms,
                })
            })
            .collect();
        s.pending.extend(fresh);
        while s.pending.len() > MAX_PENDING
            || s.pending
                .front()
                .is_some_and(|p| p.at_ms < at_ms - STALE_MS)
        {
            s.pending.pop_front();
        }
    }

    /// `endpoint` is gone: its values are forgotten.
    pub fn lost(&self, endpoint: &str) {
        let mut s = self.state();
        let before = s.values.len();
        s.values.retain(|(e, _), _| e != endpoint);
        if s.values.len() != before {
            s.version += 1;
        }
    }

    /// What applies to `camera` running `task` at `now_ms`; `seen`: the version it
    /// took last (0: never). Its triggers are taken off the board.
    pub fn take(&self, camera: &str, task: i64, seen: u64, now_ms: i64) -> Taken {
        let mut s = self.state();
        let applies = |b: &&OpcuaBinding| b.applies_to(camera, Some(task));
        let starts = s
            .bindings
            .iter()
            .filter(applies)
            .any(|b| b.role == OpcuaRole::StartCycle);
        let ends = s
            .bindings
            .iter()
            .filter(applies)
            .any(|b| b.role == OpcuaRole::EndCycle);
        let mut edges = vec![];
        s.pending.retain(|p| {
            if p.camera != camera {
                return true;
            }
            if p.task.is_none_or(|t| t == task) && p.at_ms >= now_ms - STALE_MS {
                edges.push(p.edge);
            }
            false
        });
        let metadata = (s.version != seen).then(|| {
            s.bindings
                .iter()
                .filter(applies)
                .filter_map(|b| match &b.role {
                    OpcuaRole::Metadata { key } => s
                        .values
                        .get(&(b.endpoint.clone(), b.node_id.clone()))
                        .map(|v| (key.clone(), v.clone())),
                    _ => None,
                })
                .collect()
        });
        Taken {
            starts,
            ends,
            edges,
            metadata,
            version: s.version,
        }
    }

    /// The bindings it follows.
    pub fn bindings(&self) -> Vec<OpcuaBinding> {
        self.state().bindings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLC: &str = "opc.tcp://plc:4840";

    fn binding(node: &str, camera: &str, task: Option<i64>, role: OpcuaRole) -> OpcuaBinding {
        OpcuaBinding {
            endpoint: PLC.into(),
            node_id: node.into(),
            camera: camera.into(),
            task,
            role,
        }
    }

    fn board() -> Board {
        let b = Board::default();
        b.set_bindings(vec![
            binding("ns=2;s=Start", "cam0", None, OpcuaRole::StartCycle),
            binding("ns=2;s=End", "cam0", Some(7), OpcuaRole::EndCycle),
            binding(
                "ns=2;s=Part",
                "cam0",
                None,
                OpcuaRole::Metadata { key: "part".into() },
            ),
            binding(
                "ns=2;s=Torque",
                "cam0",
                Some(8),
                OpcuaRole::Metadata {
                    key: "torque".into(),
                },
            ),
            binding("ns=2;s=Start", "cam1", None, OpcuaRole::EndCycle),
        ]);
        b
    }

    #[test]
    fn triggers_go_to_their_cameras_once_and_only_for_their_task() {
        let b = board();
        let t = b.take("cam0", 7, 0, 1_000);
        assert!(t.starts && t.ends && t.edges.is_empty());
        // Task 8 is not the end binding's: cam0 ends its cycles by its own rules there.
        let t8 = b.take("cam0", 8, 0, 1_000);
        assert!(t8.starts && !t8.ends);
        assert!(!b.take("cam2", 7, 0, 1_000).starts);

        // A value that did not fire posts no trigger; one that fired posts one per
        // binding of its node.
        b.value(PLC, "ns=2;s=Start", Some("false".into()), false, 1_000);
        assert!(b.take("cam0", 7, 0, 1_000).edges.is_empty());
        b.value(PLC, "ns=2;s=Start", Some("true".into()), true, 1_100);
        b.value(PLC, "ns=2;s=End", Some("true".into()), true, 1_200);
        assert_eq!(b.take("cam0", 7, 0, 1_300).edges, [Edge::Start, Edge::End]);
        assert_eq!(b.take("cam1", 3, 0, 1_300).edges, [Edge::End]);
        // Taken once.
        assert!(b.take("cam0", 7, 0, 1_300).edges.is_empty());
        // Another task's trigger is let go; so is a stale one.
        b.value(PLC, "ns=2;s=End", Some("false".into()), false, 2_000);
        b.value(PLC, "ns=2;s=End", Some("true".into()), true, 2_100);
        assert!(b.take("cam0", 8, 0, 2_200).edges.is_empty());
        assert!(b.take("cam0", 7, 0, 2_200).edges.is_empty());
        b.value(PLC, "ns=2;s=Start", Some("true".into()), true, 3_000);
        assert!(b.take("cam0", 7, 0, 3_000 + STALE_MS + 1).edges.is_empty());
        // Many never taken: the oldest go.
        for i in 0..(MAX_PENDING as i64 + 10) {
            b.value(PLC, "ns=2;s=Start", Some(i.to_string()), true, 10_000);
        }
        // (Two bindings of that node: half are cam1's.)
        assert_eq!(b.take("cam0", 7, 0, 10_000).edges.len(), MAX_PENDING / 2);
    }

    #[test]
    fn metadata_is_the_latest_value_while_the_server_is_there() {
        let b = board();
        let first = b.take("cam0", 8, 0, 0);
        assert_eq!(first.metadata, Some(BTreeMap::new()));
        // Nothing changed: nothing new.
        assert_eq!(b.take("cam0", 8, first.version, 0).metadata, None);
        b.value(PLC, "ns=2;s=Part", Some("P-1".into()), false, 1);
        b.value(PLC, "ns=2;s=Torque", Some("12.5".into()), false, 1);
        let t = b.take("cam0", 8, first.version, 1);
        let m = t.metadata.unwrap();
        assert_eq!(m["part"], "P-1");
        assert_eq!(m["torque"], "12.5");
        // The torque binding is task 8's only.
        let m7 = b.take("cam0", 7, 0, 1).metadata.unwrap();
        assert_eq!(m7.keys().collect::<Vec<_>>(), ["part"]);
        // The same value again changes nothing; a new one does.
        b.value(PLC, "ns=2;s=Part", Some("P-1".into()), false, 2);
        assert_eq!(b.take("cam0", 8, t.version, 2).metadata, None);
        b.value(PLC, "ns=2;s=Part", Some("P-2".into()), false, 3);
        let t = b.take("cam0", 8, t.version, 3);
        assert_eq!(t.metadata.as_ref().unwrap()["part"], "P-2");
        // The server gone: its values are forgotten.
        b.lost(PLC);
        let t = b.take("cam0", 8, t.version, 4);
        assert_eq!(t.metadata, Some(BTreeMap::new()));
        // Bindings changed: values of nodes no longer bound go.
        b.value(PLC, "ns=2;s=Part", Some("P-3".into()), false, 5);
        b.set_bindings(vec![binding(
            "ns=2;s=Torque",
            "cam0",
            None,
            OpcuaRole::Metadata { key: "t".into() },
        )]);
        b.value(PLC, "ns=2;s=Part", None, false, 6);
        assert_eq!(b.take("cam0", 8, 0, 6).metadata, Some(BTreeMap::new()));
        assert_eq!(b.bindings().len(), 1);
    }
}
