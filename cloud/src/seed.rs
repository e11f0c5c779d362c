//! What starts a cloud with something in it (the demo, the agent's tests, the
//! benchmarks): records made straight in the database, and free ports to serve on.

use crate::db::{devices, now_ms, orgs, tasks};
use crate::state::AppState;
use gemba_shared::api::v1::device::WORKSTATION;
use gemba_shared::api::v1::task::TaskSettings;
use gemba_shared::operation;

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
/// `author`. Answers (organisation, task). The operation must pass the save rules
/// `POST organization/task/` applies (portal spec 5): a seed makes nothing the API
/// would refuse.
pub async fn organization_with_settings(
    state: &AppState,
    name: &str,
    settings: &TaskSettings,
    author: i64,
) -> anyhow::Result<(i64, i64)> {
    let op = operation::parse(&settings.task_detail).map_err(|e| {
        anyhow::anyhow!(
            "the operation of {:?}, line {}: {}",
            settings.task_name,
            e.line,
            e.message
        )
    })?;
    operation::validate(&op)
        .map_err(|m| anyhow::anyhow!("the operation of {:?}: {m}", settings.task_name))?;
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

/// The enrolment code of the device [`agent_workplace`] seeds.
pub const AGENT_CODE: &str = "ABCD-EFGH-JKMN";

/// What an agent's tests and benchmarks start from: a super admin, the organisation
/// `agent-test` with one task defined by `operation` (task-detail text), and a device
/// waiting to be enrolled with [`AGENT_CODE`], set to run the task on each of
/// `cameras`. Answers (task, device).
pub async fn agent_workplace(
    state: &AppState,
    operation: &str,
    cameras: &[&str],
) -> anyhow::Result<(i64, i64)> {
    let admin = crate::create_admin(state, "admin@agent.test", "Admin-pass-1").await?;
    let (org, task) = organization_with_task(state, "agent-test", operation, admin).await?;
    let device = device_with_code(state, org, "Bench", AGENT_CODE).await?;
    for camera in cameras {
        devices::set_camera_task(&state.db, device, camera, Some(task)).await?;
    }
    Ok((task, device))
}

/// A cloud for an agent, in this process: SQLite in `data`, light password hashing,
/// the broker `mqtt` (an embedded broker's address or an external broker's URL) with a
/// shared group of its own, [`agent_workplace`], served on a free port until the
/// runtime ends; answered once it reached its broker.
pub struct LocalCloud {
    pub state: AppState,
    pub url: String,
    pub task: i64,
    pub device: i64,
}

pub async fn local_cloud(
    data: std::path::PathBuf,
    mqtt: String,
    operation: &str,
    cameras: &[&str],
) -> anyhow::Result<LocalCloud> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let settings = crate::config::Settings {
        data,
        http: listener.local_addr()?,
        mqtt,
        mqtt_group: format!("local-{}", uuid::Uuid::new_v4().simple()),
        kdf: crate::config::Kdf {
            memory_kib: 4096,
            iterations: 1,
            parallelism: 1,
        },
        ..Default::default()
    };
    let url = format!("http://{}", settings.http);
    let state = crate::build_state(settings).await?;
    let (task, device) = agent_workplace(&state, operation, cameras).await?;
    tokio::spawn(crate::launch(
        state.clone(),
        listener,
        std::future::pending(),
    ));
    for _ in 0..400 {
        if state.mqtt.is_connected() {
            return Ok(LocalCloud {
                state,
                url,
                task,
                device,
            });
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    anyhow::bail!("the cloud did not reach its broker {}", state.settings.mqtt)
}

/// A new, empty PostgreSQL database on the server of `admin_url` (a URL of any of its
/// databases), for a benchmark; answers its URL. [`drop_database`] removes it. Tests
/// take a migrated copy instead ([`crate::pg_template::migrated_database`]).
pub async fn create_database(admin_url: &str, prefix: &str) -> anyhow::Result<String> {
    use sqlx::Connection;
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    let mut c = sqlx::PgConnection::connect(admin_url).await?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut c)
        .await?;
    Ok(crate::pg_template::url_of(admin_url, &name))
}

/// Drops the database `url` names (made by [`create_database`]), closing its
/// connections.
pub async fn drop_database(admin_url: &str, url: &str) -> anyhow::Result<()> {
    use sqlx::Connection;
    let name = url.rsplit_once('/').map_or(url, |(_, n)| n);
    let mut c = sqlx::PgConnection::connect(admin_url).await?;
    let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(&mut c)
        .await?;
    Ok(())
}
