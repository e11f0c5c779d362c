//! The embedded broker over TLS (`mqtt_tls`, issue 28): a device connects with the
//! client certificate of its enrolment and reaches only its own topics (its tenant's);
//! plain MQTT, a certificate-less client and a device on the cloud's own listener are
//! refused; revoking a device still ends its connection.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::api::v1::device::Credentials;
use gemba_shared::broker;
use gemba_shared::mqtt::v1::{self, Channel};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};

use crate::both_with;
use crate::common::*;
use crate::devices::{
    TestDevice, answers, connects, counted, cycle, cycles_stored, device_options, enrolled, world,
};

fn tls(s: &mut gemba_cloud::config::Settings) {
    s.mqtt_tls = true;
}

/// What the broker did with one request of a client.
#[derive(Debug, PartialEq)]
enum Answer {
    /// It acknowledged it (SUBACK, PUBACK).
    Taken,
    /// It ended the connection.
    Closed,
}

/// Connects with `opts`, subscribes to `filter` (or publishes on it, with `publish`),
/// and says what the broker answered (within 5 s).
async fn try_topic(opts: MqttOptions, filter: &str, publish: bool) -> Answer {
    let (client, mut events) = AsyncClient::new(opts, 4);
    if publish {
        client
            .publish(filter, QoS::AtLeastOnce, false, b"x".to_vec())
            .await
            .unwrap();
    } else {
        client.subscribe(filter, QoS::AtLeastOnce).await.unwrap();
    }
    let answer = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match events.poll().await {
                Ok(Event::Incoming(Packet::SubAck(_) | Packet::PubAck(_))) => return Answer::Taken,
                Ok(_) => {}
                Err(_) => return Answer::Closed,
            }
        }
    })
    .await
    .expect("the broker answered");
    let _ = client.try_disconnect();
    answer
}

/// The topic of `channel` of device `creds` under `tenant`'s prefix.
fn topic_in(tenant: &str, creds: &Credentials, channel: Channel) -> String {
    let t = v1::topic(
        &creds.organization.to_string(),
        &creds.device.to_string(),
        channel,
    );
    format!("{}{t}", broker::tenant_prefix(tenant))
}

both_with!(
    a_device_over_tls_reaches_only_its_own_topics,
    tls,
    |app: TestApp| async move {
        let w = world(&app).await;
        let a = enrolled(&app, &w.boss, "Press 1").await;
        let b = enrolled(&app, &w.boss, "Press 2").await;
        // The enrolment hands out TLS: the pinned authority and a certificate of the
        // device's own tenant.
        assert!(a.mqtt.starts_with("mqtts://127.0.0.1:"), "{}", a.mqtt);
        let t = a.tls.as_ref().expect("TLS in the credentials");
        assert_eq!(t.tenant, broker::tenant(a.device));
        let ta = t.tenant.clone();
        let tb = b.tls.as_ref().unwrap().tenant.clone();
        assert_ne!(b.tls.as_ref().unwrap().cert, t.cert);

        // Its cycles reach the cloud and the cloud's acknowledgement reaches it.
        let mut dev = TestDevice::of(&a).await;
        let c = cycle(w.task);
        dev.send_cycle(&c).await;
        let ack: v1::CyclesAck = dev.next(Channel::CyclesAck).await;
        assert_eq!(ack.ids, vec![c.id.clone()]);
        assert_eq!(cycles_stored(&app).await, 1);
        // (Each connection below is the device's own client id, which takes this one
        // over.)
        drop(dev);

        let opts = || device_options(&a).0;
        // Its own tenant: taken.
        let own = topic_in(&ta, &a, Channel::Cmd);
        assert_eq!(try_topic(opts(), &own, false).await, Answer::Taken);
        // Everything, the contract's topics outside its tenant, another device's
        // tenant, the cloud's shared group and its events: the broker ends the
        // connection.
        let theirs = topic_in(&tb, &b, Channel::Cmd);
        for filter in [
            "#".to_string(),
            "+/#".to_string(),
            "/tenants/+/#".to_string(),
            format!("{}/+/+/cycles", v1::PREFIX),
            theirs.clone(),
            format!("$share/gemba-cloud/{}", topic_in(&ta, &a, Channel::Cycles)),
            "gemba/cloud/v1/events/#".to_string(),
        ] {
            assert_eq!(
                try_topic(opts(), &filter, false).await,
                Answer::Closed,
                "{filter}"
            );
        }
        // Publishing as the other device (on its tenant's topic): refused by the broker.
        let their_status = topic_in(&tb, &b, Channel::Status);
        assert_eq!(try_topic(opts(), &their_status, true).await, Answer::Closed);
        // As the other device within its own tenant: the broker takes it, the cloud
        // refuses it (a tenant speaks for its own device only).
        let rejected = app.health().await["ingest"]["rejected"].as_u64().unwrap();
        let spoof = topic_in(&ta, &b, Channel::Status);
        assert_eq!(try_topic(opts(), &spoof, true).await, Answer::Taken);
        counted(&app, "rejected", rejected + 1).await;

        // Plain MQTT on the TLS port, and TLS without the device's own certificate.
        let mut plain = opts();
        plain.set_transport(rumqttc::Transport::Tcp);
        assert!(!answers(plain).await, "plain MQTT was taken");
        assert!(
            connects(&a).await,
            "the device's own connection was refused"
        );
        // Its certificate with a wrong password: the login is still asked for.
        let mut guess = opts();
        guess.set_credentials(broker::username(a.device), "guess");
        assert!(
            !answers(guess).await,
            "a certificate without its login was taken"
        );
        // The cloud's own listener (plain, on loopback) takes the cloud only.
        let (host, port, _) = app.state.mqtt.target().expect("the link started");
        assert_ne!(port, app.mqtt.port());
        let key = STANDARD.decode(&a.key).unwrap();
        let mut local = MqttOptions::new(broker::client_id(a.device, &key), host.clone(), port);
        local.set_credentials(broker::username(a.device), broker::password(&key));
        assert!(
            !answers(local).await,
            "a device was taken on the cloud's listener"
        );
        assert!(!answers(MqttOptions::new("outsider", host, port)).await);
        // Revoking ends the TLS connection (its broker id carries the tenant).
        let dev = TestDevice::of(&a).await;
        let mut dev_b = TestDevice::of(&b).await;
        let _: serde_json::Value = app
            .send_as(
                reqwest::Method::POST,
                &format!("device/{}/revoke/", b.device),
                &serde_json::json!({}),
                &w.boss,
            )
            .await;
        dev_b.disconnected().await;
        assert!(!connects(&b).await, "a revoked device connected again");
        assert!(!*dev.ended.borrow(), "the other device was cut off too");
    }
);

/// The plant's own authority and a certificate from it for 127.0.0.1, written beside
/// the cloud's data and set as the broker's (`mqtt_tls_cert`, `mqtt_tls_key`,
/// `mqtt_tls_ca`), with the broker's address as agents reach it.
fn operator_cert(s: &mut gemba_cloud::config::Settings) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
    let dir = s.data.with_file_name("plant-pki");
    std::fs::create_dir_all(&dir).unwrap();
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::default();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    std::fs::write(dir.join("ca.pem"), ca.self_signed(&ca_key).unwrap().pem()).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let key = KeyPair::generate().unwrap();
    let mut p = CertificateParams::default();
    p.subject_alt_names = vec![SanType::IpAddress([127, 0, 0, 1].into())];
    let cert = p.signed_by(&key, &issuer).unwrap();
    std::fs::write(dir.join("broker.pem"), cert.pem()).unwrap();
    std::fs::write(dir.join("broker.key"), key.serialize_pem()).unwrap();
    s.mqtt_tls = true;
    s.mqtt_tls_cert = Some(dir.join("broker.pem"));
    s.mqtt_tls_key = Some(dir.join("broker.key"));
    s.mqtt_tls_ca = Some(dir.join("ca.pem"));
    s.mqtt_public_url = Some(format!("mqtts://{}", s.mqtt));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_s_broker_certificate_is_served_and_trusted_from_enrolment() {
    let app = TestApp::start_with(Backend::Sqlite, operator_cert).await;
    let w = world(&app).await;
    let a = enrolled(&app, &w.boss, "Press 1").await;
    // The enrolment names the plant's authority for the broker; the device's own
    // certificate still comes from the cloud's.
    let plant_ca =
        std::fs::read_to_string(app.state.settings.mqtt_tls_ca.as_ref().unwrap()).unwrap();
    let t = a.tls.as_ref().expect("TLS in the credentials");
    assert_eq!(t.server_ca.as_deref(), Some(plant_ca.as_str()));
    assert_ne!(t.ca, plant_ca);
    assert_eq!(a.mqtt, format!("mqtts://{}", app.mqtt));
    // Its cycles reach the cloud over the plant's certificate, checked for 127.0.0.1.
    let mut dev = TestDevice::of(&a).await;
    let c = cycle(w.task);
    dev.send_cycle(&c).await;
    let ack: v1::CyclesAck = dev.next(Channel::CyclesAck).await;
    assert_eq!(ack.ids, vec![c.id.clone()]);
    drop(dev);
    // A device that pins the cloud's own authority, or that is told to trust another
    // authority, is refused at the handshake.
    let mut pinned = a.clone();
    pinned.tls.as_mut().unwrap().server_ca = None;
    assert!(
        !connects(&pinned).await,
        "the cloud's authority took the plant's certificate"
    );
    let mut other = a.clone();
    other.tls.as_mut().unwrap().server_ca = Some(t.ca.clone());
    assert!(
        !connects(&other).await,
        "another authority took the plant's certificate"
    );
    assert!(connects(&a).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_s_broker_certificate_that_would_fail_agents_stops_the_start() {
    // Each case: what is wrong, and what the start says.
    type Tweak = fn(&mut gemba_cloud::config::Settings);
    let cases: [(Tweak, &str); 4] = [
        (
            |s| s.mqtt_tls_key = None,
            "mqtt_tls_cert, mqtt_tls_key and mqtt_tls_ca go together",
        ),
        (
            |s| {
                s.mqtt_public_url = Some(format!(
                    "mqtts://localhost:{}",
                    s.mqtt.rsplit(':').next().unwrap()
                ))
            },
            "not valid for localhost",
        ),
        (|s| s.mqtt_public_url = None, "set mqtt_public_url"),
        (
            |s| s.mqtt_tls = false,
            "are for the embedded broker speaking TLS",
        ),
    ];
    for (tweak, said) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mqtt: std::net::SocketAddr =
            format!("127.0.0.1:{}", gemba_cloud::seed::free_port_pair())
                .parse()
                .unwrap();
        let mut s = gemba_cloud::config::Settings {
            data: dir.path().join("data"),
            mqtt: mqtt.to_string(),
            ..Default::default()
        };
        operator_cert(&mut s);
        tweak(&mut s);
        let state = gemba_cloud::build_state(s).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let e = gemba_cloud::launch(state, listener, std::future::pending())
            .await
            .expect_err("started");
        assert!(format!("{e:#}").contains(said), "{e:#}");
    }
}
