//! What a device keeps and acts on while offline (issue 29): its remote cameras
//! (`remote_cams.rs`), the blur regions of its cameras (`blur.rs`), its schedules in the
//! organisation's time zone (`schedules.rs`), each checked with nothing half-written on
//! a refusal, and the whole configuration sent to the device after every change and
//! again while its status says it is behind (`sending.rs`); whether it sends its
//! analytics now (`analytics.rs`). The device is a test
//! device on the real broker, answering as the agent does.

mod analytics;
mod blur;
mod remote_cams;
mod schedules;
mod sending;

use std::time::Duration;

use gemba_shared::api::v1::device::DeviceDetails;
use gemba_shared::api::v1::stream::ServerEvent;
use gemba_shared::mqtt::v1::{self, Channel, Command, DeviceConfig};

use crate::common::*;
use crate::devices::{TestDevice, World, enrolled, world};

/// A status of an online device with `cameras`, applying configuration `version`.
pub(crate) fn status(cameras: &[&str], version: i64) -> v1::StatusMessage {
    v1::StatusMessage {
        v: 1,
        online: true,
        ts_ms: 1,
        agent_version: "test".into(),
        cameras: cameras
            .iter()
            .map(|c| v1::CameraStatus {
                camera: (*c).into(),
                ..v1::CameraStatus::default()
            })
            .collect(),
        outbox: 0,
        disk_free_mb: None,
        temperature_c: None,
        config_version: version,
        target: String::new(),
        updatable: false,
        update: None,
        faults: vec![],
    }
}

/// A world (organisations A and B, their people, a task of A) and an enrolled device
/// "Bench" of A, online with cameras cam0 and cam1.
pub(crate) struct Bench {
    pub(crate) w: World,
    pub(crate) id: i64,
    pub(crate) dev: TestDevice,
    pub(crate) seen: Seen,
}

/// What the device took: the ids of its commands (the broker may deliver one twice, at
/// least once; the agent takes each once) and the newest configuration version.
#[derive(Default)]
pub(crate) struct Seen {
    ids: std::collections::HashSet<String>,
    version: i64,
}

pub(crate) async fn bench(app: &TestApp) -> Bench {
    let w = world(app).await;
    let creds = enrolled(app, &w.boss, "Bench").await;
    let dev = TestDevice::of(&creds).await;
    // Until the cloud has done all its first status calls for (its event comes last), a
    // change made now could be sent twice.
    let mut events = app.state.events.subscribe();
    dev.send_status(&status(&["cam0", "cam1"], 0)).await;
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let e = events.recv().await.expect("the cloud's events");
            if e.device == creds.device
                && matches!(&e.event, ServerEvent::DeviceStatus(s) if s.online)
            {
                return;
            }
        }
    })
    .await
    .expect("the device's first status taken within 10 s");
    online(app, creds.device, &w.eng, true).await;
    Bench {
        w,
        id: creds.device,
        dev,
        seen: Default::default(),
    }
}

/// Waits until the cloud has device `id` `online`.
pub(crate) async fn online(app: &TestApp, id: i64, tok: &str, online: bool) {
    for _ in 0..400 {
        let d: DeviceDetails = app
            .get_as(&format!("device/{id}/device_details/"), tok)
            .await;
        if d.device.online == online {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("device {id} never became online = {online}");
}

/// The next command to `dev` within `wait`, if any.
pub(crate) async fn command_within(
    dev: &mut TestDevice,
    wait: Duration,
) -> Option<v1::CommandMessage> {
    tokio::time::timeout(wait, dev.next(Channel::Cmd))
        .await
        .ok()
}

/// The next configuration sent to `dev` newer than any `seen` (noted): its command's id
/// and the configuration. One sent again is passed over: a status that predates a
/// change may be read after the change's commit and before its own send, and then
/// both send it (harmless: the agent applies a version once).
pub(crate) async fn next_config(dev: &mut TestDevice, seen: &mut Seen) -> (String, DeviceConfig) {
    loop {
        let (id, config) = config_again(dev, seen).await;
        if config.version > seen.version {
            seen.version = config.version;
            return (id, config);
        }
    }
}

/// The next command to `dev` not `seen` before (noted), which must be a configuration,
/// whichever its version: its id and the configuration.
pub(crate) async fn config_again(dev: &mut TestDevice, seen: &mut Seen) -> (String, DeviceConfig) {
    loop {
        let c: v1::CommandMessage = dev.next(Channel::Cmd).await;
        if !seen.ids.insert(c.id.clone()) {
            continue;
        }
        match c.command {
            Command::Config { config } => return (c.id, config),
            other => panic!("a configuration, not {other:?}"),
        }
    }
}

/// The device's configuration version as the cloud keeps it.
pub(crate) async fn version(app: &TestApp, id: i64) -> i64 {
    gemba_cloud::db::device_config::version(&app.state.db, id)
        .await
        .unwrap()
        .unwrap()
}
