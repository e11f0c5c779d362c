//! Upload links given to devices (issue 28): a random token in the URL, only its SHA-256
//! kept here with what it may upload and until when. A clip link (`cycles/ack`'s
//! `clip_url`) names the cycles of that one acknowledgement; a recording link (a
//! `record` command's URL) names its one video. [`check`] is the plain rule; the
//! handlers (`http/clips.rs`, `http/recording.rs`) map its refusals to answers.
//!
//! Invariants: a link works only for its kind and subjects, only until `expires_at`; a
//! recording link once (`used_at`, set by [`use_once`] before the file is read); a clip
//! link once per cycle, by the cycle's clip, which a link never replaces
//! (`db::clips::put_new`). Expired links are deleted a day after they expired
//! ([`prune`]), so for that day a late device hears "expired", then "not found".

use super::{Db, now_ms};

/// A link for cycle clips.
pub const CLIP: &str = "clip";
/// A link for a device's training-video recording.
pub const RECORDING: &str = "recording";
/// A link for a screenshot (issue 29): its one screenshot, once.
pub const SCREENSHOT: &str = "screenshot";

/// A link to keep.
#[derive(Debug, Clone)]
pub struct NewToken {
    /// SHA-256 of the token (`auth::token_hash`).
    pub hash: String,
    pub kind: &'static str,
    pub org: i64,
    pub device: i64,
    /// What it uploads: the cycle ids, or the video id.
    pub subjects: Vec<String>,
    /// Unix ms.
    pub expires_at: i64,
}

/// A kept link.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct TokenRow {
    pub kind: String,
    pub organization_id: i64,
    pub device_id: i64,
    /// A JSON list of ids.
    pub subjects: String,
    pub expires_at: i64,
    pub used_at: Option<i64>,
}

/// Why a link does not upload what it was asked to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No such link (or one of another kind).
    Unknown,
    /// Its time is over.
    Expired,
    /// It names other cycles (or another video).
    NotThis,
    /// It was used.
    Used,
}

/// Whether link `row` (as found by its token's hash) uploads `subject` of `kind` at
/// `now` (unix ms): its organisation and device, or why not.
pub fn check(
    row: Option<&TokenRow>,
    kind: &str,
    subject: &str,
    now: i64,
) -> Result<(i64, i64), Refusal> {
    let Some(row) = row.filter(|r| r.kind == kind) else {
        return Err(Refusal::Unknown);
    };
    if now >= row.expires_at {
        return Err(Refusal::Expired);
    }
    let subjects: Vec<String> = serde_json::from_str(&row.subjects).unwrap_or_default();
    if !subjects.iter().any(|s| s == subject) {
        return Err(Refusal::NotThis);
    }
    if row.used_at.is_some() {
        return Err(Refusal::Used);
    }
    Ok((row.organization_id, row.device_id))
}

/// Rows a statement inserts, at most (6 parameters each).
const CHUNK: usize = 100;

/// Keeps `tokens`, in one transaction.
pub async fn insert(db: &Db, tokens: &[NewToken]) -> sqlx::Result<()> {
    if tokens.is_empty() {
        return Ok(());
    }
    let mut tx = db.begin_write().await?;
    for part in tokens.chunks(CHUNK) {
        let values: Vec<String> = (0..part.len())
            .map(|i| {
                let b = i * 6;
                format!(
                    "(${}, ${}, ${}, ${}, ${}, ${})",
                    b + 1,
                    b + 2,
                    b + 3,
                    b + 4,
                    b + 5,
                    b + 6
                )
            })
            .collect();
        let sql = format!(
            "INSERT INTO device_upload_tokens (token_hash, kind, organization_id, device_id, \
             subjects, expires_at) VALUES {}",
            values.join(", ")
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for t in part {
            q = q
                .bind(&t.hash)
                .bind(t.kind)
                .bind(t.org)
                .bind(t.device)
                .bind(serde_json::to_string(&t.subjects).expect("ids serialise"))
                .bind(t.expires_at);
        }
        q.execute(&mut *tx).await?;
    }
    tx.commit().await
}

/// The link whose token hashes to `hash`.
pub async fn get(db: &Db, hash: &str) -> sqlx::Result<Option<TokenRow>> {
    sqlx::query_as(
        "SELECT kind, organization_id, device_id, subjects, expires_at, used_at \
         FROM device_upload_tokens WHERE token_hash = $1",
    )
    .bind(hash)
    .fetch_optional(&db.pool)
    .await
}

/// Marks link `hash` used, if it was not and has not expired at `now`: whether this
/// call did (of two uploads at once, one).
pub async fn use_once(db: &Db, hash: &str, now: i64) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE device_upload_tokens SET used_at = $2 WHERE token_hash = $1 \
         AND used_at IS NULL AND expires_at > $2",
    )
    .bind(hash)
    .bind(now)
    .execute(&db.pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// How long an expired link is kept (so that it answers "expired"), in milliseconds.
pub const KEEP_EXPIRED_MS: i64 = 86_400_000;

/// Deletes the links that expired more than [`KEEP_EXPIRED_MS`] ago; answers how many.
pub async fn prune(db: &Db) -> sqlx::Result<u64> {
    let r = sqlx::query("DELETE FROM device_upload_tokens WHERE expires_at < $1")
        .bind(now_ms() - KEEP_EXPIRED_MS)
        .execute(&db.pool)
        .await?;
    Ok(r.rows_affected())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kind: &str, subjects: &[&str], expires_at: i64, used_at: Option<i64>) -> TokenRow {
        TokenRow {
            kind: kind.into(),
            organization_id: 3,
            device_id: 9,
            subjects: serde_json::to_string(subjects).unwrap(),
            expires_at,
            used_at,
        }
    }

    #[test]
    fn a_link_uploads_only_its_subjects_of_its_kind_until_it_expires() {
        let r = row(CLIP, &["a", "b"], 1_000, None);
        assert_eq!(check(Some(&r), CLIP, "a", 999), Ok((3, 9)));
        assert_eq!(check(Some(&r), CLIP, "b", 0), Ok((3, 9)));
        assert_eq!(check(Some(&r), CLIP, "c", 999), Err(Refusal::NotThis));
        assert_eq!(check(Some(&r), CLIP, "a", 1_000), Err(Refusal::Expired));
        assert_eq!(check(Some(&r), RECORDING, "a", 0), Err(Refusal::Unknown));
        assert_eq!(check(None, CLIP, "a", 0), Err(Refusal::Unknown));
    }

    #[test]
    fn a_used_link_is_refused_and_expiry_is_said_first() {
        let r = row(RECORDING, &["7"], 1_000, Some(5));
        assert_eq!(check(Some(&r), RECORDING, "7", 10), Err(Refusal::Used));
        assert_eq!(check(Some(&r), RECORDING, "8", 10), Err(Refusal::NotThis));
        assert_eq!(
            check(Some(&r), RECORDING, "7", 2_000),
            Err(Refusal::Expired)
        );
    }
}
