//! Devices (issue 5): adding and enrolling, the device calls, commands, and ingestion of
//! what devices publish on the broker, checked against each device's credentials; on
//! both backends, through the embedded broker. A test device is a real MQTT client
//! (rumqttc) speaking the contract of `gemba_shared::mqtt::v1`.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gemba_shared::cycle::{Cycle, Segment};
use gemba_shared::mqtt::v1::{self, Channel, CycleMessage};
use reqwest::StatusCode;
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

pub(crate) async fn world(app: &TestApp) -> World {
    let admin = app.admin_token().await;
    let a = app.create_org(&admin, "Plant A").await;
    let b = app.create_org(&admin, "Plant B").await;
    for org in [a, b] {
        app.subscribe(&admin, org, "Devices").await;
        app.subscribe(&admin, org, "Define Operation").await;
    }
    let eng = app.signed_in("eng@a.test", "org_user", a).await;
    let (s, t) = app
        .post(
            "organization/task/",
            json!({"task_detail": "Pump\nFit:\nPlace;\nCheck:\nLook;\n"}),
            Some(&eng),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    World {
        boss: app.signed_in("boss@a.test", "org_admin", a).await,
        analyst: app.signed_in("analyst@a.test", "analytics_user", a).await,
        boss_b: app.signed_in("boss@b.test", "org_admin", b).await,
        eng,
        admin,
        a,
        b,
        task: t["id"].as_i64().unwrap(),
    }
}

/// Adds a device as `tok`; answers the enrolment answer.
pub(crate) async fn add(app: &TestApp, tok: &str, name: &str) -> Value {
    let (s, v) = app
        .post("device/", json!({"display_name": name}), Some(tok))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v
}

/// Enrols with `code`; the credentials.
pub(crate) async fn enrol(app: &TestApp, code: &str) -> Value {
    let (s, v) = app
        .post("device/enroll/", json!({"code": code}), None)
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v
}

/// Adds a device as `tok` and enrols it; answers the credentials.
pub(crate) async fn added_and_enrolled(app: &TestApp, tok: &str, name: &str) -> Value {
    let code = add(app, tok, name).await["code"]
        .as_str()
        .unwrap()
        .to_string();
    enrol(app, &code).await
}

/// A device as the broker sees it: its credentials and a connected client.
pub(crate) struct TestDevice {
    pub(crate) org: i64,
    pub(crate) id: i64,
    pub(crate) kid: String,
    pub(crate) key: Vec<u8>,
    pub(crate) client: AsyncClient,
    pub(crate) rx: tokio::sync::mpsc::UnboundedReceiver<(String, Vec<u8>)>,
}

impl TestDevice {
    pub(crate) async fn connect(creds: &Value) -> TestDevice {
        let org = creds["organization"].as_i64().unwrap();
        let id = creds["device"].as_i64().unwrap();
        // The broker the cloud told the device of: the embedded one or an external one.
        let (host, port) = gemba_cloud::mqtt::broker_address(creds["mqtt"].as_str().unwrap())
            .expect("a broker address");
        let mut opts = MqttOptions::new(
            format!("test-dev-{}", uuid::Uuid::new_v4().simple()),
            host,
            port,
        );
        opts.set_keep_alive(Duration::from_secs(10));
        opts.set_max_packet_size(1024 * 1024, 1024 * 1024);
        let (client, mut events) = AsyncClient::new(opts, 100);
        for c in [Channel::Cmd, Channel::CyclesAck] {
            client
                .subscribe(
                    v1::topic(&org.to_string(), &id.to_string(), c),
                    QoS::AtLeastOnce,
                )
                .await
                .unwrap();
        }
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let mut ready = Some(ready_tx);
            let mut acks = 0;
            while let Ok(ev) = events.poll().await {
                match ev {
                    Event::Incoming(Packet::SubAck(_)) => {
                        acks += 1;
                        if acks == 2
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
        });
        tokio::time::timeout(Duration::from_secs(10), ready_rx)
            .await
            .expect("subscribed")
            .unwrap();
        TestDevice {
            org,
            id,
            kid: creds["credential_id"].as_i64().unwrap().to_string(),
            key: STANDARD.decode(creds["key"].as_str().unwrap()).unwrap(),
            client,
            rx,
        }
    }

    pub(crate) fn topic(&self, c: Channel) -> String {
        v1::topic(&self.org.to_string(), &self.id.to_string(), c)
    }

    /// Acknowledges command `id` as the agent does.
    pub(crate) async fn ack(&self, id: &str, ok: bool, message: &str) {
        let ack = v1::CommandAck {
            v: 1,
            id: id.into(),
            ok,
            message: message.into(),
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

    /// Publishes a status, signed with the device's key.
    pub(crate) async fn send_status(&self, s: &v1::StatusMessage) {
        self.publish(
            self.topic(Channel::Status),
            v1::sign(&self.key, &self.kid, s),
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

async fn cycles_stored(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM cycles")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

async fn health(app: &TestApp) -> Value {
    let r = app
        .client
        .get(format!("{}/health", app.base))
        .send()
        .await
        .unwrap();
    r.json().await.unwrap()
}

/// Waits until `/api/health` counts `field` at least `n`.
async fn counted(app: &TestApp, field: &str, n: u64) -> Value {
    for _ in 0..200 {
        let h = health(app).await;
        if h["ingest"][field].as_u64().unwrap() >= n {
            return h;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{field} never reached {n}: {}", health(app).await);
}

both!(
    a_device_is_added_enrolled_once_and_its_cycles_are_stored_once,
    |app: TestApp| async move {
        let w = world(&app).await;
        let added = add(&app, &w.boss, "Bench 1").await;
        let code = added["code"].as_str().unwrap().to_string();
        assert_eq!(code.len(), 14, "{code}");
        assert!(
            added["command"]
                .as_str()
                .unwrap()
                .ends_with(&format!("--code {code}"))
        );
        assert_eq!(added["device"]["enrolled"], false);
        assert_eq!(added["device"]["Type"], "workstation");
        // The code works typed in lower case without dashes, once.
        let creds = enrol(&app, &code.replace('-', "").to_lowercase()).await;
        assert_eq!(creds["organization"], w.a);
        assert_eq!(creds["mqtt"], format!("mqtt://{}", app.mqtt));
        let (s, v) = app
            .post("device/enroll/", json!({"code": code}), None)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["code"][0], "The enrolment code is wrong or expired.");
        let id = creds["device"].as_i64().unwrap();
        let (_, d) = app
            .get(&format!("device/{id}/device_details/"), &w.eng)
            .await;
        assert_eq!(d["enrolled"], true);

        let mut dev = TestDevice::connect(&creds).await;
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
        let (_, stats) = app.get("device/devices_stats/", &w.eng).await;
        assert_eq!(
            (stats["total"].as_i64(), stats["cycles_24h"].as_i64()),
            (Some(1), Some(1))
        );

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
        };
        dev.publish(
            dev.topic(Channel::Status),
            v1::sign(&dev.key, &dev.kid, &status),
        )
        .await;
        let mut online = Value::Null;
        for _ in 0..200 {
            let (_, d) = app
                .get(&format!("device/{id}/device_details/"), &w.eng)
                .await;
            if d["online"] == true {
                online = d;
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(online["status"]["cameras"][0]["fps"], 15.0, "{online}");
        let (_, active) = app.get("device/get_active_devices/", &w.eng).await;
        assert_eq!(active.as_array().unwrap().len(), 1);

        // Revoked: the device's messages are refused from now on.
        let (s, d) = app
            .post(&format!("device/{id}/revoke/"), json!({}), Some(&w.boss))
            .await;
        assert_eq!((s, &d["enrolled"]), (StatusCode::OK, &json!(false)), "{d}");
        dev.send_cycle(&cycle(w.task)).await;
        counted(&app, "rejected", 1).await;
        assert_eq!(cycles_stored(&app).await, 1);
        // A new code enrols it again, with a new key id; the old key stays refused.
        let (s, again) = app
            .post(
                &format!("device/{id}/enrolment_code/"),
                json!({}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{again}");
        let creds2 = enrol(&app, again["code"].as_str().unwrap()).await;
        assert_ne!(creds2["credential_id"], creds["credential_id"]);
        dev.send_cycle(&cycle(w.task)).await;
        counted(&app, "rejected", 2).await;
        let dev2 = TestDevice::connect(&creds2).await;
        dev2.send_cycle(&cycle(w.task)).await;
        counted(&app, "cycles", 2).await;
        assert_eq!(cycles_stored(&app).await, 2);
    }
);

both!(
    bad_and_forged_messages_are_refused_counted_and_store_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let code = |v: Value| v["code"].as_str().unwrap().to_string();
        let a = enrol(&app, &code(add(&app, &w.boss, "A1").await)).await;
        let a2 = enrol(&app, &code(add(&app, &w.boss, "A2").await)).await;
        let b = enrol(&app, &code(add(&app, &w.boss_b, "B1").await)).await;
        let dev = TestDevice::connect(&a).await;
        let other = TestDevice::connect(&a2).await;
        let dev_b = TestDevice::connect(&b).await;
        let c = cycle(w.task);
        let json = serde_json::to_vec(&c).unwrap();
        let cycles = dev.topic(Channel::Cycles);
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
            // A1 publishing for A2, and for A1 under organisation B.
            (
                other.topic(Channel::Cycles),
                v1::sign(&dev.key, &dev.kid, &c),
            ),
            (
                v1::topic(&w.b.to_string(), &dev.id.to_string(), Channel::Cycles),
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
                format!("gemba/v1/{}/x/cycles", w.a),
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
        let h = health(&app).await;
        assert_eq!(h["ingest"]["rejected"].as_u64(), Some(n + 1), "{h}");
        assert_eq!(cycles_stored(&app).await, 1);
        let (_, d) = app
            .get(&format!("device/{}/device_details/", dev.id), &w.eng)
            .await;
        assert_eq!(d["online"], false, "a malformed status changed nothing");
        // The device's page shows that cycle alone, with its task's step names.
        assert_eq!(
            d["recent_cycles"],
            json!([{
                "id": good.id, "task": w.task, "device": dev.id, "camera": "cam0", "start_ms": 1000,
                "end_ms": 9000, "idle_ms": 1000, "good": true, "reasons": [],
                "segments": [
                    {"step": 0, "start_ms": 1000, "end_ms": 4000},
                    {"step": 1, "start_ms": 5000, "end_ms": 9000}
                ]
            }]),
            "{d}"
        );
        assert_eq!(
            d["task_steps"],
            json!({w.task.to_string(): ["Fit", "Check"]})
        );
    }
);

both!(
    tasks_start_and_stop_by_signed_commands_and_a_running_task_is_not_changed,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = added_and_enrolled(&app, &w.boss, "Bench").await;
        let mut dev = TestDevice::connect(&creds).await;
        let id = dev.id;
        let (s, d) = app
            .post(
                &format!("device/{id}/start_task/"),
                json!({"camera": "cam0", "task": w.task}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{d}");
        assert_eq!(
            d["tasks"],
            json!([{"camera": "cam0", "task": w.task, "task_name": "Pump", "running": true,
                    "refused": null, "refused_at": null}])
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
        let mut seen = Value::Null;
        for _ in 0..200 {
            let (_, c) = app.get(&format!("device/{id}/commands/"), &w.eng).await;
            if c[0]["ok"] == true {
                seen = c;
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(seen[0]["message"], "started", "{seen}");
        assert_eq!(seen[0]["command"]["type"], "start_task");

        let (_, status) = app
            .get("organization/task/task_inference_status", &w.analyst)
            .await;
        assert_eq!(status[0]["device"], id);
        assert_eq!(status[0]["camera"], "cam0");
        let (_, assoc) = app
            .get(
                &format!(
                    "device/get_device_tasks_association/?task={}&device={id}",
                    w.task
                ),
                &w.eng,
            )
            .await;
        assert_eq!(
            assoc,
            json!({"task": w.task, "device": id, "associated": true, "running": true, "cameras": ["cam0"]})
        );

        // Issue 4: a task being performed on a device cannot be updated.
        let (s, v) = app
            .patch(
                &format!("organization/task/{}/", w.task),
                json!({"taskName": "Pump 2"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "Pump is being performed, You cannot update the task when it is being performed."
        );
        // Nor its detector's objects.
        let (s, v) = app
            .post(
                "organization/task/task_object/",
                json!({"task": w.task, "name": "Jig", "is_static": true}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            "Pump is being performed, You cannot update the task when it is being performed."
        );
        // Starring is not a change of the task.
        let (s, _) = app
            .patch(
                &format!("organization/task/{}/", w.task),
                json!({"starred": true}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK);

        let (s, d) = app
            .post(
                &format!("device/{id}/stop_task/"),
                json!({"camera": "cam0"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (s, &d["tasks"][0]["running"]),
            (StatusCode::OK, &json!(false)),
            "{d}"
        );
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        assert!(
            matches!(&cmd.command, v1::Command::StopTask { camera, task: Some(t), generation }
                if camera == "cam0" && *t == w.task && *generation > 0),
            "{cmd:?}"
        );
        let (s, _) = app
            .patch(
                &format!("organization/task/{}/", w.task),
                json!({"taskName": "Pump 2"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        // Stopped already: nothing to stop, and no second command.
        let (s, v) = app
            .post(
                &format!("device/{id}/stop_task/"),
                json!({"camera": "cam0"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (s, &v["camera"][0]),
            (StatusCode::BAD_REQUEST, &json!("This camera runs no task."))
        );

        // Bad input: a camera name that is not one, another organisation's task, a
        // camera that runs nothing.
        let bad = [
            (json!({"camera": "cam 0", "task": w.task}), "camera"),
            (json!({"camera": "cam0", "task": 999_999}), "task"),
        ];
        for (body, field) in bad {
            let (s, v) = app
                .post(&format!("device/{id}/start_task/"), body, Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field][0].is_string(), "{v}");
        }
        let (s, v) = app
            .post(
                &format!("device/{id}/stop_task/"),
                json!({"camera": "cam9"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (s, &v["camera"][0]),
            (StatusCode::BAD_REQUEST, &json!("This camera runs no task."))
        );
        let (s, _) = app
            .post(
                &format!("device/{id}/start_task/"),
                json!({"camera": "cam0", "task": w.task}),
                Some(&w.boss_b),
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
        let (s, v) = app
            .patch(
                &format!("device/{}/device_settings_update/{id}/", w.a),
                json!({"fps": 10}),
                Some(&w.eng),
            )
            .await;
        assert_eq!((s, &v["settings"]), (StatusCode::OK, &json!({"fps": 10})));
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
        let one = add(&app, &w.boss, "Zeta").await["device"]["id"]
            .as_i64()
            .unwrap();
        let two = add(&app, &w.boss, "alpha").await["device"]["id"]
            .as_i64()
            .unwrap();
        let (s, v) = app
            .post(
                "device/",
                json!({"display_name": "Dept", "Type": "departmental device"}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let names = |v: &Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|d| d["display_name"].as_str().unwrap().to_string())
                .collect()
        };
        let (_, list) = app
            .get(&format!("device/device_org/{}/", w.a), &w.eng)
            .await;
        assert_eq!(
            names(&list),
            ["alpha", "Zeta"],
            "departmental devices are hidden"
        );
        // Starred first, per user.
        let (s, _) = app
            .patch(
                &format!("device/{one}/"),
                json!({"starred": true}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (_, list) = app
            .get(&format!("device/device_org/{}/", w.a), &w.eng)
            .await;
        assert_eq!(names(&list), ["Zeta", "alpha"]);
        assert_eq!(list[0]["starred"], true);
        let (_, list) = app
            .get(&format!("device/device_org/{}/", w.a), &w.boss)
            .await;
        assert_eq!(names(&list), ["alpha", "Zeta"]);
        // Changes, and bad values that change nothing.
        let (s, d) = app
            .patch(
                &format!("device/update_device/{two}/"),
                json!({"display_name": " Alpha ", "Serial_number": "SN-1"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (s, &d["display_name"], &d["Serial_number"]),
            (StatusCode::OK, &json!("Alpha"), &json!("SN-1"))
        );
        for (body, field, msg) in [
            (
                json!({"display_name": " "}),
                "display_name",
                "Device name is required!",
            ),
            (
                json!({"display_name": "x".repeat(101)}),
                "display_name",
                "Device name must be at most 100 characters.",
            ),
            (
                json!({"Serial_number": "a\u{0}"}),
                "Serial_number",
                "Serial number must not contain control characters.",
            ),
        ] {
            let (s, v) = app
                .patch(&format!("device/{two}/"), body, Some(&w.eng))
                .await;
            assert_eq!((s, &v[field][0]), (StatusCode::BAD_REQUEST, &json!(msg)));
        }
        let (s, _) = app
            .patch(&format!("device/{two}/"), json!({"nope": 1}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let (_, d) = app
            .get(&format!("device/{two}/device_details/"), &w.eng)
            .await;
        assert_eq!(d["display_name"], "Alpha");
        let (s, v) = app.post("device/", json!({}), Some(&w.boss)).await;
        assert_eq!(
            (s, &v["display_name"][0]),
            (StatusCode::BAD_REQUEST, &json!("Device name is required!"))
        );
        let (s, v) = app
            .post(
                "device/",
                json!({"display_name": "X", "department": 999_999}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(
            (s, &v["department"][0]),
            (StatusCode::BAD_REQUEST, &json!("No such department."))
        );
        // Departments.
        let (_, less) = app
            .get(
                &format!("device/{}/get_department_less_devices/", w.a),
                &w.eng,
            )
            .await;
        assert_eq!(less.as_array().unwrap_or_else(|| panic!("{less}")).len(), 3);
        let (s, dept) = app
            .post(
                &format!("organization/{}/department/", w.a),
                json!({"name": "Assembly"}),
                Some(&w.boss),
            )
            .await;
        assert!(s.is_success(), "{dept}");
        let (s, d) = app
            .patch(
                &format!("device/{two}/assign_device_to_department/{}/", dept["id"]),
                json!({}),
                Some(&w.boss),
            )
            .await;
        assert_eq!((s, &d["department"]), (StatusCode::OK, &dept["id"]), "{d}");
        let (_, less) = app
            .get(
                &format!("device/{}/get_department_less_devices/", w.a),
                &w.eng,
            )
            .await;
        assert_eq!(less.as_array().unwrap().len(), 2);
        // Archive (credentials revoked, hidden), bring back, delete.
        let (s, d) = app
            .patch(
                &format!("device/archive_device/{one}/"),
                json!({}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(
            (s, &d["is_archived"]),
            (StatusCode::OK, &json!(true)),
            "{d}"
        );
        let (_, list) = app
            .get(&format!("device/device_org/{}/", w.a), &w.eng)
            .await;
        assert_eq!(names(&list), ["Alpha"]);
        let (_, list) = app
            .get(&format!("device/device_org/{}/?archived=true", w.a), &w.eng)
            .await;
        assert_eq!(names(&list), ["Zeta"]);
        let (s, v) = app
            .post(
                &format!("device/{one}/enrolment_code/"),
                json!({}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(
            (s, &v["non_field_errors"][0]),
            (
                StatusCode::BAD_REQUEST,
                &json!("An archived device cannot be enrolled.")
            )
        );
        let (s, d) = app
            .patch(
                &format!("device/archive_device/{one}/"),
                json!({"is_archived": false}),
                Some(&w.boss),
            )
            .await;
        assert_eq!((s, &d["is_archived"]), (StatusCode::OK, &json!(false)));
        let (s, _) = app.delete(&format!("device/{one}/"), &w.boss).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        // Archiving by PATCH revokes the credentials too.
        let creds = enrol(
            &app,
            add(&app, &w.boss, "Spare").await["code"].as_str().unwrap(),
        )
        .await;
        let spare = creds["device"].as_i64().unwrap();
        let (s, d) = app
            .patch(
                &format!("device/{spare}/"),
                json!({"is_archived": true}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(
            (s, &d["is_archived"], &d["enrolled"]),
            (StatusCode::OK, &json!(true), &json!(false)),
            "{d}"
        );
        let (s, _) = app
            .get(&format!("device/{one}/device_details/"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Roles: an engineer runs devices but does not add or delete them; analytics
        // users do not see them.
        let (s, _) = app
            .post("device/", json!({"display_name": "X"}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app.delete(&format!("device/{two}/"), &w.eng).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .get(&format!("device/device_org/{}/", w.a), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Tenancy: organisation B sees none of A's devices.
        let (s, _) = app
            .get(&format!("device/device_org/{}/", w.a), &w.boss_b)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        for path in [
            format!("device/{two}/device_details/"),
            format!("device/get_device_tasks/{two}"),
        ] {
            let (s, _) = app.get(&path, &w.boss_b).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
        }
        let (s, _) = app
            .patch(
                &format!("device/{two}/"),
                json!({"display_name": "Mine"}),
                Some(&w.boss_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (_, list) = app
            .get(&format!("device/device_org/{}/", w.b), &w.boss_b)
            .await;
        assert_eq!(list, json!([]));
        // The super admin's All Devices sees every organisation's.
        let (s, all) = app.get("device/devicelistadminview?page=1", &w.admin).await;
        assert_eq!(
            (s, all["count"].as_i64()),
            (StatusCode::OK, Some(2)),
            "{all}"
        );
        // Without the Devices subscription, devices are read but not changed.
        let c = app.create_org(&w.admin, "Plant C").await;
        let boss_c = app.signed_in("boss@c.test", "org_admin", c).await;
        let (s, v) = app
            .post("device/", json!({"display_name": "X"}), Some(&boss_c))
            .await;
        assert_eq!(
            (s, &v["detail"]),
            (
                StatusCode::FORBIDDEN,
                &json!("Devices is not enabled for this organization.")
            ),
            "{v}"
        );
        let (s, _) = app.get(&format!("device/device_org/{c}/"), &boss_c).await;
        assert_eq!(s, StatusCode::OK);
    }
);

#[tokio::test]
async fn enrolment_codes_that_are_wrong_or_malformed_get_one_answer() {
    let app = TestApp::start(crate::common::Backend::Sqlite).await;
    for body in [
        json!({"code": "AAAA-BBBB-CCCC"}),
        json!({"code": ""}),
        json!({"code": "x".repeat(10_000)}),
    ] {
        let (s, v) = app.post("device/enroll/", body, None).await;
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
        let creds = added_and_enrolled(&app, &w.boss, "Bench").await;
        let id = creds["device"].as_i64().unwrap();
        // Started from the portal while the device is not connected: the broker keeps
        // nothing for it.
        let (s, v) = app
            .post(
                &format!("device/{id}/start_task/"),
                json!({"camera": "cam0", "task": w.task}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let mut dev = TestDevice::connect(&creds).await;
        let status = |cameras: Vec<v1::CameraStatus>| v1::StatusMessage {
            v: 1,
            online: true,
            ts_ms: 1,
            agent_version: "test".into(),
            cameras,
            outbox: 0,
            disk_free_mb: None,
            temperature_c: None,
        };
        let camera = |name: &str, task: i64| v1::CameraStatus {
            camera: name.into(),
            task: Some(task),
            fps: 15.0,
            model_version: None,
            ..v1::CameraStatus::default()
        };
        // Online, running nothing: told to start cam0's task.
        dev.publish(
            dev.topic(Channel::Status),
            v1::sign(&dev.key, &dev.kid, &status(vec![])),
        )
        .await;
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        assert!(
            matches!(&cmd.command, v1::Command::StartTask { camera, task, .. } if camera == "cam0" && *task == w.task),
            "{cmd:?}"
        );
        dev.ack(&cmd.id, true, "started").await;
        // Running it, and on cam1 something the portal never set: told to stop cam1 only.
        dev.publish(
            dev.topic(Channel::Status),
            v1::sign(
                &dev.key,
                &dev.kid,
                &status(vec![camera("cam0", w.task), camera("cam1", w.task)]),
            ),
        )
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
        dev.publish(
            dev.topic(Channel::Status),
            v1::sign(&dev.key, &dev.kid, &status(vec![camera("cam0", w.task)])),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (_, cmds) = app.get(&format!("device/{id}/commands/"), &w.eng).await;
        assert_eq!(cmds.as_array().unwrap().len(), 3, "{cmds}");
    }
);

both_with!(
    a_camera_that_does_not_start_is_told_again_with_back_off,
    |s: &mut gemba_cloud::config::Settings| s.reconcile_retry_ms = 1_500,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = added_and_enrolled(&app, &w.boss, "Bench").await;
        let id = creds["device"].as_i64().unwrap();
        let mut dev = TestDevice::connect(&creds).await;
        let (s, v) = app
            .post(
                &format!("device/{id}/start_task/"),
                json!({"camera": "cam0", "task": w.task}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let idle = v1::StatusMessage {
            v: 1,
            online: true,
            ts_ms: 1,
            agent_version: "test".into(),
            cameras: vec![],
            outbox: 0,
            disk_free_mb: None,
            temperature_c: None,
        };
        let sent = async |app: &TestApp| {
            let (_, cmds) = app.get(&format!("device/{id}/commands/"), &w.eng).await;
            cmds.as_array().unwrap().len()
        };
        // Its first status (it comes online running nothing) is answered at once.
        let _: v1::CommandMessage = dev.next(Channel::Cmd).await;
        dev.publish(
            dev.topic(Channel::Status),
            v1::sign(&dev.key, &dev.kid, &idle),
        )
        .await;
        // The device acknowledges each start, but its camera does not start (say, the
        // source fails): its heartbeats keep saying so.
        let mut cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        for round in 0..2 {
            dev.ack(&cmd.id, false, "the source failed").await;
            let acked = sent(&app).await;
            for _ in 0..200 {
                let (_, cmds) = app.get(&format!("device/{id}/commands/"), &w.eng).await;
                if cmds[0]["ok"] == false {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            // A heartbeat right after: not told again yet.
            dev.publish(
                dev.topic(Channel::Status),
                v1::sign(&dev.key, &dev.kid, &idle),
            )
            .await;
            tokio::time::sleep(Duration::from_millis(400)).await;
            assert_eq!(sent(&app).await, acked, "round {round}: held back");
            // Once the wait passed (1.5 s, then 3 s), the next heartbeat is answered.
            tokio::time::sleep(Duration::from_millis(1_500 << round)).await;
            dev.publish(
                dev.topic(Channel::Status),
                v1::sign(&dev.key, &dev.kid, &idle),
            )
            .await;
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
            dev.publish(
                dev.topic(Channel::Status),
                v1::sign(&dev.key, &dev.kid, &st),
            )
            .await;
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
        let creds = added_and_enrolled(&app, &w.boss, "Bench").await;
        let dev = TestDevice::connect(&creds).await;
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
        let creds = added_and_enrolled(&app, &w.boss, "Bench").await;
        let device = creds["device"].as_i64().unwrap();
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
    let creds = added_and_enrolled(&app, &w.boss, "Bench").await;
    let device = creds["device"].as_i64().unwrap();
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
        let (s, t) = app
            .post(
                "organization/task/",
                json!({"task_detail": "Valve\nFit:\nPlace;\nCheck:\nLook;\n"}),
                Some(&eng_b),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{t}");
        let task_b = t["id"].as_i64().unwrap();
        let mut a = TestDevice::connect(&added_and_enrolled(&app, &w.boss, "A1").await).await;
        let mut b = TestDevice::connect(&added_and_enrolled(&app, &w.boss_b, "B1").await).await;
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
