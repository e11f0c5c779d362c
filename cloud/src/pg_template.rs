//! PostgreSQL databases for tests, copied from a template migrated once: applying the
//! cloud's migrations to a new database takes seconds, `CREATE DATABASE … TEMPLATE`
//! a fraction of one (docs/benchmarks.md, "the PostgreSQL half").
//!
//! Invariants:
//! - A template is named `{family}_{fingerprint}`, the fingerprint a hash of every
//!   migration that made it (the cloud's and the job queue's, [`schema_fingerprint`]):
//!   changed migrations name another template, so a stale one is never copied.
//! - A template is ready once it is marked `IS_TEMPLATE` (with connections refused),
//!   which its builder does last, after closing its own connections. A database of the
//!   family that is not marked is what a killed build left: dropped and built again.
//! - Templates are built under one session-level advisory lock, which PostgreSQL lets
//!   go when the builder's connection ends, killed or not; one build at a time.
//! - Building one drops all but the newest [`KEEP`] templates of its family (older
//!   migrations; a run from an older build that still needs one builds it again).
//! - The server's own migrate-at-start still runs on a copy and finds nothing to do.

use std::future::Future;
use std::time::Duration;

use anyhow::Context;
use sha2::{Digest, Sha256};
use sqlx::{Connection, PgConnection};

use crate::db::{self, Backend, Db};

/// The family of the cloud's schema templates.
pub const FAMILY: &str = "gemba_tpl";

/// How many templates of a family outlive the build of a new one.
pub const KEEP: usize = 3;

/// The session advisory lock templates are built under ("gembatpl").
const BUILD_LOCK: i64 = 0x67656d62_6174706c;

/// How long a copy tries again while the template is busy (a moment while another
/// session leaves it, or while it is being dropped and built again).
const RETRIES: u32 = 100;
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// A new PostgreSQL database on the server of `admin_url` (a URL of any of its
/// databases) holding the cloud's schema, every migration applied, named
/// `{prefix}_{uuid}`; answers its URL. `seed::drop_database` removes it.
pub async fn migrated_database(admin_url: &str, prefix: &str) -> anyhow::Result<String> {
    copy_of(
        admin_url,
        prefix,
        FAMILY,
        &schema_fingerprint(),
        build_schema,
    )
    .await
}

/// The fingerprint of the cloud's PostgreSQL schema: its migrations' versions and
/// checksums, then the job queue's.
pub fn schema_fingerprint() -> String {
    let cloud = db::migrate::migrations(Backend::Postgres);
    let queue = apalis_postgres::PostgresStorage::<()>::migrations();
    fingerprint(&[
        cloud.iter().map(|m| (m.version, &*m.checksum)).collect(),
        queue.iter().map(|m| (m.version, &*m.checksum)).collect(),
    ])
}

/// Twelve hex digits of SHA-256 over each set's (version, checksum) pairs, the sets
/// kept apart.
pub fn fingerprint(sets: &[Vec<(i64, &[u8])>]) -> String {
    let mut h = Sha256::new();
    for set in sets {
        h.update((set.len() as u64).to_le_bytes());
        for (version, checksum) in set {
            h.update(version.to_le_bytes());
            h.update((checksum.len() as u64).to_le_bytes());
            h.update(checksum);
        }
    }
    h.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The template's name for `family` and `fingerprint`.
pub fn template_name(family: &str, fingerprint: &str) -> anyhow::Result<String> {
    anyhow::ensure!(
        is_ident(family) && fingerprint.len() == 12 && is_ident(fingerprint),
        "not a template family and fingerprint: {family:?}, {fingerprint:?}"
    );
    Ok(format!("{family}_{fingerprint}"))
}

/// A name written into SQL unquoted: lower-case ASCII letters, digits and `_`.
fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// What a failed `CREATE DATABASE … TEMPLATE` calls for.
#[derive(Debug, PartialEq, Eq)]
pub enum CopyFailure {
    /// Someone is connected to the template: try again in a moment.
    Busy,
    /// The template is gone (dropped by a newer build): look again, build it if need be.
    Gone,
    /// Anything else: the caller's error.
    Other,
}

/// [`CopyFailure`] from PostgreSQL's SQLSTATE.
pub fn classify(sqlstate: Option<&str>) -> CopyFailure {
    match sqlstate {
        // object_in_use: "source database … is being accessed by other users"
        Some("55006") => CopyFailure::Busy,
        // invalid_catalog_name: "template database … does not exist"
        Some("3D000") => CopyFailure::Gone,
        _ => CopyFailure::Other,
    }
}

/// A new database `{prefix}_{uuid}` copied from template `{family}_{fingerprint}`,
/// which `build` (given its URL) makes first when it is not ready; answers its URL.
/// `build` must close every connection it opened before it returns.
pub async fn copy_of<F, Fut>(
    admin_url: &str,
    prefix: &str,
    family: &str,
    fingerprint: &str,
    build: F,
) -> anyhow::Result<String>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    let template = template_name(family, fingerprint)?;
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    anyhow::ensure!(is_ident(&name), "not a database name: {name:?}");
    let mut c = PgConnection::connect(admin_url)
        .await
        .context("connecting to PostgreSQL")?;
    let mut tries = 0;
    loop {
        if !is_ready(&mut c, &template).await? {
            build_once(&mut c, admin_url, family, &template, &build).await?;
        }
        let sql = format!("CREATE DATABASE {name} TEMPLATE {template}");
        match sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut c)
            .await
        {
            Ok(_) => break,
            Err(e) => {
                let code = e.as_database_error().and_then(|d| d.code());
                if classify(code.as_deref()) == CopyFailure::Other || tries >= RETRIES {
                    return Err(e).with_context(|| format!("copying {template}"));
                }
            }
        }
        tries += 1;
        tokio::time::sleep(RETRY_PAUSE).await;
    }
    let _ = c.close().await;
    Ok(url_of(admin_url, &name))
}

/// `admin_url` with its database replaced by `name`.
pub(crate) fn url_of(admin_url: &str, name: &str) -> String {
    let base = admin_url.rsplit_once('/').map_or(admin_url, |(b, _)| b);
    format!("{base}/{name}")
}

async fn is_ready(c: &mut PgConnection, template: &str) -> anyhow::Result<bool> {
    let marked: Option<bool> =
        sqlx::query_scalar("SELECT datistemplate FROM pg_database WHERE datname = $1")
            .bind(template)
            .fetch_optional(&mut *c)
            .await?;
    Ok(marked == Some(true))
}

/// Builds `template` under the build lock unless another process did while this one
/// waited for it.
async fn build_once<F, Fut>(
    c: &mut PgConnection,
    admin_url: &str,
    family: &str,
    template: &str,
    build: &F,
) -> anyhow::Result<()>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(BUILD_LOCK)
        .execute(&mut *c)
        .await?;
    let built = async {
        if is_ready(c, template).await? {
            return Ok(());
        }
        let pattern = format!("^{family}_[0-9a-f]{{12}}$");
        // Under the lock, an unmarked database of the family is a killed build's.
        let unfinished: Vec<String> = sqlx::query_scalar(
            "SELECT datname FROM pg_database WHERE datname ~ $1 AND NOT datistemplate",
        )
        .bind(&pattern)
        .fetch_all(&mut *c)
        .await?;
        for name in unfinished {
            execute(c, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await?;
        }
        execute(c, &format!("CREATE DATABASE {template}")).await?;
        if let Err(e) = build(url_of(admin_url, template)).await {
            let _ = execute(
                c,
                &format!("DROP DATABASE IF EXISTS {template} WITH (FORCE)"),
            )
            .await;
            return Err(e).with_context(|| format!("building template {template}"));
        }
        // Nobody else may be connected once it is ready (a copy fails while anyone is).
        sqlx::query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()",
        )
        .bind(template)
        .execute(&mut *c)
        .await?;
        execute(
            c,
            &format!("ALTER DATABASE {template} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"),
        )
        .await?;
        let old: Vec<String> = sqlx::query_scalar(
            "SELECT datname FROM pg_database WHERE datname ~ $1 AND datistemplate \
             ORDER BY oid DESC OFFSET $2",
        )
        .bind(&pattern)
        .bind(KEEP as i64)
        .fetch_all(&mut *c)
        .await?;
        for name in old {
            drop_template(c, &name).await?;
        }
        Ok::<(), anyhow::Error>(())
    }
    .await;
    sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(BUILD_LOCK)
        .execute(&mut *c)
        .await?;
    built
}

/// Drops template `name` (a copy being made from it finishes first).
pub async fn drop_template(c: &mut PgConnection, name: &str) -> anyhow::Result<()> {
    anyhow::ensure!(is_ident(name), "not a database name: {name:?}");
    execute(c, &format!("ALTER DATABASE {name} WITH IS_TEMPLATE false")).await?;
    execute(c, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await
}

async fn execute(c: &mut PgConnection, sql: &str) -> anyhow::Result<()> {
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&mut *c)
        .await
        .with_context(|| sql.to_string())?;
    Ok(())
}

/// The cloud's schema on the database `url`: what the server applies at start (its
/// migrations, then the job queue's), connections closed after.
async fn build_schema(url: String) -> anyhow::Result<()> {
    // The data folder serves SQLite alone.
    let db = Db::open(Some(&url), std::path::Path::new(".")).await?;
    let queue = crate::jobs::Queue::open(&db).await;
    if let Ok(crate::jobs::Queue::Postgres(p)) = &queue {
        p.close().await;
    }
    db.pool.close().await;
    queue.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_migration_or_a_changed_one_is_another_fingerprint() {
        let a: &[u8] = b"checksum-a";
        let b: &[u8] = b"checksum-b";
        let base = fingerprint(&[vec![(1, a), (2, b)], vec![(1, a)]]);
        assert_eq!(base.len(), 12);
        assert_eq!(base, fingerprint(&[vec![(1, a), (2, b)], vec![(1, a)]]));
        for other in [
            fingerprint(&[vec![(1, a), (2, a)], vec![(1, a)]]),
            fingerprint(&[vec![(1, a), (3, b)], vec![(1, a)]]),
            fingerprint(&[vec![(1, a), (2, b), (3, b)], vec![(1, a)]]),
            fingerprint(&[vec![(1, a)], vec![(2, b), (1, a)]]),
            fingerprint(&[vec![(1, a), (2, b)], vec![]]),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn the_schema_fingerprint_is_stable_and_names_a_template() {
        let f = schema_fingerprint();
        assert_eq!(f, schema_fingerprint());
        assert_eq!(template_name(FAMILY, &f).unwrap(), format!("gemba_tpl_{f}"));
    }

    #[test]
    fn only_plain_names_reach_the_sql() {
        assert!(template_name("gemba_tpl", "0123456789ab").is_ok());
        assert!(template_name("gemba_tpl", "0123456789").is_err());
        assert!(template_name("gemba tpl", "0123456789ab").is_err());
        assert!(template_name("gemba_tpl", "0123456789a;").is_err());
        assert!(template_name("Gemba", "0123456789ab").is_err());
    }

    #[test]
    fn a_busy_template_is_tried_again_and_a_gone_one_looked_up_again() {
        assert_eq!(classify(Some("55006")), CopyFailure::Busy);
        assert_eq!(classify(Some("3D000")), CopyFailure::Gone);
        assert_eq!(classify(Some("42P04")), CopyFailure::Other);
        assert_eq!(classify(None), CopyFailure::Other);
    }

    #[test]
    fn a_copys_url_is_the_admin_url_on_another_database() {
        assert_eq!(
            url_of("postgres://postgres@127.0.0.1:5432/test", "gemba_t_1"),
            "postgres://postgres@127.0.0.1:5432/gemba_t_1"
        );
    }
}
