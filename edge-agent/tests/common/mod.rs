//! What the agent's tests share: a real cloud to talk to.
#![allow(dead_code)]

use std::time::Duration;

use gemba_cloud::config::{Kdf, Settings};

pub struct Cloud {
    pub state: gemba_cloud::state::AppState,
    pub url: String,
    pub task: i64,
    pub _dir: tempfile::TempDir,
}

/// A running cloud (SQLite) with an organisation, a task defined by `operation` (task-detail
/// text) and a device waiting to be enrolled with code `ABCD-EFGH-JKMN`. `mqtt`: an external broker URL, else embedded.
pub async fn cloud(mqtt: Option<String>, operation: &str) -> Cloud {
    let dir = tempfile::tempdir().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let settings = Settings {
        data: dir.path().join("data"),
        http: listener.local_addr().unwrap(),
        mqtt: mqtt.unwrap_or_else(|| format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair())),
        // Tests run side by side on one external broker: each cloud its own group.
        mqtt_group: format!("test-{}", uuid::Uuid::new_v4().simple()),
        kdf: Kdf {
            memory_kib: 4096,
            iterations: 1,
            parallelism: 1,
        },
        ..Settings::default()
    };
    let url = format!("http://{}", settings.http);
    let state = gemba_cloud::build_state(settings).await.unwrap();
    let admin = gemba_cloud::create_admin(&state, "admin@agent.test", "Admin-pass-1")
        .await
        .unwrap();
    let (org, task) =
        gemba_cloud::seed::organization_with_task(&state, "agent-test", operation, admin)
            .await
            .unwrap();
    gemba_cloud::seed::device_with_code(&state, org, "Bench", "ABCD-EFGH-JKMN")
        .await
        .unwrap();
    let s2 = state.clone();
    tokio::spawn(async move {
        gemba_cloud::launch(s2, listener, std::future::pending())
            .await
            .unwrap()
    });
    for _ in 0..200 {
        if state.mqtt.is_connected() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(state.mqtt.is_connected(), "the cloud reached its broker");
    Cloud {
        state,
        url,
        task,
        _dir: dir,
    }
}
