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
//!
//! Held back (issue 31, the configuration's `fetch_analytics` off): while
//! [`Outbox::hold_cycles`] is on, [`Outbox::next`] offers only the other messages; the
//! cycles stay, in the order they were recorded, and are offered again, in that order,
//! once it is off. Holding drops nothing and changes no bound: a cycle the broker took
//! before the hold still leaves on the cloud's word. The hold is not kept in the file:
//! the agent sets it from its kept configuration when it starts.
//!
//! Versioned: the file carries its schema's version (`PRAGMA user_version`,
//! [`SCHEMA_VERSION`]), checked on open (`schema.rs`). An agent never reads an outbox
//! a newer agent wrote; an older one is migrated in place, its messages kept.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

mod clips;
mod commands;
mod schema;

pub use clips::{CLIP_WAIT_MS, DueClip};
pub use commands::Taken as CommandTaken;
pub use schema::{OpenError, VERSION as SCHEMA_VERSION};

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
    /// Cycle records are held back (not offered by [`Outbox::next`]).
    hold_cycles: bool,
}

impl Outbox {
    /// Opens (or creates) the outbox at `path`. Its schema version is checked first: a
    /// file a newer agent wrote is refused ([`OpenError::Newer`]) and left as it is; an
    /// older one is brought up to date, its messages kept.
    pub fn open(path: &Path, capacity: usize) -> Result<Outbox, OpenError> {
        let mut db = Connection::open(path)?;
        schema::migrate(&mut db, path)?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        // Every committed message survives a power cut, not only a process crash.
        db.pragma_update(None, "synchronous", "FULL")?;
        Ok(Outbox {
            db,
            capacity: capacity.max(1) as i64,
            hold_cycles: false,
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

    /// Holds cycle records back (`true`: the device keeps its analytics) or lets them
    /// go again (see the module header).
    pub fn hold_cycles(&mut self, hold: bool) {
        self.hold_cycles = hold;
    }

    /// Whether cycle records are held back.
    pub fn holding_cycles(&self) -> bool {
        self.hold_cycles
    }

    /// The oldest `n` messages to send: never sent, or sent before `resend_before`
    /// (unix ms) without the cloud's word since; in order. Cycle records are left out
    /// while they are held back.
    pub fn next(&self, n: usize, resend_before: i64) -> rusqlite::Result<Vec<Message>> {
        let mut st = self.db.prepare_cached(
            "SELECT id, topic, payload, attempts, droppable FROM outbox \
             WHERE (sent_ms IS NULL OR sent_ms < ?2) AND (?3 = 0 OR droppable = 1) \
             ORDER BY id LIMIT ?1",
        )?;
        st.query_map(
            params![n as i64, resend_before, i64::from(self.hold_cycles)],
            |r| {
                Ok(Message {
                    id: r.get(0)?,
                    topic: r.get(1)?,
                    payload: r.get(2)?,
                    attempts: r.get(3)?,
                    cycle: r.get::<_, i64>(4)? == 0,
                })
            },
        )?
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
mod tests;
