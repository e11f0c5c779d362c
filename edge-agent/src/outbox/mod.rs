//! The agent's durable outbox: every message for the cloud is written here (SQLite, WAL,
//! synchronous FULL) before it is sent, so a crash, a power cut, a broker outage or a
//! cloud restart loses nothing. A cycle record leaves only once the cloud said it is
//! stored (`cycles/ack`, by cycle id); it is sent again when no such word came within a
//! while (at-least-once; the cloud ingests idempotently by cycle id). Other messages
//! leave once the broker acknowledged them.
//!
//! Bounded: at most `capacity` messages. When full, a new message first evicts the oldest
//! *droppable* one (events, media notices); cycle records are never dropped for those.
//! When only cycles are left, the new message is refused with [`Full`] and the caller
//! keeps its cycle in memory and retries: recorded work is never dropped silently.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

/// What kind of record a message is, for the bound's policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A cycle record: never evicted.
    Cycle,
    /// Anything that may be dropped when the outbox is full, oldest first.
    Droppable,
}

/// A message waiting for delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub id: i64,
    pub topic: String,
    pub payload: Vec<u8>,
    /// Delivery attempts so far.
    pub attempts: i64,
    /// A cycle record (leaves on the cloud's word, not the broker's).
    pub cycle: bool,
}

/// The outbox is full of cycle records.
#[derive(Debug, PartialEq, Eq)]
pub struct Full;

impl std::fmt::Display for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the outbox is full of undelivered cycle records")
    }
}

impl std::error::Error for Full {}

pub struct Outbox {
    db: Connection,
    capacity: i64,
}

impl Outbox {
    /// Opens (or creates) the outbox at `path`.
    pub fn open(path: &Path, capacity: usize) -> rusqlite::Result<Outbox> {
        let db = Connection::open(path)?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        // Every committed message survives a power cut, not only a process crash.
        db.pragma_update(None, "synchronous", "FULL")?;
        db.execute_batch(
            "CREATE TABLE IF NOT EXISTS outbox (
                 id INTEGER PRIMARY KEY AUTOINCREMENT,
                 topic TEXT NOT NULL,
                 payload BLOB NOT NULL,
                 droppable INTEGER NOT NULL,
                 attempts INTEGER NOT NULL DEFAULT 0,
                 created_ms INTEGER NOT NULL,
                 -- The cycle's id, by which the cloud acknowledges it.
                 key TEXT,
                 -- When the broker last acknowledged it (cycles wait for the cloud).
                 sent_ms INTEGER
             );
             CREATE INDEX IF NOT EXISTS outbox_key ON outbox (key);
             -- Cycle clips waiting for upload: a clip's file (once written) and the URL
             -- the cloud's acknowledgement of its cycle carried (once stored). Media,
             -- so it goes only after its cycle, and may be dropped for room.
             CREATE TABLE IF NOT EXISTS clips (
                 cycle TEXT PRIMARY KEY,
                 path TEXT,
                 start_ms INTEGER,
                 bytes INTEGER NOT NULL DEFAULT 0,
                 url TEXT,
                 attempts INTEGER NOT NULL DEFAULT 0,
                 next_ms INTEGER NOT NULL DEFAULT 0,
                 created_ms INTEGER NOT NULL
             );",
        )?;
        Ok(Outbox {
            db,
            capacity: capacity.max(1) as i64,
        })
    }

    /// Messages waiting.
    pub fn len(&self) -> rusqlite::Result<i64> {
        self.db
            .query_row("SELECT COUNT(*) FROM outbox", [], |r| r.get(0))
    }

    pub fn is_empty(&self) -> rusqlite::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Stores a message (`key`: a cycle's id); answers its id. Full: evicts the oldest
    /// droppable message, or refuses with [`Full`] when only cycles are left.
    pub fn push(
        &mut self,
        kind: Kind,
        key: Option<&str>,
        topic: &str,
        payload: &[u8],
        now_ms: i64,
    ) -> Result<i64, PushError> {
        let tx = self.db.transaction()?;
        let n: i64 = tx.query_row("SELECT COUNT(*) FROM outbox", [], |r| r.get(0))?;
        if n >= self.capacity {
            let oldest: Option<i64> = tx
                .query_row(
                    "SELECT id FROM outbox WHERE droppable = 1 ORDER BY id LIMIT 1",
                    [],
                    |r| r.get(0),
                )
                .optional()?;
            match (oldest, kind) {
                (Some(id), _) => {
                    tx.execute("DELETE FROM outbox WHERE id = ?1", [id])?;
                }
                // Full of cycles: a droppable message is the one dropped.
                (None, Kind::Droppable) => return Ok(0),
                (None, Kind::Cycle) => return Err(PushError::Full(Full)),
            }
        }
        tx.execute(
            "INSERT INTO outbox (topic, payload, droppable, created_ms, key) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                topic,
                payload,
                i64::from(kind == Kind::Droppable),
                now_ms,
                key
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    /// The oldest `n` messages to send: never sent, or sent before `resend_before`
    /// (unix ms) without the cloud's word since; in order.
    pub fn next(&self, n: usize, resend_before: i64) -> rusqlite::Result<Vec<Message>> {
        let mut st = self.db.prepare_cached(
            "SELECT id, topic, payload, attempts, droppable FROM outbox \
             WHERE sent_ms IS NULL OR sent_ms < ?2 ORDER BY id LIMIT ?1",
        )?;
        st.query_map(params![n as i64, resend_before], |r| {
            Ok(Message {
                id: r.get(0)?,
                topic: r.get(1)?,
                payload: r.get(2)?,
                attempts: r.get(3)?,
                cycle: r.get::<_, i64>(4)? == 0,
            })
        })?
        .collect()
    }

    /// The broker acknowledged message `id` at `now_ms`: a cycle waits for the cloud's
    /// word, anything else leaves.
    pub fn delivered(&mut self, id: i64, now_ms: i64) -> rusqlite::Result<()> {
        // One write either way (each commit is a sync to disk).
        let kept = self.db.execute(
            "UPDATE outbox SET sent_ms = ?2 WHERE id = ?1 AND droppable = 0",
            params![id, now_ms],
        )?;
        if kept == 0 {
            self.db.execute("DELETE FROM outbox WHERE id = ?1", [id])?;
        }
        Ok(())
    }

    /// The cloud's acknowledgement, in one transaction (one sync to disk): the cycles
    /// stored (`stored`) and refused for good (`refused`) leave; the stored ones' clips may
    /// go to `clip_url` (followed by the id); a refused one's clip never will. Answers
    /// the files of the clips dropped, for the caller to delete.
    pub fn acknowledged(
        &mut self,
        stored: &[String],
        refused: &[String],
        clip_url: Option<&str>,
        now_ms: i64,
    ) -> rusqlite::Result<Vec<String>> {
        let tx = self.db.transaction()?;
        delete_keys(&tx, stored)?;
        delete_keys(&tx, refused)?;
        if let Some(url) = clip_url {
            let mut st = tx.prepare_cached(
                "INSERT INTO clips (cycle, url, created_ms) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (cycle) DO UPDATE SET url = excluded.url, attempts = 0, next_ms = 0",
            )?;
            for c in stored {
                st.execute(params![c, url, now_ms])?;
            }
        }
        let mut gone = vec![];
        {
            let mut st = tx.prepare_cached("DELETE FROM clips WHERE cycle = ?1 RETURNING path")?;
            for c in refused {
                if let Some(Some(p)) = st
                    .query_row([c], |r| r.get::<_, Option<String>>(0))
                    .optional()?
                {
                    gone.push(p);
                }
            }
        }
        tx.commit()?;
        Ok(gone)
    }

    /// Cycle records waiting (not yet stored by the cloud).
    pub fn cycles(&self) -> rusqlite::Result<i64> {
        self.db
            .query_row("SELECT COUNT(*) FROM outbox WHERE droppable = 0", [], |r| {
                r.get(0)
            })
    }

    /// Messages `ids` are being sent once more (one transaction).
    pub fn attempted(&mut self, ids: &[i64]) -> rusqlite::Result<()> {
        let tx = self.db.transaction()?;
        {
            let mut st =
                tx.prepare_cached("UPDATE outbox SET attempts = attempts + 1 WHERE id = ?1")?;
            for id in ids {
                st.execute([id])?;
            }
        }
        tx.commit()
    }

    /// Message `id` leaves the outbox.
    pub fn ack(&mut self, id: i64) -> rusqlite::Result<bool> {
        Ok(self.db.execute("DELETE FROM outbox WHERE id = ?1", [id])? > 0)
    }
}

/// A clip ready to upload: its cycle's file and where to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueClip {
    pub cycle: String,
    pub path: String,
    pub start_ms: i64,
    pub url: String,
    pub attempts: i64,
}

/// How long a clip's URL waits for its file (a cycle whose camera kept no video), in
/// milliseconds.
pub const CLIP_WAIT_MS: i64 = 10 * 60 * 1000;

/// The clip queue (cycles before media: a clip is uploaded only once its cycle was
/// acknowledged, with the URL that acknowledgement carried).
impl Outbox {
    /// Clip `path` of `cycle` (first frame at `start_ms`, `bytes` long) is written.
    /// Answers the files to delete to keep the clips within `budget` bytes (the oldest
    /// first; never the new one).
    pub fn clip_written(
        &mut self,
        cycle: &str,
        path: &str,
        start_ms: i64,
        bytes: i64,
        budget: i64,
        now_ms: i64,
    ) -> rusqlite::Result<Vec<String>> {
        let tx = self.db.transaction()?;
        tx.execute(
            "INSERT INTO clips (cycle, path, start_ms, bytes, created_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (cycle) DO UPDATE SET \
             path = excluded.path, start_ms = excluded.start_ms, bytes = excluded.bytes",
            params![cycle, path, start_ms, bytes, now_ms],
        )?;
        let mut gone = vec![];
        let mut total: i64 =
            tx.query_row("SELECT COALESCE(SUM(bytes), 0) FROM clips", [], |r| {
                r.get(0)
            })?;
        if total > budget {
            let mut st = tx.prepare(
                "SELECT cycle, path, bytes FROM clips WHERE path IS NOT NULL AND cycle <> ?1 \
                 ORDER BY created_ms, cycle",
            )?;
            let rows: Vec<(String, String, i64)> = st
                .query_map([cycle], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            drop(st);
            for (c, p, b) in rows {
                if total <= budget {
                    break;
                }
                tx.execute("DELETE FROM clips WHERE cycle = ?1", [&c])?;
                total -= b;
                gone.push(p);
            }
        }
        tx.commit()?;
        Ok(gone)
    }

    /// Up to `n` clips with both their file and their URL, due at `now_ms`, oldest first.
    pub fn clips_due(&self, n: usize, now_ms: i64) -> rusqlite::Result<Vec<DueClip>> {
        let mut st = self.db.prepare_cached(
            "SELECT cycle, path, start_ms, url, attempts FROM clips WHERE path IS NOT NULL \
             AND url IS NOT NULL AND next_ms <= ?2 ORDER BY created_ms, cycle LIMIT ?1",
        )?;
        st.query_map(params![n as i64, now_ms], |r| {
            Ok(DueClip {
                cycle: r.get(0)?,
                path: r.get(1)?,
                start_ms: r.get(2)?,
                url: r.get(3)?,
                attempts: r.get(4)?,
            })
        })?
        .collect()
    }

    /// Clip `cycle` leaves the queue (uploaded, refused for good, or its cycle refused);
    /// answers its file, for the caller to delete.
    pub fn clip_gone(&mut self, cycle: &str) -> rusqlite::Result<Option<String>> {
        let path = self
            .db
            .query_row("SELECT path FROM clips WHERE cycle = ?1", [cycle], |r| {
                r.get::<_, Option<String>>(0)
            })
            .optional()?
            .flatten();
        self.db
            .execute("DELETE FROM clips WHERE cycle = ?1", [cycle])?;
        Ok(path)
    }

    /// Clip `cycle`'s upload failed: tried again after a back-off.
    pub fn clip_retry(&mut self, cycle: &str, now_ms: i64) -> rusqlite::Result<()> {
        let attempts: i64 = self
            .db
            .query_row(
                "SELECT attempts FROM clips WHERE cycle = ?1",
                [cycle],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0);
        let wait = backoff_ms((attempts + 1).min(32) as u32) as i64;
        self.db.execute(
            "UPDATE clips SET attempts = attempts + 1, next_ms = ?2 WHERE cycle = ?1",
            params![cycle, now_ms + wait],
        )?;
        Ok(())
    }

    /// Forgets the URLs that waited [`CLIP_WAIT_MS`] for a file (their camera kept no
    /// video). A file waits for its URL as long as its cycle waits for the cloud, within
    /// the clips' budget.
    pub fn clips_stale(&mut self, now_ms: i64) -> rusqlite::Result<usize> {
        self.db.execute(
            "DELETE FROM clips WHERE path IS NULL AND created_ms < ?1",
            [now_ms - CLIP_WAIT_MS],
        )
    }
}

#[derive(Debug)]
pub enum PushError {
    Full(Full),
    Db(rusqlite::Error),
}

impl From<rusqlite::Error> for PushError {
    fn from(e: rusqlite::Error) -> Self {
        PushError::Db(e)
    }
}

impl std::fmt::Display for PushError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PushError::Full(e) => e.fmt(f),
            PushError::Db(e) => write!(f, "outbox: {e}"),
        }
    }
}

impl std::error::Error for PushError {}

/// Deletes the messages of cycles `keys` in `tx`.
fn delete_keys(tx: &rusqlite::Transaction, keys: &[String]) -> rusqlite::Result<()> {
    let mut st = tx.prepare_cached("DELETE FROM outbox WHERE key = ?1")?;
    for k in keys {
        st.execute([k])?;
    }
    Ok(())
}

/// The wait before delivery attempt `attempt` (1-based) after failures: doubling from
/// 500 ms to at most 30 s.
pub fn backoff_ms(attempt: u32) -> u64 {
    500u64
        .saturating_mul(1 << attempt.saturating_sub(1).min(16))
        .min(30_000)
}

#[cfg(test)]
mod tests {
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
}
