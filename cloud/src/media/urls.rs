//! Signed media URLs: `/api/media/{token}`, the token naming an organisation's object
//! and when it expires (signed by [`crate::auth::Keys`]). Expiries fall on whole hours so
//! that an object read again within the hour gets the same URL and the browser's cache
//! serves it again.
//!
//! A URL made for the portal also names the auth session it was made in
//! ([`Viewer::Session`]): it works only while that session is open, so signing out (or
//! the session's revocation or end) ends it (docs/decisions.md "Media URLs end with the
//! session"). A device's URL (a model to deploy) names none.

use gemba_shared::api::v1::video::MEDIA_URL_TTL_SECS;

use crate::db::now_ms;
use crate::state::AppState;

/// Who a media URL is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer<'a> {
    /// A signed-in user of the portal, in this auth session (the access token's `sid`).
    Session(&'a str),
    /// A device (no session): a model to deploy, the answer to its own upload.
    Device,
}

/// A signed URL of object `key` of `org` for `viewer`, good for [`MEDIA_URL_TTL_SECS`]
/// at least (and a session's only while the session is open).
pub fn media_url(
    state: &AppState,
    viewer: Viewer<'_>,
    org: i64,
    key: &str,
) -> anyhow::Result<String> {
    let exp = media_exp(now_ms() / 1000);
    let token = match viewer {
        Viewer::Session(sid) => state.keys.sign_session_media(sid, org, key, exp)?,
        Viewer::Device => state.keys.sign_media(org, key, exp)?,
    };
    Ok(format!("/api/media/{token}"))
}

/// Media URLs expire at whole steps of this many seconds (an hour), and the browser
/// may keep what they serve as long (`Cache-Control` of the media handler).
pub const MEDIA_URL_STEP_SECS: i64 = 3600;

/// When a media URL signed at `now` (Unix seconds) expires: [`MEDIA_URL_TTL_SECS`] on,
/// rounded up to a whole step. An object read again within the step gets the same URL,
/// so the browser's cache serves it again, and a list read again (a poll) does not give
/// its thumbnails or a playing video a new source.
fn media_exp(now: i64) -> i64 {
    let exp = now + MEDIA_URL_TTL_SECS;
    (exp + MEDIA_URL_STEP_SECS - 1) / MEDIA_URL_STEP_SECS * MEDIA_URL_STEP_SECS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_urls_expire_at_whole_hours_at_least_their_time_on() {
        let hour = 1_795_672_800; // 2026-11-26 05:00:00 UTC, a whole hour
        assert_eq!(hour % 3600, 0);
        let at = |s: i64| media_exp(hour + s);
        // Signed anywhere within an hour: one expiry, so one URL.
        let six_on = hour + MEDIA_URL_TTL_SECS;
        assert_eq!(at(1), six_on + 3600);
        assert_eq!(at(1800), six_on + 3600);
        assert_eq!(at(3600), six_on + 3600);
        // A whole hour needs no rounding; the next second starts the next step.
        assert_eq!(at(0), six_on);
        assert_eq!(at(3601), six_on + 7200);
        // Never shorter than the time a URL is promised, never over an hour more.
        for s in (0..7200).step_by(7) {
            let left = at(s) - (hour + s);
            assert!(
                (MEDIA_URL_TTL_SECS..MEDIA_URL_TTL_SECS + 3600).contains(&left),
                "{s}: {left}"
            );
        }
    }
}
