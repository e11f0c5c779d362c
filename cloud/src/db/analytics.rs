//! Cycle analytics read from the roll-ups ([`super::rollups`]): for a date range, the
//! figures of all the cycles, of each station (task on a device), of each step, the
//! cycle-time distribution and a trend in hours, days, weeks or months.
//!
//! A range is cut into [`pieces`]: its whole UTC days, the whole hours at its edges, and
//! the parts of hours left, read from the raw cycles. Every figure adds up over the
//! pieces, so the answer equals the same figure computed from the raw cycles. A trend
//! reads the finest roll-up its buckets are made of: days for days, weeks and months in
//! UTC; hours in a time zone a whole number of hours from UTC; the raw cycles otherwise.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Months, NaiveDate};

use super::Db;
use super::rollups::{self, DAY, HOUR, RAW_COLS, RawRow, Rollup, SPANS, StepSums, Sums};

/// A trend's buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    Hour,
    Day,
    /// Monday to Sunday.
    Week,
    Month,
}

/// Which cycles, and how the trend is cut.
#[derive(Debug, Clone)]
pub struct StatsQuery {
    pub task: Option<i64>,
    pub device: Option<i64>,
    pub good: Option<bool>,
    /// Started at or after (unix ms).
    pub start: i64,
    /// Started before.
    pub end: i64,
    pub width: Width,
    /// The trend's time zone: ms east of UTC.
    pub offset_ms: i64,
}

/// The figures, summed.
#[derive(Debug, Default)]
pub struct Stats {
    /// Per task, device (0: deleted) and good.
    pub stations: BTreeMap<(i64, i64, bool), Sums>,
    /// Per task and step.
    pub steps: BTreeMap<(i64, u32), StepSums>,
    /// Cycles per cycle-time bin.
    pub bins: BTreeMap<i64, i64>,
    /// Per trend bucket (its start, unix ms; every bucket of the range) and good.
    pub trend: Vec<(i64, [Option<Sums>; 2])>,
}

/// `[start, end)` cut into whole buckets of `spans` (longest first) and, between them,
/// raw pieces (span 1): `(span, from, to)` in time order.
pub fn pieces(start: i64, end: i64, spans: &[i64]) -> Vec<(i64, i64, i64)> {
    fn cut(s: i64, e: i64, spans: &[i64], out: &mut Vec<(i64, i64, i64)>) {
        if s >= e {
            return;
        }
        let Some((&span, rest)) = spans.split_first() else {
            out.push((1, s, e));
            return;
        };
        let a = s.div_euclid(span) * span + if s.rem_euclid(span) == 0 { 0 } else { span };
        let b = e.div_euclid(span) * span;
        if a < b {
            cut(s, a, rest, out);
            out.push((span, a, b));
            cut(b, e, rest, out);
        } else {
            cut(s, e, rest, out);
        }
    }
    let mut out = Vec::new();
    cut(start, end, spans, &mut out);
    out
}

/// The start of the trend bucket holding `t` (unix ms).
pub fn bucket_start(t: i64, w: Width, offset_ms: i64) -> i64 {
    let local = t + offset_ms;
    let floor = |x: i64, span: i64| x.div_euclid(span) * span;
    let b = match w {
        Width::Hour => floor(local, HOUR),
        Width::Day => floor(local, DAY),
        // 1970-01-05 was a Monday.
        Width::Week => floor(local - 4 * DAY, 7 * DAY) + 4 * DAY,
        Width::Month => {
            let d =
                DateTime::from_timestamp_millis(local).map_or(NaiveDate::MIN, |t| t.date_naive());
            month_ms(d.year(), d.month())
        }
    };
    b - offset_ms
}

/// The start of the trend bucket after the one starting at `b`.
pub fn next_bucket(b: i64, w: Width, offset_ms: i64) -> i64 {
    match w {
        Width::Hour => b + HOUR,
        Width::Day => b + DAY,
        Width::Week => b + 7 * DAY,
        Width::Month => {
            let d = DateTime::from_timestamp_millis(b + offset_ms)
                .map_or(NaiveDate::MIN, |t| t.date_naive())
                .checked_add_months(Months::new(1))
                .unwrap_or(NaiveDate::MAX);
            month_ms(d.year(), d.month()) - offset_ms
        }
    }
}

fn month_ms(year: i32, month: u32) -> i64 {
    NaiveDate::from_ymd_opt(year, month, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map_or(0, |t| t.and_utc().timestamp_millis())
}

/// How many trend buckets `[start, end)` has.
pub fn bucket_count(start: i64, end: i64, w: Width, offset_ms: i64, most: usize) -> usize {
    let mut b = bucket_start(start, w, offset_ms);
    let mut n = 0;
    while b < end && n <= most {
        n += 1;
        b = next_bucket(b, w, offset_ms);
    }
    n
}

/// The roll-up spans a trend's buckets are made of (none: the raw cycles).
fn trend_spans(w: Width, offset_ms: i64) -> &'static [i64] {
    if w != Width::Hour && offset_ms.rem_euclid(DAY) == 0 {
        &SPANS
    } else if offset_ms.rem_euclid(HOUR) == 0 {
        &SPANS[1..]
    } else {
        &[]
    }
}

/// The filter every query below shares: `$1` organisation, `$2` task, `$3` device,
/// `$4` good; then the pieces' `(span, from, to)` from `$5`.
const FILTER: &str = "organization_id = $1 AND ($2 IS NULL OR task_id = $2) \
    AND ($3 IS NULL OR device_id = $3) AND ($4 IS NULL OR good = $4)";
/// [`FILTER`] for the raw cycles, which also keep archived ones.
const RAW_FILTER: &str = "organization_id = $1 AND archived_at IS NULL \
    AND ($2 IS NULL OR task_id = $2) AND ($3 IS NULL OR device_id = $3) \
    AND ($4 IS NULL OR good = $4)";

/// `FILTER AND` one of the roll-up pieces (none: `false`), and the pieces' parameters.
fn rollup_cond(pieces: &[(i64, i64, i64)]) -> (String, Vec<i64>) {
    let mut or = Vec::new();
    let mut args = Vec::new();
    for &(span, from, to) in pieces.iter().filter(|p| p.0 > 1) {
        let n = 5 + args.len();
        or.push(format!(
            "(span_ms = ${n} AND bucket_ms >= ${} AND bucket_ms < ${})",
            n + 1,
            n + 2
        ));
        args.extend([span, from, to]);
    }
    if or.is_empty() {
        or.push("1 = 0".into());
    }
    (format!("{FILTER} AND ({})", or.join(" OR ")), args)
}

/// A query of `sql` with the filter's and the pieces' parameters bound.
macro_rules! bound {
    ($q:expr, $query:expr, $args:expr) => {{
        let mut q = $q
            .bind($query.0)
            .bind($query.1.task)
            .bind($query.1.device)
            .bind($query.1.good.map(i64::from));
        for a in $args {
            q = q.bind(*a);
        }
        q
    }};
}

const SUMS: &str = "CAST(SUM(n) AS BIGINT), CAST(SUM(sum_ms) AS BIGINT), SUM(sum_sq), \
    MIN(min_ms), MAX(max_ms), CAST(SUM(idle_ms) AS BIGINT)";
type SumsRow = (i64, i64, f64, i64, i64, i64);
/// Two ids (a station's task and device, or a bucket and 0), good, and the sums.
type GroupRow = (i64, i64, i64, i64, i64, f64, i64, i64, i64);

fn sums((n, sum_ms, sum_sq, min_ms, max_ms, idle_ms): SumsRow) -> Sums {
    Sums {
        n,
        sum_ms,
        sum_sq,
        min_ms,
        max_ms,
        idle_ms,
    }
}

fn merge_into<K: Ord>(map: &mut BTreeMap<K, Sums>, k: K, s: Sums) {
    map.entry(k).and_modify(|x| x.merge(&s)).or_insert(s);
}

/// The raw cycles of `org` started in `[from, to)` that `q` names, summed per cycle
/// start (span 1) into `r`.
async fn raw(
    db: &Db,
    org: i64,
    q: &StatsQuery,
    from: i64,
    to: i64,
    r: &mut Rollup,
) -> sqlx::Result<()> {
    let rows: Vec<RawRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {RAW_COLS} FROM cycles WHERE {RAW_FILTER} AND start_ms >= $5 AND start_ms < $6"
    )))
    .bind(org)
    .bind(q.task)
    .bind(q.device)
    .bind(q.good.map(i64::from))
    .bind(from)
    .bind(to)
    .fetch_all(&db.pool)
    .await?;
    for row in &rows {
        rollups::add_raw(r, org, row, &[1]);
    }
    Ok(())
}

/// Organisation `org`'s figures for `q`.
/// The cycle-time bins alone of `q`'s cycles (its trend's width and offset unused), as
/// [`stats`] counts them.
pub async fn bins(db: &Db, org: i64, q: &StatsQuery) -> sqlx::Result<BTreeMap<i64, i64>> {
    let main = pieces(q.start, q.end, &SPANS);
    let (cond, args) = rollup_cond(&main);
    let mut out = rollup_bins(db, (org, q), &cond, &args).await?;
    let mut r = Rollup::default();
    for &(_, from, to) in main.iter().filter(|p| p.0 == 1) {
        raw(db, org, q, from, to, &mut r).await?;
    }
    for ((_, bin), n) in &r.bins {
        *out.entry(*bin).or_insert(0) += n;
    }
    Ok(out)
}

/// The roll-ups' cycle-time bins where `cond` holds.
async fn rollup_bins(
    db: &Db,
    this: (i64, &StatsQuery),
    cond: &str,
    args: &[i64],
) -> sqlx::Result<BTreeMap<i64, i64>> {
    let rows: Vec<(i64, i64)> = bound!(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT bin, CAST(SUM(n) AS BIGINT) FROM cycle_time_bins WHERE {cond} GROUP BY bin"
        ))),
        this,
        args
    )
    .fetch_all(&db.pool)
    .await?;
    let mut out = BTreeMap::new();
    for (bin, n) in rows {
        *out.entry(bin).or_insert(0) += n;
    }
    Ok(out)
}

pub async fn stats(db: &Db, org: i64, q: &StatsQuery) -> sqlx::Result<Stats> {
    stats_from(db, org, q, &SPANS).await
}

/// [`stats`] reading roll-ups of `spans` only (none: the raw cycles alone, which the
/// benchmark compares with).
pub async fn stats_from(db: &Db, org: i64, q: &StatsQuery, spans: &[i64]) -> sqlx::Result<Stats> {
    let mut out = Stats::default();
    let main = pieces(q.start, q.end, spans);
    let (cond, args) = rollup_cond(&main);
    let this = (org, q);

    let rows: Vec<GroupRow> = bound!(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT task_id, device_id, good, {SUMS} FROM cycle_rollups WHERE {cond} \
             GROUP BY task_id, device_id, good"
        ))),
        this,
        &args
    )
    .fetch_all(&db.pool)
    .await?;
    for (task, device, good, n, s, sq, mi, ma, i) in rows {
        merge_into(
            &mut out.stations,
            (task, device, good != 0),
            sums((n, s, sq, mi, ma, i)),
        );
    }
    let rows: Vec<(i64, i64, i64, i64, f64)> = bound!(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT task_id, step, CAST(SUM(n) AS BIGINT), CAST(SUM(sum_ms) AS BIGINT), \
             SUM(sum_sq) FROM cycle_step_rollups WHERE {cond} GROUP BY task_id, step"
        ))),
        this,
        &args
    )
    .fetch_all(&db.pool)
    .await?;
    for (task, step, n, sum_ms, sum_sq) in rows {
        out.steps
            .entry((task, step as u32))
            .or_default()
            .merge(&StepSums { n, sum_ms, sum_sq });
    }
    out.bins = rollup_bins(db, this, &cond, &args).await?;

    // The trend's sources: roll-up buckets and raw cycles, each in one trend bucket.
    let mut sources: BTreeMap<(i64, bool), Sums> = BTreeMap::new();
    let finest: &[i64] = if spans.is_empty() {
        &[]
    } else {
        trend_spans(q.width, q.offset_ms)
    };
    let cut = pieces(q.start, q.end, finest);
    let (tcond, targs) = rollup_cond(&cut);
    let rows: Vec<GroupRow> = bound!(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT bucket_ms, 0, good, {SUMS} FROM cycle_rollups WHERE {tcond} \
             GROUP BY bucket_ms, good"
        ))),
        this,
        &targs
    )
    .fetch_all(&db.pool)
    .await?;
    for (bucket, _, good, n, s, sq, mi, ma, i) in rows {
        merge_into(
            &mut sources,
            (bucket, good != 0),
            sums((n, s, sq, mi, ma, i)),
        );
    }

    // The raw pieces: the main cut's feed everything; the trend's, when it reads finer
    // pieces than the main cut, feed the trend alone.
    let mut r = Rollup::default();
    for &(_, from, to) in main.iter().filter(|p| p.0 == 1) {
        raw(db, org, q, from, to, &mut r).await?;
    }
    for (k, s) in &r.cycles {
        merge_into(&mut out.stations, (k.task, k.device, k.good), *s);
    }
    for ((k, step), s) in &r.steps {
        out.steps.entry((k.task, *step)).or_default().merge(s);
    }
    for ((_, bin), n) in &r.bins {
        *out.bins.entry(*bin).or_insert(0) += n;
    }
    let raw_trend: Vec<_> = cut.iter().filter(|p| p.0 == 1).copied().collect();
    if raw_trend
        != main
            .iter()
            .filter(|p| p.0 == 1)
            .copied()
            .collect::<Vec<_>>()
    {
        r = Rollup::default();
        for &(_, from, to) in &raw_trend {
            raw(db, org, q, from, to, &mut r).await?;
        }
    }
    for (k, s) in &r.cycles {
        merge_into(&mut sources, (k.bucket, k.good), *s);
    }

    // Every bucket of the range, in order, with what fell in it.
    let mut trend: BTreeMap<i64, [Option<Sums>; 2]> = BTreeMap::new();
    let mut b = bucket_start(q.start, q.width, q.offset_ms);
    while b < q.end {
        trend.insert(b, [None, None]);
        b = next_bucket(b, q.width, q.offset_ms);
    }
    for ((at, good), s) in sources {
        let slot = &mut trend
            .entry(bucket_start(at, q.width, q.offset_ms))
            .or_insert([None, None])[usize::from(good)];
        Sums::add_to(slot, &s);
    }
    out.trend = trend.into_iter().collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_cut_into_days_hours_and_the_rest() {
        let t = |d: i64, h: i64, m: i64| d * DAY + h * HOUR + m * 60_000;
        assert_eq!(
            pieces(t(0, 22, 30), t(3, 1, 15), &SPANS),
            vec![
                (1, t(0, 22, 30), t(0, 23, 0)),
                (HOUR, t(0, 23, 0), t(1, 0, 0)),
                (DAY, t(1, 0, 0), t(3, 0, 0)),
                (HOUR, t(3, 0, 0), t(3, 1, 0)),
                (1, t(3, 1, 0), t(3, 1, 15)),
            ]
        );
        // Inside one hour: raw only; whole days: days only.
        assert_eq!(
            pieces(t(0, 1, 5), t(0, 1, 6), &SPANS),
            vec![(1, t(0, 1, 5), t(0, 1, 6))]
        );
        assert_eq!(pieces(0, 2 * DAY, &SPANS), vec![(DAY, 0, 2 * DAY)]);
        assert_eq!(pieces(0, 2 * DAY, &[]), vec![(1, 0, 2 * DAY)]);
        // Before 1970 too.
        assert_eq!(pieces(-DAY, 0, &SPANS), vec![(DAY, -DAY, 0)]);
    }

    #[test]
    fn buckets_follow_the_calendar_in_the_time_zone() {
        // 2026-11-25 (a Wednesday) 10:30 UTC.
        let t = 1_795_602_600_000;
        let day = 1_795_564_800_000; // 2026-11-25T00:00Z
        assert_eq!(bucket_start(t, Width::Day, 0), day);
        assert_eq!(bucket_start(t, Width::Hour, 0), day + 10 * HOUR);
        // Monday 2026-11-23.
        assert_eq!(bucket_start(t, Width::Week, 0), day - 2 * DAY);
        assert_eq!(bucket_start(t, Width::Month, 0), day - 24 * DAY);
        assert_eq!(next_bucket(day - 24 * DAY, Width::Month, 0), day + 6 * DAY);
        // In UTC+1 the day starts at 23:00 UTC the evening before.
        assert_eq!(bucket_start(t, Width::Day, HOUR), day - HOUR);
        assert_eq!(next_bucket(day - HOUR, Width::Day, HOUR), day + DAY - HOUR);
        assert_eq!(bucket_count(day, day + DAY, Width::Hour, 0, 1000), 24);
        assert_eq!(bucket_count(day, day + DAY, Width::Day, HOUR, 1000), 2);
        assert_eq!(trend_spans(Width::Day, 0), &SPANS);
        assert_eq!(trend_spans(Width::Day, HOUR), &[HOUR]);
        assert!(trend_spans(Width::Month, 30 * 60_000).is_empty());
    }
}
