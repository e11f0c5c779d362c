//! The outbox's schema and its version (`PRAGMA user_version`), checked on open: a file
//! a newer agent wrote is refused whole (this agent would misread it), never changed; an
//! older one, or one from before the version was kept (0), is brought up to this
//! agent's schema and stamped, its messages kept.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// The schema this agent writes. Raise it with a step in [`migrate`] whenever a table
/// changes.
pub const VERSION: i64 = 3;

/// Why an outbox could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The file was written by a newer agent, with a schema this one does not know.
    Newer {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    Db(rusqlite::Error),
}

impl From<rusqlite::Error> for OpenError {
    fn from(e: rusqlite::Error) -> Self {
        OpenError::Db(e)
    }
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Newer { path, found, known } => write!(
                f,
                "the outbox at {} was written by a newer agent (schema {found}; this agent \
                 knows {known}): run that agent, or move the file away to start afresh",
                path.display()
            ),
            OpenError::Db(e) => write!(f, "outbox: {e}"),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Newer { .. } => None,
            OpenError::Db(e) => Some(e),
        }
    }
}

/// Checks the schema version of the outbox `db` (at `path`) and brings an older one up
/// to [`VERSION`], in one transaction.
pub fn migrate(db: &mut Connection, path: &Path) -> Result<(), OpenError> {
    let found: i64 = db.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if found > VERSION {
        return Err(OpenError::Newer {
            path: path.to_path_buf(),
            found,
            known: VERSION,
        });
    }
    if found == VERSION {
        return Ok(());
    }
    let tx = db.transaction()?;
    // 2 → 3: commands carry their times (version 2 of commands); the ids of the older
    // ones (kept by the time this device took them) are of no use to this agent,
    // which refuses such commands anyway.
    if found == 2 {
        tx.execute_batch("DROP TABLE commands_seen")?;
    }
    // 0 → 1: the tables as they are now. The first agents' outbox had neither the
    // cycle's id (`key`) nor when the broker took it (`sent_ms`); both are added.
    tx.execute_batch(
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
         );",
    )?;
    for (column, kind) in [("key", "TEXT"), ("sent_ms", "INTEGER")] {
        let has: bool = tx.query_row(
            "SELECT COUNT(*) > 0 FROM pragma_table_info('outbox') WHERE name = ?1",
            [column],
            |r| r.get(0),
        )?;
        if !has {
            tx.execute_batch(&format!("ALTER TABLE outbox ADD COLUMN {column} {kind}"))?;
        }
    }
    tx.execute_batch(
        "CREATE INDEX IF NOT EXISTS outbox_key ON outbox (key);
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
         );
         -- The ids of the cloud's commands taken, so a replayed one is not carried
         -- out again, with when each was sent and until when it holds (the cloud's
         -- clock; `commands.rs`).
         CREATE TABLE IF NOT EXISTS commands_seen (
             id TEXT PRIMARY KEY,
             sent_ms INTEGER NOT NULL,
             expires_ms INTEGER NOT NULL
         );
         CREATE INDEX IF NOT EXISTS commands_seen_expires ON commands_seen (expires_ms);
         CREATE INDEX IF NOT EXISTS commands_seen_sent ON commands_seen (sent_ms);",
    )?;
    tx.pragma_update(None, "user_version", VERSION)?;
    tx.commit()?;
    Ok(())
}
