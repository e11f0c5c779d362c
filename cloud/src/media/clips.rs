//! Cycle clips outside a request (the upload itself is `http/clips.rs`): the clip URLs
//! that MQTT ingestion puts in devices' `cycles/ack`, deleting a clip's file, and the
//! hourly sweep: clips kept longer than `clip_days` or whose cycle is gone, and (issue
//! 28) device upload links and deleted cycles' tombstones past their time.
//!
//! A clip URL carries a random token of its own per acknowledgement (only its hash is
//! kept, `db::upload_tokens`), naming the cycles that acknowledgement stored, good for
//! `upload_link_secs`: a token sniffed from one ack uploads nothing else.

use std::collections::HashMap;

use object_store::ObjectStoreExt;

use crate::auth::{random_token, token_hash};
use crate::config::Settings;
use crate::db::clips;
use crate::db::upload_tokens::{self, NewToken};
use crate::db::{Db, now_ms, tombstones};
use crate::objects;
use crate::state::AppState;

/// A device: its organisation's id and its own.
pub type Device = (i64, i64);

/// The clip URLs of acknowledgements, each of a device and the ids of the cycles it
/// stored: one per device, each uploading only those cycles' clips (kept in one write).
/// None when the deployment keeps no clips, or when they cannot be kept (logged: the
/// cycles are acknowledged all the same, their clips stay on the device).
pub async fn clip_urls(state: &AppState, acks: &[(Device, &[String])]) -> HashMap<Device, String> {
    match clip_urls_for(&state.settings, &state.db, acks).await {
        Ok(urls) => urls,
        Err(e) => {
            tracing::warn!(error = %e, n = acks.len(), "keeping clip upload links; no clips asked for");
            HashMap::new()
        }
    }
}

/// [`clip_urls`] under `settings`, kept in `db`.
pub async fn clip_urls_for(
    settings: &Settings,
    db: &Db,
    acks: &[(Device, &[String])],
) -> anyhow::Result<HashMap<Device, String>> {
    if settings.clip_days <= 0 || acks.is_empty() {
        return Ok(HashMap::new());
    }
    let expires_at = now_ms() + settings.upload_link_secs.max(1) * 1000;
    let mut urls = HashMap::new();
    let mut rows = Vec::with_capacity(acks.len());
    for &((org, device), ids) in acks {
        let token = random_token();
        rows.push(NewToken {
            hash: token_hash(&token),
            kind: upload_tokens::CLIP,
            org,
            device,
            subjects: ids.to_vec(),
            expires_at,
        });
        urls.insert(
            (org, device),
            format!("{}/api/device/clip/{token}/", settings.public_url()),
        );
    }
    upload_tokens::insert(db, &rows).await?;
    Ok(urls)
}

/// The clip URL of one acknowledgement of device `device` of `org` naming cycles `ids`.
pub async fn clip_url(
    state: &AppState,
    org: i64,
    device: i64,
    ids: &[String],
) -> anyhow::Result<Option<String>> {
    Ok(
        clip_urls_for(&state.settings, &state.db, &[((org, device), ids)])
            .await?
            .remove(&(org, device)),
    )
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

/// Sweeps every hour, from a while after the start: old clips, then expired upload
/// links and old tombstones.
pub async fn sweep_every_hour(state: AppState) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
    loop {
        tick.tick().await;
        match sweep(&state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(n, "old cycle clips deleted"),
            Err(e) => tracing::warn!(error = %e, "deleting old cycle clips"),
        }
        if let Err(e) = upload_tokens::prune(&state.db).await {
            tracing::warn!(error = %e, "deleting expired upload links");
        }
        match tombstones::prune(&state.db).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(n, "old tombstones of deleted cycles deleted"),
            Err(e) => tracing::warn!(error = %e, "deleting old tombstones of deleted cycles"),
        }
    }
}
