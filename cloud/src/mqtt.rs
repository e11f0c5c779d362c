//! The embedded MQTT broker (rumqttd), started by `gemba-cloud serve` unless an
//! external broker URL is configured. Device traffic (issue "Edge agent") flows
//! through it; the topics are `gemba/v1/{org}/{device}/{channel}`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings};

fn config(addr: SocketAddr) -> Config {
    let server = ServerSettings {
        name: "v4".into(),
        listen: addr,
        tls: None,
        next_connection_delay_ms: 1,
        connections: ConnectionSettings {
            connection_timeout_ms: 60_000,
            max_payload_size: 1024 * 1024,
            max_inflight_count: 200,
            auth: None,
            external_auth: None,
            dynamic_filters: true,
        },
    };
    let mut v4 = HashMap::new();
    v4.insert("1".to_string(), server.clone());
    let mut v5 = HashMap::new();
    // MQTT 5 on the next port (shared subscriptions for scaled ingestion).
    let mut s5 = server;
    s5.name = "v5".into();
    s5.listen = SocketAddr::new(addr.ip(), addr.port().wrapping_add(1));
    v5.insert("1".to_string(), s5);
    Config {
        id: 0,
        router: RouterConfig {
            max_connections: 10_010,
            max_outgoing_packet_count: 200,
            max_segment_size: 100 * 1024 * 1024,
            max_segment_count: 10,
            ..Default::default()
        },
        v4: Some(v4),
        v5: Some(v5),
        ..Default::default()
    }
}

/// Starts the broker on its own thread and waits until it accepts connections.
pub async fn start_embedded(addr: SocketAddr) -> anyhow::Result<()> {
    // Fail clearly when the port is taken (rumqttd would only log it on its thread).
    std::net::TcpListener::bind(addr).with_context(|| {
        format!("the MQTT address {addr} is in use; choose another with --mqtt")
    })?;
    let mut broker = Broker::new(config(addr));
    std::thread::Builder::new()
        .name("mqtt-broker".into())
        .spawn(move || {
            if let Err(e) = broker.start() {
                tracing::error!(error = %e, "embedded MQTT broker stopped");
            }
        })?;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            tracing::info!(%addr, "embedded MQTT broker listening");
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    anyhow::bail!("the embedded MQTT broker did not start on {addr}")
}
