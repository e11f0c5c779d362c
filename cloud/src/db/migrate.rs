//! Migrations: timestamped `.sql` files in `cloud/migrations/`, compiled in, applied at
//! start by sqlx's migrator (which records and checksums each one). One file serves
//! both backends: `{{PK}}` is replaced by the dialect's auto-increment primary key
//! before it runs. Never edit a file that has been released; add a new one.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AssertSqlSafe, SqlSafeStr};

use super::{Backend, Db};

/// (version, description, sql)
const FILES: &[(i64, &str, &str)] = &[
    (
        20261122000001,
        "identity",
        include_str!("../../migrations/20261122000001_identity.sql"),
    ),
    (
        20261123000001,
        "totp_last_step",
        include_str!("../../migrations/20261123000001_totp_last_step.sql"),
    ),
    (
        20261124000001,
        "tasks",
        include_str!("../../migrations/20261124000001_tasks.sql"),
    ),
    (
        20261125000001,
        "devices",
        include_str!("../../migrations/20261125000001_devices.sql"),
    ),
    (
        20261126000001,
        "cycles_without_foreign_keys",
        include_str!("../../migrations/20261126000001_cycles_without_foreign_keys.sql"),
    ),
    (
        20261127000001,
        "videos",
        include_str!("../../migrations/20261127000001_videos.sql"),
    ),
    (
        20261128000001,
        "video_tags_comments",
        include_str!("../../migrations/20261128000001_video_tags_comments.sql"),
    ),
    (
        20261129000001,
        "video_time_tags",
        include_str!("../../migrations/20261129000001_video_time_tags.sql"),
    ),
    (
        20261130000001,
        "training",
        include_str!("../../migrations/20261130000001_training.sql"),
    ),
    (
        20261201000001,
        "deployments",
        include_str!("../../migrations/20261201000001_deployments.sql"),
    ),
    (
        20261202000001,
        "label_requests",
        include_str!("../../migrations/20261202000001_label_requests.sql"),
    ),
    (
        20261203000001,
        "device_recordings",
        include_str!("../../migrations/20261203000001_device_recordings.sql"),
    ),
    (
        20261204000001,
        "model_types",
        include_str!("../../migrations/20261204000001_model_types.sql"),
    ),
    (
        20261205000001,
        "model_files_unique",
        include_str!("../../migrations/20261205000001_model_files_unique.sql"),
    ),
    (
        20261206000001,
        "propagated_labels",
        include_str!("../../migrations/20261206000001_propagated_labels.sql"),
    ),
    (
        20261207000001,
        "cycle_rollups",
        include_str!("../../migrations/20261207000001_cycle_rollups.sql"),
    ),
    (
        20261208000001,
        "cycle_changes",
        include_str!("../../migrations/20261208000001_cycle_changes.sql"),
    ),
    (
        20261209000001,
        "cycle_reviews",
        include_str!("../../migrations/20261209000001_cycle_reviews.sql"),
    ),
    (
        20261210000001,
        "lines",
        include_str!("../../migrations/20261210000001_lines.sql"),
    ),
    (
        20261211000001,
        "cycle_clips",
        include_str!("../../migrations/20261211000001_cycle_clips.sql"),
    ),
    (
        20261212000001,
        "camera_refusals",
        include_str!("../../migrations/20261212000001_camera_refusals.sql"),
    ),
    (
        20261213000001,
        "camera_events",
        include_str!("../../migrations/20261213000001_camera_events.sql"),
    ),
    (
        20261214000001,
        "audit_log",
        include_str!("../../migrations/20261214000001_audit_log.sql"),
    ),
    (
        20261215000001,
        "sso_identities",
        include_str!("../../migrations/20261215000001_sso_identities.sql"),
    ),
    (
        20261216000001,
        "upload_tokens_tombstones",
        include_str!("../../migrations/20261216000001_upload_tokens_tombstones.sql"),
    ),
    (
        20261217000001,
        "status_freshness",
        include_str!("../../migrations/20261217000001_status_freshness.sql"),
    ),
    (
        20261218000001,
        "device_config",
        include_str!("../../migrations/20261218000001_device_config.sql"),
    ),
    (
        20261219000001,
        "releases",
        include_str!("../../migrations/20261219000001_releases.sql"),
    ),
    (
        20261220000001,
        "device_health",
        include_str!("../../migrations/20261220000001_device_health.sql"),
    ),
    (
        20261221000003,
        "service_tokens",
        include_str!("../../migrations/20261221000003_service_tokens.sql"),
    ),
    (
        20261221000004,
        "tampering_reviews",
        include_str!("../../migrations/20261221000004_tampering_reviews.sql"),
    ),
    (
        20261221000005,
        "barcodes",
        include_str!("../../migrations/20261221000005_barcodes.sql"),
    ),
    (
        20261229000200,
        "validation",
        include_str!("../../migrations/20261229000200_validation.sql"),
    ),
    (
        20261229000300,
        "rectification_steps",
        include_str!("../../migrations/20261229000300_rectification_steps.sql"),
    ),
    (
        20261229000500,
        "push_subscriptions",
        include_str!("../../migrations/20261229000500_push_subscriptions.sql"),
    ),
    (
        20261229000601,
        "annotation_images",
        include_str!("../../migrations/20261229000601_annotation_images.sql"),
    ),
    (
        20261229000700,
        "queue_messages",
        include_str!("../../migrations/20261229000700_queue_messages.sql"),
    ),
    (
        20261230100001,
        "fetch_analytics",
        include_str!("../../migrations/20261230100001_fetch_analytics.sql"),
    ),
    (
        20261230100002,
        "queue_message_tasks",
        include_str!("../../migrations/20261230100002_queue_message_tasks.sql"),
    ),
    (
        20261230300001,
        "opcua_bindings",
        include_str!("../../migrations/20261230300001_opcua_bindings.sql"),
    ),
    (
        20261230400001,
        "assistant_documents",
        include_str!("../../migrations/20261230400001_assistant_documents.sql"),
    ),
    (
        20261230500001,
        "assistant_embeddings",
        include_str!("../../migrations/20261230500001_assistant_embeddings.sql"),
    ),
];

/// The migration text as it runs on `backend`.
pub fn dialect(sql: &str, backend: Backend) -> String {
    let pk = match backend {
        Backend::Sqlite => "INTEGER PRIMARY KEY AUTOINCREMENT",
        Backend::Postgres => "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    };
    // Lines between `-- {{SQLITE}}` (or `-- {{POSTGRES}}`) and `-- {{END}}` run on that
    // backend alone (full-text indexes differ).
    let mut out = String::with_capacity(sql.len());
    let mut only: Option<Backend> = None;
    for line in sql.lines() {
        match line.trim() {
            "-- {{SQLITE}}" => only = Some(Backend::Sqlite),
            "-- {{POSTGRES}}" => only = Some(Backend::Postgres),
            "-- {{END}}" => only = None,
            _ if only.is_none_or(|b| b == backend) => {
                out.push_str(line);
                out.push('\n');
            }
            _ => {}
        }
    }
    out.replace("{{PK}}", pk)
}

/// The migrations as they run on `backend`, in order.
pub fn migrations(backend: Backend) -> Vec<Migration> {
    FILES
        .iter()
        .map(|(version, desc, sql)| {
            Migration::new(
                *version,
                Cow::Borrowed(*desc),
                MigrationType::Simple,
                AssertSqlSafe(dialect(sql, backend)).into_sql_str(),
                false,
            )
        })
        .collect()
}

pub async fn run(db: &Db) -> anyhow::Result<()> {
    Migrator::with_migrations(migrations(db.backend))
        .run(&db.pool)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_listed() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let listed: Vec<String> = FILES
            .iter()
            .map(|(v, d, _)| format!("{v}_{d}.sql"))
            .collect();
        assert_eq!(on_disk, listed);
    }

    #[test]
    fn a_backends_lines_run_on_it_alone() {
        let sql = "A;\n-- {{SQLITE}}\nS;\n-- {{END}}\n-- {{POSTGRES}}\nP;\n-- {{END}}\nB;\n";
        assert_eq!(dialect(sql, Backend::Sqlite), "A;\nS;\nB;\n");
        assert_eq!(dialect(sql, Backend::Postgres), "A;\nP;\nB;\n");
    }

    #[test]
    fn no_dialect_token_survives() {
        for (_, _, sql) in FILES {
            for b in [Backend::Sqlite, Backend::Postgres] {
                assert!(!dialect(sql, b).contains("{{"));
            }
        }
    }
}
