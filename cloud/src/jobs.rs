//! The job queue: training runs wait in the database the cloud already uses (apalis:
//! its SQLite or PostgreSQL storage) and are taken by workers: one inside `gemba-cloud
//! serve` by default (`train_in_process`), and any number of `gemba-cloud worker`
//! processes for scale. A worker takes one job at a time (training fills the cores);
//! a worker that dies is noticed by its missed heartbeats and its job is queued again,
//! and the trainer resumes a run a dead worker left `running`.
//!
//! apalis keeps its own tables (`Jobs`/`Workers` in SQLite, schema `apalis` in
//! PostgreSQL), migrated at start with their record in `_apalis_migrations`, apart from
//! the cloud's `_sqlx_migrations`.

use std::future::Future;
use std::time::Duration;

use anyhow::Context;
use apalis::prelude::*;
use apalis_postgres::PostgresStorage;
use apalis_sqlite::SqliteStorage;
use serde::{Deserialize, Serialize};

use crate::db::{Backend, Db};
use crate::state::AppState;

/// Train: run training run `run`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrainJob {
    pub run: i64,
}

/// A message sent to a queue (`generic/send_message_to_sqs/`): run message `message`
/// (`crate::queue`). Its own job type, so a long training run never holds it up.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MessageJob {
    pub message: i64,
}

/// How often an idle worker looks for a job.
const POLL: Duration = Duration::from_millis(500);

#[derive(Clone)]
pub enum Queue {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Queue::Sqlite(_) => "Queue::Sqlite",
            Queue::Postgres(_) => "Queue::Postgres",
        })
    }
}

const MIGRATIONS_TABLE: &str = "_apalis_migrations";

/// Runs one worker of `job` (a job function) on the queue's backend until `signal`:
/// the same set-up for every job type, on SQLite or PostgreSQL.
macro_rules! worker {
    ($queue:expr, $name:expr, $state:expr, $job:expr, $signal:expr) => {
        match $queue {
            Queue::Sqlite(p) => {
                WorkerBuilder::new($name)
                    .backend(SqliteStorage::new(p).poll_with_interval(POLL))
                    .concurrency(1)
                    .data($state)
                    .build($job)
                    .run_until($signal)
                    .await?
            }
            Queue::Postgres(p) => {
                WorkerBuilder::new($name)
                    .backend(PostgresStorage::new(p).poll_with_interval(POLL))
                    .concurrency(1)
                    .data($state)
                    .build($job)
                    .run_until($signal)
                    .await?
            }
        }
    };
}

impl Queue {
    /// Opens the queue on the cloud's database and applies apalis's migrations.
    pub async fn open(db: &Db) -> anyhow::Result<Queue> {
        Ok(match db.backend {
            Backend::Sqlite => {
                let pool = sqlx::sqlite::SqlitePoolOptions::new()
                    .max_connections(2)
                    .connect(&db.url)
                    .await
                    .context("opening the job queue (SQLite)")?;
                let mut m = SqliteStorage::<()>::migrations();
                m.dangerous_set_table_name(MIGRATIONS_TABLE);
                m.run(&pool).await.context("migrating the job queue")?;
                Queue::Sqlite(pool)
            }
            Backend::Postgres => {
                let pool = sqlx::postgres::PgPoolOptions::new()
                    .max_connections(3)
                    .connect(&db.url)
                    .await
                    .context("opening the job queue (PostgreSQL)")?;
                let mut m = PostgresStorage::<()>::migrations();
                m.dangerous_set_table_name(MIGRATIONS_TABLE);
                m.run(&pool).await.context("migrating the job queue")?;
                Queue::Postgres(pool)
            }
        })
    }

    /// Queues `job`.
    pub async fn push(&self, job: TrainJob) -> anyhow::Result<()> {
        match self {
            Queue::Sqlite(p) => SqliteStorage::new(p).push(job).await?,
            Queue::Postgres(p) => PostgresStorage::new(p).push(job).await?,
        }
        Ok(())
    }

    /// Queues message `job`.
    pub async fn push_message(&self, job: MessageJob) -> anyhow::Result<()> {
        match self {
            Queue::Sqlite(p) => SqliteStorage::new(p).push(job).await?,
            Queue::Postgres(p) => PostgresStorage::new(p).push(job).await?,
        }
        Ok(())
    }

    /// Runs a worker named `name` until `shutdown` resolves: one for training jobs and,
    /// beside it, one for messages (`{name}-messages`).
    pub async fn work(
        &self,
        state: AppState,
        name: String,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        use futures_util::FutureExt;
        let shutdown = shutdown.boxed().shared();
        let s = shutdown.clone();
        let messages =
            self.clone()
                .work_messages(state.clone(), format!("{name}-messages"), async move {
                    s.await;
                    Ok::<(), std::io::Error>(())
                });
        let signal = async move {
            shutdown.await;
            Ok::<(), std::io::Error>(())
        };
        let training = self.clone().work_training(state, name, signal);
        // Each worker in a task of its own: joined in one task, each one's finished
        // fetch woke the other, which fetched again at once (apalis fetches whenever it
        // is polled), and the two kept a core busy between them instead of polling
        // every `POLL` (docs/benchmarks.md "An idle cloud's job queue"). The first to
        // fail ends both, as a join would: leaving, the set aborts the other.
        let mut workers = tokio::task::JoinSet::new();
        workers.spawn(training);
        workers.spawn(messages);
        while let Some(done) = workers.join_next().await {
            done??;
        }
        Ok(())
    }

    async fn work_messages(
        self,
        state: AppState,
        name: String,
        signal: impl Future<Output = Result<(), std::io::Error>> + Send + 'static,
    ) -> anyhow::Result<()> {
        worker!(&self, name, state, message, signal);
        Ok(())
    }

    async fn work_training(
        self,
        state: AppState,
        name: String,
        signal: impl Future<Output = Result<(), std::io::Error>> + Send + 'static,
    ) -> anyhow::Result<()> {
        worker!(&self, name, state, train, signal);
        Ok(())
    }
}

/// The job's handler: the run, to its end. Its failures end the run `failed` (with the
/// reason); only a failure to record that is the job's (and it is tried again).
async fn train(job: TrainJob, state: Data<AppState>) -> Result<(), BoxDynError> {
    crate::training::run(&state, job.run).await?;
    Ok(())
}

/// A message's handler: its job, to its end (`crate::queue::run` records a failure on
/// the message; only a failure to record that is the job's, and it is tried again).
async fn message(job: MessageJob, state: Data<AppState>) -> Result<(), BoxDynError> {
    crate::queue::run(&state, job.message).await?;
    Ok(())
}

/// A worker's name: host, process and a random part.
pub fn worker_name(kind: &str) -> String {
    format!(
        "{kind}-{}-{}",
        std::process::id(),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}
