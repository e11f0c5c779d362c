//! An external Mosquitto whose access the cloud keeps (issue 28, `mqtt_dynsec`): a real
//! `mosquitto` of the test's own with Debian's dynamic security plugin, set up as an
//! operator would (`mosquitto_ctrl dynsec init`), the cloud logged in as its admin.
//! Only enrolled devices get in, each as itself; a device reads and writes only its own
//! topics (not `#`, another device's, the cloud's shared group or events); revoking ends
//! its connection and refuses it; ingestion works through it all.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_cloud::config::Secret;
use gemba_shared::api::v1::device::Credentials;
use gemba_shared::broker;
use gemba_shared::mqtt::v1::{self, Channel};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS, SubscribeReasonCode};

use crate::common::*;
use crate::devices::{
    TestDevice, answers, connects, counted, cycle, cycles_stored, enrolled, world,
};

/// A Mosquitto with dynamic security on a free port, stopped when dropped.
struct Mosquitto {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const ADMIN: &str = "gemba-admin";
const ADMIN_PASSWORD: &str = "admin-pass-1";

/// Debian's plugin (mosquitto 2), wherever the architecture puts it.
fn plugin() -> String {
    let found = std::fs::read_dir("/usr/lib")
        .unwrap()
        .flatten()
        .map(|e| e.path().join("mosquitto_dynamic_security.so"))
        .chain([std::path::PathBuf::from(
            "/usr/lib/mosquitto_dynamic_security.so",
        )])
        .find(|p| p.exists());
    found
        .expect("mosquitto's dynamic security plugin (scripts/test installs mosquitto)")
        .display()
        .to_string()
}

async fn mosquitto() -> Mosquitto {
    let dir = tempfile::tempdir().unwrap();
    // Below the range the OS hands out for outgoing connections (a port taken from
    // port 0 can be some other test's client's by the time mosquitto binds it).
    let port = gemba_cloud::seed::free_port_pair();
    let state = dir.path().join("dynsec.json");
    let init = Command::new("mosquitto_ctrl")
        .args([
            "dynsec",
            "init",
            state.to_str().unwrap(),
            ADMIN,
            ADMIN_PASSWORD,
        ])
        .output()
        .expect("mosquitto_ctrl (package mosquitto-clients)");
    assert!(init.status.success(), "{init:?}");
    // Readable by mosquitto after it drops root for its own user, whatever the creation
    // mask (the cloud's is 077 once a test cloud started in this process).
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o644)).unwrap();
    let conf = dir.path().join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!(
            "listener {port} 127.0.0.1\nallow_anonymous false\n\
             plugin {}\nplugin_opt_config_file {}\n",
            plugin(),
            state.display()
        ),
    )
    .unwrap();
    let bin = ["/usr/sbin/mosquitto", "mosquitto"]
        .into_iter()
        .find(|b| !b.starts_with('/') || std::path::Path::new(b).exists())
        .unwrap();
    let log = std::fs::File::create(dir.path().join("mosquitto.log")).unwrap();
    let child = Command::new(bin)
        .args(["-c", conf.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("mosquitto");
    let m = Mosquitto {
        child,
        port,
        _dir: dir,
    };
    for _ in 0..100 {
        if answers(login(port, "probe", ADMIN, ADMIN_PASSWORD)).await {
            return m;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = std::fs::read_to_string(m._dir.path().join("mosquitto.log")).unwrap_or_default();
    panic!("mosquitto did not start on {port}: {log}");
}

fn login(port: u16, client_id: &str, user: &str, pass: &str) -> MqttOptions {
    let mut o = MqttOptions::new(client_id, "127.0.0.1", port);
    o.set_credentials(user, pass);
    o
}

/// Waits until the broker takes `creds` (the cloud's commands reached it).
async fn admitted(creds: &Credentials) {
    for _ in 0..100 {
        if connects(creds).await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the broker never took device {}", creds.device);
}

/// What the broker answers to `filters` subscribed by `opts`: one code each.
async fn subscribe_codes(opts: MqttOptions, filters: &[String]) -> Vec<SubscribeReasonCode> {
    let (client, mut events) = AsyncClient::new(opts, 10);
    for f in filters {
        client.subscribe(f, QoS::AtLeastOnce).await.unwrap();
    }
    let mut codes = vec![];
    tokio::time::timeout(Duration::from_secs(10), async {
        while codes.len() < filters.len() {
            if let Event::Incoming(Packet::SubAck(a)) = events.poll().await.unwrap() {
                codes.extend(a.return_codes);
            }
        }
    })
    .await
    .expect("the broker answered every subscription");
    let _ = client.try_disconnect();
    codes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_mosquitto_takes_only_enrolled_devices_each_to_its_own_topics() {
    let m = mosquitto().await;
    let port = m.port;
    let app = TestApp::start_with(Backend::Sqlite, |s| {
        s.mqtt = format!("mqtt://127.0.0.1:{port}");
        s.mqtt_username = Some(ADMIN.into());
        s.mqtt_password = Some(Secret(ADMIN_PASSWORD.into()));
        s.mqtt_dynsec = true;
    })
    .await;
    let w = world(&app).await;
    let a = enrolled(&app, &w.boss, "Press 1").await;
    let b = enrolled(&app, &w.boss, "Press 2").await;
    admitted(&a).await;
    admitted(&b).await;
    let key_a = STANDARD.decode(&a.key).unwrap();
    let key_b = STANDARD.decode(&b.key).unwrap();
    let (user_a, pass_a) = (broker::username(a.device), broker::password(&key_a));
    let id_a = broker::client_id(a.device, &key_a);

    // Refused at the door: anonymous, a wrong secret, A's login under B's client id.
    let mut anon = MqttOptions::new("outsider", "127.0.0.1", port);
    anon.set_keep_alive(Duration::from_secs(5));
    assert!(!answers(anon).await, "an anonymous client got in");
    assert!(!answers(login(port, &id_a, &user_a, "guess")).await);
    let id_b = broker::client_id(b.device, &key_b);
    assert!(!answers(login(port, &id_b, &user_a, &pass_a)).await);

    // B, as an attacker inside: nothing but its own topics.
    let org = a.organization.to_string();
    let (da, db) = (a.device.to_string(), b.device.to_string());
    let b_login = login(
        port,
        &id_b,
        &broker::username(b.device),
        &broker::password(&key_b),
    );
    let codes = subscribe_codes(
        b_login,
        &[
            "#".into(),
            v1::topic(&org, &da, Channel::Cmd),
            v1::topic(&org, &da, Channel::CyclesAck),
            format!(
                "$share/{}/{}/+/+/cycles",
                app.state.settings.mqtt_group,
                v1::PREFIX
            ),
            "gemba/cloud/#".into(),
            v1::topic(&org, &db, Channel::Cmd),
        ],
    )
    .await;
    use SubscribeReasonCode::{Failure, Success};
    assert_eq!(
        codes,
        [
            Failure,
            Failure,
            Failure,
            Failure,
            Failure,
            Success(QoS::AtLeastOnce)
        ]
    );

    // A publishes a cycle on B's topic (the broker drops it) and one on its own (stored
    // and acknowledged): only the second reaches the cloud.
    let mut dev_a = TestDevice::of(&a).await;
    let before = app.health().await["ingest"]["received"].as_u64().unwrap();
    let mut stray = cycle(w.task);
    stray.id = uuid::Uuid::new_v4().to_string();
    dev_a
        .publish(
            v1::topic(&org, &db, Channel::Cycles),
            v1::sign(&dev_a.key, &dev_a.kid, &stray),
        )
        .await;
    let own = cycle(w.task);
    dev_a.send_cycle(&own).await;
    let ack: v1::CyclesAck = dev_a.next(Channel::CyclesAck).await;
    assert_eq!(ack.ids, vec![own.id.clone()]);
    counted(&app, "cycles", 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let h = app.health().await;
    assert_eq!(
        h["ingest"]["received"].as_u64().unwrap(),
        before + 1,
        "the broker let a publish on another device's topic through: {h}"
    );
    assert_eq!(cycles_stored(&app).await, 1);

    // Revoked: its connection ends, and it is refused from then on.
    let _: serde_json::Value = app
        .send_as(
            reqwest::Method::POST,
            &format!("device/{}/revoke/", a.device),
            &serde_json::json!({}),
            &w.boss,
        )
        .await;
    dev_a.disconnected().await;
    assert!(!connects(&a).await, "a revoked device connected again");
    // Enrolled again: the new key gets in (the old stays out).
    let again: gemba_shared::api::v1::device::EnrolmentCode = app
        .send_as(
            reqwest::Method::POST,
            &format!("device/{}/enrolment_code/", a.device),
            &serde_json::json!({}),
            &w.boss,
        )
        .await;
    let a2 = crate::devices::enrol(&app, &again.code).await;
    admitted(&a2).await;
    assert!(!connects(&a).await);
}
