//! Remote cameras: attached, renamed, their login changed, detached; each change sent to
//! the device with the password in the URL it dials, while no answer, list or command
//! record shows the password; bad names, URLs and logins refused with nothing written.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::cameras::{RemoteCam, RemoteCamCreate, RemoteCamPatch};
use gemba_shared::api::v1::device::DeviceCommand;
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{bench, next_config, version};
use crate::both;
use crate::common::*;
use crate::devices::added;

fn cam(name: &str, url: &str) -> RemoteCamCreate {
    RemoteCamCreate {
        name: name.into(),
        url: url.into(),
        username: None,
        password: None,
    }
}

both!(
    remote_cameras_are_attached_and_sent_and_their_password_never_shown,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let path = format!("device/remote_cam/{id}/");
        let door: RemoteCam = app
            .create_as(
                &path,
                &cam("door", "rtsp://admin:s3cret@10.0.0.5:554/stream1"),
                &w.eng,
            )
            .await;
        assert_eq!(
            (
                door.name.as_str(),
                door.url.as_str(),
                door.username.as_str()
            ),
            ("door", "rtsp://admin@10.0.0.5:554/stream1", "admin")
        );
        assert!(door.has_password);
        assert_eq!(
            (door.device.id, door.device.display_name.as_str()),
            (id, "Bench")
        );
        // The device is sent its configuration, the login in the URL it dials.
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.version, 1);
        assert_eq!(config.time_zone, "UTC");
        assert_eq!(config.remote_cameras.len(), 1);
        assert_eq!(
            config.remote_cameras[0].url,
            "rtsp://admin:s3cret@10.0.0.5:554/stream1"
        );

        // A login given beside the URL, with characters a URL cannot hold as they are.
        let mut yard = cam("yard", "http://cam.local:8080/video.mjpg");
        yard.username = Some("op".into());
        yard.password = Some("p@ss:w/rd".into());
        let yard: RemoteCam = app.create_as(&path, &yard, &w.eng).await;
        assert_eq!(yard.url, "http://op@cam.local:8080/video.mjpg");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.version, 2);
        let sent = config
            .remote_cameras
            .iter()
            .find(|c| c.name == "yard")
            .unwrap();
        assert_eq!(
            sent.url,
            "http://op:p%40ss%3Aw%2Frd@cam.local:8080/video.mjpg"
        );

        // Nothing a person reads shows a password: the list, the device's commands.
        let list: Vec<RemoteCam> = app.get_as(&path, &w.eng).await;
        assert_eq!(list.len(), 2);
        let commands: Vec<DeviceCommand> =
            app.get_as(&format!("device/{id}/commands/"), &w.eng).await;
        let read = serde_json::to_string(&(&list, &commands)).unwrap();
        assert!(
            !read.contains("s3cret") && !read.contains("p%40ss"),
            "{read}"
        );
        assert!(read.contains("admin@10.0.0.5"), "{read}");

        // Bad input: each refused on its field, nothing written, nothing sent.
        let before = version(&app, id).await;
        let long_url = format!("rtsp://cam/{}", "x".repeat(1000));
        let mut both_logins = cam("gate", "rtsp://u:p@cam/s");
        both_logins.username = Some("u".into());
        for (body, field, says) in [
            (
                cam("cam0", "rtsp://cam/s"),
                "name",
                "Bench already has a camera cam0.",
            ),
            (
                cam("door", "rtsp://cam/s"),
                "name",
                "Bench already has a remote camera door.",
            ),
            (
                cam("a door", "rtsp://cam/s"),
                "name",
                "A camera name is 1 to 100 letters, digits, '-', '_' or '.'.",
            ),
            (
                cam("gate", "ftp://cam/s"),
                "url",
                "The camera's URL must start with rtsp://, rtsps://, http:// or https://.",
            ),
            (
                cam("gate", "rtsp://"),
                "url",
                "The camera's URL must name a host.",
            ),
            (
                cam("gate", "rtsp://cam:70000/s"),
                "url",
                "The camera's URL has a port that is not 1 to 65535.",
            ),
            (
                cam("gate", &long_url),
                "url",
                "URL must be at most 1000 characters.",
            ),
            (
                both_logins,
                "url",
                "Give the login either in the URL or as username and password, not both.",
            ),
        ] {
            let (s, v) = app.send_refused(Method::POST, &path, &body, &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert_eq!(v, json!({ field: [says] }), "{body:?}");
        }
        let (s, v) = app
            .send_refused(Method::POST, &path, &json!({"name": "gate"}), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(version(&app, id).await, before);
        let list: Vec<RemoteCam> = app.get_as(&path, &w.eng).await;
        assert_eq!(list.len(), 2);

        // Roles and tenancy: the analytics user sees no devices, B's admin not A's.
        let (s, _) = app.send_refused(Method::GET, &path, &(), &w.analyst).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        for (m, p) in [
            (Method::GET, path.clone()),
            (Method::PATCH, format!("device/remote_cam/{}/", door.id)),
            (Method::DELETE, format!("device/remote_cam/{}/", door.id)),
            (Method::GET, "device/remote_cam/999999999/".to_string()),
            (Method::GET, "device/remote_cam/abc/".to_string()),
        ] {
            let (s, v) = app.send_refused(m.clone(), &p, &json!({}), &w.boss_b).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{m} {p}: {v}");
        }
        let (s, _) = app
            .send_refused(Method::POST, &path, &cam("gate", "rtsp://cam/s"), &w.boss_b)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // A device of B cannot get A's camera's name checked against it either.
        let theirs = added(&app, &w.boss_b, "Theirs").await.device.id;
        let (s, _) = app
            .send_refused(
                Method::POST,
                &format!("device/remote_cam/{theirs}/"),
                &cam("gate", "rtsp://cam/s"),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(version(&app, id).await, before);

        // Renamed; the password removed; a new URL without a login keeps the user.
        let one = format!("device/remote_cam/{}/", door.id);
        let patch = RemoteCamPatch {
            name: Some("front".into()),
            ..RemoteCamPatch::default()
        };
        let front: RemoteCam = app.send_as(Method::PATCH, &one, &patch, &w.eng).await;
        assert_eq!((front.name.as_str(), front.has_password), ("front", true));
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert!(
            config
                .remote_cameras
                .iter()
                .any(|c| c.name == "front" && c.url == "rtsp://admin:s3cret@10.0.0.5:554/stream1")
        );
        let patch = RemoteCamPatch {
            url: Some("rtsps://10.0.0.6/main".into()),
            password: Some(String::new()),
            ..RemoteCamPatch::default()
        };
        let front: RemoteCam = app.send_as(Method::PATCH, &one, &patch, &w.eng).await;
        assert_eq!(
            (front.url.as_str(), front.has_password),
            ("rtsps://admin@10.0.0.6/main", false)
        );
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert!(
            config
                .remote_cameras
                .iter()
                .any(|c| c.url == "rtsps://admin@10.0.0.6/main")
        );
        // Its own name again is no clash; another's is.
        let (s, v) = app
            .send_refused(Method::PATCH, &one, &json!({"name": "yard"}), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let _: RemoteCam = app
            .send_as(Method::PATCH, &one, &json!({"name": "front"}), &w.eng)
            .await;
        let _ = next_config(&mut b.dev, &mut b.seen).await;

        // Detached: gone from the list and from what the device is sent.
        let m: Msg = app.send_as(Method::DELETE, &one, &(), &w.eng).await;
        assert_eq!(m.msg, "Data deleted successfully!");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(
            config
                .remote_cameras
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            ["yard"]
        );
        let (s, _) = app.send_refused(Method::DELETE, &one, &(), &w.eng).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);
