//! Storage: one set of queries for SQLite (default) and PostgreSQL, through sqlx's
//! `Any` driver. Queries use `$1` parameters (both backends accept them), `BIGINT`
//! unix-millisecond times, `TEXT` ids and JSON, and `BOOLEAN` flags, so that every
//! query below runs unchanged on both. Migrations are in `cloud/migrations/`.
//!
//! Invariant: every query touching tenant data takes the organisation id as a
//! parameter; handlers get it from the [`crate::http::extract::AuthUser`] scope.
//!
//! SQLite takes one writer at a time; the others wait their turn through the busy
//! timeout (5 s, sqlx's and the cycle writer's). A transaction that writes begins with
//! [`Db::begin_write`]: a deferred one (`BEGIN`) that reads first and then writes cannot
//! wait, since SQLite refuses at once ("database is locked", whatever the busy timeout)
//! to turn a read transaction into a write while another connection writes or wrote
//! since its read began.

pub mod admin_reports;
pub mod analytics;
pub mod annotations;
pub mod assistant_docs;
pub mod audit;
pub mod barcodes;
pub mod camera_events;
pub mod camera_tasks;
pub mod clips;
pub mod cycle_changes;
pub mod cycles;
pub mod device_config;
pub mod devices;
pub mod features;
pub mod issues;
pub mod labelers;
pub mod lines;
pub mod migrate;
pub mod model_types;
pub mod opcua;
pub mod orgs;
pub mod outbox;
pub mod push;
pub mod queue;
pub mod rectification;
pub mod releases;
pub mod rollups;
pub mod screenshots;
pub mod service_tokens;
pub mod sso;
pub mod tampering;
pub mod task_objects;
pub mod task_store;
pub mod tasks;
pub mod tokens;
pub mod tombstones;
pub mod training;
pub mod upload_tokens;
pub mod users;
pub mod validation;
pub mod videos;

pub use users::UserRow;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use sqlx::AnyPool;
use sqlx::any::AnyPoolOptions;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone, Debug)]
pub struct Db {
    pub pool: AnyPool,
    pub backend: Backend,
    /// The URL it was opened with (the job queue opens its own pool on it).
    pub url: String,
    /// SQLite's cycle writer (`cycles`); none on PostgreSQL.
    pub cycles: Option<std::sync::Arc<cycles::SqliteWriter>>,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A `LIKE … ESCAPE '\'` pattern matching `text` anywhere, case-folded: the user's
/// `%`, `_` and `\` match themselves, not as wildcards.
/// Ids the server parsed, as the list of an SQL `IN (…)` written into the statement.
pub fn id_list<'a>(ids: impl IntoIterator<Item = &'a i64>) -> String {
    ids.into_iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

pub fn contains_pattern(text: &str) -> String {
    let mut p = String::from("%");
    for c in text.trim().to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}

/// A stored flag (BIGINT 0/1) read into a `bool`: `#[sqlx(try_from = "Flag")]`.
pub struct Flag(pub bool);

impl sqlx::Type<sqlx::Any> for Flag {
    fn type_info() -> sqlx::any::AnyTypeInfo {
        <i64 as sqlx::Type<sqlx::Any>>::type_info()
    }
    fn compatible(ty: &sqlx::any::AnyTypeInfo) -> bool {
        <i64 as sqlx::Type<sqlx::Any>>::compatible(ty)
    }
}

impl<'r> sqlx::Decode<'r, sqlx::Any> for Flag {
    fn decode(value: sqlx::any::AnyValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        Ok(Flag(<i64 as sqlx::Decode<sqlx::Any>>::decode(value)? != 0))
    }
}

impl From<Flag> for bool {
    fn from(f: Flag) -> bool {
        f.0
    }
}

impl Db {
    /// Begins a transaction that writes: on SQLite `BEGIN IMMEDIATE`, which takes the
    /// write lock at once, waiting for another writer through the busy timeout (see the
    /// module's header).
    pub async fn begin_write(&self) -> sqlx::Result<sqlx::Transaction<'static, sqlx::Any>> {
        match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        }
    }

    /// Connects to `database_url`, or to `{data}/gemba.db` (SQLite, WAL) when it is `None`,
    /// and applies the migrations.
    pub async fn open(database_url: Option<&str>, data: &Path) -> anyhow::Result<Db> {
        sqlx::any::install_default_drivers();
        let (url, backend) = match database_url {
            Some(u) if u.starts_with("postgres") => (u.to_string(), Backend::Postgres),
            Some(u) if u.starts_with("sqlite") => (u.to_string(), Backend::Sqlite),
            Some(u) => {
                anyhow::bail!("unsupported database URL {u:?}: use postgres://… or sqlite://…")
            }
            None => {
                std::fs::create_dir_all(data)
                    .with_context(|| format!("creating data folder {}", data.display()))?;
                let file = data.join("gemba.db");
                (
                    format!("sqlite://{}?mode=rwc", file.display()),
                    Backend::Sqlite,
                )
            }
        };
        let max = if backend == Backend::Sqlite { 8 } else { 16 };
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            // A ping before each use guards against connections a server dropped; an
            // SQLite connection is in-process, and its ping is one more hand-off to the
            // connection's thread on every query (docs/benchmarks.md).
            .test_before_acquire(backend != Backend::Sqlite)
            .connect(&url)
            .await
            .with_context(|| format!("connecting to the {backend:?} database"))?;
        if backend == Backend::Sqlite {
            // WAL persists in the file; readers never block the writer.
            sqlx::query("PRAGMA journal_mode=WAL")
                .execute(&pool)
                .await?;
        }
        let mut db = Db {
            pool,
            backend,
            url: url.clone(),
            cycles: None,
        };
        migrate::run(&db).await.context("applying migrations")?;
        rollups::backfill(&db)
            .await
            .context("building the cycles' roll-ups")?;
        if backend == Backend::Sqlite {
            let writer = cycles::SqliteWriter::start(&cycles::sqlite_path(&url)?)?;
            db.cycles = Some(std::sync::Arc::new(writer));
        }
        Ok(db)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn search_patterns_escape_wildcards() {
        assert_eq!(super::contains_pattern(" Ann "), "%ann%");
        assert_eq!(super::contains_pattern("50%_a\\b"), "%50\\%\\_a\\\\b%");
    }
}
