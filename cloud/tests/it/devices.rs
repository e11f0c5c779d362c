//! Devices (issue 5): adding and enrolling, the device calls, commands, and ingestion of
//! what devices publish on the broker, checked against each device's credentials; on
//! both backends, through the embedded broker. A test device is a real MQTT client
//! (rumqttc) speaking the contract of `gemba_shared::mqtt::v1`.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::device::{
    Archive, Credentials, Device, DeviceCommand, DeviceCreate, DeviceDetails, DevicePatch,
    DeviceSettings, DeviceStats, DeviceTask, DeviceTaskAssociation, EnrolRequest, EnrolmentCode,
    RecentCycle, StartTask, StopTask, TaskInferenceStatus,
};
use gemba_shared::api::v1::organization::{Department, DepartmentCreate};
use gemba_shared::api::v1::task::{Task, TaskCreate, TaskObjectCreate, TaskPatch};
use gemba_shared::broker;
use gemba_shared::cycle::{Cycle, Segment};
use gemba_shared::mqtt::v1::{self, Channel, CycleMessage};
use reqwest::{Method, StatusCode};
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use serde_json::{Value, json};

use crate::common::*;
use crate::{both, both_with};

pub(crate) struct World {
    pub(crate) admin: String,
    pub(crate) a: i64,
    pub(crate) b: i64,
    /// org_admin of A (adds devices), org_user of A (runs tasks), analytics of A,
    /// org_admin of B.
    pub(crate) boss: String,
    pub(crate) eng: String,
    pub(crate) analyst: String,
    pub(crate) boss_b: String,
    pub(crate) task: i64,
}

/// A new task from its text alone, as `tok`.
async fn task(app: &TestApp, tok: &str, task_detail: &str) -> Task {
    let body = TaskCreate {
        task_detail: Some(task_detail.into()),
        ..TaskCreate::default()
    };
    app.create_as("organization/task/", &body, tok).await
}

pub(crate) async fn world(app: &TestApp) -> World {
    let admin = app.admin_token().await;
    let a = app.create_org(&admin, "Plant A").await;
    let b = app.create_org(&admin, "Plant B").await;
    for org in [a, b] {
        app.subscribe(&admin, org, "Devices").await;
        app.subscribe(&admin, org, "Define Operation").await;
    }
    let eng = app.signed_in("eng@a.test", "org_user", a).await;
    let t = task(app, &eng, "Pump\nFit:\nPlace;\nCheck:\nLook;\n").await;
    World {
        boss: app.signed_in("boss@a.test", "org_admin", a).await,
        analyst: app.signed_in("analyst@a.test", "analytics_user", a).await,
        boss_b: app.signed_in("boss@b.test", "org_admin", b).await,
        eng,
        admin,
        a,
        b,
        task: t.id,
    }
}

/// A new device named `name`.
fn named(name: &str) -> DeviceCreate {
    DeviceCreate {
        display_name: Some(name.into()),
        ..DeviceCreate::default()
    }
}

/// Adds a device as `tok`; answers the enrolment answer.
pub(crate) async fn added(app: &TestApp, tok: &str, name: &str) -> EnrolmentCode {
    app.create_as("device/", &named(name), tok).await
}

/// [`added`], untyped (for the suites that read it so).
pub(crate) async fn add(app: &TestApp, tok: &str, name: &str) -> Value {
    serde_json::to_value(added(app, tok, name).await).unwrap()
}

/// The enrolment request for `code`, as sent (the agent's call carries no user).
fn enrolment(code: &str) -> Value {
    serde_json::to_value(EnrolRequest { code: code.into() }).unwrap()
}

/// Enrols with `code`; the credentials.
pub(crate) async fn enrol(app: &TestApp, code: &str) -> Credentials {
    let (s, v) = app.post("device/enroll/", enrolment(code), None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    serde_json::from_value(v).expect("the credentials")
}

/// Adds a device as `tok` and enrols it; answers the credentials.
pub(crate) async fn enrolled(app: &TestApp, tok: &str, name: &str) -> Credentials {
    let code = added(app, tok, name).await.code;
    enrol(app, &code).await
}

/// [`enrolled`], untyped (for the suites that read it so).
pub(crate) async fn added_and_enrolled(app: &TestApp, tok: &str, name: &str) -> Value {
    serde_json::to_value(enrolled(app, tok, name).await).unwrap()
}

/// Sets `camera` of device `id` to run `task`, as the portal does.
pub(crate) async fn start_task(app: &TestApp, id: i64, tok: &str, camera: &str, task: i64) {
    let body = StartTask {
        camera: camera.into(),
        task,
    };
    let _: Device = app
        .send_as(
            Method::POST,
            &format!("device/{id}/start_task/"),
            &body,
            tok,
        )
        .await;
}

/// Whether the broker accepts a connection with `creds` as its device does (within
/// 5 s; the embedded broker closes a refused one without an answer).
pub(crate) async fn connects(creds: &Credentials) -> bool {
    answers(device_options(creds).0).await
}

/// The options a device with `creds` connects with, as the agent's: its login and
/// client id, and TLS with its certificate when the credentials carry one; answers
/// them and the prefix the broker puts on its topics (its tenant's, under TLS).
pub(crate) fn device_options(creds: &Credentials) -> (MqttOptions, String) {
    let key = STANDARD.decode(&creds.key).unwrap();
    let plain = creds.mqtt.replacen("mqtts://", "mqtt://", 1);
    let (host, port) = gemba_cloud::mqtt::broker_address(&plain).expect("a broker address");
    let mut opts = MqttOptions::new(broker::client_id(creds.device, &key), host, port);
    opts.set_credentials(broker::username(creds.device), broker::password(&key));
    let prefix = match &creds.tls {
        None => String::new(),
        Some(t) => {
            let (config, prefix) = broker::tls::of_device(t).expect("TLS");
            opts.set_transport(rumqttc::Transport::tls_with_config(
                rumqttc::TlsConfiguration::Rustls(std::sync::Arc::new(config)),
            ));
            prefix
        }
    };
    (opts, prefix)
}

/// Whether a broker acknowledges a connection with `opts` (within 5 s); it leaves at once.
pub(crate) async fn answers(opts: MqttOptions) -> bool {
    gemba_cloud::mqtt::connects(opts, Duration::from_secs(5)).await
}

/// A device as the broker sees it: its credentials and a connected client.
pub(crate) struct TestDevice {
    pub(crate) org: i64,
    pub(crate) id: i64,
    pub(crate) kid: String,
    pub(crate) key: Vec<u8>,
    pub(crate) client: AsyncClient,
    pub(crate) rx: tokio::sync::mpsc::UnboundedReceiver<(String, Vec<u8>)>,
    /// Turns true when the broker ends the connection (it does not reconnect).
    pub(crate) ended: tokio::sync::watch::Receiver<bool>,
    /// The client's event loop: aborted, the connection drops without a goodbye.
    events: tokio::task::AbortHandle,
    /// The `ts_ms` of the last status sent ([`TestDevice::send_status`]).
    last_ts: std::sync::atomic::AtomicI64,
    /// The broker's prefix of its topics (its tenant's under TLS, else empty).
    pub(crate) prefix: String,
}

impl TestDevice {
    /// [`TestDevice::of`] the credentials, untyped (for the suites that read them so).
    pub(crate) async fn connect(creds: &Value) -> TestDevice {
        let creds: Credentials = serde_json::from_value(creds.clone()).expect("credentials");
        TestDevice::of(&creds).await
    }

    /// A device with `creds`, connected to the broker and subscribed to its channels.
    pub(crate) async fn of(creds: &Credentials) -> TestDevice {
        TestDevice::with_will(creds, None).await
    }

    /// [`TestDevice::of`] with a last will (a status, signed, retained), as the agent's.
    pub(crate) async fn with_will(
        creds: &Credentials,
        will: Option<&v1::StatusMessage>,
    ) -> TestDevice {
        let (org, id) = (creds.organization, creds.device);
        // The broker the cloud told the device of: the embedded one or an external one;
        // it takes the device as itself (gemba_shared::broker).
        let (mut opts, prefix) = device_options(creds);
        let key = STANDARD.decode(&creds.key).unwrap();
        let topic = |c: Channel| {
            format!(
                "{prefix}{}",
                v1::topic(&org.to_string(), &id.to_string(), c)
            )
        };
        opts.set_keep_alive(Duration::from_secs(10));
        opts.set_max_packet_size(1024 * 1024, 1024 * 1024);
        if let Some(w) = will {
            opts.set_last_will(rumqttc::LastWill::new(
                topic(Channel::Status),
                v1::sign(&key, &creds.credential_id.to_string(), w),
                QoS::AtLeastOnce,
                true,
            ));
        }
        let (client, mut events) = AsyncClient::new(opts, 100);
        for c in [Channel::Cmd, Channel::CyclesAck, Channel::Rtc] {
            client.subscribe(topic(c), QoS::AtLeastOnce).await.unwrap();
        }
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        let (end_tx, ended) = tokio::sync::watch::channel(false);
        let task = tokio::spawn(async move {
            let mut ready = Some(ready_tx);
            let mut acks = 0;
            while let Ok(ev) = events.poll().await {
                match ev {
                    Event::Incoming(Packet::SubAck(_)) => {
                        acks += 1;
                        if acks == 3
                            && let Some(r) = ready.take()
                        {
                            let _ = r.send(());
                        }
                    }
                    Event::Incoming(Packet::Publish(p)) => {
                        let _ = tx.send((p.topic.clone(), p.payload.to_vec()));
                    }
                    _ => {}
                }
            }
            let _ = end_tx.send(true);
        });
        tokio::time::timeout(Duration::from_secs(10), ready_rx)
            .await
            .expect("subscribed")
            .unwrap();
        TestDevice {
            org,
            id,
            kid: creds.credential_id.to_string(),
            key,
            client,
            rx,
            ended,
            events: task.abort_handle(),
            last_ts: 0.into(),
            prefix,
        }
    }

    /// Drops the connection without a goodbye (as a device losing power or its
    /// network): the broker publishes its last will.
    pub(crate) fn cut(&self) {
        self.events.abort();
    }

    /// Waits (up to 10 s) until the broker ended the connection.
    pub(crate) async fn disconnected(&mut self) {
        tokio::time::timeout(Duration::from_secs(10), self.ended.wait_for(|e| *e))
            .await
            .expect("the broker ended the device's connection")
            .unwrap();
    }

    /// The topic of `c` on the broker (under the device's tenant with TLS).
    pub(crate) fn topic(&self, c: Channel) -> String {
        let t = v1::topic(&self.org.to_string(), &self.id.to_string(), c);
        format!("{}{t}", self.prefix)
    }

    /// Acknowledges command `id` as the agent does.
    pub(crate) async fn ack(&self, id: &str, ok: bool, message: &str) {
        let ack = v1::CommandAck {
            v: 1,
            id: id.into(),
            ok,
            message: message.into(),
            opcua: None,
        };
        self.publish(
            self.topic(Channel::CmdAck),
            v1::sign(&self.key, &self.kid, &ack),
        )
        .await;
    }

    pub(crate) async fn publish(&self, topic: String, payload: Vec<u8>) {
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload)
            .await
            .unwrap();
    }

    /// Publishes a status as the agent does: signed with the device's key, and later
    /// than the one sent before (its `ts_ms` raised past that one's when it is not; the
    /// cloud takes no status older than one it took).
    pub(crate) async fn send_status(&self, s: &v1::StatusMessage) {
        use std::sync::atomic::Ordering;
        let ts = s.ts_ms.max(self.last_ts.load(Ordering::Relaxed) + 1);
        self.last_ts.store(ts, Ordering::Relaxed);
        let s = v1::StatusMessage {
            ts_ms: ts,
            ..s.clone()
        };
        self.publish(
            self.topic(Channel::Status),
            v1::sign(&self.key, &self.kid, &s),
        )
        .await;
    }

    pub(crate) async fn send_cycle(&self, c: &CycleMessage) {
        self.publish(
            self.topic(Channel::Cycles),
            v1::sign(&self.key, &self.kid, c),
        )
        .await;
    }

    /// The next message from the cloud on `channel`, its signature checked.
    pub(crate) async fn next<T: v1::Message>(&mut self, channel: Channel) -> T {
        let want = self.topic(channel);
        loop {
            let (t, p) = tokio::time::timeout(Duration::from_secs(10), self.rx.recv())
                .await
                .unwrap_or_else(|_| panic!("nothing on {want}"))
                .unwrap();
            if t == want {
                return v1::verify(&self.key, &p).expect("signed with the device's key");
            }
        }
    }
}

pub(crate) fn cycle(task: i64) -> CycleMessage {
    CycleMessage::new(
        uuid::Uuid::new_v4().to_string(),
        task,
        "cam0".into(),
        Cycle {
            start_ms: 1_000,
            end_ms: 9_000,
            segments: vec![
                Segment {
                    step: 0,
                    start_ms: 1_000,
                    end_ms: 4_000,
                },
                Segment {
                    step: 1,
                    start_ms: 5_000,
                    end_ms: 9_000,
                },
            ],
            idle_ms: 1_000,
            good: true,
            reasons: vec![],
        },
    )
}

pub(crate) async fn cycles_stored(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM cycles")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

/// Waits until `/api/health` counts `field` at least `n`.
pub(crate) async fn counted(app: &TestApp, field: &str, n: u64) -> Value {
    for _ in 0..200 {
        let h = app.health().await;
        if h["ingest"][field].as_u64().unwrap() >= n {
            return h;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{field} never reached {n}: {}", app.health().await);
}

both!(
    a_device_is_added_enrolled_once_and_its_cycles_are_stored_once,
    |app: TestApp| async move {
        let w = world(&app).await;
        let added = added(&app, &w.boss, "Bench 1").await;
        let code = added.code.clone();
        assert_eq!(code.len(), 14, "{code}");
        assert!(added.command.ends_with(&format!("--code {code}")));
        assert!(!added.device.enrolled);
        assert_eq!(added.device.device_type, "workstation");
        // The code works typed in lower case without dashes, once.
        let creds = enrol(&app, &code.replace('-', "").to_lowercase()).await;
        assert_eq!(creds.organization, w.a);
        assert_eq!(creds.mqtt, format!("mqtts://{}", app.mqtt));
        let (s, v) = app.post("device/enroll/", enrolment(&code), None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["code"][0], "The enrolment code is wrong or expired.");
        let id = creds.device;
        let d: DeviceDetails = app
            .get_as(&format!("device/{id}/device_details/"), &w.eng)
            .await;
        assert!(d.device.enrolled);

        let mut dev = TestDevice::of(&creds).await;
        let c = cycle(w.task);
        dev.send_cycle(&c).await;
        let ack: v1::CyclesAck = dev.next(Channel::CyclesAck).await;
        assert_eq!(ack.ids, vec![c.id.clone()]);
        assert_eq!(cycles_stored(&app).await, 1);
        // A replay (the agent did not hear the acknowledgement) is acknowledged again
        // and stored once.
        dev.send_cycle(&c).await;
        let ack: v1::CyclesAck = dev.next(Channel::CyclesAck).await;
        assert_eq!(ack.ids, vec![c.id.clone()]);
        let h = counted(&app, "duplicates", 1).await;
        assert_eq!(
            (
                h["ingest"]["cycles"].as_u64(),
                h["ingest"]["rejected"].as_u64()
            ),
            (Some(1), Some(0))
        );
        assert_eq!(cycles_stored(&app).await, 1);
        let row: (String, i64, i64, String) =
            sqlx::query_as("SELECT camera, task_id, device_id, segments FROM cycles WHERE id = $1")
                .bind(&c.id)
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
        assert_eq!((row.0.as_str(), row.1, row.2), ("cam0", w.task, id));
        assert_eq!(
            serde_json::from_str::<Vec<Segment>>(&row.3).unwrap(),
            c.segments
        );
        let stats: DeviceStats = app.get_as("device/devices_stats/", &w.eng).await;
        assert_eq!((stats.total, stats.cycles_24h), (1, 1));

        // Status: online with its cameras, then its last will.
        let status = v1::StatusMessage {
            v: 1,
            online: true,
            ts_ms: 5,
            agent_version: "0.1.0".into(),
            cameras: vec![v1::CameraStatus {
                camera: "cam0".into(),
                task: Some(w.task),
                fps: 15.0,
                model_version: None,
                ..v1::CameraStatus::default()
            }],
            outbox: 0,
            disk_free_mb: Some(100),
            temperature_c: None,
            config_version: 0,
            target: String::new(),
            updatable: false,
            update: None,
            faults: vec![],
        };
        dev.send_status(&status).await;
        let mut online = None;
        for _ in 0..200 {
            let d: DeviceDetails = app
                .get_as(&format!("device/{id}/device_details/"), &w.eng)
                .await;
            if d.device.online {
                online = Some(d);
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let online = online.expect("the device shows online");
        let st = online.device.status.as_ref().expect("its status");
        assert_eq!(st.cameras[0].fps, 15.0, "{online:?}");
        let active: Vec<Device> = app.get_as("device/get_active_devices/", &w.eng).await;
        assert_eq!(active.len(), 1);

        // Revoked: the broker ends the device's connection and refuses it from now on.
        let mut dev = dev;
        let d: Device = app
            .send_as(
                Method::POST,
                &format!("device/{id}/revoke/"),
                &json!({}),
                &w.boss,
            )
            .await;
        assert!(!d.enrolled, "{d:?}");
        dev.disconnected().await;
        assert!(!connects(&creds).await, "a revoked device connected again");
        assert_eq!(cycles_stored(&app).await, 1);
        // A new code enrols it again, with a new key id; the old key stays refused.
        let again: EnrolmentCode = app
            .send_as(
                Method::POST,
                &format!("device/{id}/enrolment_code/"),
                &json!({}),
                &w.boss,
            )
            .await;
        let creds2 = enrol(&app, &again.code).await;
        assert_ne!(creds2.credential_id, creds.credential_id);
        assert!(!connects(&creds).await, "the old key connected");
        let dev2 = TestDevice::of(&creds2).await;
        dev2.send_cycle(&cycle(w.task)).await;
        counted(&app, "cycles", 2).await;
        assert_eq!(cycles_stored(&app).await, 2);
    }
);

both!(
    bad_and_forged_messages_are_refused_counted_and_store_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let a = enrolled(&app, &w.boss, "A1").await;
        let a2 = enrolled(&app, &w.boss, "A2").await;
        let b = enrolled(&app, &w.boss_b, "B1").await;
        let dev = TestDevice::of(&a).await;
        let other = TestDevice::of(&a2).await;
        let dev_b = TestDevice::of(&b).await;
        let c = cycle(w.task);
        let json = serde_json::to_vec(&c).unwrap();
        let cycles = dev.topic(Channel::Cycles);
        let in_own = |t: &str| format!("{}{t}", dev.prefix);
        let mut bad: Vec<(String, Vec<u8>)> = vec![
            // Unsigned, garbage, an empty payload.
            (cycles.clone(), json.clone()),
            (cycles.clone(), b"\xff\x00garbage".to_vec()),
            (cycles.clone(), vec![]),
            // Signed with another key under the device's key id.
            (cycles.clone(), v1::sign(&[9u8; 32], &dev.kid, &c)),
            // Signed by device A2 but published as A1; by A1 under another key id.
            (cycles.clone(), v1::sign(&other.key, &other.kid, &c)),
            (cycles.clone(), v1::sign(&dev.key, "999", &c)),
            // A1 publishing for A2, and for A1 under organisation B (within its own
            // tenant under TLS: outside it the broker would end its connection).
            (
                in_own(&v1::topic(
                    &w.a.to_string(),
                    &other.id.to_string(),
                    Channel::Cycles,
                )),
                v1::sign(&dev.key, &dev.kid, &c),
            ),
            (
                in_own(&v1::topic(
                    &w.b.to_string(),
                    &dev.id.to_string(),
                    Channel::Cycles,
                )),
                v1::sign(&dev.key, &dev.kid, &c),
            ),
            // Signed, but not a cycle, or an inconsistent one.
            (
                cycles.clone(),
                v1::sign(&dev.key, &dev.kid, &json!({"v": 1, "id": "x"})),
            ),
            (
                cycles.clone(),
                v1::sign(
                    &dev.key,
                    &dev.kid,
                    &CycleMessage {
                        end_ms: 0,
                        ..c.clone()
                    },
                ),
            ),
            (
                cycles.clone(),
                v1::sign(
                    &dev.key,
                    &dev.kid,
                    &CycleMessage {
                        good: false,
                        ..c.clone()
                    },
                ),
            ),
            // Over the size limit.
            (cycles.clone(), vec![b'a'; v1::MAX_PAYLOAD_BYTES + 10]),
            // A device's own status, but malformed; a device that is not a device id.
            (
                dev.topic(Channel::Status),
                v1::sign(&dev.key, &dev.kid, &json!({"v": 1})),
            ),
            (
                in_own(&format!("gemba/v1/{}/x/cycles", w.a)),
                v1::sign(&dev.key, &dev.kid, &c),
            ),
            // An acknowledgement of a command never sent.
            (
                dev.topic(Channel::CmdAck),
                v1::sign(
                    &dev.key,
                    &dev.kid,
                    &v1::CommandAck {
                        v: 1,
                        id: "nope".into(),
                        ok: true,
                        message: String::new(),
                        opcua: None,
                    },
                ),
            ),
        ];
        // A channel that is the cloud's (the cloud does not even receive it).
        bad.push((
            dev.topic(Channel::Cmd),
            v1::sign(&dev.key, &dev.kid, &json!({"v": 1})),
        ));
        let n = bad.len() as u64 - 1;
        for (t, p) in bad {
            dev.publish(t, p).await;
        }
        // A cycle of device B naming organisation A's task: the task is not B's.
        dev_b.send_cycle(&c).await;
        counted(&app, "rejected", n + 1).await;
        assert_eq!(cycles_stored(&app).await, 0);
        // The ingestion goes on: a good cycle after all that is stored.
        let good = cycle(w.task);
        dev.send_cycle(&good).await;
        counted(&app, "cycles", 1).await;
        let h = app.health().await;
        assert_eq!(h["ingest"]["rejected"].as_u64(), Some(n + 1), "{h}");
        assert_eq!(cycles_stored(&app).await, 1);
        let d: DeviceDetails = app
            .get_as(&format!("device/{}/device_details/", dev.id), &w.eng)
            .await;
        assert!(!d.device.online, "a malformed status changed nothing");
        // The device's page shows that cycle alone, with its task's step names.
        assert_eq!(
            d.recent_cycles,
            [RecentCycle {
                id: good.id.clone(),
                task: w.task,
                device: Some(dev.id),
                camera: "cam0".into(),
                start_ms: 1000,
                end_ms: 9000,
                idle_ms: 1000,
                good: true,
                reasons: vec![],
                segments: vec![Segment::new(0, 1000, 4000), Segment::new(1, 5000, 9000)],
            }],
            "{d:?}"
        );
        assert_eq!(
            d.task_steps,
            BTreeMap::from([(w.task, vec!["Fit".to_string(), "Check".into()])])
        );
    }
);

both!(
    tasks_start_and_stop_by_signed_commands_and_a_running_task_is_not_changed,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let mut dev = TestDevice::of(&creds).await;
        let id = dev.id;
        let start = |camera: &str, task: i64| StartTask {
            camera: camera.into(),
            task,
        };
        let stop = |camera: &str| StopTask {
            camera: camera.into(),
        };
        let d: Device = app
            .send_as(
                Method::POST,
                &format!("device/{id}/start_task/"),
                &start("cam0", w.task),
                &w.eng,
            )
            .await;
        assert_eq!(
            d.tasks,
            [DeviceTask {
                camera: "cam0".into(),
                task: w.task,
                task_name: "Pump".into(),
                running: true,
                refused: None,
                refused_at: None,
            }]
        );
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        let v1::Command::StartTask {
            camera,
            task,
            engine,
            ..
        } = &cmd.command
        else {
            panic!("{cmd:?}")
        };
        assert_eq!((camera.as_str(), *task, engine.steps), ("cam0", w.task, 2));
        // The device acknowledges it; the portal sees how it went.
        dev.ack(&cmd.id, true, "started").await;
        let mut seen = None;
        for _ in 0..200 {
            let c: Vec<DeviceCommand> = app.get_as(&format!("device/{id}/commands/"), &w.eng).await;
            if c.first().and_then(|c| c.ok) == Some(true) {
                seen = Some(c);
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let seen = seen.expect("the acknowledgement seen");
        assert_eq!(seen[0].message.as_deref(), Some("started"), "{seen:?}");
        assert!(
            matches!(seen[0].command, v1::Command::StartTask { .. }),
            "{seen:?}"
        );

        let status: Vec<TaskInferenceStatus> = app
            .get_as("organization/task/task_inference_status", &w.analyst)
            .await;
        assert_eq!(status[0].device, id);
        assert_eq!(status[0].camera, "cam0");
        let assoc: DeviceTaskAssociation = app
            .get_as(
                &format!(
                    "device/get_device_tasks_association/?task={}&device={id}",
                    w.task
                ),
                &w.eng,
            )
            .await;
        assert_eq!(
            assoc,
            DeviceTaskAssociation {
                task: w.task,
                device: id,
                associated: true,
                running: true,
                cameras: vec!["cam0".into()],
            }
        );

        // Issue 4: a task being performed on a device cannot be updated.
        let rename = TaskPatch {
            task_name: Some("Pump 2".into()),
            ..TaskPatch::default()
        };
        let task_url = format!("organization/task/{}/", w.task);
        let (s, v) = app
            .send_refused(Method::PATCH, &task_url, &rename, &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "Pump is being performed, You cannot update the task when it is being performed."
        );
        // Nor its detector's objects.
        let jig = TaskObjectCreate {
            task: w.task,
            name: "Jig".into(),
            outline_color: None,
            is_static: true,
            step_id: None,
        };
        let (s, v) = app
            .send_refused(Method::POST, "organization/task/task_object/", &jig, &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "Pump is being performed, You cannot update the task when it is being performed."
        );
        // Starring is not a change of the task.
        let star = TaskPatch {
            starred: Some(true),
            ..TaskPatch::default()
        };
        let _: Task = app.send_as(Method::PATCH, &task_url, &star, &w.eng).await;

        let d: Device = app
            .send_as(
                Method::POST,
                &format!("device/{id}/stop_task/"),
                &stop("cam0"),
                &w.eng,
            )
            .await;
        assert!(!d.tasks[0].running, "{d:?}");
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        assert!(
            matches!(&cmd.command, v1::Command::StopTask { camera, task: Some(t), generation }
                if camera == "cam0" && *t == w.task && *generation > 0),
            "{cmd:?}"
        );
        let _: Task = app.send_as(Method::PATCH, &task_url, &rename, &w.eng).await;
        // Stopped already: nothing to stop, and no second command.
        let (s, v) = app
            .send_refused(
                Method::POST,
                &format!("device/{id}/stop_task/"),
                &stop("cam0"),
                &w.eng,
            )
            .await;
        assert_eq!(
            (s, &v["camera"][0]),
            (StatusCode::BAD_REQUEST, &json!("This camera runs no task."))
        );

        // Bad input: a camera name that is not one, another organisation's task, a
        // camera that runs nothing.
        let bad = [
            (start("cam 0", w.task), "camera"),
            (start("cam0", 999_999), "task"),
        ];
        for (body, field) in bad {
            let (s, v) = app
                .send_refused(
                    Method::POST,
                    &format!("device/{id}/start_task/"),
                    &body,
                    &w.eng,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field][0].is_string(), "{v}");
        }
        let (s, v) = app
            .send_refused(
                Method::POST,
                &format!("device/{id}/stop_task/"),
                &stop("cam9"),
                &w.eng,
            )
            .await;
        assert_eq!(
            (s, &v["camera"][0]),
            (StatusCode::BAD_REQUEST, &json!("This camera runs no task."))
        );
        let (s, _) = app
            .send_refused(
                Method::POST,
                &format!("device/{id}/start_task/"),
                &start("cam0", w.task),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Settings: an object, sent to the device.
        let (s, v) = app
            .patch(
                &format!("device/{}/device_settings_update/{id}/", w.a),
                json!([1]),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (s, &v["non_field_errors"][0]),
            (
                StatusCode::BAD_REQUEST,
                &json!("The request body must be a JSON object.")
            )
        );
        // The settings are the device's own object: no wire type of their own.
        let v: DeviceSettings = app
            .send_as(
                Method::PATCH,
                &format!("device/{}/device_settings_update/{id}/", w.a),
                &json!({"fps": 10}),
                &w.eng,
            )
            .await;
        assert_eq!(v.settings, json!({"fps": 10}));
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        assert_eq!(
            cmd.command,
            v1::Command::Settings {
                settings: json!({"fps": 10})
            }
        );
    }
);

both!(
    device_lists_changes_and_who_may_do_what,
    |app: TestApp| async move {
        let w = world(&app).await;
        let one = added(&app, &w.boss, "Zeta").await.device.id;
        let two = added(&app, &w.boss, "alpha").await.device.id;
        let dept_device = DeviceCreate {
            device_type: Some("departmental device".into()),
            ..named("Dept")
        };
        let _: EnrolmentCode = app.create_as("device/", &dept_device, &w.boss).await;
        let names = |list: &[Device]| -> Vec<String> {
            list.iter().map(|d| d.display_name.clone()).collect()
        };
        let org_list = format!("device/device_org/{}/", w.a);
        let list: Vec<Device> = app.get_as(&org_list, &w.eng).await;
        assert_eq!(
            names(&list),
            ["alpha", "Zeta"],
            "departmental devices are hidden"
        );
        // Starred first, per user.
        let star = DevicePatch {
            starred: Some(true),
            ..DevicePatch::default()
        };
        let _: Device = app
            .send_as(Method::PATCH, &format!("device/{one}/"), &star, &w.eng)
            .await;
        let list: Vec<Device> = app.get_as(&org_list, &w.eng).await;
        assert_eq!(names(&list), ["Zeta", "alpha"]);
        assert!(list[0].starred);
        let list: Vec<Device> = app.get_as(&org_list, &w.boss).await;
        assert_eq!(names(&list), ["alpha", "Zeta"]);
        // Changes, and bad values that change nothing.
        let d: Device = app
            .send_as(
                Method::PATCH,
                &format!("device/update_device/{two}/"),
                &DevicePatch {
                    display_name: Some(" Alpha ".into()),
                    serial_number: Some("SN-1".into()),
                    ..DevicePatch::default()
                },
                &w.eng,
            )
            .await;
        assert_eq!(
            (d.display_name.as_str(), d.serial_number.as_str()),
            ("Alpha", "SN-1")
        );
        let name = |n: String| DevicePatch {
            display_name: Some(n),
            ..DevicePatch::default()
        };
        for (body, field, msg) in [
            (name(" ".into()), "display_name", "Device name is required!"),
            (
                name("x".repeat(101)),
                "display_name",
                "Device name must be at most 100 characters.",
            ),
            (
                DevicePatch {
                    serial_number: Some("a\u{0}".into()),
                    ..DevicePatch::default()
                },
                "Serial_number",
                "Serial number must not contain control characters.",
            ),
        ] {
            let (s, v) = app
                .send_refused(Method::PATCH, &format!("device/{two}/"), &body, &w.eng)
                .await;
            assert_eq!((s, &v[field][0]), (StatusCode::BAD_REQUEST, &json!(msg)));
        }
        let (s, _) = app
            .patch(&format!("device/{two}/"), json!({"nope": 1}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let d: DeviceDetails = app
            .get_as(&format!("device/{two}/device_details/"), &w.eng)
            .await;
        assert_eq!(d.device.display_name, "Alpha");
        let (s, v) = app
            .send_refused(Method::POST, "device/", &DeviceCreate::default(), &w.boss)
            .await;
        assert_eq!(
            (s, &v["display_name"][0]),
            (StatusCode::BAD_REQUEST, &json!("Device name is required!"))
        );
        let (s, v) = app
            .send_refused(
                Method::POST,
                "device/",
                &DeviceCreate {
                    department: Some(999_999),
                    ..named("X")
                },
                &w.boss,
            )
            .await;
        assert_eq!(
            (s, &v["department"][0]),
            (StatusCode::BAD_REQUEST, &json!("No such department."))
        );
        // Departments.
        let less_list = format!("device/{}/get_department_less_devices/", w.a);
        let less: Vec<Device> = app.get_as(&less_list, &w.eng).await;
        assert_eq!(less.len(), 3);
        let dept: Department = app
            .send_as(
                Method::POST,
                &format!("organization/{}/department/", w.a),
                &DepartmentCreate {
                    name: "Assembly".into(),
                },
                &w.boss,
            )
            .await;
        let d: Device = app
            .send_as(
                Method::PATCH,
                &format!("device/{two}/assign_device_to_department/{}/", dept.id),
                &json!({}),
                &w.boss,
            )
            .await;
        assert_eq!(d.department, Some(dept.id), "{d:?}");
        let less: Vec<Device> = app.get_as(&less_list, &w.eng).await;
        assert_eq!(less.len(), 2);
        // Archive (credentials revoked, hidden), bring back, delete.
        let d: Device = app
            .send_as(
                Method::PATCH,
                &format!("device/archive_device/{one}/"),
                &Archive::default(),
                &w.boss,
            )
            .await;
        assert!(d.is_archived, "{d:?}");
        let list: Vec<Device> = app.get_as(&org_list, &w.eng).await;
        assert_eq!(names(&list), ["Alpha"]);
        let list: Vec<Device> = app
            .get_as(&format!("{org_list}?archived=true"), &w.eng)
            .await;
        assert_eq!(names(&list), ["Zeta"]);
        let (s, v) = app
            .send_refused(
                Method::POST,
                &format!("device/{one}/enrolment_code/"),
                &json!({}),
                &w.boss,
            )
            .await;
        assert_eq!(
            (s, &v["non_field_errors"][0]),
            (
                StatusCode::BAD_REQUEST,
                &json!("An archived device cannot be enrolled.")
            )
        );
        let d: Device = app
            .send_as(
                Method::PATCH,
                &format!("device/archive_device/{one}/"),
                &Archive {
                    is_archived: Some(false),
                },
                &w.boss,
            )
            .await;
        assert!(!d.is_archived);
        let (s, _) = app.delete(&format!("device/{one}/"), &w.boss).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        // Archiving by PATCH revokes the credentials too.
        let spare = enrolled(&app, &w.boss, "Spare").await.device;
        let d: Device = app
            .send_as(
                Method::PATCH,
                &format!("device/{spare}/"),
                &DevicePatch {
                    is_archived: Some(true),
                    ..DevicePatch::default()
                },
                &w.boss,
            )
            .await;
        assert_eq!((d.is_archived, d.enrolled), (true, false), "{d:?}");
        let (s, _) = app
            .get(&format!("device/{one}/device_details/"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Roles: an engineer runs devices but does not add or delete them; analytics
        // users do not see them.
        let (s, _) = app
            .send_refused(Method::POST, "device/", &named("X"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app.delete(&format!("device/{two}/"), &w.eng).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app.get(&org_list, &w.analyst).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Tenancy: organisation B sees none of A's devices.
        let (s, _) = app.get(&org_list, &w.boss_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        for path in [
            format!("device/{two}/device_details/"),
            format!("device/get_device_tasks/{two}"),
        ] {
            let (s, _) = app.get(&path, &w.boss_b).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
        }
        let (s, _) = app
            .send_refused(
                Method::PATCH,
                &format!("device/{two}/"),
                &name("Mine".into()),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let list: Vec<Device> = app
            .get_as(&format!("device/device_org/{}/", w.b), &w.boss_b)
            .await;
        assert!(list.is_empty(), "{list:?}");
        // The super admin's All Devices sees every organisation's.
        let all: Page<Device> = app
            .get_as("device/devicelistadminview?page=1", &w.admin)
            .await;
        assert_eq!(all.count, 2, "{all:?}");
        // Without the Devices subscription, devices are read but not changed.
        let c = app.create_org(&w.admin, "Plant C").await;
        let boss_c = app.signed_in("boss@c.test", "org_admin", c).await;
        let (s, v) = app
            .send_refused(Method::POST, "device/", &named("X"), &boss_c)
            .await;
        assert_eq!(
            (s, &v["detail"]),
            (
                StatusCode::FORBIDDEN,
                &json!("Devices is not enabled for this organization.")
            ),
            "{v}"
        );
        let _: Vec<Device> = app
            .get_as(&format!("device/device_org/{c}/"), &boss_c)
            .await;
    }
);

#[tokio::test]
async fn enrolment_codes_that_are_wrong_or_malformed_get_one_answer() {
    let app = TestApp::start(crate::common::Backend::Sqlite).await;
    for code in ["AAAA-BBBB-CCCC", "", &"x".repeat(10_000)] {
        let (s, v) = app.post("device/enroll/", enrolment(code), None).await;
        assert_eq!(
            (s, &v["code"][0]),
            (
                StatusCode::BAD_REQUEST,
                &json!("The enrolment code is wrong or expired.")
            )
        );
    }
    for body in [
        json!({}),
        json!({"code": 5}),
        json!({"code": "A", "device": 1}),
    ] {
        let (s, _) = app.post("device/enroll/", body, None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
    }
}

both!(
    a_device_that_was_away_is_told_what_to_run_when_it_comes_online,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        // Started from the portal while the device is not connected: the broker keeps
        // nothing for it.
        let _: Device = app
            .send_as(
                Method::POST,
                &format!("device/{id}/start_task/"),
                &StartTask {
                    camera: "cam0".into(),
                    task: w.task,
                },
                &w.eng,
            )
            .await;
        let mut dev = TestDevice::of(&creds).await;
        let status = |cameras: Vec<v1::CameraStatus>| v1::StatusMessage {
            v: 1,
            online: true,
            ts_ms: 1,
            agent_version: "test".into(),
            cameras,
            outbox: 0,
            disk_free_mb: None,
            temperature_c: None,
            config_version: 0,
            target: String::new(),
            updatable: false,
            update: None,
            faults: vec![],
        };
        let camera = |name: &str, task: i64| v1::CameraStatus {
            camera: name.into(),
            task: Some(task),
            fps: 15.0,
            model_version: None,
            ..v1::CameraStatus::default()
        };
        // Online, running nothing: told to start cam0's task.
        dev.send_status(&status(vec![])).await;
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        assert!(
            matches!(&cmd.command, v1::Command::StartTask { camera, task, .. } if camera == "cam0" && *task == w.task),
            "{cmd:?}"
        );
        dev.ack(&cmd.id, true, "started").await;
        // Running it, and on cam1 something the portal never set: told to stop cam1 only.
        dev.send_status(&status(vec![
            camera("cam0", w.task),
            camera("cam1", w.task),
        ]))
        .await;
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        assert_eq!(
            cmd.command,
            v1::Command::StopTask {
                camera: "cam1".into(),
                task: Some(w.task),
                generation: 0,
            }
        );
        dev.ack(&cmd.id, true, "stopped").await;
        // In line: nothing more is sent.
        dev.send_status(&status(vec![camera("cam0", w.task)])).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let cmds: Vec<DeviceCommand> = app.get_as(&format!("device/{id}/commands/"), &w.eng).await;
        assert_eq!(cmds.len(), 3, "{cmds:?}");
    }
);

both_with!(
    a_camera_that_does_not_start_is_told_again_with_back_off,
    |s: &mut gemba_cloud::config::Settings| s.reconcile_retry_ms = 1_500,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        let mut dev = TestDevice::of(&creds).await;
        let _: Device = app
            .send_as(
                Method::POST,
                &format!("device/{id}/start_task/"),
                &StartTask {
                    camera: "cam0".into(),
                    task: w.task,
                },
                &w.eng,
            )
            .await;
        let idle = v1::StatusMessage {
            v: 1,
            online: true,
            ts_ms: 1,
            agent_version: "test".into(),
            cameras: vec![],
            outbox: 0,
            disk_free_mb: None,
            temperature_c: None,
            config_version: 0,
            target: String::new(),
            updatable: false,
            update: None,
            faults: vec![],
        };
        let commands = format!("device/{id}/commands/");
        let sent = async |app: &TestApp| {
            app.get_as::<Vec<DeviceCommand>>(&commands, &w.eng)
                .await
                .len()
        };
        // Its first status (it comes online running nothing) is answered at once.
        let _: v1::CommandMessage = dev.next(Channel::Cmd).await;
        dev.send_status(&idle).await;
        // The device acknowledges each start, but its camera does not start (say, the
        // source fails): its heartbeats keep saying so.
        let mut cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        for round in 0..2 {
            dev.ack(&cmd.id, false, "the source failed").await;
            let acked = sent(&app).await;
            for _ in 0..200 {
                let cmds: Vec<DeviceCommand> = app.get_as(&commands, &w.eng).await;
                if cmds.first().and_then(|c| c.ok) == Some(false) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            // A heartbeat right after: not told again yet.
            dev.send_status(&idle).await;
            tokio::time::sleep(Duration::from_millis(400)).await;
            assert_eq!(sent(&app).await, acked, "round {round}: held back");
            // Once the wait passed (1.5 s, then 3 s), the next heartbeat is answered.
            tokio::time::sleep(Duration::from_millis(1_500 << round)).await;
            dev.send_status(&idle).await;
            cmd = dev.next(Channel::Cmd).await;
            assert!(
                matches!(&cmd.command, v1::Command::StartTask { camera, .. } if camera == "cam0"),
                "{cmd:?}"
            );
            assert_eq!(sent(&app).await, acked + 1);
        }
        // Acknowledged again; then the device goes away and comes back (a restarted
        // agent may now carry out what it could not): told at once, no wait.
        dev.ack(&cmd.id, false, "the source failed").await;
        let before = sent(&app).await;
        for online in [false, true] {
            let st = v1::StatusMessage {
                online,
                ..idle.clone()
            };
            dev.send_status(&st).await;
        }
        cmd = dev.next(Channel::Cmd).await;
        assert!(
            matches!(&cmd.command, v1::Command::StartTask { .. }),
            "{cmd:?}"
        );
        assert_eq!(sent(&app).await, before + 1);
    }
);

both!(
    a_cycle_sent_again_in_the_same_batch_is_stored_once,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let dev = TestDevice::of(&creds).await;
        let (a, b) = (cycle(w.task), cycle(w.task));
        // Back to back, most likely one batch.
        for c in [&a, &a, &b, &a] {
            dev.send_cycle(c).await;
        }
        // Batches are stored side by side and may finish out of order: both counts are
        // waited for, then neither may be over.
        counted(&app, "duplicates", 2).await;
        let h = counted(&app, "cycles", 2).await;
        assert_eq!(h["ingest"]["duplicates"].as_u64(), Some(2), "{h}");
        assert_eq!(h["ingest"]["cycles"].as_u64(), Some(2), "{h}");
        assert_eq!(cycles_stored(&app).await, 2);
    }
);

both!(
    a_batch_answers_each_cycle_in_its_place,
    |app: TestApp| async move {
        use gemba_cloud::db::cycles::{Received, Stored, insert_cycles};
        let w = world(&app).await;
        let device = enrolled(&app, &w.boss, "Bench").await.device;
        let db = &app.state.db;
        let of = |org: i64, c: &CycleMessage| Received {
            org,
            device,
            cycle: c.clone(),
        };
        let c: Vec<CycleMessage> = (0..5).map(|_| cycle(w.task)).collect();
        let first = insert_cycles(db, &[of(w.a, &c[0]), of(w.a, &c[1])])
            .await
            .unwrap();
        assert_eq!(first, [Stored::New, Stored::New]);
        // Stored before, new, twice in the batch, another organisation's task, an unknown
        // task: each answered in its place, whatever order the rows are written in.
        let mut unknown = c[4].clone();
        unknown.task = w.task + 1000;
        let batch = [
            of(w.a, &c[2]),
            of(w.a, &c[0]),
            of(w.a, &c[3]),
            of(w.a, &c[2]),
            of(w.b, &c[4]),
            of(w.a, &unknown),
            of(w.a, &c[1]),
        ];
        let second = insert_cycles(db, &batch).await.unwrap();
        use Stored::*;
        assert_eq!(second, [New, Again, New, Again, Refused, Refused, Again]);
        assert_eq!(cycles_stored(&app).await, 4);
        // The row holds what was sent.
        let row: (i64, i64, String, i64, i64, i64, i64, String) = sqlx::query_as(
            "SELECT organization_id, device_id, camera, start_ms, end_ms, idle_ms, good, \
             segments FROM cycles WHERE id = $1",
        )
        .bind(&c[3].id)
        .fetch_one(&db.pool)
        .await
        .unwrap();
        let s = &c[3];
        assert_eq!(
            (
                row.0,
                row.1,
                row.2.as_str(),
                row.3,
                row.4,
                row.5,
                row.6 != 0
            ),
            (w.a, device, "cam0", s.start_ms, s.end_ms, s.idle_ms, s.good)
        );
        assert_eq!(
            serde_json::from_str::<Vec<Segment>>(&row.7).unwrap(),
            s.segments
        );
    }
);

/// SQLite's cycle writer has a connection of its own: while another connection writes,
/// it waits for it and then stores the batch (it does not fail the batch).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_cycle_writer_waits_for_another_connections_write() {
    use gemba_cloud::db::cycles::{Received, Stored, insert_cycles};
    let app = TestApp::start(Backend::Sqlite).await;
    let w = world(&app).await;
    let device = enrolled(&app, &w.boss, "Bench").await.device;
    let db = app.state.db.clone();
    let mut other = db.pool.begin().await.unwrap();
    sqlx::query("UPDATE devices SET display_name = 'Renamed' WHERE id = $1")
        .bind(device)
        .execute(&mut *other)
        .await
        .unwrap();
    let c = cycle(w.task);
    let org = w.a;
    let writing = tokio::spawn(async move {
        let r = Received {
            org,
            device,
            cycle: c,
        };
        insert_cycles(&db, &[r]).await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !writing.is_finished(),
        "wrote while another connection held the lock"
    );
    other.commit().await.unwrap();
    assert_eq!(writing.await.unwrap().unwrap(), [Stored::New]);
    assert_eq!(cycles_stored(&app).await, 1);
}

both!(
    deleting_a_device_keeps_its_cycles_and_deleting_an_organisation_deletes_its_own,
    |app: TestApp| async move {
        let w = world(&app).await;
        let eng_b = app.signed_in("eng@b.test", "org_user", w.b).await;
        let task_b = task(&app, &eng_b, "Valve\nFit:\nPlace;\nCheck:\nLook;\n")
            .await
            .id;
        let mut a = TestDevice::of(&enrolled(&app, &w.boss, "A1").await).await;
        let mut b = TestDevice::of(&enrolled(&app, &w.boss_b, "B1").await).await;
        let (ca, cb) = (cycle(w.task), cycle(task_b));
        a.send_cycle(&ca).await;
        b.send_cycle(&cb).await;
        let _: v1::CyclesAck = a.next(Channel::CyclesAck).await;
        let _: v1::CyclesAck = b.next(Channel::CyclesAck).await;
        assert_eq!(cycles_stored(&app).await, 2);
        let device_of = |id: String| {
            let pool = app.state.db.pool.clone();
            async move {
                sqlx::query_scalar::<_, Option<i64>>("SELECT device_id FROM cycles WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&pool)
                    .await
                    .unwrap()
            }
        };
        assert_eq!(device_of(ca.id.clone()).await, Some(Some(a.id)));

        // Another organisation's admin cannot delete the device; its own can, and the
        // cycle stays, naming no device.
        let (s, _) = app.delete(&format!("device/{}/", a.id), &w.boss_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(device_of(ca.id.clone()).await, Some(Some(a.id)));
        let (s, v) = app.delete(&format!("device/{}/", a.id), &w.boss).await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        assert_eq!(device_of(ca.id.clone()).await, Some(None));
        assert_eq!(device_of(cb.id.clone()).await, Some(Some(b.id)));

        // Deleting organisation B deletes B's cycle, and only it.
        let (s, v) = app
            .delete(&format!("organization/{}/", w.b), &w.admin)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        assert_eq!(device_of(cb.id.clone()).await, None);
        assert_eq!(device_of(ca.id.clone()).await, Some(None));
        assert_eq!(cycles_stored(&app).await, 1);
    }
);
