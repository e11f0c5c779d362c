//! The cloud's commands carried out, by id, so that one carried out before is not
//! carried out again: a signed command captured and published again later (a replayed
//! `stop_task` stopped a camera for minutes, issue 28) is recognised by its id, which
//! the cloud makes afresh for every command it sends. Kept in the outbox's file so a
//! restart does not forget them, for [`REMEMBER_MS`].

use rusqlite::params;

use super::Outbox;

/// How long a command's id is remembered: longer than the cloud ever waits for an
/// answer, and than any device stays away with the same enrolment in practice. A
/// command replayed later than this is carried out again (the contract's next version
/// gives commands an expiry, which ends that too).
pub const REMEMBER_MS: i64 = 30 * 24 * 3600 * 1000;

impl Outbox {
    /// Notes command `id` as carried out at `now_ms`; false when it was before (a
    /// replay, or the broker delivering it twice). Ids older than [`REMEMBER_MS`] are
    /// forgotten on the way.
    pub fn first_time(&mut self, id: &str, now_ms: i64) -> rusqlite::Result<bool> {
        let tx = self.db.transaction()?;
        tx.execute(
            "DELETE FROM commands_seen WHERE at_ms < ?1",
            [now_ms - REMEMBER_MS],
        )?;
        let new = tx.execute(
            "INSERT INTO commands_seen (id, at_ms) VALUES (?1, ?2) ON CONFLICT (id) DO NOTHING",
            params![id, now_ms],
        )? == 1;
        tx.commit()?;
        Ok(new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_carried_out_once_even_across_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outbox.db");
        let mut o = Outbox::open(&path, 100).unwrap();
        assert!(o.first_time("a", 1_000).unwrap());
        assert!(!o.first_time("a", 2_000).unwrap(), "a replay");
        assert!(o.first_time("b", 2_000).unwrap());
        drop(o);
        let mut o = Outbox::open(&path, 100).unwrap();
        assert!(
            !o.first_time("a", 3_000).unwrap(),
            "remembered after a restart"
        );
        // Forgotten after REMEMBER_MS.
        assert!(o.first_time("a", 1_001 + REMEMBER_MS).unwrap());
    }
}
