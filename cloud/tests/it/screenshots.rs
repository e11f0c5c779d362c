//! Screenshots (issue 29): asked for now, the device takes one and uploads the JPEG with
//! one `PUT` to its link (a real JPEG, `data/screenshot.jpg`), and the answer is the
//! kept screenshot with a signed URL serving those bytes; a link works once and takes
//! only a JPEG; a device that refuses or stays silent is told apart; bad requests are
//! refused. At intervals: the cloud asks each camera of a device with the setting, and
//! the screenshots are listed newest first over a range.

use std::time::Duration;

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::cameras::{Screenshot, ScreenshotKind};
use gemba_shared::mqtt::v1::{self, Channel, Command};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::both_with;
use crate::common::*;
use crate::device_config::{bench, command_within};
use crate::devices::{TestDevice, added};

const JPEG: &[u8] = include_bytes!("../data/screenshot.jpg");

/// How a test device answers the next screenshot command.
#[derive(Clone, Copy)]
enum Answer {
    /// Uploads `JPEG` and acknowledges.
    Jpeg,
    /// Uploads bytes that are not a JPEG (refused), then the JPEG.
    NotJpegFirst,
    /// Acknowledges it could not.
    Refuse,
    /// Says nothing.
    Silent,
}

/// Answers the next screenshot command as `a` says; the camera it asked and the link.
async fn answer(app: &TestApp, dev: &mut TestDevice, a: Answer) -> (String, String) {
    loop {
        let c: v1::CommandMessage = dev.next(Channel::Cmd).await;
        let Command::Screenshot { camera, url } = c.command else {
            continue;
        };
        let put = async |body: &[u8]| {
            let r = app
                .client
                .put(&url)
                .body(body.to_vec())
                .send()
                .await
                .unwrap();
            let s = r.status();
            (s, r.json::<serde_json::Value>().await.unwrap())
        };
        match a {
            Answer::Jpeg | Answer::NotJpegFirst => {
                if matches!(a, Answer::NotJpegFirst) {
                    let (s, v) = put(b"GIF89a, not a JPEG").await;
                    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
                    assert_eq!(v, json!({"file": ["The screenshot is not a JPEG."]}));
                }
                let (s, v) = put(JPEG).await;
                assert_eq!(s, StatusCode::OK, "{v}");
                dev.ack(&c.id, true, "").await;
            }
            Answer::Refuse => dev.ack(&c.id, false, "camera cam0 has no frame yet").await,
            Answer::Silent => {}
        }
        return (camera, url);
    }
}

both_with!(
    a_screenshot_is_taken_now_kept_and_served,
    |s: &mut gemba_cloud::config::Settings| {
        s.screenshot_wait_ms = 3_000;
        s.screenshot_tick_ms = 200;
    },
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let path = format!("organization/get_screenshot?device={id}&camera=cam0");
        let (shot, (camera, url)) = tokio::join!(
            app.get_as::<Screenshot>(&path, &w.eng),
            answer(&app, &mut b.dev, Answer::Jpeg)
        );
        assert_eq!(camera, "cam0");
        assert_eq!(
            (
                shot.device,
                shot.camera.as_str(),
                shot.kind,
                shot.size_bytes
            ),
            (id, "cam0", ScreenshotKind::OnDemand, JPEG.len() as i64)
        );
        // The signed URL serves the device's bytes as a JPEG.
        let host = app.base.trim_end_matches("/api");
        let r = app
            .client
            .get(format!("{host}{}", shot.url))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()["content-type"], "image/jpeg");
        assert_eq!(&r.bytes().await.unwrap()[..], JPEG);
        // The link worked once.
        let r = app
            .client
            .put(&url)
            .body(JPEG.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CONFLICT);
        let r = app
            .client
            .put(format!("{}/device/screenshot/not-a-token", app.base))
            .body(JPEG.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);

        // Bytes that are not a JPEG are refused, and the link still takes the JPEG.
        let (shot, _) = tokio::join!(
            app.get_as::<Screenshot>(&path, &w.eng),
            answer(&app, &mut b.dev, Answer::NotJpegFirst)
        );
        assert_eq!(shot.size_bytes, JPEG.len() as i64);

        // A device that cannot says why; one that does not answer is not waited for.
        let ((s, v), _) = tokio::join!(
            app.send_refused(Method::GET, &path, &(), &w.eng),
            answer(&app, &mut b.dev, Answer::Refuse)
        );
        assert_eq!(s, StatusCode::BAD_GATEWAY, "{v}");
        assert_eq!(
            v["detail"],
            "Bench could not take the screenshot: camera cam0 has no frame yet"
        );
        let ((s, v), _) = tokio::join!(
            app.send_refused(Method::GET, &path, &(), &w.eng),
            answer(&app, &mut b.dev, Answer::Silent)
        );
        assert_eq!(s, StatusCode::GATEWAY_TIMEOUT, "{v}");
        assert_eq!(v["detail"], "Bench did not send the screenshot within 3 s.");

        // Bad requests: nothing is asked of any device.
        let offline = added(&app, &w.boss, "Bench 2").await.device.id;
        let theirs = added(&app, &w.boss_b, "Theirs").await.device.id;
        for (p, tok, status, says) in [
            (
                format!("organization/get_screenshot?device={id}&camera=cam9"),
                &w.eng,
                StatusCode::BAD_REQUEST,
                Some(json!({"camera": ["Bench has no camera cam9."]})),
            ),
            (
                format!("organization/get_screenshot?device={offline}&camera=cam0"),
                &w.eng,
                StatusCode::BAD_REQUEST,
                Some(json!({"device": ["Bench 2 is offline: try again once it is online."]})),
            ),
            (
                format!("organization/get_screenshot?device={id}"),
                &w.eng,
                StatusCode::BAD_REQUEST,
                None,
            ),
            (
                format!("organization/get_screenshot?device={theirs}&camera=cam0"),
                &w.eng,
                StatusCode::NOT_FOUND,
                None,
            ),
            (path.clone(), &w.boss_b, StatusCode::NOT_FOUND, None),
            (path.clone(), &w.analyst, StatusCode::FORBIDDEN, None),
        ] {
            let (s, v) = app.send_refused(Method::GET, &p, &(), tok).await;
            assert_eq!(s, status, "{p}: {v}");
            if let Some(says) = says {
                assert_eq!(v, says, "{p}");
            }
        }
        assert!(
            command_within(&mut b.dev, Duration::from_millis(300))
                .await
                .is_none()
        );

        // At intervals: a bad interval is refused; a minute asks each camera once.
        let settings = format!("device/{}/device_settings_update/{id}/", w.a);
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &settings,
                &json!({"screenshot_interval_secs": 5}),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let (s, v) = app
            .call(
                Method::PATCH,
                &settings,
                Some(json!({"screenshot_interval_secs": 60})),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let mut cameras = vec![
            answer(&app, &mut b.dev, Answer::Jpeg).await.0,
            answer(&app, &mut b.dev, Answer::Jpeg).await.0,
        ];
        cameras.sort();
        assert_eq!(cameras, ["cam0", "cam1"]);
        // Not again within the minute (the settings command aside).
        while let Some(c) = command_within(&mut b.dev, Duration::from_millis(1_000)).await {
            assert!(matches!(c.command, Command::Settings { .. }), "{c:?}");
        }
        let list = format!("organization/get_screenshot_intervals?device={id}");
        let page: Page<Screenshot> = app.get_as(&list, &w.eng).await;
        assert_eq!(page.count, 2);
        assert!(
            page.results
                .iter()
                .all(|s| s.kind == ScreenshotKind::Interval)
        );
        assert!(
            page.results[0].taken_at >= page.results[1].taken_at,
            "newest first"
        );
        let later = page.results[0].taken_at + 1;
        let page: Page<Screenshot> = app.get_as(&format!("{list}&camera=cam1"), &w.eng).await;
        assert_eq!((page.count, page.results[0].camera.as_str()), (1, "cam1"));
        let page: Page<Screenshot> = app
            .get_as(&format!("{list}&datetime_start={later}"), &w.eng)
            .await;
        assert_eq!(page.count, 0);
        let page: Page<Screenshot> = app.get_as(&format!("{list}&page=2"), &w.eng).await;
        assert_eq!((page.count, page.results.len()), (2, 0));
        for (p, tok, status) in [
            (format!("{list}&page=0"), &w.eng, StatusCode::BAD_REQUEST),
            (
                format!("{list}&datetime_start=10&datetime_end=5"),
                &w.eng,
                StatusCode::BAD_REQUEST,
            ),
            (list.clone(), &w.boss_b, StatusCode::NOT_FOUND),
            (list.clone(), &w.analyst, StatusCode::FORBIDDEN),
            (
                format!("organization/get_screenshot_intervals?device={theirs}"),
                &w.eng,
                StatusCode::NOT_FOUND,
            ),
        ] {
            let (s, v) = app.send_refused(Method::GET, &p, &(), tok).await;
            assert_eq!(s, status, "{p}: {v}");
        }

        // The hourly sweep: a screenshot older than `screenshot_days` goes, file and
        // all; those asked for and not answered stay a day.
        let all: Page<Screenshot> = app.get_as(&list, &w.eng).await;
        let old = &all.results[1];
        sqlx::query("UPDATE screenshots SET taken_at = 1000 WHERE id = $1")
            .bind(old.id)
            .execute(&app.state.db.pool)
            .await
            .unwrap();
        let swept = gemba_cloud::screenshots::sweep(&app.state).await.unwrap();
        assert_eq!(swept, 1);
        let page: Page<Screenshot> = app.get_as(&list, &w.eng).await;
        assert_eq!(page.count, 1);
        let r = app
            .client
            .get(format!("{host}{}", old.url))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        // A deleted device's screenshots go at the next sweep.
        let (s, v) = app
            .call(
                Method::DELETE,
                &format!("device/{id}/"),
                None,
                Some(&w.boss),
            )
            .await;
        assert!(s.is_success(), "{s} {v}");
        // Two taken on demand, one at intervals, two never sent (and any the ticker
        // asked for meanwhile).
        let of_device: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM screenshots WHERE device_id = $1")
                .bind(id)
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
        assert!(of_device >= 5, "{of_device}");
        let swept = gemba_cloud::screenshots::sweep(&app.state).await.unwrap();
        assert_eq!(swept as i64, of_device);
        let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM screenshots")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(left, 0);
        let r = app
            .client
            .get(format!("{host}{}", shot.url))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
);
