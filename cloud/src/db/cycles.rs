//! Past 500 lines because it is one job, the hot path, written twice (SQLite and
//! PostgreSQL side by side, so a change to one is seen beside the other).
//!
//! Storing the cycles devices send: ingestion's hot path.
//!
//! A batch is stored in one transaction; a cycle whose id is stored already is skipped
//! (ingestion is idempotent on the cycle id), one whose task is not its
//! organisation's is refused, and so is one a person deleted (its tombstone). Nothing of a batch is acknowledged to its devices until
//! the transaction committed.
//!
//! SQLite: one thread of its own ([`SqliteWriter`]) writes every batch through rusqlite,
//! a prepared single-row INSERT bound by position, in a transaction per batch. sqlx
//! binds SQLite parameters by name (quadratic in a statement's parameters) and hands
//! every statement to its connection's thread; unpacking one JSON parameter
//! (`json_each`) cost 21–22 µs a row. PostgreSQL: the batch as one JSON parameter
//! (`json_to_recordset`) through the pool; several batches may be written at once, their
//! rows in id order so that two of them never wait on each other's ids in opposite
//! orders. Measurements: `docs/benchmarks.md`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use gemba_shared::mqtt::v1::CycleMessage;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use super::{Backend, Db, now_ms, rollups};

/// A cycle as a device of an organisation sent it.
pub struct Received {
    pub org: i64,
    pub device: i64,
    pub cycle: CycleMessage,
}

/// What became of a received cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New,
    /// Stored before (a replay): acknowledged again, not stored twice.
    Again,
    /// Its task is not one of its organisation's.
    Refused,
    /// A person deleted it: its tombstone refuses it (`db::tombstones`).
    Deleted,
}

/// A row of `cycles`, as both backends take it.
#[derive(Serialize)]
struct Row {
    id: String,
    organization_id: i64,
    device_id: i64,
    task_id: i64,
    camera: String,
    start_ms: i64,
    end_ms: i64,
    idle_ms: i64,
    good: i64,
    reasons: String,
    segments: String,
    metadata: String,
    received_at: i64,
    /// For the roll-ups (not a column).
    #[serde(skip)]
    steps: Vec<gemba_shared::cycle::Segment>,
}

impl Row {
    fn of(r: &Received, now: i64) -> Row {
        let c = &r.cycle;
        Row {
            id: c.id.clone(),
            organization_id: r.org,
            device_id: r.device,
            task_id: c.task,
            camera: c.camera.clone(),
            start_ms: c.start_ms,
            end_ms: c.end_ms,
            idle_ms: c.idle_ms,
            good: i64::from(c.good),
            reasons: serde_json::to_string(&c.reasons).expect("reasons serialise"),
            segments: serde_json::to_string(&c.segments).expect("segments serialise"),
            metadata: serde_json::to_string(&c.metadata).expect("metadata serialises"),
            received_at: now,
            steps: c.segments.clone(),
        }
    }

    fn facts(&self) -> rollups::Facts<'_> {
        rollups::Facts {
            org: self.organization_id,
            task: self.task_id,
            device: Some(self.device_id),
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            idle_ms: self.idle_ms,
            good: self.good != 0,
            segments: &self.steps,
        }
    }
}

/// The roll-ups of the rows of `rows` that were inserted (`new`).
fn rollup_of<'a>(rows: impl IntoIterator<Item = (&'a Row, bool)>) -> rollups::Rollup {
    let mut r = rollups::Rollup::default();
    for (row, new) in rows {
        if new {
            r.add(&row.facts(), &rollups::SPANS);
        }
    }
    r
}

const COLUMNS: &str = "id, organization_id, device_id, task_id, camera, start_ms, end_ms, \
    idle_ms, good, reasons, segments, metadata, received_at";

/// Stores a batch of cycles in one transaction; answers what became of each, in order.
pub async fn insert_cycles(db: &Db, cycles: &[Received]) -> anyhow::Result<Vec<Stored>> {
    // Which (task, organisation) pairs of the batch exist.
    let ids: BTreeSet<i64> = cycles.iter().map(|r| r.cycle.task).collect();
    let list = super::id_list(&ids);
    let valid: HashSet<(i64, i64)> = if ids.is_empty() {
        Default::default()
    } else {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT id, organization_id FROM tasks WHERE id IN ({list})"
        )))
        .fetch_all(&db.pool)
        .await?
        .into_iter()
        .collect()
    };
    // Valid ones are stored before unless this transaction inserts them.
    let mut stored: Vec<Stored> = cycles
        .iter()
        .map(|r| match valid.contains(&(r.cycle.task, r.org)) {
            true => Stored::Again,
            false => Stored::Refused,
        })
        .collect();
    // Deleted ones are not stored again.
    let asked: Vec<&str> = (0..cycles.len())
        .filter(|&i| stored[i] == Stored::Again)
        .map(|i| cycles[i].cycle.id.as_str())
        .collect();
    let deleted: HashSet<String> = super::tombstones::of(db, &asked)
        .await?
        .into_iter()
        .collect();
    for (s, r) in stored.iter_mut().zip(cycles) {
        if *s == Stored::Again && deleted.contains(&r.cycle.id) {
            *s = Stored::Deleted;
        }
    }
    let mut todo: Vec<usize> = (0..cycles.len())
        .filter(|&i| stored[i] == Stored::Again)
        .collect();
    if todo.is_empty() {
        return Ok(stored);
    }
    // In id order (see the module's header); a cycle twice in a batch (a replay) stays
    // in the order received, so that the first is the one inserted.
    todo.sort_by(|&a, &b| cycles[a].cycle.id.cmp(&cycles[b].cycle.id).then(a.cmp(&b)));
    let inserted = match (&db.cycles, db.backend) {
        (Some(writer), _) => writer.write(cycles, &todo).await?,
        (None, Backend::Postgres) => insert_postgres(db, cycles, &todo).await?,
        (None, Backend::Sqlite) => anyhow::bail!("no cycle writer for the SQLite database"),
    };
    for (&i, new) in todo.iter().zip(inserted) {
        if new {
            stored[i] = Stored::New;
        }
    }
    Ok(stored)
}

/// PostgreSQL: the rows as ONE parameter, a JSON array unpacked by `json_to_recordset`.
/// Answers, for each of `todo`, whether it was inserted.
async fn insert_postgres(db: &Db, cycles: &[Received], todo: &[usize]) -> sqlx::Result<Vec<bool>> {
    let now = now_ms();
    let rows: Vec<Row> = todo.iter().map(|&i| Row::of(&cycles[i], now)).collect();
    let json = serde_json::to_string(&rows).expect("rows serialise");
    let mut tx = db.begin_write().await?;
    let inserted: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "INSERT INTO cycles ({COLUMNS}) SELECT {COLUMNS} FROM \
         json_to_recordset($1::json) AS x(id TEXT, organization_id BIGINT, \
         device_id BIGINT, task_id BIGINT, camera TEXT, start_ms BIGINT, end_ms BIGINT, \
         idle_ms BIGINT, good BIGINT, reasons TEXT, segments TEXT, metadata TEXT, \
         received_at BIGINT) ON CONFLICT (id) DO NOTHING RETURNING id"
    )))
    .bind(json)
    .fetch_all(&mut *tx)
    .await?;
    // A cycle twice in the batch: the first of them is the one inserted.
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (k, &i) in todo.iter().enumerate().rev() {
        first.insert(cycles[i].cycle.id.as_str(), k);
    }
    let mut new = vec![false; todo.len()];
    for id in &inserted {
        if let Some(&k) = first.get(id.as_str()) {
            new[k] = true;
        }
    }
    let sums = rollup_of(rows.iter().zip(new.iter().copied()));
    rollups::write(&mut tx, Backend::Postgres, &sums).await?;
    tx.commit().await?;
    Ok(new)
}

/// A batch for the SQLite writer: rows to insert, and where to answer which were.
struct Job {
    rows: Vec<Row>,
    done: oneshot::Sender<rusqlite::Result<Vec<bool>>>,
}

/// The SQLite database's cycle writer: one thread with its own connection, writing the
/// batches it is given one after another, each in one transaction. It stops when the
/// last [`Db`] holding it is dropped.
#[derive(Debug)]
pub struct SqliteWriter {
    jobs: mpsc::Sender<Job>,
}

/// How long the writer waits for another connection's write to end.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

impl SqliteWriter {
    /// Opens its connection to the database file at `path` (migrated, in WAL mode) and
    /// starts its thread.
    pub fn start(path: &Path) -> anyhow::Result<SqliteWriter> {
        let conn = rusqlite::Connection::open(path)
            .with_context(|| format!("opening {} for the cycle writer", path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // As sqlx's connections: a committed batch is on disk before it is acknowledged.
        // A page cache of 64 MiB (SQLite's default is 2 MiB): the table's and its indexes'
        // pages stay in the writer's memory instead of being read back from the OS's cache
        // (about 10% more cycles/s, docs/benchmarks.md).
        conn.execute_batch(
            "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -65536;",
        )?;
        let (jobs, rx) = mpsc::channel::<Job>(4);
        std::thread::Builder::new()
            .name("cycle-writer".into())
            .spawn(move || writer_thread(conn, rx))
            .context("starting the cycle writer")?;
        Ok(SqliteWriter { jobs })
    }

    /// Inserts the cycles `todo` of `cycles` in one transaction; answers, for each of
    /// them, whether it was inserted (not stored before).
    async fn write(&self, cycles: &[Received], todo: &[usize]) -> anyhow::Result<Vec<bool>> {
        let now = now_ms();
        let rows = todo.iter().map(|&i| Row::of(&cycles[i], now)).collect();
        let (done, answer) = oneshot::channel();
        self.jobs
            .send(Job { rows, done })
            .await
            .map_err(|_| anyhow::anyhow!("the cycle writer stopped"))?;
        Ok(answer.await.context("the cycle writer stopped")??)
    }
}

fn writer_thread(mut conn: rusqlite::Connection, mut jobs: mpsc::Receiver<Job>) {
    while let Some(job) = jobs.blocking_recv() {
        let result = write_batch(&mut conn, &job.rows);
        if let Err(e) = &result {
            tracing::error!(error = %e, n = job.rows.len(), "the cycle writer's transaction failed");
        }
        let _ = job.done.send(result);
    }
}

fn write_batch(conn: &mut rusqlite::Connection, rows: &[Row]) -> rusqlite::Result<Vec<bool>> {
    // IMMEDIATE: the write lock is taken (or waited for) at the start.
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    // Stamped here, in the transaction that stores them.
    let now = now_ms();
    let mut new = Vec::with_capacity(rows.len());
    {
        let mut insert = tx.prepare_cached(&format!(
            "INSERT INTO cycles ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, \
             ?11, ?12, ?13) ON CONFLICT (id) DO NOTHING"
        ))?;
        for r in rows {
            let n = insert.execute(rusqlite::params![
                r.id,
                r.organization_id,
                r.device_id,
                r.task_id,
                r.camera,
                r.start_ms,
                r.end_ms,
                r.idle_ms,
                r.good,
                r.reasons,
                r.segments,
                r.metadata,
                now,
            ])?;
            new.push(n == 1);
        }
    }
    rollups::write_sqlite(&tx, &rollup_of(rows.iter().zip(new.iter().copied())))?;
    tx.commit()?;
    Ok(new)
}

/// The file an `sqlite:` URL names (`sqlite://path?options`, `sqlite:path`).
pub fn sqlite_path(url: &str) -> anyhow::Result<PathBuf> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .context("not an sqlite: URL")?;
    let path = rest.split('?').next().unwrap_or_default();
    if path.is_empty() || path == ":memory:" {
        anyhow::bail!("the SQLite database must be a file, not {url:?}");
    }
    Ok(PathBuf::from(path))
}

// ----- reading ---------------------------------------------------------------------------

/// The keys of organisation `org`'s cycles' metadata (not archived; of `task` when
/// given), sorted, at most `most`.
pub async fn metadata_keys(
    db: &Db,
    org: i64,
    task: Option<i64>,
    most: i64,
) -> sqlx::Result<Vec<String>> {
    let keys = match db.backend {
        Backend::Sqlite => {
            "SELECT DISTINCT j.key FROM cycles c, json_each(c.metadata) j \
             WHERE c.organization_id = $1 AND ($2 IS NULL OR c.task_id = $2) \
             AND c.archived_at IS NULL AND c.metadata <> '{}' ORDER BY 1 LIMIT $3"
        }
        Backend::Postgres => {
            "SELECT DISTINCT k FROM cycles c, jsonb_object_keys(c.metadata::jsonb) k \
             WHERE c.organization_id = $1 AND ($2 IS NULL OR c.task_id = $2) \
             AND c.archived_at IS NULL AND c.metadata <> '{}' ORDER BY 1 LIMIT $3"
        }
    };
    sqlx::query_scalar(keys)
        .bind(org)
        .bind(task)
        .bind(most)
        .fetch_all(&db.pool)
        .await
}

/// The columns of a [`CycleRow`].
pub const CYCLE_COLS: &str =
    "id, task_id, device_id, camera, start_ms, end_ms, idle_ms, good, reasons, segments";

pub type CycleRow = (
    String,
    i64,
    Option<i64>,
    String,
    i64,
    i64,
    i64,
    i64,
    String,
    String,
);

pub fn to_api(
    (id, task, device, camera, start_ms, end_ms, idle_ms, good, reasons, segments): CycleRow,
) -> gemba_shared::api::v1::device::RecentCycle {
    gemba_shared::api::v1::device::RecentCycle {
        id,
        task,
        device,
        camera,
        start_ms,
        end_ms,
        idle_ms,
        good: good != 0,
        // Written by `insert_cycles` from checked messages.
        reasons: serde_json::from_str(&reasons).unwrap_or_default(),
        segments: serde_json::from_str(&segments).unwrap_or_default(),
    }
}

/// Which of an organisation's cycles a list shows, and how.
#[derive(Debug, Default, Clone)]
pub struct CycleQuery {
    pub task: Option<i64>,
    pub device: Option<i64>,
    /// Started at or after (unix ms).
    pub start: Option<i64>,
    /// Started before.
    pub end: Option<i64>,
    /// Good ones only (`Some(true)`), bad ones only, or all.
    pub good: Option<bool>,
    /// Those of one issue: a `LIKE` pattern of their reasons ([`super::issues`]).
    pub reasons: Option<String>,
    /// Reviewed ones only (`Some(true)`), those nobody reviewed, or all.
    pub reviewed: Option<bool>,
    /// Those whose metadata holds a key (and value): the two `LIKE` patterns of
    /// [`metadata_patterns`].
    pub metadata: Option<(String, String)>,
    /// At least this long (ms).
    pub min_ms: Option<i64>,
    /// `ORDER BY` terms, checked by the caller.
    pub order: &'static str,
    pub offset: i64,
    pub limit: i64,
}

/// A bound value of a [`CycleQuery`]'s filter.
enum Arg {
    Int(i64),
    Text(String),
}

/// The filter of a [`CycleQuery`] (archived cycles left out) and its values, `$1` the
/// organisation: only the conditions asked for are written, so that the planner can use
/// the (organisation, task, start), (device, start) and (organisation, start) indexes
/// (`$n IS NULL OR …` kept SQLite from any of them: a month of one station read every
/// cycle of the organisation, bench/analytics.sh).
fn filter(org: i64, q: &CycleQuery) -> (String, Vec<Arg>) {
    let mut sql = String::from("organization_id = $1 AND archived_at IS NULL");
    let mut args = vec![Arg::Int(org)];
    let mut add = |cond: &str, a: Vec<Arg>| {
        let mut c = cond.to_string();
        for k in (0..a.len()).rev() {
            c = c.replace(&format!("?{}", k + 1), &format!("${}", args.len() + k + 1));
        }
        sql.push_str(" AND ");
        sql.push_str(&c);
        args.extend(a);
    };
    if let Some(t) = q.task {
        add("task_id = ?1", vec![Arg::Int(t)]);
    }
    if let Some(d) = q.device {
        add("device_id = ?1", vec![Arg::Int(d)]);
    }
    if let Some(t) = q.start {
        add("start_ms >= ?1", vec![Arg::Int(t)]);
    }
    if let Some(t) = q.end {
        add("start_ms < ?1", vec![Arg::Int(t)]);
    }
    if let Some(g) = q.good {
        add("good = ?1", vec![Arg::Int(i64::from(g))]);
    }
    if let Some(r) = &q.reasons {
        add("reasons LIKE ?1 ESCAPE '\\'", vec![Arg::Text(r.clone())]);
    }
    match q.reviewed {
        Some(true) => add("reviewed_at IS NOT NULL", vec![]),
        Some(false) => add("reviewed_at IS NULL", vec![]),
        None => {}
    }
    if let Some(ms) = q.min_ms {
        add("end_ms - start_ms >= ?1", vec![Arg::Int(ms)]);
    }
    if let Some((first, later)) = &q.metadata {
        add(
            "(metadata LIKE ?1 ESCAPE '\\' OR metadata LIKE ?2 ESCAPE '\\')",
            vec![Arg::Text(first.clone()), Arg::Text(later.clone())],
        );
    }
    (sql, args)
}

/// `sql` with `args` bound in order.
fn bound<'q, O>(
    mut sql: sqlx::query::QueryAs<'q, sqlx::Any, O, sqlx::any::AnyArguments>,
    args: Vec<Arg>,
) -> sqlx::query::QueryAs<'q, sqlx::Any, O, sqlx::any::AnyArguments> {
    for a in args {
        sql = match a {
            Arg::Int(i) => sql.bind(i),
            Arg::Text(t) => sql.bind(t),
        };
    }
    sql
}

/// The stored metadata (serde_json's text of a string map, `{"barcode":"A1","lot":"7"}`)
/// holding `key`, with `value` when given: the key's text as the first entry (after `{`)
/// or a later one (after `,`). A `"` inside a key or value is stored as `\"`, so neither
/// pattern can match inside one.
pub fn metadata_patterns(key: &str, value: Option<&str>) -> (String, String) {
    let quoted = |t: &str| serde_json::to_string(t).expect("a string serialises");
    let mut entry = format!("{}:", quoted(key));
    if let Some(v) = value {
        entry.push_str(&quoted(v));
    }
    let mut escaped = String::new();
    for c in entry.chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    // A value is whole: a quote closes it, then `,` or `}`; a key alone ends with `:`.
    (format!("{{{escaped}%"), format!("%,{escaped}%"))
}

/// A page of organisation `org`'s cycles: `q`'s order, limit and offset.
pub async fn rows(
    db: &Db,
    org: i64,
    q: &CycleQuery,
) -> sqlx::Result<Vec<gemba_shared::api::v1::device::RecentCycle>> {
    let (cond, mut args) = filter(org, q);
    let n = args.len();
    args.extend([Arg::Int(q.limit), Arg::Int(q.offset)]);
    let rows: Vec<CycleRow> = bound(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {CYCLE_COLS} FROM cycles WHERE {cond} ORDER BY {}, id LIMIT ${} OFFSET ${}",
            q.order,
            n + 1,
            n + 2
        ))),
        args,
    )
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().map(to_api).collect())
}

/// How many of organisation `org`'s cycles `q` names, in all.
pub async fn count(db: &Db, org: i64, q: &CycleQuery) -> sqlx::Result<i64> {
    let (cond, args) = filter(org, q);
    let (n,): (i64,) = bound(
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM cycles WHERE {cond}"
        ))),
        args,
    )
    .fetch_one(&db.pool)
    .await?;
    Ok(n)
}

/// A page of organisation `org`'s cycles, and how many match in all.
pub async fn page(
    db: &Db,
    org: i64,
    q: &CycleQuery,
) -> sqlx::Result<(Vec<gemba_shared::api::v1::device::RecentCycle>, i64)> {
    Ok((rows(db, org, q).await?, count(db, org, q).await?))
}
