//! The embedded broker (rumqttd): its configuration (MQTT 3.1.1 on the port, MQTT 5 on
//! the next, both asking `access::allows` about every connection), its start on a
//! thread of its own, and the address of whichever broker the cloud uses.
//!
//! With `mqtt_tls` both listeners speak TLS and take only client certificates of the
//! cloud's authority (`pki.rs`), each naming its device's tenant, to whose topics the
//! broker confines it; the cloud itself connects to a third, plain listener on
//! loopback that admits only the cloud's login.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use gemba_shared::mqtt::v1;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet};
use rumqttd::{Broker, Config, ConnectionSettings, RouterConfig, ServerSettings, TlsConfig};
use tokio::runtime::Handle;

use crate::mqtt::access::{self, Login};
use crate::mqtt::pki::BrokerFiles;
use crate::state::AppState;

/// The largest packet the embedded broker takes: the contract's largest payload
/// ([`v1::MAX_PAYLOAD_BYTES`]) with room for its topic and header.
pub const MAX_PACKET_BYTES: usize = v1::MAX_PAYLOAD_BYTES + 1024;

/// The embedded broker's configuration on `addr` (and the next port), without the
/// login check [`start_embedded`] adds (a benchmark compares the two).
pub fn config(addr: SocketAddr) -> Config {
    let server = ServerSettings {
        name: "v4".into(),
        listen: addr,
        tls: None,
        next_connection_delay_ms: 1,
        connections: ConnectionSettings {
            connection_timeout_ms: 60_000,
            // The contract's largest message and its topic: a larger publish
            // disconnects its sender here, never the cloud's link.
            max_payload_size: MAX_PACKET_BYTES,
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

/// The listeners' TLS with the cloud's authority's `files`: client certificates are
/// required (rumqttd's `verify-client-cert`) and name the tenant.
fn tls_config(files: &BrokerFiles) -> TlsConfig {
    TlsConfig::Rustls {
        capath: Some(files.ca.display().to_string()),
        certpath: files.cert.display().to_string(),
        keypath: files.key.display().to_string(),
    }
}

/// Starts the broker on its own thread and waits until it accepts connections; it
/// takes the cloud as `cloud` and devices as themselves (`access`). With `tls`, the
/// devices' listeners speak TLS and the cloud's plain listener is on loopback. Answers
/// the address the cloud connects to.
pub async fn start_embedded(
    addr: SocketAddr,
    state: &AppState,
    cloud: &Login,
    tls: Option<&BrokerFiles>,
) -> anyhow::Result<SocketAddr> {
    // Fail clearly when the port is taken (rumqttd would only log it on its thread).
    std::net::TcpListener::bind(addr).with_context(|| {
        format!("the MQTT address {addr} is in use; choose another with --mqtt")
    })?;
    let mut config = config(addr);
    // The check runs on the cloud's runtime (its database pool lives there); the
    // broker's own runtime only waits for the answer.
    let check = |devices: bool| {
        let (state, cloud_login, runtime) = (state.clone(), cloud.clone(), Handle::current());
        move |client_id: String, user: String, pass: String| {
            let (state, cloud) = (state.clone(), cloud_login.clone());
            let check = runtime.spawn(async move {
                access::allows(&state, &cloud, devices, &client_id, &user, &pass).await
            });
            async move { check.await.unwrap_or(false) }
        }
    };
    for servers in [&mut config.v4, &mut config.v5].into_iter().flatten() {
        for server in servers.values_mut() {
            server.set_auth_handler(check(true));
            if let Some(files) = tls {
                server.tls = Some(tls_config(files));
            }
        }
    }
    let cloud_addr = match tls {
        None => addr,
        Some(_) => {
            // The cloud's own listener: plain, on loopback, for its login only.
            let local = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
            let mut own = config.v4.as_ref().expect("v4")["1"].clone();
            own.name = "cloud".into();
            own.listen = local;
            own.tls = None;
            own.set_auth_handler(check(false));
            config.v4.as_mut().expect("v4").insert("cloud".into(), own);
            local
        }
    };
    let mut broker = Broker::new(config);
    std::thread::Builder::new()
        .name("mqtt-broker".into())
        .spawn(move || {
            if let Err(e) = broker.start() {
                tracing::error!(error = %e, "embedded MQTT broker stopped");
            }
        })?;
    // Ready when it answers an MQTT CONNECT (a bare TCP probe makes the broker log an
    // error for a connection that never spoke MQTT).
    for _ in 0..100 {
        if answers_connect(cloud_addr, cloud).await {
            tracing::info!(%addr, tls = tls.is_some(), "embedded MQTT broker listening");
            return Ok(cloud_addr);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    anyhow::bail!("the embedded MQTT broker did not start on {addr}")
}

/// Does a broker at `addr` take the cloud's connection (within a second)?
async fn answers_connect(addr: SocketAddr, cloud: &Login) -> bool {
    let id = format!("gemba-cloud-probe-{}", &crate::auth::random_token()[..8]);
    let mut opts = rumqttc::MqttOptions::new(id, addr.ip().to_string(), addr.port());
    cloud.apply(&mut opts);
    connects(opts, Duration::from_secs(1)).await
}

/// Whether a broker accepts a connection with `opts` (a successful CONNACK within
/// `within`); the client leaves at once. A refused or unanswered one is `false`.
pub async fn connects(opts: MqttOptions, within: Duration) -> bool {
    let (client, mut events) = AsyncClient::new(opts, 1);
    let acked = tokio::time::timeout(within, async {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(a))) => {
                    return a.code == rumqttc::ConnectReturnCode::Success;
                }
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    })
    .await
    .unwrap_or(false);
    if acked {
        let _ = client.try_disconnect();
        // Let the event loop send the DISCONNECT.
        let _ = tokio::time::timeout(Duration::from_millis(100), events.poll()).await;
    }
    acked
}

/// Host and port of an `mqtt://host:port` URL (port 1883 when absent), or of a plain
/// `host:port` address.
pub fn broker_address(spec: &str) -> anyhow::Result<(String, u16)> {
    let rest = match spec.split_once("://") {
        Some(("mqtt" | "tcp", rest)) => rest,
        Some((scheme, _)) => {
            anyhow::bail!("unsupported broker scheme {scheme:?}: use mqtt://host:port")
        }
        None => spec,
    };
    let rest = rest.trim_end_matches('/');
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) => (
            h,
            p.parse()
                .with_context(|| format!("bad broker port in {spec:?}"))?,
        ),
        None => (rest, 1883),
    };
    if host.is_empty() {
        anyhow::bail!("no broker host in {spec:?}");
    }
    Ok((
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
        port,
    ))
}

#[cfg(test)]
mod tests {
    use super::broker_address;

    #[test]
    fn broker_addresses() {
        assert_eq!(
            broker_address("mqtt://broker:1883").unwrap(),
            ("broker".into(), 1883)
        );
        assert_eq!(
            broker_address("mqtt://broker").unwrap(),
            ("broker".into(), 1883)
        );
        assert_eq!(
            broker_address("127.0.0.1:1884").unwrap(),
            ("127.0.0.1".into(), 1884)
        );
        assert!(broker_address("https://x:1").is_err());
        assert!(broker_address("mqtt://:1883").is_err());
        assert!(broker_address("mqtt://h:port").is_err());
    }
}
