//! Agent releases and their roll-outs (issue 30): uploads checked against the release
//! key, the spec's binary deployment calls, the fleet and a device's update channel,
//! and a roll-out over devices speaking MQTT with their own credentials: waves, the
//! stop on the first roll-back, going on, a device offline meanwhile, one joining
//! later.

use std::time::Duration;

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::device::{Credentials, Device};
use gemba_shared::api::v1::release::{Instance, LatestBranch, Release, ReleaseDeployment};
use gemba_shared::mqtt::v1::{self, Channel, Command, UpdateReport, UpdateState};
use gemba_shared::release::SigningKey;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::devices::{TestDevice, enrolled, world};

/// The signing key the cloud made in its data folder (no `release_public_key`).
fn key(app: &TestApp) -> SigningKey {
    let path = gemba_cloud::release_key::key_path(&app.state.settings.data);
    gemba_cloud::release_key::signing_key(&path).unwrap()
}

fn sha(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    gemba_shared::hex(&Sha256::digest(bytes))
}

/// A binary of `version` (its bytes say so).
fn binary(version: &str) -> Vec<u8> {
    format!("\x7fELF gemba-agent {version}\n")
        .repeat(100)
        .into_bytes()
}

/// Uploads `bytes` as `version` of `target` in `env` on branch `main`, signed with
/// `signature` (default: the cloud's key's).
async fn upload_as(
    app: &TestApp,
    token: &str,
    env: &str,
    version: &str,
    target: &str,
    bytes: Vec<u8>,
    signature: Option<String>,
) -> (StatusCode, Value) {
    let sig = signature
        .unwrap_or_else(|| key(app).sign(target, version, bytes.len() as i64, &sha(&bytes)));
    let r = app
        .client
        .post(format!("{}/binary_deployment/", app.base))
        .query(&[
            ("environment", env),
            ("branch", "main"),
            ("version", version),
            ("target", target),
            ("signature", &sig),
        ])
        .bearer_auth(token)
        .header("content-type", "application/octet-stream")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let s = r.status();
    let text = r.text().await.unwrap();
    (
        s,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn upload(app: &TestApp, admin: &str, env: &str, version: &str) -> Release {
    let (s, v) = upload_as(app, admin, env, version, "x86_64", binary(version), None).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    serde_json::from_value(v).unwrap()
}

/// The release binaries in the object folder.
fn stored(app: &TestApp) -> usize {
    let dir = app.state.settings.data.join("objects/platform/releases");
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

both!(
    a_signed_binary_is_kept_and_a_refused_one_leaves_nothing,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let bytes = binary("1.0.0");
        let (s, v) = upload_as(&app, &admin, "dev", "1.0.0", "x86_64", bytes.clone(), None).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let r: Release = serde_json::from_value(v).unwrap();
        assert_eq!(
            (
                r.running_environment.as_str(),
                r.version_number.as_str(),
                r.size_bytes,
                r.sha256.as_str(),
                r.current_state.as_str()
            ),
            (
                "dev",
                "1.0.0",
                bytes.len() as i64,
                sha(&bytes).as_str(),
                "uploaded"
            )
        );
        assert_eq!(stored(&app), 1);
        // The signature of another version, of another key, not a signature at all.
        let other = SigningKey::generate().unwrap();
        for sig in [
            key(&app).sign("x86_64", "1.0.0", bytes.len() as i64, &sha(&bytes)),
            other.sign("x86_64", "1.0.1", bytes.len() as i64, &sha(&bytes)),
            "AAAA".to_string(),
        ] {
            let (s, v) = upload_as(
                &app,
                &admin,
                "dev",
                "1.0.1",
                "x86_64",
                bytes.clone(),
                Some(sig),
            )
            .await;
            assert_eq!(
                (s, &v),
                (
                    StatusCode::BAD_REQUEST,
                    &json!({"signature": ["The signature does not match the release key."]})
                )
            );
        }
        assert_eq!(stored(&app), 1, "nothing of a refused upload stays");
        // The same version again for the same target; bad names.
        let (s, v) = upload_as(&app, &admin, "dev", "1.0.0", "x86_64", bytes.clone(), None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v["version"][0],
            "Version 1.0.0 for x86_64 is already uploaded."
        );
        for (env, version, target, field) in [
            ("staging", "1.0.2", "x86_64", "environment"),
            ("dev", "1.0.2", "riscv64", "target"),
            ("dev", "../1", "x86_64", "version"),
        ] {
            let (s, v) = upload_as(&app, &admin, env, version, target, bytes.clone(), None).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field].is_array(), "{field}: {v}");
        }
        // The same version for the other target is another release.
        let (s, v) = upload_as(&app, &admin, "dev", "1.0.0", "aarch64", bytes.clone(), None).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(stored(&app), 2);
        // A binary of megabytes: past the JSON bodies' limit, streamed.
        let big = vec![7u8; 3 << 20];
        let (s, v) = upload_as(&app, &admin, "dev", "1.0.3", "x86_64", big.clone(), None).await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        assert_eq!(v["sha256"], json!(sha(&big)));
        assert_eq!(stored(&app), 3);
        // Too large: nothing stays either.
        let small = TestApp::start_with(Backend::Sqlite, |s| s.max_release_bytes = 1000).await;
        let a2 = small.admin_token().await;
        let (s, _) = upload_as(&small, &a2, "dev", "1.0.0", "x86_64", binary("1.0.0"), None).await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(stored(&small), 0);
        // Only the super admin.
        let w = world(&app).await;
        let (s, _) = upload_as(&app, &w.boss, "dev", "1.0.9", "x86_64", bytes, None).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);

both!(
    releases_are_paged_downloaded_moved_and_deleted,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        for i in 0..11 {
            upload(&app, &admin, "dev", &format!("1.0.{i}")).await;
        }
        let page1: Page<Release> = app
            .get_as("binary_deployment/previous_releases/?page=1", &admin)
            .await;
        assert_eq!((page1.count, page1.results.len()), (11, 10));
        assert_eq!(page1.results[0].version_number, "1.0.10", "newest first");
        let page2: Page<Release> = app
            .get_as("binary_deployment/previous_releases/?page=2", &admin)
            .await;
        assert_eq!(page2.results.len(), 1);
        assert_eq!(page2.results[0].version_number, "1.0.0");
        let (s, v) = app
            .get("binary_deployment/previous_releases/?page=0", &admin)
            .await;
        assert_eq!(
            (s, &v["page"][0]),
            (StatusCode::BAD_REQUEST, &json!("Invalid page."))
        );

        // Download: a version, the branch's newest, nothing.
        let get = async |q: &str| {
            app.client
                .get(format!(
                    "{}/binary_deployment/download_binaries/?{q}",
                    app.base
                ))
                .bearer_auth(&admin)
                .send()
                .await
                .unwrap()
        };
        let r = get("environment=dev&branch=main&version=1.0.3").await;
        assert_eq!(r.status(), StatusCode::OK);
        assert!(
            r.headers()["content-disposition"]
                .to_str()
                .unwrap()
                .contains("gemba-agent-1.0.3-x86_64")
        );
        assert_eq!(r.bytes().await.unwrap().to_vec(), binary("1.0.3"));
        let r = get("environment=dev&branch=main&isLatestBranch=true&target=x86_64").await;
        assert_eq!(r.bytes().await.unwrap().to_vec(), binary("1.0.10"));
        for q in [
            "environment=prod&branch=main&version=1.0.3",
            "environment=dev&branch=other&isLatestBranch=true",
            "environment=dev&branch=main&version=1.0.3&target=aarch64",
        ] {
            let r = get(q).await;
            assert_eq!(r.status(), StatusCode::NOT_FOUND, "{q}");
            let v: Value = r.json().await.unwrap();
            assert!(
                v["detail"].as_str().unwrap().starts_with("No release"),
                "{v}"
            );
        }

        // The newest of each branch and environment.
        let latest: Vec<LatestBranch> = app
            .get_as("binary_deployment/get_latest_deployable_branch/", &admin)
            .await;
        assert_eq!(latest.len(), 1);
        assert_eq!(
            (
                latest[0].version_number.as_str(),
                latest[0].running_environment.as_str()
            ),
            ("1.0.10", "dev")
        );

        // Moved to prod, then back.
        let (s, v) = app
            .patch(
                "binary_deployment/move_binaries_to_prod/",
                json!({"version": "1.0.3", "environment": "prod"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v[0]["running_environment"], "prod");
        let (s, v) = app
            .patch(
                "binary_deployment/move_binaries_to_prod/",
                json!({"version": "1.0.3", "environment": "prod"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["environment"].is_array(), "{v}");
        let (s, v) = app
            .patch(
                "binary_deployment/move_binaries_to_prod/",
                json!({"version": "9.9.9", "environment": "prod"}),
                Some(&admin),
            )
            .await;
        assert_eq!(
            (s, &v["version"][0]),
            (
                StatusCode::BAD_REQUEST,
                &json!("No release of version 9.9.9.")
            )
        );
        let latest: Vec<LatestBranch> = app
            .get_as("binary_deployment/get_latest_deployable_branch/", &admin)
            .await;
        assert_eq!(latest.len(), 2, "{latest:?}");
        let id = latest
            .iter()
            .find(|l| l.running_environment == "prod")
            .unwrap()
            .id;
        let r = get("environment=prod&branch=main&isLatestBranch=true").await;
        assert_eq!(r.bytes().await.unwrap().to_vec(), binary("1.0.3"));

        // Delete: the environment and branch must be the release's.
        let (s, v) = app
            .delete(
                &format!("binary_deployment/delete_branch/?environment=dev&branch=main&id={id}"),
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["environment"].is_array(), "{v}");
        let (s, v) = app
            .delete(
                &format!("binary_deployment/delete_branch/?environment=prod&branch=dev&id={id}"),
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(stored(&app), 11);
        let (s, v) = app
            .delete(
                &format!("binary_deployment/delete_branch/?environment=prod&branch=main&id={id}"),
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(stored(&app), 10, "its binary is gone");
        let (s, _) = app
            .get(
                &format!("binary_deployment/{id}/latest_deployment/"),
                &admin,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let r = get("environment=prod&branch=main&isLatestBranch=true").await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
);

/// A status of an online device running `version` of the agent on x86_64, able to
/// update itself, with `update` as its latest update.
fn status(version: &str, update: Option<UpdateReport>) -> v1::StatusMessage {
    // Through JSON: fields added later with their defaults.
    serde_json::from_value(serde_json::json!({
        "v": 1,
        "online": true,
        "ts_ms": 1,
        "agent_version": version,
        "cameras": [],
        "outbox": 0,
        "disk_free_mb": null,
        "temperature_c": null,
        "target": "x86_64",
        "updatable": true,
        "update": update,
    }))
    .expect("a status")
}

both!(
    the_fleet_is_listed_and_a_device_changes_its_channel,
    |app: TestApp| async move {
        let w = world(&app).await;
        let creds = enrolled(&app, &w.boss, "Press 1").await;
        let dev = TestDevice::of(&creds).await;
        dev.send_status(&status("1.0.0", None)).await;
        let mut page: Page<Instance> = Page {
            results: vec![],
            count: 0,
        };
        for _ in 0..200 {
            page = app
                .get_as("binary_deployment/instances/?page=1&search=press", &w.admin)
                .await;
            if page.results.first().is_some_and(|i| i.online) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(page.count, 1, "{:?}", page.results);
        let i = &page.results[0];
        assert_eq!(
            (
                i.device,
                i.organization,
                i.agent_version.as_str(),
                i.target.as_str(),
                i.updatable,
                i.update_channel.as_str()
            ),
            (creds.device, w.a, "1.0.0", "x86_64", true, "prod")
        );
        assert_eq!(i.organization_name, "Plant A");
        // A search in the organisation's name; one that matches nothing.
        let p: Page<Instance> = app
            .get_as("binary_deployment/instances/?search=plant%20a", &w.admin)
            .await;
        assert_eq!(p.count, 1);
        let p: Page<Instance> = app
            .get_as("binary_deployment/instances/?search=nothing", &w.admin)
            .await;
        assert_eq!(p.count, 0);
        let (s, _) = app.get("binary_deployment/instances/", &w.boss).await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // The organisation's admin moves its device to dev; another's cannot.
        let url = format!("device/{}/update_channel/", creds.device);
        let (s, v) = app
            .patch(&url, json!({"update_channel": "dev"}), Some(&w.boss))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let d: Device = serde_json::from_value(v).unwrap();
        assert_eq!(d.update_channel, "dev");
        let (s, v) = app
            .patch(&url, json!({"update_channel": "beta"}), Some(&w.boss))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["update_channel"][0], "Choose one of dev, prod.");
        let (s, _) = app
            .patch(&url, json!({"update_channel": "prod"}), Some(&w.boss_b))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .patch(&url, json!({"update_channel": "prod"}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, v) = app
            .patch(&url, json!({"update_channel": "prod"}), Some(&w.admin))
            .await;
        assert_eq!((s, &v["update_channel"]), (StatusCode::OK, &json!("prod")));
        // The enrolment gave the device the release key.
        let key = key(&app).public_key();
        assert_eq!(creds.release_key.as_deref(), Some(key.as_str()));
    }
);

/// A fake agent: it answers update commands as `gemba-agent` does, downloading the
/// binary through the command's URL.
struct Agent {
    dev: TestDevice,
    version: String,
}

impl Agent {
    async fn new(app: &TestApp, tok: &str, name: &str) -> (Agent, Credentials) {
        let creds = enrolled(app, tok, name).await;
        let dev = TestDevice::of(&creds).await;
        let a = Agent {
            dev,
            version: "1.0.0".into(),
        };
        a.dev.send_status(&status(&a.version, None)).await;
        (a, creds)
    }

    /// The next update command, with its id.
    async fn update(&mut self) -> (String, Command) {
        loop {
            let m: v1::CommandMessage = self.dev.next(Channel::Cmd).await;
            if matches!(m.command, Command::Update { .. }) {
                return (m.id, m.command);
            }
        }
    }

    /// Takes the next update command: downloads and checks the binary, acknowledges,
    /// and reports `end` (done: running the new version).
    async fn take(&mut self, app: &TestApp, end: UpdateState, detail: Option<&str>) -> i64 {
        let (id, c) = self.update().await;
        let Command::Update {
            release,
            version,
            url,
            sha256,
            size_bytes,
            signature,
            target,
        } = c
        else {
            unreachable!()
        };
        let report = |state, detail: Option<&str>| UpdateReport {
            release,
            version: version.clone(),
            state,
            detail: detail.map(Into::into),
        };
        self.dev
            .send_status(&status(
                &self.version,
                Some(report(UpdateState::Downloading, None)),
            ))
            .await;
        // No credentials but the URL's.
        let bytes = app
            .client
            .get(&url)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(bytes.len() as i64, size_bytes);
        assert_eq!(sha(&bytes), sha256);
        let public = key(app).public_key();
        gemba_shared::release::verify(&public, &signature, &target, &version, size_bytes, &sha256)
            .unwrap();
        self.dev.ack(&id, true, "in place").await;
        self.dev
            .send_status(&status(
                &self.version,
                Some(report(UpdateState::Restarting, None)),
            ))
            .await;
        if end == UpdateState::Done {
            self.version = version.clone();
        }
        self.dev
            .send_status(&status(&self.version, Some(report(end, detail))))
            .await;
        release
    }
}

/// Release `id`'s roll-out once `done` holds (within 10 s).
async fn until(
    app: &TestApp,
    admin: &str,
    id: i64,
    what: &str,
    done: impl Fn(&ReleaseDeployment) -> bool,
) -> ReleaseDeployment {
    let mut d = None;
    for _ in 0..400 {
        let got: ReleaseDeployment = app
            .get_as(&format!("binary_deployment/{id}/latest_deployment/"), admin)
            .await;
        if done(&got) {
            return got;
        }
        d = Some(got);
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{what}: {d:#?}");
}

fn state_of(d: &ReleaseDeployment, device: i64) -> UpdateState {
    d.devices.iter().find(|m| m.device == device).unwrap().state
}

both!(
    a_roll_out_goes_in_waves_stops_on_a_roll_back_and_goes_on,
    |app: TestApp| async move {
        let w = world(&app).await;
        let admin = w.admin.clone();
        let mut agents = vec![];
        let mut ids = vec![];
        for i in 0..4 {
            let (a, c) = Agent::new(&app, &w.boss, &format!("Line {i}")).await;
            agents.push(a);
            ids.push(c.device);
        }
        // A device on dev, and one offline: the first takes no part, the second waits.
        let (dev_only, c) = Agent::new(&app, &w.boss, "Lab").await;
        let (s, _) = app
            .patch(
                &format!("device/{}/update_channel/", c.device),
                json!({"update_channel": "dev"}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let offline = ids[3];
        agents[3]
            .dev
            .send_status(&v1::StatusMessage {
                online: false,
                ..status("1.0.0", None)
            })
            .await;
        // Every status taken.
        for _ in 0..200 {
            let p: Page<Instance> = app.get_as("binary_deployment/instances/", &admin).await;
            let on = p
                .results
                .iter()
                .filter(|i| i.online && i.target == "x86_64")
                .count();
            if on == 4 && p.results.iter().all(|i| i.target == "x86_64") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }

        // Uploaded into dev: the dev device is its roll-out; moved to prod, prod's.
        let r = upload(&app, &admin, "dev", "2.0.0").await;
        assert_eq!(
            (r.current_state.as_str(), r.devices_total),
            ("rolling_out", 1)
        );
        let (s, v) = app
            .patch(
                "binary_deployment/move_binaries_to_prod/",
                json!({"version": "2.0.0", "environment": "prod"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let d: ReleaseDeployment = app
            .get_as(
                &format!("binary_deployment/{}/latest_deployment/", r.id),
                &admin,
            )
            .await;
        assert_eq!(d.release.current_state, "rolling_out");
        assert!(d.release.start_time.is_some());
        let waves: Vec<(i64, i32)> = d.devices.iter().map(|m| (m.device, m.wave)).collect();
        assert_eq!(
            waves,
            vec![(ids[0], 1), (ids[1], 2), (ids[2], 2), (ids[3], 2)],
            "the first wave is a tenth, at least one"
        );
        assert!(
            !d.devices.iter().any(|m| m.device == c.device),
            "not on dev"
        );

        // The first wave alone; the rest once it is done.
        assert_eq!(agents[0].take(&app, UpdateState::Done, None).await, r.id);
        let d = until(&app, &admin, r.id, "the second wave sent", |d| {
            state_of(d, ids[1]) != UpdateState::Pending
        })
        .await;
        assert_eq!(state_of(&d, ids[0]), UpdateState::Done);
        assert_eq!(
            state_of(&d, offline),
            UpdateState::Pending,
            "offline: waits"
        );
        // One rolls back: the roll-out stops, naming it.
        agents[1]
            .take(
                &app,
                UpdateState::RolledBack,
                Some("version 2.0.0 did not come back in 120 s"),
            )
            .await;
        let d = until(&app, &admin, r.id, "stopped", |d| {
            d.release.current_state == "stopped"
        })
        .await;
        assert_eq!(
            d.release.reason.as_deref(),
            Some(
                format!(
                    "Line 1 (device {}) rolled back: version 2.0.0 did not come back in 120 s",
                    ids[1]
                )
                .as_str()
            )
        );
        assert_eq!(d.release.devices_failed, 1);
        // What was sent goes on; the device offline comes back, and waits (stopped).
        agents[2].take(&app, UpdateState::Done, None).await;
        agents[3].dev.send_status(&status("1.0.0", None)).await;
        until(&app, &admin, r.id, "the third done", |d| {
            state_of(d, ids[2]) == UpdateState::Done
        })
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let d: ReleaseDeployment = app
            .get_as(
                &format!("binary_deployment/{}/latest_deployment/", r.id),
                &admin,
            )
            .await;
        assert_eq!(
            state_of(&d, offline),
            UpdateState::Pending,
            "a stopped roll-out sends nothing"
        );

        // Going on: the rolled-back device is sent it again, the one back online too.
        let (s, v) = app
            .patch(
                &format!("binary_deployment/{}/", r.id),
                json!({"currentState": "rolling_out"}),
                Some(&admin),
            )
            .await;
        assert_eq!(
            (s, &v["currentState"]),
            (StatusCode::OK, &json!("rolling_out")),
            "{v}"
        );
        agents[1].take(&app, UpdateState::Done, None).await;
        agents[3].take(&app, UpdateState::Done, None).await;
        let d = until(&app, &admin, r.id, "deployed", |d| {
            d.release.current_state == "deployed"
        })
        .await;
        assert!(d.release.end_time.is_some());
        assert_eq!((d.release.devices_total, d.release.devices_done), (4, 4));
        assert!(
            d.devices.iter().all(|m| m.agent_version == "2.0.0"),
            "{d:?}"
        );

        // A device that joins prod later is brought to it too.
        let (mut late, lc) = Agent::new(&app, &w.boss, "Late").await;
        late.take(&app, UpdateState::Done, None).await;
        let d = until(&app, &admin, r.id, "deployed again", |d| {
            d.release.current_state == "deployed" && d.devices.len() == 5
        })
        .await;
        assert_eq!(
            d.devices
                .iter()
                .find(|m| m.device == lc.device)
                .unwrap()
                .wave,
            2
        );
        // Stopping needs a roll-out under way.
        let (s, v) = app
            .patch(
                &format!("binary_deployment/{}/", r.id),
                json!({"currentState": "stopped"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        // A newer release takes over from one under way; a deployed one stays so.
        let r3 = upload(&app, &admin, "prod", "3.0.0").await;
        assert_eq!(r3.current_state, "rolling_out");
        let (s, v) = app
            .patch(
                &format!("binary_deployment/{}/", r3.id),
                json!({"currentState": "stopped"}),
                Some(&admin),
            )
            .await;
        assert_eq!(
            (s, &v["currentState"]),
            (StatusCode::OK, &json!("stopped")),
            "{v}"
        );
        assert!(
            v["reason"].as_str().unwrap().starts_with("Stopped by"),
            "{v}"
        );
        upload(&app, &admin, "prod", "3.1.0").await;
        let (_, old) = app
            .get(
                &format!("binary_deployment/{}/latest_deployment/", r3.id),
                &admin,
            )
            .await;
        assert_eq!(old["release"]["currentState"], "superseded", "{old}");
        let (_, old) = app
            .get(
                &format!("binary_deployment/{}/latest_deployment/", r.id),
                &admin,
            )
            .await;
        assert_eq!(old["release"]["currentState"], "deployed", "{old}");
        drop(dev_only);
    }
);
