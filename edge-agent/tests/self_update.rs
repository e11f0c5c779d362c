//! Self-update through the real cloud (issue 30): the real agent binary run by
//! `gemba-agent supervise`, a release uploaded by the super admin and rolled out by the
//! cloud over MQTT, downloaded through its signed URL, checked and run.
//! - A → B while cycles flow: B comes back healthy, every cycle A recorded reaches the
//!   cloud, and B goes on recording.
//! - A release that exits at start: the supervisor goes back to A, which says so.
//! - A release whose stored binary or signature was changed after upload: refused on
//!   the device, which stays on A.
//!
//! B is a copy of A with another version stamped in (`gemba-agent stamp-version`), so
//! the two binaries differ in their bytes, hash and version as two builds do.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use gemba_shared::mqtt::v1::{StatusMessage, UpdateState};
use gemba_shared::release::{SigningKey, this_target};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The supervisor in `data`, running the demo footage as fast as it reads, looped, a
/// heartbeat a second; a release has 60 s to come back healthy and counts as healthy
/// after 2 s linked.
fn supervise(data: &Path, d: &Demo) -> Running {
    let mut cmd = agent(data);
    cmd.args(["supervise", "--health-timeout", "60", "--model"])
        .arg(&d.model)
        .arg("--camera")
        .arg(format!("cam0={}", d.footage.display()))
        .args([
            "--fast",
            "--loop",
            "--heartbeat",
            "1",
            "--update-settle",
            "2",
        ]);
    Running(cmd.stdin(Stdio::null()).spawn().unwrap())
}

/// A station: the cloud, the super admin signed in, the agent enrolled and supervised,
/// its status saying it can update itself and some cycles stored.
async fn station(d: &Demo) -> (Cloud, Portal, tempfile::TempDir, Running) {
    let c = cloud(None, &d.truth.operation).await;
    let portal = Portal::sign_in(&c).await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("agent");
    enroll(&data, &c.url);
    let running = supervise(&data, d);
    wait_for("an updatable agent with cycles", 120, async || {
        device_status(&c)
            .await
            .is_some_and(|s| s.updatable && s.target == this_target())
            && stored(&c.state.db).await.len() >= 2
    })
    .await;
    (c, portal, dir, running)
}

/// Uploads `binary` as release `version` into `environment`, signed with the cloud's
/// own release key: the release.
async fn upload(c: &Cloud, p: &Portal, binary: &[u8], version: &str, environment: &str) -> Value {
    let key = std::fs::read_to_string(c.state.settings.data.join("release-signing.key")).unwrap();
    let key = SigningKey::from_text(&key).unwrap();
    let sha = gemba_shared::hex(&Sha256::digest(binary));
    let size = binary.len() as i64;
    let signature = key.sign(this_target(), version, size, &sha);
    let (status, body) = p
        .upload(
            &format!(
                "binary_deployment/?environment={environment}&branch=main&version={version}\
                 &target={}&signature={}",
                this_target(),
                urlencode(&signature)
            ),
            binary.to_vec(),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    body
}

fn urlencode(s: &str) -> String {
    s.replace('+', "%2B")
        .replace('/', "%2F")
        .replace('=', "%3D")
}

/// B: this agent binary with `version` stamped in.
fn stamped(dir: &Path, version: &str) -> Vec<u8> {
    let out = dir.join(format!("gemba-agent-{version}"));
    let done = agent(dir)
        .args(["stamp-version", "--version", version, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    std::fs::read(&out).unwrap()
}

/// Waits for the device's status to satisfy `ok`; the status.
async fn status_until(c: &Cloud, what: &str, ok: impl Fn(&StatusMessage) -> bool) -> StatusMessage {
    let mut last = None;
    wait_for(what, 120, async || {
        last = device_status(c).await;
        last.as_ref().is_some_and(&ok)
    })
    .await;
    last.unwrap()
}

/// The update record the agent keeps in `data`.
fn record(data: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(data.join("update/update.json")).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_rolls_out_while_cycles_flow_and_none_is_lost() {
    let d = demo();
    let (c, portal, dir, running) = station(&d).await;
    let data = dir.path().join("agent");
    // Every cycle the agent ever holds in its outbox, seen every 50 ms.
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let watcher = {
        let (seen, data) = (seen.clone(), data.clone());
        tokio::spawn(async move {
            loop {
                if let Ok(ids) = std::panic::catch_unwind(|| outbox_cycles(&data)) {
                    seen.lock().unwrap().extend(ids);
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    let b = stamped(dir.path(), "9.9.0-b");
    let release = upload(&c, &portal, &b, "9.9.0-b", "prod").await;
    let s = status_until(&c, "the agent on 9.9.0-b, healthy", |s| {
        s.agent_version == "9.9.0-b"
            && s.update
                .as_ref()
                .is_some_and(|u| u.state == UpdateState::Done)
    })
    .await;
    assert_eq!(s.update.unwrap().release, release["id"].as_i64().unwrap());
    // On disk: B kept and current, A's binary (the installed one) untouched.
    assert_eq!(record(&data)["phase"], "healthy");
    assert_eq!(
        std::fs::read_to_string(data.join("update/current")).unwrap(),
        "9.9.0-b"
    );
    assert_eq!(
        std::fs::read(data.join("update/bin/9.9.0-b/gemba-agent")).unwrap(),
        b
    );
    // Every cycle A recorded reaches the cloud, B's too.
    let before_b: BTreeSet<String> = seen.lock().unwrap().clone();
    wait_for("every cycle A recorded, stored", 90, async || {
        stored(&c.state.db).await.is_superset(&before_b)
    })
    .await;
    wait_for("cycles B recorded", 90, async || {
        let now = seen.lock().unwrap().clone();
        let new: BTreeSet<String> = now.difference(&before_b).cloned().collect();
        new.len() >= 2 && stored(&c.state.db).await.is_superset(&new)
    })
    .await;
    // The roll-out is done, and says so for the device.
    let id = release["id"].as_i64().unwrap();
    let dep = portal
        .get(&format!("binary_deployment/{id}/latest_deployment/"))
        .await;
    assert_eq!(dep["release"]["currentState"], "deployed", "{dep}");
    assert_eq!(dep["devices"][0]["state"], "done", "{dep}");
    assert_eq!(dep["devices"][0]["agent_version"], "9.9.0-b", "{dep}");
    watcher.abort();
    interrupt(running);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_that_exits_at_start_is_rolled_back_and_the_roll_out_stops() {
    let d = demo();
    let (c, portal, dir, running) = station(&d).await;
    let data = dir.path().join("agent");
    let before = stored(&c.state.db).await.len();
    // A binary that fails at once, as one built against another system would.
    let bad = b"#!/bin/sh\necho 'cannot start here' >&2\nexit 3\n".to_vec();
    let release = upload(&c, &portal, &bad, "9.9.1-bad", "prod").await;
    let s = status_until(&c, "the device back on A, saying why", |s| {
        s.update
            .as_ref()
            .is_some_and(|u| u.state == UpdateState::RolledBack)
    })
    .await;
    assert_eq!(s.agent_version, env!("CARGO_PKG_VERSION"));
    let u = s.update.unwrap();
    assert_eq!(u.version, "9.9.1-bad");
    assert!(
        u.detail
            .as_deref()
            .unwrap_or("")
            .contains("exited with code 3"),
        "{u:?}"
    );
    // A is the installed binary again; the release is not current.
    assert!(!data.join("update/current").exists());
    let id = release["id"].as_i64().unwrap();
    let mut dep = Value::Null;
    wait_for("the roll-out stopped", 30, async || {
        dep = portal
            .get(&format!("binary_deployment/{id}/latest_deployment/"))
            .await;
        dep["release"]["currentState"] == "stopped"
    })
    .await;
    assert_eq!(dep["devices"][0]["state"], "rolled_back", "{dep}");
    // A goes on working.
    wait_for("cycles after the roll-back", 90, async || {
        stored(&c.state.db).await.len() >= before + 2
    })
    .await;
    interrupt(running);
}

/// The object store's file of `release`, under the cloud's data folder.
async fn stored_binary(c: &Cloud, release: i64) -> PathBuf {
    let key: String = sqlx::query_scalar("SELECT object_key FROM releases WHERE id = $1")
        .bind(release)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    c.state.settings.data.join("objects/platform").join(key)
}

/// Waits for the device to report release `version` failed, saying `why`; it still
/// runs A.
async fn refused(c: &Cloud, version: &str, why: &str) {
    let s = status_until(c, &format!("release {version} refused"), |s| {
        s.update
            .as_ref()
            .is_some_and(|u| u.version == version && u.state == UpdateState::Failed)
    })
    .await;
    let detail = s
        .update
        .as_ref()
        .and_then(|u| u.detail.clone())
        .unwrap_or_default();
    assert!(detail.contains(why), "{detail}");
    assert_eq!(s.agent_version, env!("CARGO_PKG_VERSION"));
}

async fn move_to_prod(p: &Portal, version: &str) {
    let (status, body) = p
        .send(
            reqwest::Method::PATCH,
            "binary_deployment/move_binaries_to_prod/",
            &json!({"version": version, "environment": "prod"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_changed_after_it_was_signed_is_refused_on_the_device() {
    let d = demo();
    let (c, portal, dir, running) = station(&d).await;
    let data = dir.path().join("agent");
    // Refused before it would run: a small binary does (the checks are of its bytes).
    let b = b"#!/bin/sh\necho 'never run'\nexit 0\n".to_vec();

    // Its binary changed in storage (the signature holds for the original bytes).
    let r = upload(&c, &portal, &b, "9.9.2-b", "dev").await;
    let file = stored_binary(&c, r["id"].as_i64().unwrap()).await;
    let mut changed = std::fs::read(&file).unwrap();
    let last = changed.len() - 1;
    changed[last] ^= 0xff;
    std::fs::write(&file, changed).unwrap();
    move_to_prod(&portal, "9.9.2-b").await;
    refused(&c, "9.9.2-b", "SHA-256").await;

    // Its signature changed in the cloud's database (one of another key).
    let r = upload(&c, &portal, &b, "9.9.3-b", "dev").await;
    let other = SigningKey::generate().unwrap();
    let sha = gemba_shared::hex(&Sha256::digest(&b));
    sqlx::query("UPDATE releases SET signature = $1 WHERE id = $2")
        .bind(other.sign(this_target(), "9.9.3-b", b.len() as i64, &sha))
        .bind(r["id"].as_i64().unwrap())
        .execute(&c.state.db.pool)
        .await
        .unwrap();
    move_to_prod(&portal, "9.9.3-b").await;
    refused(&c, "9.9.3-b", "does not match the release key").await;
    // Nothing of either was kept, and A still runs as installed.
    assert!(!data.join("update/current").exists());
    let kept: Vec<_> = std::fs::read_dir(data.join("update/bin"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(kept.is_empty(), "{kept:?}");
    interrupt(running);
}
