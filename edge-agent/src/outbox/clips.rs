//! The clip queue: a cycle's clip waits here for its file (written by the camera) and
//! for the URL its cycle's acknowledgement carried (cycles before media), then goes.

use rusqlite::{OptionalExtension, params};

use super::{Outbox, backoff_ms};

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
