//! Past 500 lines because it is one job: under 580 lines of the roll-ups' writing and
//! reading, then their unit tests beside the sums they check.
//!
//! Roll-ups of cycles, so that analytics over a month or a year reads a few thousand
//! rows rather than every cycle (issue 7's targets: p95 ≤ 50 ms for a month of one
//! station, ≤ 1 s for a year of all stations, over 1M cycles).
//!
//! Three tables (migration 20261207000001), each keyed by organisation, span (an hour or
//! a day), bucket (the UTC hour or day of the cycle's start), task, device (0 once the
//! device is deleted) and good/bad:
//! - `cycle_rollups`: how many cycles, their summed and squared times (for the mean and
//!   the standard deviation), the shortest and longest, the idle time;
//! - `cycle_step_rollups`: per step, the cycles that had it and their time in it;
//! - `cycle_time_bins`: how many cycles in each cycle-time bin ([`bin_of`]).
//!
//! All of them add up: a range is read as its whole days, its whole hours at the edges,
//! and the raw cycles of the parts of hours left ([`pieces`]), which is exact. They are
//! kept in the transaction that stores the cycles (SQLite's writer and PostgreSQL's
//! batch insert): a batch is first summed here, so a batch adds one row per station,
//! hour and day rather than per cycle. The upserts take their rows in key order, so two
//! PostgreSQL batches never wait on each other in opposite orders.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use gemba_shared::cycle::Segment;
use serde_json::{Value, json};
use sqlx::AnyConnection;

use super::{Backend, Db};

pub const HOUR: i64 = 3_600_000;
pub const DAY: i64 = 86_400_000;
/// The roll-ups' spans, longest first.
pub const SPANS: [i64; 2] = [DAY, HOUR];

/// Bins a doubling of cycle time is cut into: each bin is 2.2% wide.
pub const BINS_PER_DOUBLING: i64 = 32;
/// The last bin starts at 2^(600/32) s, about 5 days; longer cycles fall in it.
const LAST_EDGE: i64 = 600;

/// The bins' lower edges in ms: bin 0 is under 1 s; bin k ≥ 1 starts at
/// 1000 · 2^((k-1)/32) ms, rounded, and ends where bin k+1 starts.
fn edges() -> &'static [i64] {
    static EDGES: OnceLock<Vec<i64>> = OnceLock::new();
    EDGES.get_or_init(|| {
        (0..=LAST_EDGE)
            .map(|k| (1000.0 * 2f64.powf(k as f64 / BINS_PER_DOUBLING as f64)).round() as i64)
            .collect()
    })
}

/// The cycle-time bin of a cycle of `ms` milliseconds.
pub fn bin_of(ms: i64) -> i64 {
    edges().partition_point(|&e| e <= ms) as i64
}

/// Where bin `bin` starts and ends (ms; the last has no end).
pub fn bin_bounds(bin: i64) -> (i64, Option<i64>) {
    let e = edges();
    let at = |k: i64| usize::try_from(k).ok().and_then(|k| e.get(k).copied());
    (
        if bin <= 0 {
            0
        } else {
            at(bin - 1).unwrap_or(0)
        },
        at(bin),
    )
}

/// What a roll-up row holds of some cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sums {
    pub n: i64,
    pub sum_ms: i64,
    pub sum_sq: f64,
    pub min_ms: i64,
    pub max_ms: i64,
    pub idle_ms: i64,
}

impl Sums {
    pub fn of(ms: i64, idle_ms: i64) -> Sums {
        Sums {
            n: 1,
            sum_ms: ms,
            sum_sq: (ms as f64) * (ms as f64),
            min_ms: ms,
            max_ms: ms,
            idle_ms,
        }
    }

    /// Adds `s` to `to`, or makes it `s` when empty.
    pub fn add_to(to: &mut Option<Sums>, s: &Sums) {
        match to {
            Some(t) => t.merge(s),
            None => *to = Some(*s),
        }
    }

    pub fn merge(&mut self, o: &Sums) {
        self.n += o.n;
        self.sum_ms += o.sum_ms;
        self.sum_sq += o.sum_sq;
        self.min_ms = self.min_ms.min(o.min_ms);
        self.max_ms = self.max_ms.max(o.max_ms);
        self.idle_ms += o.idle_ms;
    }
}

/// A step's time in some cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepSums {
    pub n: i64,
    pub sum_ms: i64,
    pub sum_sq: f64,
}

impl StepSums {
    pub fn merge(&mut self, o: &StepSums) {
        self.n += o.n;
        self.sum_ms += o.sum_ms;
        self.sum_sq += o.sum_sq;
    }
}

/// A roll-up row's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub org: i64,
    pub span: i64,
    pub bucket: i64,
    pub task: i64,
    /// 0: no device (deleted).
    pub device: i64,
    pub good: bool,
}

/// What a cycle brings to the roll-ups.
pub struct Facts<'a> {
    pub org: i64,
    pub task: i64,
    pub device: Option<i64>,
    pub start_ms: i64,
    pub end_ms: i64,
    pub idle_ms: i64,
    pub good: bool,
    pub segments: &'a [Segment],
}

/// Each step's time in a cycle: its segments summed, in step order.
pub fn step_times(segments: &[Segment]) -> BTreeMap<u32, i64> {
    let mut t = BTreeMap::new();
    for s in segments {
        *t.entry(s.step).or_insert(0) += s.end_ms - s.start_ms;
    }
    t
}

/// Roll-up rows being summed, before they are written or after they are read.
#[derive(Debug, Default)]
pub struct Rollup {
    pub cycles: BTreeMap<Key, Sums>,
    pub steps: BTreeMap<(Key, u32), StepSums>,
    pub bins: BTreeMap<(Key, i64), i64>,
}

impl Rollup {
    pub fn is_empty(&self) -> bool {
        self.cycles.is_empty()
    }

    /// Adds a cycle to the bucket of each of `spans` it starts in (a span of 1 keeps
    /// the cycle's own start).
    pub fn add(&mut self, c: &Facts, spans: &[i64]) {
        let ms = c.end_ms - c.start_ms;
        let steps = step_times(c.segments);
        let bin = bin_of(ms);
        for &span in spans {
            let key = Key {
                org: c.org,
                span,
                bucket: c.start_ms.div_euclid(span) * span,
                task: c.task,
                device: c.device.unwrap_or(0),
                good: c.good,
            };
            let one = Sums::of(ms, c.idle_ms);
            self.cycles
                .entry(key)
                .and_modify(|s| s.merge(&one))
                .or_insert(one);
            for (&step, &t) in &steps {
                self.steps.entry((key, step)).or_default().merge(&StepSums {
                    n: 1,
                    sum_ms: t,
                    sum_sq: (t as f64) * (t as f64),
                });
            }
            *self.bins.entry((key, bin)).or_insert(0) += 1;
        }
    }

    /// The rows of each table as the JSON parameter of its upsert ([`upserts`]).
    fn params(&self) -> [String; 3] {
        let key = |k: &Key| {
            json!({"o": k.org, "sp": k.span, "b": k.bucket, "t": k.task, "d": k.device,
                "g": i64::from(k.good)})
        };
        let with = |mut v: Value, extra: Value| {
            if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
                m.extend(e);
            }
            v
        };
        let cycles: Vec<Value> = self
            .cycles
            .iter()
            .map(|(k, s)| {
                with(
                    key(k),
                    json!({"n": s.n, "s": s.sum_ms, "q": s.sum_sq, "mi": s.min_ms,
                        "ma": s.max_ms, "i": s.idle_ms}),
                )
            })
            .collect();
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|((k, step), s)| {
                with(
                    key(k),
                    json!({"st": step, "n": s.n, "s": s.sum_ms, "q": s.sum_sq}),
                )
            })
            .collect();
        let bins: Vec<Value> = self
            .bins
            .iter()
            .map(|((k, bin), n)| with(key(k), json!({"bi": bin, "n": n})))
            .collect();
        [cycles, steps, bins].map(|rows| Value::Array(rows).to_string())
    }
}

/// How a value column takes the rows added to it.
#[derive(Clone, Copy)]
enum Merge {
    Add,
    Min,
    Max,
}

/// A roll-up table: its columns beyond the key, each with its JSON name, type and merge.
struct Table {
    name: &'static str,
    extra_keys: &'static [(&'static str, &'static str, &'static str)],
    values: &'static [(&'static str, &'static str, &'static str, Merge)],
}

const KEYS: &[(&str, &str, &str)] = &[
    ("organization_id", "o", "BIGINT"),
    ("span_ms", "sp", "BIGINT"),
    ("bucket_ms", "b", "BIGINT"),
    ("task_id", "t", "BIGINT"),
    ("device_id", "d", "BIGINT"),
    ("good", "g", "BIGINT"),
];

const TABLES: [Table; 3] = [
    Table {
        name: "cycle_rollups",
        extra_keys: &[],
        values: &[
            ("n", "n", "BIGINT", Merge::Add),
            ("sum_ms", "s", "BIGINT", Merge::Add),
            ("sum_sq", "q", "DOUBLE PRECISION", Merge::Add),
            ("min_ms", "mi", "BIGINT", Merge::Min),
            ("max_ms", "ma", "BIGINT", Merge::Max),
            ("idle_ms", "i", "BIGINT", Merge::Add),
        ],
    },
    Table {
        name: "cycle_step_rollups",
        extra_keys: &[("step", "st", "BIGINT")],
        values: &[
            ("n", "n", "BIGINT", Merge::Add),
            ("sum_ms", "s", "BIGINT", Merge::Add),
            ("sum_sq", "q", "DOUBLE PRECISION", Merge::Add),
        ],
    },
    Table {
        name: "cycle_time_bins",
        extra_keys: &[("bin", "bi", "BIGINT")],
        values: &[("n", "n", "BIGINT", Merge::Add)],
    },
];

/// Each table's upsert on `backend`: one parameter, its rows as a JSON array of objects
/// ([`Rollup::params`]), added to the rows already there.
fn upserts(backend: Backend) -> &'static [String; 3] {
    static SQLITE: OnceLock<[String; 3]> = OnceLock::new();
    static POSTGRES: OnceLock<[String; 3]> = OnceLock::new();
    let cell = match backend {
        Backend::Sqlite => &SQLITE,
        Backend::Postgres => &POSTGRES,
    };
    cell.get_or_init(|| TABLES.each_ref().map(|t| upsert(t, backend)))
}

fn upsert(t: &Table, backend: Backend) -> String {
    let cols: Vec<(&str, &str)> = t.columns().map(|(_, j, ty)| (j, ty)).collect();
    let source = match backend {
        Backend::Sqlite => format!(
            "SELECT {} FROM json_each($1) WHERE true",
            cols.iter()
                .map(|(j, _)| format!("json_extract(value, '$.{j}')"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Backend::Postgres => format!(
            "SELECT {} FROM json_to_recordset($1::json) AS x({})",
            cols.iter().map(|c| c.0).collect::<Vec<_>>().join(", "),
            cols.iter()
                .map(|(j, ty)| format!("{j} {ty}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    merge(t, backend, &source)
}

impl Table {
    /// Every column: (name, JSON name, type), the key's first.
    fn columns(&self) -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
        KEYS.iter()
            .chain(self.extra_keys)
            .copied()
            .chain(self.values.iter().map(|&(c, j, ty, _)| (c, j, ty)))
    }
}

/// Adds the rows `source` selects (every column, in [`Table::columns`]' order) to table
/// `t`'s.
fn merge(t: &Table, backend: Backend, source: &str) -> String {
    let names = t.columns().map(|c| c.0).collect::<Vec<_>>().join(", ");
    let (least, greatest) = match backend {
        Backend::Sqlite => ("MIN", "MAX"),
        Backend::Postgres => ("LEAST", "GREATEST"),
    };
    let set = t
        .values
        .iter()
        .map(|&(c, _, _, m)| match m {
            Merge::Add => format!("{c} = {0}.{c} + excluded.{c}", t.name),
            Merge::Min => format!("{c} = {least}({0}.{c}, excluded.{c})", t.name),
            Merge::Max => format!("{c} = {greatest}({0}.{c}, excluded.{c})", t.name),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let conflict = KEYS
        .iter()
        .chain(t.extra_keys)
        .map(|k| k.0)
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "INSERT INTO {} ({names}) {source} ON CONFLICT ({conflict}) DO UPDATE SET {set}",
        t.name
    )
}

/// Adds `r` to the stored roll-ups, in the caller's transaction.
pub async fn write(conn: &mut AnyConnection, backend: Backend, r: &Rollup) -> sqlx::Result<()> {
    if r.is_empty() {
        return Ok(());
    }
    for (sql, param) in upserts(backend).iter().zip(r.params()) {
        sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
            .bind(param)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// [`write`] in SQLite's cycle writer's transaction.
pub fn write_sqlite(tx: &rusqlite::Transaction, r: &Rollup) -> rusqlite::Result<()> {
    if r.is_empty() {
        return Ok(());
    }
    for (sql, param) in upserts(Backend::Sqlite).iter().zip(r.params()) {
        tx.prepare_cached(sql)?.execute([param])?;
    }
    Ok(())
}

/// The stored cycles' facts as read back: task, device, start, end, idle, good, segments.
pub type RawRow = (i64, Option<i64>, i64, i64, i64, i64, String);
pub const RAW_COLS: &str = "task_id, device_id, start_ms, end_ms, idle_ms, good, segments";

/// Adds a stored cycle (`RawRow`) of `org` to `r`.
pub fn add_raw(r: &mut Rollup, org: i64, row: &RawRow, spans: &[i64]) {
    let (task, device, start_ms, end_ms, idle_ms, good, segments) = row;
    // Written by `insert_cycles` from checked messages.
    let segments: Vec<Segment> = serde_json::from_str(segments).unwrap_or_default();
    r.add(
        &Facts {
            org,
            task: *task,
            device: *device,
            start_ms: *start_ms,
            end_ms: *end_ms,
            idle_ms: *idle_ms,
            good: *good != 0,
            segments: &segments,
        },
        spans,
    );
}

/// Builds the roll-ups of the cycles already stored when the roll-up tables are new
/// (empty while there are cycles): at start, after the migrations.
pub async fn backfill(db: &Db) -> anyhow::Result<()> {
    let missing: Option<i64> = sqlx::query_scalar(
        "SELECT 1 FROM cycles WHERE NOT EXISTS (SELECT 1 FROM cycle_rollups) LIMIT 1",
    )
    .fetch_optional(&db.pool)
    .await?;
    if missing.is_none() {
        return Ok(());
    }
    tracing::info!("building the cycles' roll-ups from the stored cycles");
    let orgs: Vec<i64> = sqlx::query_scalar("SELECT DISTINCT organization_id FROM cycles")
        .fetch_all(&db.pool)
        .await?;
    let mut tx = db.begin_write().await?;
    for org in orgs {
        let rows: Vec<RawRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {RAW_COLS} FROM cycles WHERE organization_id = $1 AND archived_at IS NULL"
        )))
        .bind(org)
        .fetch_all(&mut *tx)
        .await?;
        let mut r = Rollup::default();
        for row in &rows {
            add_raw(&mut r, org, row, &SPANS);
        }
        write(&mut tx, db.backend, &r).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Device `device` of `org` is being deleted: its roll-up rows become device 0's, as
/// its cycles stop naming it; in the caller's transaction.
pub async fn forget_device(
    conn: &mut AnyConnection,
    backend: Backend,
    org: i64,
    device: i64,
) -> sqlx::Result<()> {
    let mine = "organization_id = $1 AND device_id = $2";
    for t in &TABLES {
        let cols = t
            .columns()
            .map(|(c, _, _)| if c == "device_id" { "0" } else { c })
            .collect::<Vec<_>>()
            .join(", ");
        let source = format!("SELECT {cols} FROM {} WHERE {mine}", t.name);
        for sql in [
            merge(t, backend, &source),
            format!("DELETE FROM {} WHERE {mine}", t.name),
        ] {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(org)
                .bind(device)
                .execute(&mut *conn)
                .await?;
        }
    }
    Ok(())
}

/// Begins a transaction that changes stored cycles (a person's verdict, archiving,
/// restoring, deleting) and then [`rebuild`]s their roll-ups: it holds the roll-ups'
/// write lock from its start, so that no batch being ingested adds to a bucket between
/// the rebuild's reading of the cycles and its writing. SQLite: `BEGIN IMMEDIATE` (the
/// database's one write lock, which the cycle writer also takes). PostgreSQL: `SHARE ROW
/// EXCLUSIVE` on `cycle_rollups`, which waits for the batches that already added to it
/// and holds back the others' roll-up statements (not their cycles) until the commit.
pub async fn begin_change(db: &Db) -> sqlx::Result<sqlx::Transaction<'static, sqlx::Any>> {
    match db.backend {
        Backend::Sqlite => db.begin_write().await,
        Backend::Postgres => {
            let mut tx = db.begin_write().await?;
            sqlx::query("LOCK TABLE cycle_rollups IN SHARE ROW EXCLUSIVE MODE")
                .execute(&mut *tx)
                .await?;
            Ok(tx)
        }
    }
}

/// The roll-up rows a stored cycle counts in: one per span.
pub fn keys_of(org: i64, task: i64, device: Option<i64>, start_ms: i64, good: bool) -> [Key; 2] {
    SPANS.map(|span| Key {
        org,
        span,
        bucket: start_ms.div_euclid(span) * span,
        task,
        device: device.unwrap_or(0),
        good,
    })
}

/// Makes the roll-up rows of `keys` anew from the stored cycles that are not archived,
/// in a transaction from [`begin_change`]. Each key's rows in the three tables are
/// deleted, then its cycles summed and written again: exact for every figure, the
/// shortest and longest included, which a subtraction could not give.
pub async fn rebuild(
    conn: &mut AnyConnection,
    backend: Backend,
    keys: &std::collections::BTreeSet<Key>,
) -> sqlx::Result<()> {
    let mut r = Rollup::default();
    for k in keys {
        for t in &TABLES {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DELETE FROM {} WHERE organization_id = $1 AND span_ms = $2 AND bucket_ms = $3 \
                 AND task_id = $4 AND device_id = $5 AND good = $6",
                t.name
            )))
            .bind(k.org)
            .bind(k.span)
            .bind(k.bucket)
            .bind(k.task)
            .bind(k.device)
            .bind(i64::from(k.good))
            .execute(&mut *conn)
            .await?;
        }
        let rows: Vec<RawRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {RAW_COLS} FROM cycles WHERE organization_id = $1 AND task_id = $2 \
             AND COALESCE(device_id, 0) = $3 AND good = $4 AND start_ms >= $5 \
             AND start_ms < $6 AND archived_at IS NULL"
        )))
        .bind(k.org)
        .bind(k.task)
        .bind(k.device)
        .bind(i64::from(k.good))
        .bind(k.bucket)
        .bind(k.bucket + k.span)
        .fetch_all(&mut *conn)
        .await?;
        for row in &rows {
            add_raw(&mut r, k.org, row, &[k.span]);
        }
    }
    write(conn, backend, &r).await
}

/// Organisation `org` is being deleted: its roll-ups go, in the caller's transaction.
pub async fn forget_org(conn: &mut AnyConnection, org: i64) -> sqlx::Result<()> {
    for t in &TABLES {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DELETE FROM {} WHERE organization_id = $1",
            t.name
        )))
        .bind(org)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_cover_every_time_once_and_in_order() {
        assert_eq!(bin_of(0), 0);
        assert_eq!(bin_of(999), 0);
        assert_eq!(bin_of(1000), 1);
        for ms in [
            1,
            999,
            1000,
            1021,
            1022,
            59_999,
            60_000,
            61_234,
            3_600_000,
            i64::MAX,
        ] {
            let (from, to) = bin_bounds(bin_of(ms));
            assert!(
                from <= ms && to.is_none_or(|t| ms < t),
                "{ms}: {from}..{to:?}"
            );
        }
        // Each bin is about 2.2% wide, and no edge repeats.
        let e = edges();
        assert!(e.windows(2).all(|w| w[0] < w[1]));
        let (from, to) = bin_bounds(bin_of(60_000));
        let width = (to.unwrap() - from) as f64 / from as f64;
        assert!((0.021..0.023).contains(&width), "{width}");
    }

    #[test]
    fn a_batch_sums_per_station_and_bucket() {
        let seg = |step, a, b| Segment::new(step, a, b);
        let segs = [seg(0, 0, 10), seg(1, 10, 30), seg(0, 30, 35)];
        let mut r = Rollup::default();
        for (start, ms, good) in [(0, 35, true), (1_000, 50, true), (HOUR, 20, false)] {
            r.add(
                &Facts {
                    org: 1,
                    task: 2,
                    device: Some(3),
                    start_ms: start,
                    end_ms: start + ms,
                    idle_ms: 1,
                    good,
                    segments: &segs,
                },
                &SPANS,
            );
        }
        // Day: 2 good, 1 bad; hours: 2 good in the first, 1 bad in the second.
        assert_eq!(r.cycles.len(), 4);
        let day_good = Key {
            org: 1,
            span: DAY,
            bucket: 0,
            task: 2,
            device: 3,
            good: true,
        };
        let s = r.cycles[&day_good];
        assert_eq!(
            (s.n, s.sum_ms, s.min_ms, s.max_ms, s.idle_ms),
            (2, 85, 35, 50, 2)
        );
        assert_eq!(s.sum_sq, 35.0 * 35.0 + 50.0 * 50.0);
        // Step 0 twice in a cycle counts once, with both segments' time.
        assert_eq!(r.steps[&(day_good, 0)].n, 2);
        assert_eq!(r.steps[&(day_good, 0)].sum_ms, 30);
    }
}
