//! The issue center's cycles: an organisation's bad cycles of a range, not archived,
//! with their reasons and whether someone reviewed them; and reviewing an issue's open
//! ones. An issue is read from the raw bad cycles (a fraction of all, through the
//! `(organization_id, start_ms)` index), not from roll-ups: reasons are not rolled up.
//!
//! A cycle's `reasons` are stored as serde_json writes a `Vec<BadReason>`
//! (`[{"reason":"missed_step","step":1}]`, [`super::cycles`]), so the cycles of one
//! issue are those whose text holds that reason's text ([`reasons_pattern`]).

use gemba_shared::api::v1::telemetry::IssueKey;

use super::{Db, now_ms};

/// The `LIKE … ESCAPE '\'` pattern of the stored reasons of issue `k`'s cycles: its
/// reason anywhere in the list; for [`IssueKey::MarkedBad`], the empty list.
pub fn reasons_pattern(k: &IssueKey) -> String {
    let text = match k {
        IssueKey::Reason(r) => serde_json::to_string(r).expect("a reason serialises"),
        IssueKey::MarkedBad => return "[]".into(),
    };
    let mut p = String::from("%");
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// A bad cycle: its task, start, reasons (as stored) and whether it was reviewed.
pub type BadRow = (i64, i64, String, Option<i64>);

/// Organisation `org`'s bad cycles started in `[start, end)`, not archived, of `task`
/// and `device` when given.
pub async fn bad_cycles(
    db: &Db,
    org: i64,
    task: Option<i64>,
    device: Option<i64>,
    start: i64,
    end: i64,
) -> sqlx::Result<Vec<BadRow>> {
    sqlx::query_as(
        "SELECT task_id, start_ms, reasons, reviewed_at FROM cycles WHERE organization_id = $1 \
         AND start_ms >= $2 AND start_ms < $3 AND good = 0 AND archived_at IS NULL \
         AND ($4 IS NULL OR task_id = $4) AND ($5 IS NULL OR device_id = $5)",
    )
    .bind(org)
    .bind(start)
    .bind(end)
    .bind(task)
    .bind(device)
    .fetch_all(&db.pool)
    .await
}

/// Which open cycles a review marks.
pub struct Review<'a> {
    pub org: i64,
    pub task: i64,
    pub key: IssueKey,
    pub device: Option<i64>,
    pub start: i64,
    pub end: i64,
    pub user: i64,
    pub note: &'a str,
}

/// Marks issue `r.key`'s open bad cycles of the range reviewed, each with a `reviewed`
/// entry (the note) in its history; answers how many.
pub async fn review(db: &Db, r: &Review<'_>) -> sqlx::Result<i64> {
    let now = now_ms();
    let mut tx = db.begin_write().await?;
    let ids: Vec<String> = sqlx::query_scalar(
        "UPDATE cycles SET reviewed_at = $7, reviewed_by = $8 WHERE organization_id = $1 \
         AND task_id = $2 AND ($3 IS NULL OR device_id = $3) AND start_ms >= $4 \
         AND start_ms < $5 AND good = 0 AND archived_at IS NULL AND reviewed_at IS NULL \
         AND reasons LIKE $6 ESCAPE '\\' RETURNING id",
    )
    .bind(r.org)
    .bind(r.task)
    .bind(r.device)
    .bind(r.start)
    .bind(r.end)
    .bind(reasons_pattern(&r.key))
    .bind(now)
    .bind(r.user)
    .fetch_all(&mut *tx)
    .await?;
    for id in &ids {
        sqlx::query(
            "INSERT INTO cycle_changes (organization_id, cycle_id, user_id, at_ms, change, \
             reason) VALUES ($1, $2, $3, $4, 'reviewed', $5)",
        )
        .bind(r.org)
        .bind(id)
        .bind(r.user)
        .bind(now)
        .bind(r.note)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(ids.len() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemba_shared::cycle::BadReason;

    #[test]
    fn a_pattern_is_its_reason_as_stored_whole_and_escaped() {
        assert_eq!(
            reasons_pattern(&IssueKey::Reason(BadReason::MissedStep { step: 1 })),
            r#"%{"reason":"missed\_step","step":1}%"#
        );
        assert_eq!(
            reasons_pattern(&IssueKey::Reason(BadReason::TooLong)),
            r#"%{"reason":"too\_long"}%"#
        );
        assert_eq!(reasons_pattern(&IssueKey::MarkedBad), "[]");
    }
}
