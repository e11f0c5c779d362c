//! The outbox's tests: delivery, the bound, the cloud's word, the clip queue.

use super::*;

fn outbox(dir: &tempfile::TempDir, cap: usize) -> Outbox {
    Outbox::open(&dir.path().join("outbox.db"), cap).unwrap()
}

#[test]
fn messages_leave_only_when_acknowledged_and_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = outbox(&dir, 10);
    let a = o.push(Kind::Cycle, Some("a"), "t/cycles", b"a", 1).unwrap();
    let b = o.push(Kind::Cycle, Some("b"), "t/cycles", b"b", 2).unwrap();
    let got = o.next(10, 0).unwrap();
    assert_eq!(got.iter().map(|m| m.id).collect::<Vec<_>>(), [a, b]);
    assert_eq!(got[0].attempts, 0);
    o.attempted(&[a, b]).unwrap();
    assert!(o.ack(a).unwrap());
    assert!(!o.ack(a).unwrap(), "a second ack changes nothing");
    // The agent stops without acknowledging b (a crash: the connection is dropped).
    drop(o);
    let mut o = outbox(&dir, 10);
    let again = o.next(10, 0).unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(
        (again[0].id, again[0].payload.as_slice(), again[0].attempts),
        (b, &b"b"[..], 1)
    );
    o.ack(b).unwrap();
    assert!(o.is_empty().unwrap());
}

#[test]
fn a_full_outbox_drops_the_oldest_droppable_never_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = outbox(&dir, 3);
    let c1 = o.push(Kind::Cycle, None, "c", b"1", 0).unwrap();
    let e1 = o.push(Kind::Droppable, None, "e", b"1", 0).unwrap();
    let c2 = o.push(Kind::Cycle, None, "c", b"2", 0).unwrap();
    // Full: the event goes for the new cycle.
    let c3 = o.push(Kind::Cycle, None, "c", b"3", 0).unwrap();
    let ids: Vec<i64> = o.next(10, 0).unwrap().iter().map(|m| m.id).collect();
    assert_eq!(ids, [c1, c2, c3]);
    assert!(!ids.contains(&e1));
    // Full of cycles: a new event is dropped, a new cycle refused (kept by the caller).
    assert_eq!(o.push(Kind::Droppable, None, "e", b"2", 0).unwrap(), 0);
    assert!(matches!(
        o.push(Kind::Cycle, None, "c", b"4", 0),
        Err(PushError::Full(Full))
    ));
    assert_eq!(o.len().unwrap(), 3);
    o.ack(c1).unwrap();
    assert!(o.push(Kind::Cycle, None, "c", b"4", 0).is_ok());
}

#[test]
fn cycles_wait_for_the_cloud_and_come_again_when_it_stays_silent() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = outbox(&dir, 10);
    let c = o.push(Kind::Cycle, Some("uuid-1"), "c", b"1", 0).unwrap();
    let e = o.push(Kind::Droppable, None, "e", b"1", 0).unwrap();
    o.delivered(c, 1_000).unwrap();
    o.delivered(e, 1_000).unwrap();
    // The event left with the broker's word; the cycle waits for the cloud's.
    assert_eq!(o.len().unwrap(), 1);
    assert_eq!(o.cycles().unwrap(), 1);
    assert!(o.next(10, 1_000).unwrap().is_empty(), "not due again yet");
    let again = o.next(10, 1_001).unwrap();
    assert_eq!((again.len(), again[0].id, again[0].cycle), (1, c, true));
    // The cloud's word, twice (a replayed acknowledgement), and one for nothing.
    let ack = |o: &mut Outbox, ids: &[&str]| {
        let ids: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        o.acknowledged(&ids, &[], None, 1_002).unwrap()
    };
    assert!(ack(&mut o, &["uuid-1", "uuid-9"]).is_empty());
    assert!(o.is_empty().unwrap());
    assert!(ack(&mut o, &["uuid-1"]).is_empty());
    assert!(o.is_empty().unwrap());
}

#[test]
fn a_clip_goes_only_once_its_cycle_is_stored_and_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = outbox(&dir, 10);
    let due = |o: &Outbox, now| -> Vec<String> {
        o.clips_due(10, now)
            .unwrap()
            .into_iter()
            .map(|c| c.cycle)
            .collect()
    };
    // Written, but its cycle not stored yet: not due.
    assert!(
        o.clip_written("a", "/c/a.mp4", 5, 400, 1000, 1)
            .unwrap()
            .is_empty()
    );
    assert!(due(&o, 10).is_empty());
    // Stored before its clip was written (the other order): due once written.
    o.acknowledged(
        &["a".into(), "b".into()],
        &[],
        Some("http://cloud/clip/t/"),
        2,
    )
    .unwrap();
    assert!(
        o.clip_written("b", "/c/b.mp4", 7, 400, 1000, 3)
            .unwrap()
            .is_empty()
    );
    assert_eq!(due(&o, 10), ["a", "b"]);
    let a = &o.clips_due(1, 10).unwrap()[0];
    assert_eq!(
        (a.path.as_str(), a.start_ms, a.url.as_str(), a.attempts),
        ("/c/a.mp4", 5, "http://cloud/clip/t/", 0)
    );
    // A failed upload waits its back-off.
    o.clip_retry("a", 100).unwrap();
    assert_eq!(due(&o, 599), ["b"]);
    assert_eq!(due(&o, 600), ["a", "b"]);
    // Over the budget: the oldest files go, never the new one.
    let gone = o.clip_written("c", "/c/c.mp4", 9, 700, 1000, 4).unwrap();
    assert_eq!(gone, ["/c/a.mp4", "/c/b.mp4"]);
    assert!(due(&o, 1_000).is_empty());
    // Uploaded: it leaves, its file for the caller to delete.
    o.acknowledged(&["c".into()], &[], Some("http://cloud/clip/t/"), 5)
        .unwrap();
    assert_eq!(o.clip_gone("c").unwrap().as_deref(), Some("/c/c.mp4"));
    assert_eq!(o.clip_gone("c").unwrap(), None);
    // A URL whose cycle kept no clip is forgotten after a while.
    o.acknowledged(&["d".into()], &[], Some("http://cloud/clip/t/"), 10)
        .unwrap();
    assert_eq!(o.clips_stale(10 + CLIP_WAIT_MS).unwrap(), 0);
    assert_eq!(o.clips_stale(11 + CLIP_WAIT_MS).unwrap(), 1);
    // A cycle the cloud refused: its clip goes, its file for the caller to delete.
    o.clip_written("e", "/c/e.mp4", 1, 10, 1000, 20).unwrap();
    assert_eq!(
        o.acknowledged(&[], &["e".into(), "f".into()], Some("u"), 21)
            .unwrap(),
        ["/c/e.mp4"]
    );
    assert!(due(&o, i64::MAX).is_empty());
    // The clip queue never counts against the cycles' capacity.
    assert!(o.is_empty().unwrap());
}

#[test]
fn backoff_doubles_up_to_thirty_seconds() {
    assert_eq!(
        (1..=8).map(backoff_ms).collect::<Vec<_>>(),
        [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]
    );
    assert_eq!(backoff_ms(u32::MAX), 30_000);
    assert_eq!(backoff_ms(0), 500);
}

/// The schema version stamped in the outbox file at `path`.
fn version_of(path: &std::path::Path) -> i64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap()
}

#[test]
fn an_outbox_a_newer_agent_wrote_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.db");
    {
        let mut o = Outbox::open(&path, 10).unwrap();
        o.push(Kind::Cycle, Some("a"), "c", b"1", 0).unwrap();
    }
    assert_eq!(version_of(&path), SCHEMA_VERSION, "a new outbox is stamped");
    let newer = SCHEMA_VERSION + 1;
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", newer)
        .unwrap();
    let e = Outbox::open(&path, 10).err().unwrap();
    assert!(matches!(
        e,
        OpenError::Newer { found, known, .. } if found == newer && known == SCHEMA_VERSION
    ));
    assert_eq!(
        e.to_string(),
        format!(
            "the outbox at {} was written by a newer agent (schema {newer}; this agent \
             knows {SCHEMA_VERSION}): run that agent, or move the file away to start afresh",
            path.display()
        )
    );
    // Nothing changed: its version and its cycle are there for the newer agent.
    assert_eq!(version_of(&path), newer);
    let db = rusqlite::Connection::open(&path).unwrap();
    let n: i64 = db
        .query_row("SELECT COUNT(*) FROM outbox", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
}

#[test]
fn an_outbox_from_before_versions_is_brought_up_to_date_with_its_messages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.db");
    // The first agents' outbox: no cycle ids, no sent times, no clip queue, no version.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE outbox (
                 id INTEGER PRIMARY KEY AUTOINCREMENT,
                 topic TEXT NOT NULL,
                 payload BLOB NOT NULL,
                 droppable INTEGER NOT NULL,
                 attempts INTEGER NOT NULL DEFAULT 0,
                 created_ms INTEGER NOT NULL
             );
             INSERT INTO outbox (topic, payload, droppable, attempts, created_ms)
                 VALUES ('t/cycles', x'31', 0, 2, 5);",
        )
        .unwrap();
    let mut o = Outbox::open(&path, 10).unwrap();
    assert_eq!(version_of(&path), SCHEMA_VERSION);
    let old = o.next(10, 0).unwrap();
    assert_eq!(old.len(), 1);
    assert_eq!(
        (old[0].payload.as_slice(), old[0].attempts, old[0].cycle),
        (&b"1"[..], 2, true)
    );
    // What the new columns and the clip queue keep works on it.
    o.delivered(old[0].id, 100).unwrap();
    assert!(
        o.next(10, 100).unwrap().is_empty(),
        "sent, waiting for the cloud"
    );
    o.push(Kind::Cycle, Some("k"), "t/cycles", b"2", 6).unwrap();
    o.clip_written("k", "/c/k.mp4", 1, 10, 1000, 7).unwrap();
    o.acknowledged(&["k".into()], &[], Some("u/"), 8).unwrap();
    assert_eq!(o.clips_due(10, 9).unwrap().len(), 1);
    assert_eq!(o.len().unwrap(), 1);
    // An outbox of this schema written before it carried its version: stamped, kept.
    drop(o);
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 0)
        .unwrap();
    let o = Outbox::open(&path, 10).unwrap();
    assert_eq!(version_of(&path), SCHEMA_VERSION);
    assert_eq!(
        (o.len().unwrap(), o.clips_due(10, 9).unwrap().len()),
        (1, 1)
    );
}

#[test]
fn an_outbox_of_schema_2_keeps_its_messages_and_takes_timed_commands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("outbox.db");
    {
        let mut o = Outbox::open(&path, 10).unwrap();
        o.push(Kind::Cycle, Some("a"), "t/cycles", b"1", 0).unwrap();
    }
    // As schema 2 had it: commands remembered by the device's time of taking them.
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "DROP TABLE commands_seen;
         CREATE TABLE commands_seen (id TEXT PRIMARY KEY, at_ms INTEGER NOT NULL);
         INSERT INTO commands_seen VALUES ('old', 5);
         PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(db);
    let mut o = Outbox::open(&path, 10).unwrap();
    assert_eq!(version_of(&path), SCHEMA_VERSION);
    assert_eq!(o.len().unwrap(), 1, "its cycle kept");
    assert_eq!(o.commands_remembered().unwrap(), 0);
    assert_eq!(
        o.take_command("c", 10, 20).unwrap(),
        crate::outbox::CommandTaken::New
    );
}

#[test]
fn held_cycles_stay_in_order_while_other_messages_go_and_all_go_once_released() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = outbox(&dir, 100);
    // A cycle the broker took before the hold still leaves on the cloud's word.
    let early = o
        .push(Kind::Cycle, Some("c0"), "t/cycles", b"{}", 1)
        .unwrap();
    assert_eq!(o.next(10, 0).unwrap()[0].id, early);
    o.delivered(early, 2).unwrap();
    o.hold_cycles(true);
    assert!(o.holding_cycles());
    let mut cycles = vec![];
    for (i, key) in ["c1", "c2", "c3"].iter().enumerate() {
        cycles.push(
            o.push(Kind::Cycle, Some(key), "t/cycles", b"{}", 3)
                .unwrap(),
        );
        if i == 1 {
            o.push(Kind::Droppable, None, "t/cmd/ack", b"{}", 3)
                .unwrap();
        }
    }
    // Held: only the other message is offered, even once the early cycle is due again.
    let offered = o.next(10, i64::MAX).unwrap();
    assert_eq!(offered.len(), 1, "{offered:?}");
    assert!(!offered[0].cycle);
    o.delivered(offered[0].id, 4).unwrap();
    assert!(o.next(10, i64::MAX).unwrap().is_empty());
    o.acknowledged(&["c0".into()], &[], None, 5).unwrap();
    assert_eq!(o.cycles().unwrap(), 3, "held, none dropped");
    // Released: every held cycle, in the order recorded.
    o.hold_cycles(false);
    let ids: Vec<i64> = o.next(10, 0).unwrap().iter().map(|m| m.id).collect();
    assert_eq!(ids, cycles);
}

#[test]
fn a_full_outbox_of_held_cycles_refuses_a_new_cycle_and_drops_none() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = outbox(&dir, 2);
    o.hold_cycles(true);
    o.push(Kind::Cycle, Some("a"), "t", b"{}", 1).unwrap();
    o.push(Kind::Cycle, Some("b"), "t", b"{}", 1).unwrap();
    assert!(matches!(
        o.push(Kind::Cycle, Some("c"), "t", b"{}", 1),
        Err(PushError::Full(_))
    ));
    assert_eq!(o.cycles().unwrap(), 2);
}
