//! The cloud's commands taken, by id, so that one carried out before is not carried out
//! again, and one that expired is not carried out at all: a signed command captured and
//! published again later (a replayed `stop_task` stopped a camera for minutes, issue
//! 28) is recognised by its id while it holds, and by its expiry after.
//!
//! Time here is the cloud's clock only: each command says when the cloud sent it and
//! until when it holds. A command that expired before the newest one taken was sent is
//! refused; an id is remembered until the newest command taken was sent after it
//! expired, so the memory stays as small as the commands of one validity period, and a
//! replay is refused by one rule or the other. The device's own clock never enters
//! (it may be anywhere). Kept in the outbox's file so a restart forgets nothing.

use rusqlite::{OptionalExtension, params};

use super::Outbox;

/// What a command is, to this agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// Never seen, and not expired: carry it out.
    New,
    /// Taken before (a replay, or the broker delivering it twice).
    Again,
    /// It expired before the newest command taken was sent (`newest_ms`, the cloud's
    /// clock): stale or replayed.
    Expired { newest_ms: i64 },
}

impl Outbox {
    /// Takes command `id` (sent at `sent_ms`, holding until `expires_ms`, both on the
    /// cloud's clock; see the module header), remembering it unless refused.
    pub fn take_command(
        &mut self,
        id: &str,
        sent_ms: i64,
        expires_ms: i64,
    ) -> rusqlite::Result<Taken> {
        let tx = self.db.transaction()?;
        let newest: Option<i64> = tx
            .query_row("SELECT MAX(sent_ms) FROM commands_seen", [], |r| r.get(0))
            .optional()?
            .flatten();
        if let Some(newest_ms) = newest.filter(|n| expires_ms < *n) {
            return Ok(Taken::Expired { newest_ms });
        }
        let new = tx.execute(
            "INSERT INTO commands_seen (id, sent_ms, expires_ms) VALUES (?1, ?2, ?3) \
             ON CONFLICT (id) DO NOTHING",
            params![id, sent_ms, expires_ms],
        )? == 1;
        // What expired before the newest command was sent is refused by its expiry now.
        let newest = newest.unwrap_or(sent_ms).max(sent_ms);
        tx.execute("DELETE FROM commands_seen WHERE expires_ms < ?1", [newest])?;
        tx.commit()?;
        Ok(if new { Taken::New } else { Taken::Again })
    }

    /// How many command ids are remembered.
    pub fn commands_remembered(&self) -> rusqlite::Result<i64> {
        self.db
            .query_row("SELECT COUNT(*) FROM commands_seen", [], |r| r.get(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOLD: i64 = 600_000;

    #[test]
    fn a_command_is_carried_out_once_even_across_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outbox.db");
        let mut o = Outbox::open(&path, 100).unwrap();
        assert_eq!(
            o.take_command("a", 1_000, 1_000 + HOLD).unwrap(),
            Taken::New
        );
        assert_eq!(
            o.take_command("a", 1_000, 1_000 + HOLD).unwrap(),
            Taken::Again,
            "a replay"
        );
        assert_eq!(
            o.take_command("b", 2_000, 2_000 + HOLD).unwrap(),
            Taken::New
        );
        drop(o);
        let mut o = Outbox::open(&path, 100).unwrap();
        assert_eq!(
            o.take_command("a", 1_000, 1_000 + HOLD).unwrap(),
            Taken::Again,
            "remembered after a restart"
        );
    }

    #[test]
    fn an_expired_command_is_refused_and_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let mut o = Outbox::open(&dir.path().join("outbox.db"), 100).unwrap();
        assert_eq!(
            o.take_command("a", 1_000, 1_000 + HOLD).unwrap(),
            Taken::New
        );
        // Sent while "a" still held: both remembered.
        assert_eq!(
            o.take_command("b", 500_000, 500_000 + HOLD).unwrap(),
            Taken::New
        );
        assert_eq!(o.commands_remembered().unwrap(), 2);
        // Sent after "a" expired: "a" is forgotten, and refused by its expiry from now.
        let later = 1_000 + HOLD + 1;
        assert_eq!(
            o.take_command("c", later, later + HOLD).unwrap(),
            Taken::New
        );
        assert_eq!(o.commands_remembered().unwrap(), 2);
        assert_eq!(
            o.take_command("a", 1_000, 1_000 + HOLD).unwrap(),
            Taken::Expired { newest_ms: later }
        );
        // A new command that expired before the newest was sent (a cloud clock gone
        // back further than a command holds) is refused too, and not remembered.
        assert_eq!(
            o.take_command("d", 500, 500 + HOLD).unwrap(),
            Taken::Expired { newest_ms: later }
        );
        assert_eq!(o.commands_remembered().unwrap(), 2);
        // One sent a little earlier than the newest but still holding is carried out.
        assert_eq!(
            o.take_command("e", later - 5, later - 5 + HOLD).unwrap(),
            Taken::New
        );
    }
}
