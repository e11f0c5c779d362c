//! Media URLs end with the session (issue 28, hardening): a video's URLs, as the portal
//! gets them, play while the session they were made in is open and stop at its
//! sign-out, while another session's go on; a tampered URL is refused.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use gemba_shared::api::v1::video::Video;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::videos::{clip, subscribed_world, upload_video};

/// GET on a media URL, no sign-in: the status.
async fn fetch(app: &TestApp, url: &str) -> StatusCode {
    let origin = app.base.trim_end_matches("/api");
    app.client
        .get(format!("{origin}{url}"))
        .send()
        .await
        .unwrap()
        .status()
}

/// `url` with its token's claims changed by `change`, the signature kept.
fn tampered(url: &str, change: impl FnOnce(&mut Value)) -> String {
    let (prefix, token) = url.rsplit_once('/').unwrap();
    let parts: Vec<&str> = token.split('.').collect();
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    change(&mut claims);
    let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap());
    format!("{prefix}/{}.{body}.{}", parts[0], parts[2])
}

both!(
    media_urls_stop_at_sign_out_and_refuse_tampering,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let dir = tempfile::tempdir().unwrap();
        let v = upload_video(
            &app,
            &w.eng,
            w.task,
            "weld.mp4",
            &clip(dir.path(), 1),
            1 << 20,
        )
        .await;
        let (url, thumb) = (v.url.unwrap(), v.thumbnail_url.unwrap());
        assert_eq!(fetch(&app, &url).await, StatusCode::OK);
        assert_eq!(fetch(&app, &thumb).await, StatusCode::OK);

        // Tampered: another object, another organisation, or no session named.
        let other = tampered(&url, |c| {
            c["key"] = json!(format!("{}x", c["key"].as_str().unwrap()))
        });
        let org = tampered(&url, |c| c["org"] = json!(w.b));
        let sessionless = tampered(&url, |c| {
            c.as_object_mut().unwrap().remove("sid");
        });
        for u in [&other, &org, &sessionless] {
            assert_eq!(fetch(&app, u).await, StatusCode::NOT_FOUND, "{u}");
        }
        let mut cut = url.clone();
        cut.pop();
        assert_eq!(fetch(&app, &cut).await, StatusCode::NOT_FOUND);

        // The same user in a second session (another browser) gets its own URLs.
        let second = token(&app.login("eng@a.test", PASSWORD).await);
        let v2: Video = app
            .get_as(&format!("organization/task_record/{}/", v.id), &second)
            .await;
        let url2 = v2.url.unwrap();
        assert_ne!(url2, url);
        assert_eq!(fetch(&app, &url2).await, StatusCode::OK);

        // Signing out ends the first session's URLs, not the second's.
        let (s, b) = app.patch("account/logout/", json!({}), Some(&w.eng)).await;
        assert_eq!(s, StatusCode::OK, "{b}");
        assert_eq!(fetch(&app, &url).await, StatusCode::NOT_FOUND);
        assert_eq!(fetch(&app, &thumb).await, StatusCode::NOT_FOUND);
        assert_eq!(fetch(&app, &url2).await, StatusCode::OK);
        let (s, _) = app.patch("account/logout/", json!({}), Some(&second)).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(fetch(&app, &url2).await, StatusCode::NOT_FOUND);
    }
);
