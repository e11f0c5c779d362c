//! Screenshots of devices' cameras (issue 29): asking a device for one ([`request`]: a
//! row, a one-use upload link, the signed `screenshot` command), the ticker that asks
//! online devices for one of each camera at their interval ([`tick_forever`]; the
//! device setting `screenshot_interval_secs`, 0 or absent off, 60 s to a day), and the
//! hourly [`sweep`] of old ones and those of deleted devices, files and all.
//!
//! Invariants: a screenshot's row exists before its command leaves, so the upload
//! always finds it; its link uploads that screenshot only, once, for
//! [`crate::mqtt::COMMAND_VALID_MS`] (a device takes a command within seconds, or it is
//! refused as expired); a camera is asked at most once per interval, judged by the last
//! time it was asked (a device that never answers is not asked more often). Replicas
//! each tick: they read the same rows, so only asks in the same instant can double.

use std::time::Duration;

use object_store::ObjectStoreExt;

use gemba_shared::api::v1::cameras::{
    MAX_SCREENSHOT_INTERVAL_SECS, MIN_SCREENSHOT_INTERVAL_SECS, SCREENSHOT_INTERVAL_SETTING,
};
use gemba_shared::mqtt::v1::Command;

use crate::auth::{random_token, token_hash};
use crate::db::devices::{self, DeviceRow, Filter};
use crate::db::upload_tokens::{self, NewToken};
use crate::db::{now_ms, screenshots};
use crate::mqtt::{COMMAND_VALID_MS, new_command_id};
use crate::state::AppState;

/// Asks device `row` (online) for a screenshot of `camera` of `kind`: answers the
/// screenshot's id and the command's.
pub async fn request(
    state: &AppState,
    row: &DeviceRow,
    camera: &str,
    kind: &str,
) -> anyhow::Result<(i64, String)> {
    let org = row.organization_id;
    let command = new_command_id();
    let id = screenshots::insert(&state.db, org, row.id, camera, kind, &command).await?;
    let token = random_token();
    let link = NewToken {
        hash: token_hash(&token),
        kind: upload_tokens::SCREENSHOT,
        org,
        device: row.id,
        subjects: vec![id.to_string()],
        expires_at: now_ms() + COMMAND_VALID_MS,
    };
    upload_tokens::insert(&state.db, &[link]).await?;
    let url = format!(
        "{}/api/device/screenshot/{token}",
        state.settings.public_url()
    );
    state
        .mqtt
        .command_with_id(
            &state.db,
            org,
            row.id,
            &command,
            Command::Screenshot {
                camera: camera.to_string(),
                url,
            },
        )
        .await?;
    Ok((id, command))
}

/// A device's interval from its settings (JSON object), in seconds: `None` when off.
pub fn interval_secs(settings: &serde_json::Value) -> Option<i64> {
    let s = settings.get(SCREENSHOT_INTERVAL_SETTING)?.as_i64()?;
    (s > 0).then_some(s.clamp(MIN_SCREENSHOT_INTERVAL_SECS, MAX_SCREENSHOT_INTERVAL_SECS))
}

/// Whether a camera last asked at `last` is due at `now` (unix ms) every
/// `interval_secs`.
pub fn due(last: Option<i64>, now: i64, interval_secs: i64) -> bool {
    last.is_none_or(|l| now - l >= interval_secs.saturating_mul(1000))
}

/// One round: every online, enrolled device with an interval, each camera its status
/// lists, asked when due. Answers how many were asked.
pub async fn tick(state: &AppState) -> anyhow::Result<usize> {
    let f = Filter {
        online_only: true,
        ..Filter::default()
    };
    let (rows, _) = devices::list(&state.db, 0, &f, None).await?;
    let now = now_ms();
    let mut asked = 0;
    for row in rows {
        if !row.enrolled || !row.online {
            continue;
        }
        let settings: serde_json::Value = serde_json::from_str(&row.settings).unwrap_or_default();
        let Some(every) = interval_secs(&settings) else {
            continue;
        };
        for camera in row.cameras() {
            let last = screenshots::last_interval_request(&state.db, row.id, &camera).await?;
            if due(last, now, every) {
                request(state, &row, &camera, screenshots::INTERVAL).await?;
                asked += 1;
            }
        }
    }
    Ok(asked)
}

/// How long a screenshot asked for and never sent is kept (its row only), in ms.
const UNANSWERED_MS: i64 = 86_400_000;

/// Deletes the screenshots older than `screenshot_days` (none when 0), those asked for
/// a day ago and never sent, and those of deleted devices or organisations, with their
/// files; answers how many.
pub async fn sweep(state: &AppState) -> anyhow::Result<usize> {
    let days = state.settings.screenshot_days;
    let before = (days > 0).then(|| now_ms() - days.saturating_mul(86_400_000));
    let mut n = 0;
    loop {
        let gone =
            screenshots::take_expired(&state.db, before, now_ms() - UNANSWERED_MS, 500).await?;
        for s in &gone {
            let Some(key) = &s.object_key else { continue };
            let key = crate::objects::key(s.organization_id, key);
            if let Err(e) = state.objects.delete(&key).await {
                tracing::warn!(%key, error = %e, "deleting a screenshot's file");
            }
        }
        n += gone.len();
        if gone.len() < 500 {
            return Ok(n);
        }
    }
}

/// [`sweep`] every hour, for as long as the cloud runs.
pub async fn sweep_every_hour(state: AppState) {
    let mut t = tokio::time::interval(Duration::from_secs(3600));
    loop {
        t.tick().await;
        match sweep(&state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(n, "old screenshots deleted"),
            Err(e) => tracing::warn!(error = %format!("{e:#}"), "deleting old screenshots"),
        }
    }
}

/// [`tick`] every `screenshot_tick_ms`, for as long as the cloud runs.
pub async fn tick_forever(state: AppState) {
    let every = Duration::from_millis(state.settings.screenshot_tick_ms.max(100));
    let mut t = tokio::time::interval(every);
    t.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        t.tick().await;
        if let Err(e) = tick(&state).await {
            tracing::warn!(error = %format!("{e:#}"), "asking devices for screenshots");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_read_from_settings_and_bounded() {
        let s = |v: serde_json::Value| {
            interval_secs(&serde_json::json!({ SCREENSHOT_INTERVAL_SETTING: v }))
        };
        assert_eq!(s(serde_json::json!(300)), Some(300));
        assert_eq!(s(serde_json::json!(5)), Some(60));
        assert_eq!(s(serde_json::json!(10_000_000)), Some(86_400));
        assert_eq!(s(serde_json::json!(0)), None);
        assert_eq!(s(serde_json::json!("300")), None);
        assert_eq!(interval_secs(&serde_json::json!({})), None);
    }

    #[test]
    fn a_camera_is_due_once_its_interval_passed() {
        assert!(due(None, 0, 60));
        assert!(!due(Some(1_000), 60_999, 60));
        assert!(due(Some(1_000), 61_000, 60));
    }
}
