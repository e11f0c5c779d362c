//! Freshness (issue 28): a device's signed status or command acknowledgement captured
//! and published again changes nothing. A status counts only when it is newer, on the
//! device's clock, than what the cloud took (an offline one than the last offline one),
//! so the agent's last will (the time its connection began) still says offline after
//! that connection's heartbeats; enrolling anew forgets the device's old clock.

use std::time::Duration;

use gemba_shared::api::v1::device::{DeviceCommand, DeviceDetails};
use gemba_shared::api::v1::device::{EnrolmentCode, TaskInferenceStatus};
use gemba_shared::mqtt::v1::{self, Channel};
use reqwest::Method;
use serde_json::json;

use crate::both;
use crate::common::*;
use crate::devices::{TestDevice, counted, enrol, enrolled, start_task, world};

fn status(online: bool, ts_ms: i64, agent_version: &str) -> v1::StatusMessage {
    v1::StatusMessage {
        v: 1,
        online,
        ts_ms,
        agent_version: agent_version.into(),
        cameras: vec![],
        outbox: 0,
        disk_free_mb: None,
        temperature_c: None,
        config_version: 0,
        target: String::new(),
        updatable: false,
        update: None,
        faults: vec![],
    }
}

/// `s` signed by `dev`, as published.
fn signed(dev: &TestDevice, s: &v1::StatusMessage) -> Vec<u8> {
    v1::sign(&dev.key, &dev.kid, s)
}

async fn publish_status(dev: &TestDevice, payload: &[u8]) {
    dev.publish(dev.topic(Channel::Status), payload.to_vec())
        .await;
}

async fn details(app: &TestApp, id: i64, tok: &str) -> DeviceDetails {
    app.get_as(&format!("device/{id}/device_details/"), tok)
        .await
}

/// Waits until the cloud has device `id` `online`, saying it runs `agent_version`.
async fn shows(app: &TestApp, id: i64, tok: &str, online: bool, agent_version: &str) {
    let mut d = None;
    for _ in 0..400 {
        let v = details(app, id, tok).await;
        let version = v.device.status.as_ref().map(|s| s.agent_version.as_str());
        if v.device.online == online && version == Some(agent_version) {
            return;
        }
        d = Some(v);
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("device {id} never showed online = {online}, {agent_version}: {d:?}");
}

/// The refusals counted so far.
async fn rejected(app: &TestApp) -> u64 {
    app.health().await["ingest"]["rejected"].as_u64().unwrap()
}

/// Publishes `payload` on the device's status channel, waits until the cloud refused
/// it (counted), and checks the device is still as it was: `online`, `agent_version`.
async fn refused(
    app: &TestApp,
    dev: &TestDevice,
    tok: &str,
    payload: &[u8],
    online: bool,
    agent_version: &str,
) {
    let n = rejected(app).await;
    publish_status(dev, payload).await;
    counted(app, "rejected", n + 1).await;
    let d = details(app, dev.id, tok).await;
    let version = d.device.status.as_ref().map(|s| s.agent_version.as_str());
    assert_eq!(
        (d.device.online, version),
        (online, Some(agent_version)),
        "{d:?}"
    );
}

both!(
    a_status_published_again_or_older_changes_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let dev = TestDevice::of(&creds).await;
        let id = dev.id;
        // The device's clock is anywhere: an hour ahead of the cloud's here.
        let t = gemba_cloud::db::now_ms() + 3_600_000;
        publish_status(&dev, &signed(&dev, &status(true, t, "a"))).await;
        shows(&app, id, &w.eng, true, "a").await;
        // It goes offline (its agent stopped), then comes back.
        let offline = signed(&dev, &status(false, t + 1_000, "b"));
        publish_status(&dev, &offline).await;
        shows(&app, id, &w.eng, false, "b").await;
        let online = signed(&dev, &status(true, t + 2_000, "c"));
        publish_status(&dev, &online).await;
        shows(&app, id, &w.eng, true, "c").await;

        // Its "offline" captured and published again; an offline status older than
        // the last offline one; an online one older than the last status: each
        // refused, the device still online as it said last.
        refused(&app, &dev, &w.eng, &offline, true, "c").await;
        let older_offline = signed(&dev, &status(false, t + 500, "d"));
        refused(&app, &dev, &w.eng, &older_offline, true, "c").await;
        let older_online = signed(&dev, &status(true, t + 1_500, "d"));
        refused(&app, &dev, &w.eng, &older_online, true, "c").await;
        // The last status again (what the broker retains and gives the cloud's link
        // when it subscribes again): no news, so not counted as a replay; only the
        // refusal published after it is.
        publish_status(&dev, &online).await;
        refused(&app, &dev, &w.eng, &offline, true, "c").await;

        // Newer: taken. Offline, then its online statuses published again stay refused;
        // the offline one again is no news.
        let offline_again = signed(&dev, &status(false, t + 3_000, "e"));
        publish_status(&dev, &offline_again).await;
        shows(&app, id, &w.eng, false, "e").await;
        publish_status(&dev, &offline_again).await;
        refused(&app, &dev, &w.eng, &online, false, "e").await;
        // Far ahead is fine: the device's clock only has to go on.
        publish_status(&dev, &signed(&dev, &status(true, t + 86_400_000, "f"))).await;
        shows(&app, id, &w.eng, true, "f").await;
        assert_eq!(rejected(&app).await, 5);
    }
);

both!(
    a_device_enrolled_anew_is_heard_with_a_clock_behind_the_old_one,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        let dev = TestDevice::of(&creds).await;
        let t = gemba_cloud::db::now_ms();
        publish_status(&dev, &signed(&dev, &status(true, t, "old"))).await;
        shows(&app, id, &w.eng, true, "old").await;
        publish_status(&dev, &signed(&dev, &status(false, t + 1, "old"))).await;
        shows(&app, id, &w.eng, false, "old").await;
        dev.cut();

        // Enrolled again on a computer whose clock is a day behind: heard, online then
        // offline.
        let code: EnrolmentCode = app
            .send_as(
                Method::POST,
                &format!("device/{id}/enrolment_code/"),
                &json!({}),
                &w.boss,
            )
            .await;
        let creds = enrol(&app, &code.code).await;
        let dev = TestDevice::of(&creds).await;
        let behind = t - 86_400_000;
        publish_status(&dev, &signed(&dev, &status(true, behind, "new"))).await;
        shows(&app, id, &w.eng, true, "new").await;
        publish_status(&dev, &signed(&dev, &status(false, behind + 1, "new"))).await;
        shows(&app, id, &w.eng, false, "new").await;
        assert_eq!(rejected(&app).await, 0);
    }
);

both!(
    a_dropped_connection_s_will_says_offline_and_an_old_will_does_not,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        // As the agent: the will carries the time the connection begins, its statuses
        // the time they are sent (later).
        let t = gemba_cloud::db::now_ms();
        let will_a = status(false, t, "will a");
        let a = TestDevice::with_will(&creds, Some(&will_a)).await;
        for (i, v) in ["a1", "a2", "a3"].into_iter().enumerate() {
            publish_status(&a, &signed(&a, &status(true, t + 1 + i as i64, v))).await;
        }
        shows(&app, id, &w.eng, true, "a3").await;
        // The connection drops: the broker publishes the will, older than the
        // heartbeats, and the device shows offline.
        a.cut();
        shows(&app, id, &w.eng, false, "will a").await;

        // Back on a new connection with its own will.
        let t = t + 1_000;
        let b = TestDevice::with_will(&creds, Some(&status(false, t, "will b"))).await;
        for (i, v) in ["b1", "b2"].into_iter().enumerate() {
            publish_status(&b, &signed(&b, &status(true, t + 1 + i as i64, v))).await;
        }
        shows(&app, id, &w.eng, true, "b2").await;
        // The first connection's will, captured and published again: refused.
        refused(&app, &b, &w.eng, &signed(&b, &will_a), true, "b2").await;
        // This connection drops: its will says offline.
        b.cut();
        shows(&app, id, &w.eng, false, "will b").await;
        assert_eq!(rejected(&app).await, 1);
    }
);

both!(
    a_command_acknowledged_again_changes_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Bench").await;
        let id = creds.device;
        let mut dev = TestDevice::of(&creds).await;
        start_task(&app, id, &w.eng, "cam0", w.task).await;
        let cmd: v1::CommandMessage = dev.next(Channel::Cmd).await;
        // Refused: recorded on the command and on the camera's setting.
        let ack = |ok: bool, message: &str| {
            v1::sign(
                &dev.key,
                &dev.kid,
                &v1::CommandAck {
                    v: 1,
                    id: cmd.id.clone(),
                    ok,
                    message: message.into(),
                    opcua: None,
                },
            )
        };
        let refusal = ack(false, "this device has no camera cam0");
        let commands = format!("device/{id}/commands/");
        dev.publish(dev.topic(Channel::CmdAck), refusal.clone())
            .await;
        let mut answered = None;
        for _ in 0..400 {
            let c: Vec<DeviceCommand> = app.get_as(&commands, &w.eng).await;
            if c[0].acked_at.is_some() {
                answered = Some(c);
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let answered = answered.expect("the acknowledgement recorded");
        assert_eq!(answered[0].ok, Some(false), "{answered:?}");
        let setting = details(&app, id, &w.eng).await.device.tasks;
        assert!(setting[0].refused_at.is_some(), "{setting:?}");
        let running: Vec<TaskInferenceStatus> = app
            .get_as("organization/task/task_inference_status", &w.analyst)
            .await;

        // The same acknowledgement again, and another answer to the same command, later:
        // both refused and counted; the command, the camera's setting and what runs
        // stay as they were.
        tokio::time::sleep(Duration::from_millis(20)).await;
        for (n, payload) in [refusal, ack(true, "started")].into_iter().enumerate() {
            dev.publish(dev.topic(Channel::CmdAck), payload).await;
            counted(&app, "rejected", n as u64 + 1).await;
        }
        let c: Vec<DeviceCommand> = app.get_as(&commands, &w.eng).await;
        assert_eq!(c, answered);
        assert_eq!(details(&app, id, &w.eng).await.device.tasks, setting);
        let now: Vec<TaskInferenceStatus> = app
            .get_as("organization/task/task_inference_status", &w.analyst)
            .await;
        assert_eq!(now, running);
        assert_eq!(rejected(&app).await, 2);
    }
);
