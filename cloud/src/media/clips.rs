//! Cycle clips outside a request (the upload itself is `http/clips.rs`): the signed clip
//! URL that MQTT ingestion puts in a device's `cycles/ack`, deleting a clip's file, and
//! the sweeper that deletes clips kept longer than `clip_days` or whose cycle is gone.

use gemba_shared::api::v1::video::MEDIA_URL_TTL_SECS;
use object_store::ObjectStoreExt;

use crate::auth::Keys;
use crate::config::Settings;
use crate::db::clips;
use crate::db::now_ms;
use crate::objects;
use crate::state::AppState;

/// The clip URL for the acknowledgement of device `device`'s cycles: `None` when the
/// deployment keeps no clips.
pub fn clip_url(state: &AppState, org: i64, device: i64) -> anyhow::Result<Option<String>> {
    clip_url_for(&state.settings, &state.keys, org, device)
}

/// [`clip_url`] under `settings`, signed with `keys`.
pub fn clip_url_for(
    settings: &Settings,
    keys: &Keys,
    org: i64,
    device: i64,
) -> anyhow::Result<Option<String>> {
    if settings.clip_days <= 0 {
        return Ok(None);
    }
    let exp = now_ms() / 1000 + MEDIA_URL_TTL_SECS;
    Ok(Some(format!(
        "{}/api/device/clip/{}/",
        settings.public_url(),
        keys.sign_clip(org, device, exp)?
    )))
}

/// Deletes the file of a clip of `org` (a failure is logged).
pub async fn delete_object(state: &AppState, org: i64, key: &str) {
    if let Err(e) = state.objects.delete(&objects::key(org, key)).await {
        tracing::warn!(key, error = %e, "deleting a clip's file");
    }
}

/// Deletes the clips kept longer than `clip_days` (all when 0) and those whose cycle is
/// gone; answers how many.
pub async fn sweep(state: &AppState) -> anyhow::Result<usize> {
    let before = clips::days_ago(state.settings.clip_days.max(0));
    let mut n = 0;
    loop {
        let gone = clips::take_expired(&state.db, before, 500).await?;
        for c in &gone {
            delete_object(state, c.organization_id, &c.object_key).await;
        }
        n += gone.len();
        if gone.len() < 500 {
            return Ok(n);
        }
    }
}

/// Sweeps every hour, from a while after the start.
pub async fn sweep_every_hour(state: AppState) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        tick.tick().await;
        match sweep(&state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(n, "old cycle clips deleted"),
            Err(e) => tracing::warn!(error = %e, "deleting old cycle clips"),
        }
    }
}
