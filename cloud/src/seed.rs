//! Records made straight in the database, for what starts a cloud with something in it:
//! the agent's tests and the ingestion benchmark today, the demo (`serve --demo`) next.

use crate::db::{devices, now_ms, orgs, tasks};
use crate::state::AppState;
use gemba_shared::api::v1::device::WORKSTATION;
use gemba_shared::api::v1::task::TaskSettings;

/// An organisation named `name` with one task defined from `task_detail` (its first
/// line names it), recorded as made by user `author`. Answers (organisation, task).
pub async fn organization_with_task(
    state: &AppState,
    name: &str,
    task_detail: &str,
    author: i64,
) -> anyhow::Result<(i64, i64)> {
    let task_name = task_detail
        .lines()
        .next()
        .unwrap_or(name)
        .trim()
        .to_string();
    organization_with_settings(
        state,
        name,
        &TaskSettings::new(task_name, task_detail.into()),
        author,
    )
    .await
}

/// An organisation named `name` with one task of `settings`, recorded as made by user
/// `author`. Answers (organisation, task).
pub async fn organization_with_settings(
    state: &AppState,
    name: &str,
    settings: &TaskSettings,
    author: i64,
) -> anyhow::Result<(i64, i64)> {
    let org = orgs::insert(&state.db, name, name, false).await?.id;
    let task = tasks::insert(
        &state.db,
        org,
        settings,
        "created",
        tasks::Author {
            id: author,
            name: "seed",
        },
    )
    .await?;
    Ok((org, task))
}

/// A workstation device of `org` waiting to be enrolled with `code` (for an hour).
pub async fn device_with_code(
    state: &AppState,
    org: i64,
    display_name: &str,
    code: &str,
) -> anyhow::Result<i64> {
    anyhow::ensure!(
        crate::auth::is_enrolment_code(code),
        "{code:?} is not an enrolment code"
    );
    Ok(devices::insert(
        &state.db,
        &devices::NewDevice {
            org,
            department: None,
            display_name,
            serial_number: "",
            device_type: WORKSTATION,
            code_hash: &crate::auth::enrolment_code_hash(code),
            code_expires_at: now_ms() + 3600 * 1000,
        },
    )
    .await?)
}
