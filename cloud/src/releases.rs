//! Roll-outs driven (issue 30): the I/O around `crate::rollout`'s decisions. A release
//! entering an environment begins its roll-out ([`begin`]); every online status of a
//! device notes its progress, adds it to its environment's newest release when it
//! should run it, or takes it out of one it no longer follows ([`on_status`]); the
//! acknowledgement of an update command is noted ([`on_ack`]); each of these then
//! lets the roll-out take its next step ([`advance`]): send `Command::Update` (with a
//! signed download URL good for hours) to the devices due it, stop on a failure, or
//! end deployed.
//!
//! Invariants: a send is claimed in the database before it goes
//! (`db::releases::claim_send`), and every change of a release's state is conditional
//! on the state it was read in, so statuses handled side by side (or on two replicas)
//! send each command once and move a release once.

use gemba_shared::api::v1::release::state;
use gemba_shared::api::v1::video::MEDIA_URL_TTL_SECS;
use gemba_shared::mqtt::v1::{self, Command};

use crate::db::releases::{self as db, ReleaseRow};
use crate::db::{devices, now_ms};
use crate::mqtt::new_command_id;
use crate::rollout;
use crate::state::AppState;

/// Whether a device whose last status is `s` can be brought to `release`: its agent
/// runs on the release's target, can restart itself, and runs another version.
pub fn should_run(s: &v1::StatusMessage, release: &ReleaseRow) -> bool {
    s.updatable && s.target == release.target && s.agent_version != release.version
}

/// Release `r` enters environment `environment` now (uploaded into it, or moved to
/// it): older ones of the environment and target are superseded, and its roll-out
/// begins over the devices following the environment that should run it.
pub async fn begin(state: &AppState, r: &ReleaseRow, environment: &str) -> sqlx::Result<()> {
    let devices: Vec<i64> = db::following(&state.db, environment)
        .await?
        .into_iter()
        .filter(|d| devices::parse_status(d.status.as_deref()).is_some_and(|s| should_run(&s, r)))
        .map(|d| d.id)
        .collect();
    let members = rollout::waves(&devices);
    let entering = rollout::entering(members.len());
    db::enter(&state.db, r.id, environment, &r.target, &members, entering).await?;
    tracing::info!(
        release = r.id,
        version = %r.version,
        target = %r.target,
        environment,
        devices = members.len(),
        first_wave = rollout::first_wave(members.len()),
        "a release entered its environment"
    );
    advance(state, r.id, None).await
}

/// The next step of release `id`'s roll-out (`rollout::decide`); `back`: a device just
/// back online.
pub async fn advance(state: &AppState, id: i64, back: Option<i64>) -> sqlx::Result<()> {
    let Some(r) = db::get(&state.db, id).await? else {
        return Ok(());
    };
    if r.state != state::ROLLING_OUT {
        return Ok(());
    }
    let members = db::members(&state.db, id).await?;
    let d = rollout::decide(&r.state, &members, now_ms(), back);
    if let Some(reason) = d.stop {
        if db::set_state(
            &state.db,
            id,
            state::ROLLING_OUT,
            state::STOPPED,
            Some(&reason),
        )
        .await?
        {
            tracing::warn!(release = id, version = %r.version, %reason, "a roll-out stopped");
        }
        return Ok(());
    }
    if d.deployed {
        if db::set_state(&state.db, id, state::ROLLING_OUT, state::DEPLOYED, None).await? {
            tracing::info!(release = id, version = %r.version, devices = members.len(), "a release is deployed");
        }
        return Ok(());
    }
    if d.send.is_empty() {
        return Ok(());
    }
    let url = match download_url(state, &r.object_key) {
        Ok(u) => u,
        Err(e) => {
            tracing::error!(release = id, error = %e, "signing a release's download URL");
            return Ok(());
        }
    };
    for device in d.send {
        let command = new_command_id();
        if !db::claim_send(&state.db, id, device, &command).await? {
            continue;
        }
        let Some(org) = db::org_of(&state.db, device).await? else {
            continue;
        };
        state
            .mqtt
            .command_with_id(
                &state.db,
                org,
                device,
                &command,
                Command::Update {
                    release: r.id,
                    version: r.version.clone(),
                    target: r.target.clone(),
                    url: url.clone(),
                    sha256: r.sha256.clone(),
                    size_bytes: r.size_bytes,
                    signature: r.signature.clone(),
                },
            )
            .await?;
    }
    Ok(())
}

/// The URL a device downloads the binary at `key` with, without other credentials:
/// `/api/binary_deployment/binary/{token}` on the public address, good for
/// [`MEDIA_URL_TTL_SECS`] at least.
pub fn download_url(state: &AppState, key: &str) -> anyhow::Result<String> {
    let step = crate::media::urls::MEDIA_URL_STEP_SECS;
    let exp = (now_ms() / 1000 + MEDIA_URL_TTL_SECS + step - 1) / step * step;
    let token = state.keys.sign_release(key, exp)?;
    Ok(format!(
        "{}/api/binary_deployment/binary/{token}",
        state.settings.public_url()
    ))
}

/// Notes what status `s` says of `device`'s progress in release `r`'s roll-out.
async fn note(
    state: &AppState,
    r: &ReleaseRow,
    device: i64,
    s: &v1::StatusMessage,
) -> sqlx::Result<()> {
    let Some(m) = db::member(&state.db, r.id, device).await? else {
        return Ok(());
    };
    if let Some((to, detail)) =
        rollout::progress(&m, r.id, &r.version, &s.agent_version, s.update.as_ref())
    {
        db::set_progress(&state.db, r.id, device, m.state, to, detail.as_deref()).await?;
    }
    Ok(())
}

/// On an online status `s` of `device`: its progress in the release its report names
/// and in its environment's newest release, which it joins when it should run it;
/// out of a roll-out it no longer follows; then each touched roll-out's next step.
pub async fn on_status(
    state: &AppState,
    device: i64,
    s: &v1::StatusMessage,
    back: bool,
) -> sqlx::Result<()> {
    let mut touched = vec![];
    if let Some(report) = &s.update
        && let Some(r) = db::get(&state.db, report.release).await?
    {
        note(state, &r, device, s).await?;
        touched.push(r.id);
    }
    let channel = db::channel(&state.db, device).await?;
    if let Some(channel) = &channel
        && !s.target.is_empty()
        && let Some(r) = db::newest(&state.db, channel, &s.target).await?
    {
        let member = db::member(&state.db, r.id, device).await?;
        if member.is_none() && should_run(s, &r) {
            let members = db::members(&state.db, r.id).await?;
            if db::join(&state.db, r.id, device, rollout::newcomer_wave(&members)).await? {
                tracing::info!(release = r.id, device, "a device joined a roll-out");
            }
        } else if member.is_some() && !touched.contains(&r.id) {
            note(state, &r, device, s).await?;
        }
        touched.push(r.id);
    }
    for (id, environment, target) in db::open_memberships(&state.db, device).await? {
        let follows =
            channel.as_deref() == Some(environment.as_str()) && target == s.target && s.updatable;
        if !follows {
            db::leave(&state.db, id, device).await?;
            touched.push(id);
        }
    }
    touched.sort_unstable();
    touched.dedup();
    for id in touched {
        advance(state, id, back.then_some(device)).await?;
    }
    Ok(())
}

/// Device `device` acknowledged update command `command` of release `release`.
pub async fn on_ack(
    state: &AppState,
    device: i64,
    command: &str,
    release: i64,
    ok: bool,
    message: &str,
) -> sqlx::Result<()> {
    if db::acked(&state.db, release, device, command, ok, message).await? {
        advance(state, release, None).await?;
    }
    Ok(())
}

/// After device `device` of `org` changed the environment it follows: what its last
/// status says, again (it joins or leaves roll-outs); nothing while it is offline.
pub async fn on_channel(state: &AppState, org: i64, device: i64) -> sqlx::Result<()> {
    let Some(row) = devices::get(&state.db, 0, Some(org), device).await? else {
        return Ok(());
    };
    match devices::parse_status(row.status.as_deref()) {
        Some(s) if row.online && s.online => on_status(state, device, &s, false).await,
        _ => Ok(()),
    }
}
