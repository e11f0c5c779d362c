//! The PostgreSQL tests' databases, copied from a template migrated once
//! (`gemba_cloud::pg_template`): built once however many tests ask at once, never
//! copied half-built, never copied for other migrations, and the server finds nothing
//! to migrate on a copy. The templates here are of a family of their own, with a
//! random fingerprint, so each test is a first use; each drops what it made.

use std::sync::atomic::{AtomicUsize, Ordering};

use gemba_cloud::pg_template::{self, copy_of, drop_template, migrated_database};
use gemba_cloud::seed::drop_database;
use sqlx::{Connection, PgConnection};

use crate::common::pg_admin_url;

const FAMILY: &str = "gemba_tplx";

fn random_fingerprint() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_string()
}

async fn admin() -> PgConnection {
    PgConnection::connect(&pg_admin_url()).await.unwrap()
}

/// A build that makes table `table` with one row, slowly enough that copies asking
/// meanwhile must wait for it, and counts itself in `builds`.
fn build_with<'a>(
    table: &'a str,
    builds: &'a AtomicUsize,
) -> impl Fn(String) -> std::pin::Pin<Box<dyn Future<Output = anyhow::Result<()>> + 'a>> + 'a {
    move |url| {
        Box::pin(async move {
            builds.fetch_add(1, Ordering::SeqCst);
            let mut c = PgConnection::connect(&url).await?;
            let sql = format!("CREATE TABLE {table} (n BIGINT); INSERT INTO {table} VALUES (1)");
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut c)
                .await?;
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            c.close().await?;
            Ok(())
        })
    }
}

/// The rows of `table` in the database `url`, or `None` when it has no such table.
async fn rows(url: &str, table: &str) -> Option<i64> {
    let mut c = PgConnection::connect(url).await.unwrap();
    let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
        .bind(table)
        .fetch_one(&mut c)
        .await
        .unwrap();
    let n = if exists {
        let sql = format!("SELECT count(*) FROM {table}");
        Some(
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_one(&mut c)
                .await
                .unwrap(),
        )
    } else {
        None
    };
    c.close().await.unwrap();
    n
}

async fn clean_up(copies: &[String], templates: &[String]) {
    for url in copies {
        drop_database(&pg_admin_url(), url).await.unwrap();
    }
    let mut c = admin().await;
    for t in templates {
        drop_template(&mut c, t).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_first_uses_at_once_build_the_template_once_and_each_gets_its_schema() {
    let fp = random_fingerprint();
    let builds = AtomicUsize::new(0);
    let build = build_with("built", &builds);
    let admin = pg_admin_url();
    let copies = futures_util::future::join_all(
        (0..4).map(|_| copy_of(&admin, "gemba_t", FAMILY, &fp, &build)),
    )
    .await;
    let copies: Vec<String> = copies.into_iter().map(|c| c.unwrap()).collect();
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    for url in &copies {
        assert_eq!(rows(url, "built").await, Some(1), "{url}");
    }
    // Later uses copy it as it is.
    let later = copy_of(&admin, "gemba_t", FAMILY, &fp, &build)
        .await
        .unwrap();
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    assert_eq!(rows(&later, "built").await, Some(1));
    let template = pg_template::template_name(FAMILY, &fp).unwrap();
    clean_up(&[copies, vec![later]].concat(), &[template]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_a_killed_build_left_unmarked_is_built_again() {
    let fp = random_fingerprint();
    let template = pg_template::template_name(FAMILY, &fp).unwrap();
    // What a build killed before its end leaves: the database, not marked a template.
    let mut c = admin().await;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {template}")))
        .execute(&mut c)
        .await
        .unwrap();
    let builds = AtomicUsize::new(0);
    let build = build_with("built", &builds);
    let copy = copy_of(&pg_admin_url(), "gemba_t", FAMILY, &fp, &build)
        .await
        .unwrap();
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    assert_eq!(rows(&copy, "built").await, Some(1));
    clean_up(&[copy], &[template]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_of_other_migrations_is_not_copied() {
    let admin = pg_admin_url();
    let (old, new) = (random_fingerprint(), random_fingerprint());
    let builds = AtomicUsize::new(0);
    let before = copy_of(
        &admin,
        "gemba_t",
        FAMILY,
        &old,
        build_with("before", &builds),
    )
    .await
    .unwrap();
    let after = copy_of(
        &admin,
        "gemba_t",
        FAMILY,
        &new,
        build_with("after", &builds),
    )
    .await
    .unwrap();
    assert_eq!(builds.load(Ordering::SeqCst), 2);
    assert_eq!(rows(&after, "after").await, Some(1));
    assert_eq!(rows(&after, "before").await, None);
    assert_eq!(rows(&before, "after").await, None);
    let templates = [old, new].map(|f| pg_template::template_name(FAMILY, &f).unwrap());
    clean_up(&[before, after], &templates).await;
}

/// The real schema: a copy holds every migration, and the server's start (its
/// migrations, then the job queue's) applies none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_is_fully_migrated_and_the_server_applies_nothing_at_start() {
    let admin = pg_admin_url();
    let url = migrated_database(&admin, "gemba_t").await.unwrap();
    let applied = async |url: &str| -> Vec<(i64, String)> {
        let mut c = PgConnection::connect(url).await.unwrap();
        let mut all: Vec<(i64, String)> = sqlx::query_as(
            "SELECT version, installed_on::text FROM _sqlx_migrations ORDER BY version",
        )
        .fetch_all(&mut c)
        .await
        .unwrap();
        all.extend(
            sqlx::query_as::<_, (i64, String)>(
                "SELECT -version, installed_on::text FROM _apalis_migrations ORDER BY version",
            )
            .fetch_all(&mut c)
            .await
            .unwrap(),
        );
        c.close().await.unwrap();
        all
    };
    let at_copy = applied(&url).await;
    let cloud = gemba_cloud::db::migrate::migrations(gemba_cloud::db::Backend::Postgres);
    assert_eq!(
        at_copy.iter().filter(|(v, _)| *v > 0).count(),
        cloud.len(),
        "every migration of the cloud"
    );
    assert!(at_copy.iter().any(|(v, _)| *v < 0), "the job queue's too");

    let dir = tempfile::tempdir().unwrap();
    let db = gemba_cloud::db::Db::open(Some(&url), dir.path())
        .await
        .unwrap();
    let queue = gemba_cloud::jobs::Queue::open(&db).await.unwrap();
    drop(queue);
    db.pool.close().await;
    assert_eq!(applied(&url).await, at_copy, "nothing applied at start");
    drop_database(&admin, &url).await.unwrap();
}
