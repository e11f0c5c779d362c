//! What starts a cloud with something in it (the demo, the agent's tests, the
//! benchmarks): records made straight in the database, and free ports to serve on.

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

/// A free TCP port on 127.0.0.1 (for tests and benchmarks that start a cloud).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Two adjacent free ports (the embedded broker listens on port and port+1), for tests
/// and benchmarks that start a cloud.
pub fn free_port_pair() -> u16 {
    // Ports the OS hands out for port 0 and outgoing connections are 32768..61000 on
    // Linux; the broker pairs come from below that range, one after another in this
    // process, so a pair is not taken by a parallel test between its check and its use.
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let _ = NEXT.compare_exchange(
        0,
        20000 + (std::process::id() % 500) as u16 * 20,
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    loop {
        let p = NEXT.fetch_add(2, Ordering::SeqCst);
        let p = 20000 + p % 12000;
        if std::net::TcpListener::bind(("127.0.0.1", p)).is_ok()
            && std::net::TcpListener::bind(("127.0.0.1", p + 1)).is_ok()
        {
            return p;
        }
    }
}
