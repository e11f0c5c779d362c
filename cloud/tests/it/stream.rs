//! The device stream, `/api/ws` (issue 5): a real WebSocket client (tokio-tungstenite)
//! against the real server, devices speaking MQTT through the embedded broker, and two
//! replicas on the external broker.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use gemba_shared::api::v1::device::{DeviceDetails, DeviceSettings};
use gemba_shared::api::v1::stream::{
    ClientEvent, CyclesEvent, ServerEvent, StreamDevices, StreamError,
};
use gemba_shared::mqtt::v1;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::common::*;
use crate::devices::{TestDevice, World, cycle, enrolled, world};
use crate::{both, both_with};

pub(crate) type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the stream as a browser does: the token as the sub-protocol `bearer.{token}`,
/// the organisation in the query.
pub(crate) async fn open(
    app: &TestApp,
    token: &str,
    org: Option<i64>,
) -> Result<Socket, StatusCode> {
    let q = org
        .map(|o| format!("?organization={o}"))
        .unwrap_or_default();
    let url = format!("{}/ws{q}", app.base.replace("http://", "ws://"));
    let mut req = url.into_client_request().unwrap();
    req.headers_mut().insert(
        "sec-websocket-protocol",
        HeaderValue::from_str(&format!("gemba.v1, bearer.{token}")).unwrap(),
    );
    match tokio_tungstenite::connect_async(req).await {
        Ok((socket, answer)) => {
            assert_eq!(answer.headers()["sec-websocket-protocol"], "gemba.v1");
            Ok(socket)
        }
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status()),
        Err(e) => panic!("connecting: {e}"),
    }
}

/// `e` as a text frame.
fn frame(e: &ClientEvent) -> Message {
    Message::Text(serde_json::to_string(e).unwrap().into())
}

pub(crate) async fn send(ws: &mut Socket, e: ClientEvent) {
    ws.send(frame(&e)).await.unwrap();
}

/// `subscribe` to `devices` (`None`: every device of the organisation).
fn subscribe(devices: Option<Vec<i64>>) -> ClientEvent {
    ClientEvent::Subscribe(StreamDevices { devices })
}

/// `unsubscribe` from `devices` (`None`: from all).
fn unsubscribe(devices: Option<Vec<i64>>) -> ClientEvent {
    ClientEvent::Unsubscribe(StreamDevices { devices })
}

/// The next event from the server.
pub(crate) async fn next(ws: &mut Socket) -> ServerEvent {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("an event within 10 s")
            .expect("the stream is open")
            .expect("a frame");
        match m {
            Message::Text(t) => return serde_json::from_str(&t).unwrap(),
            Message::Ping(_) | Message::Pong(_) => {}
            other => panic!("unexpected frame {other:?}"),
        }
    }
}

/// The ids of a `devices` event.
fn ids(v: &ServerEvent) -> Vec<i64> {
    let ServerEvent::Devices(devices) = v else {
        panic!("not a devices event: {v:?}")
    };
    let mut ids: Vec<i64> = devices.iter().map(|d| d.id).collect();
    ids.sort();
    ids
}

/// Adds and enrols a device as `tok`; answers it connected to the broker.
async fn device(app: &TestApp, tok: &str, name: &str) -> TestDevice {
    TestDevice::of(&enrolled(app, tok, name).await).await
}

async fn say_online(dev: &TestDevice, online: bool) {
    let status = v1::StatusMessage {
        v: 1,
        online,
        ts_ms: 1,
        agent_version: "test".into(),
        cameras: vec![],
        outbox: 3,
        disk_free_mb: None,
        temperature_c: None,
        config_version: 0,
        target: String::new(),
        updatable: false,
        update: None,
        faults: vec![],
    };
    dev.send_status(&status).await;
}

/// Waits until device `id` is stored as `online` (as `tok` sees it).
async fn stored_online(app: &TestApp, tok: &str, id: i64, online: bool) {
    for _ in 0..400 {
        let d: DeviceDetails = app
            .get_as(&format!("device/{id}/device_details/"), tok)
            .await;
        if d.device.online == online {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("device {id} never stored online={online}");
}

/// Replaces device `id`'s settings (free-form JSON, so `v` stays a `Value`).
async fn set_settings(app: &TestApp, w: &World, id: i64, v: Value) {
    let _: DeviceSettings = app
        .send_as(
            Method::PATCH,
            &format!("device/{}/device_settings_update/{id}/", w.a),
            &v,
            &w.eng,
        )
        .await;
}

both!(
    watchers_hear_of_their_devices_and_nothing_else,
    |app: TestApp| async move {
        let w = world(&app).await;
        let d1 = device(&app, &w.boss, "Bench 1").await;
        let d2 = device(&app, &w.boss, "Bench 2").await;
        let db = device(&app, &w.boss_b, "Bench B").await;
        let mut ws = open(&app, &w.eng, Some(w.a)).await.unwrap();

        send(&mut ws, subscribe(Some(vec![d1.id]))).await;
        let v = next(&mut ws).await;
        assert_eq!(ids(&v), vec![d1.id]);
        let ServerEvent::Devices(devices) = v else {
            unreachable!()
        };
        assert_eq!(devices[0].display_name, "Bench 1");
        assert!(!devices[0].online);

        // Another device of A and B's device speak first; only Bench 1 is heard. (One
        // ingestion task raises events in the order it stores statuses, so once Bench 2
        // and B's device are stored their events, if any, would come first.)
        say_online(&d2, true).await;
        say_online(&db, true).await;
        stored_online(&app, &w.eng, d2.id, true).await;
        stored_online(&app, &w.boss_b, db.id, true).await;
        set_settings(&app, &w, d2.id, json!({"fps": 5})).await;
        say_online(&d1, true).await;
        let v = next(&mut ws).await;
        let ServerEvent::DeviceStatus(st) = v else {
            panic!("not a device_status event: {v:?}")
        };
        assert_eq!(st.id, d1.id);
        assert!(st.online);
        assert_eq!(st.status.outbox, 3);
        assert!(st.last_seen > 0);

        set_settings(&app, &w, d1.id, json!({"fps": 10, "blur": true})).await;
        let v = next(&mut ws).await;
        let ServerEvent::DeviceSettings(set) = v else {
            panic!("not a device_settings event: {v:?}")
        };
        assert_eq!(set.id, d1.id);
        assert_eq!(set.settings, json!({"fps": 10, "blur": true}));

        // Every device of A, none of B's; then less, then nothing.
        send(&mut ws, subscribe(None)).await;
        assert_eq!(ids(&next(&mut ws).await), vec![d1.id, d2.id]);
        // Watching all of A's devices is not watching B's.
        say_online(&db, false).await;
        stored_online(&app, &w.boss_b, db.id, false).await;
        say_online(&d2, false).await;
        let v = next(&mut ws).await;
        let ServerEvent::DeviceStatus(st) = v else {
            panic!("not a device_status event: {v:?}")
        };
        assert_eq!((st.id, st.online), (d2.id, false));
        send(&mut ws, unsubscribe(Some(vec![d1.id]))).await;
        assert_eq!(ids(&next(&mut ws).await), vec![d2.id]);
        send(&mut ws, unsubscribe(None)).await;
        assert_eq!(ids(&next(&mut ws).await), Vec::<i64>::new());
        // Watching nothing, the next thing heard is the answer to the next frame.
        say_online(&d1, false).await;
        stored_online(&app, &w.eng, d1.id, false).await;
        send(&mut ws, subscribe(Some(vec![d2.id]))).await;
        assert_eq!(ids(&next(&mut ws).await), vec![d2.id]);
    }
);

both!(
    new_cycles_are_told_of_at_most_once_a_second_a_device,
    |app: TestApp| async move {
        let w = world(&app).await;
        let d1 = device(&app, &w.boss, "Bench 1").await;
        let d2 = device(&app, &w.boss, "Bench 2").await;
        let mut ws = open(&app, &w.eng, Some(w.a)).await.unwrap();
        send(&mut ws, subscribe(Some(vec![d1.id]))).await;
        assert_eq!(ids(&next(&mut ws).await), vec![d1.id]);
        // Bench 2's cycle is not heard; Bench 1's is.
        d2.send_cycle(&cycle(w.task)).await;
        d1.send_cycle(&cycle(w.task)).await;
        let told_of_d1 = ServerEvent::Cycles(CyclesEvent { id: d1.id });
        assert_eq!(next(&mut ws).await, told_of_d1);
        // A burst: told of at most once a second, the last of it too.
        let t0 = std::time::Instant::now();
        for _ in 0..30 {
            d1.send_cycle(&cycle(w.task)).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for _ in 0..500 {
            let stored = sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM cycles")
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
            if stored == 32 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let mut told = 0;
        // Every cycle stored; the last told within a second and a bit.
        let deadline = tokio::time::Instant::now() + Duration::from_millis(2500);
        while let Ok(Some(Ok(Message::Text(t)))) =
            tokio::time::timeout_at(deadline, ws.next()).await
        {
            let v: ServerEvent = serde_json::from_str(&t).unwrap();
            assert_eq!(v, told_of_d1);
            told += 1;
        }
        let secs = t0.elapsed().as_secs_f64();
        assert!(told >= 1, "the burst was told of");
        assert!(
            f64::from(told) <= secs + 1.0,
            "{told} events in {secs:.1} s: at most one a second"
        );
    }
);

both!(
    bad_frames_are_answered_and_change_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let d1 = device(&app, &w.boss, "Bench 1").await;
        let db = device(&app, &w.boss_b, "Bench B").await;
        let mut ws = open(&app, &w.eng, None).await.unwrap();
        send(&mut ws, subscribe(Some(vec![d1.id]))).await;
        assert_eq!(ids(&next(&mut ws).await), vec![d1.id]);

        let many: Vec<i64> = (1..=1001).collect();
        let not_found = format!("Device {} not found.", db.id);
        let cases: Vec<(Message, &str)> = vec![
            (Message::Text("not json".into()), "Send a JSON object"),
            (Message::Text("[1, 2]".into()), "Send a JSON object"),
            (
                Message::Binary(vec![1u8, 2, 3].into()),
                "Send JSON text frames.",
            ),
            (
                Message::Text(
                    json!({"event": "webrtc_stream_offer", "data": {}})
                        .to_string()
                        .into(),
                ),
                "Send {\"type\": \"request\"",
            ),
            (
                Message::Text(
                    json!({"event": "opc_discovery", "data": {}})
                        .to_string()
                        .into(),
                ),
                "Unknown event \"opc_discovery\"",
            ),
            (
                Message::Text(
                    json!({"event": "subscribe", "data": {"devices": "all"}})
                        .to_string()
                        .into(),
                ),
                "Send {\"devices\": [device ids]}",
            ),
            (
                Message::Text(
                    json!({"event": "subscribe", "data": {"device": [1]}})
                        .to_string()
                        .into(),
                ),
                "Send {\"devices\": [device ids]}",
            ),
            (frame(&subscribe(Some(vec![-1]))), "Device -1 not found."),
            (frame(&subscribe(Some(vec![db.id]))), &not_found),
            (
                frame(&subscribe(Some(many))),
                "Name at most 1000 devices at a time.",
            ),
        ];
        for (frame, want) in cases {
            ws.send(frame.clone()).await.unwrap();
            let v = next(&mut ws).await;
            let ServerEvent::Error(StreamError { message: got }) = v else {
                panic!("{frame:?}: not an error event: {v:?}")
            };
            assert!(got.starts_with(want), "{frame:?}: {got}");
        }
        // Still watching Bench 1, and only it.
        say_online(&db, true).await;
        say_online(&d1, true).await;
        let v = next(&mut ws).await;
        assert!(
            matches!(&v, ServerEvent::DeviceStatus(st) if st.id == d1.id),
            "{v:?}"
        );
        send(&mut ws, unsubscribe(Some(vec![]))).await;
        assert_eq!(ids(&next(&mut ws).await), vec![d1.id]);

        // A frame over 64 KiB closes the stream; the server goes on.
        let big = "x".repeat(70 * 1024);
        let _ = ws.send(Message::Text(big.into())).await;
        let end = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match ws.next().await {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                    Some(Ok(_)) => {}
                }
            }
        })
        .await;
        assert!(end.is_ok(), "the stream was closed");
        let mut again = open(&app, &w.eng, None).await.unwrap();
        send(&mut again, subscribe(None)).await;
        assert_eq!(ids(&next(&mut again).await), vec![d1.id]);
    }
);

both_with!(
    only_signed_in_users_who_see_devices_open_it_and_signing_out_closes_it,
    |s: &mut gemba_cloud::config::Settings| s.stream_recheck_ms = 200,
    |app: TestApp| async move {
        let w = world(&app).await;
        assert_eq!(
            open(&app, "not-a-token", None).await.err(),
            Some(StatusCode::UNAUTHORIZED)
        );
        // A role that does not see devices, and another organisation's stream.
        assert_eq!(
            open(&app, &w.analyst, None).await.err(),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            open(&app, &w.eng, Some(w.b)).await.err(),
            Some(StatusCode::FORBIDDEN)
        );
        // A plain GET is not a WebSocket.
        let r = app.raw(reqwest::Method::GET, "ws", Some(&w.eng), &[]).await;
        assert!(r.status().is_client_error(), "{}", r.status());
        // The super admin names the organisation (here: B's devices only).
        let db = device(&app, &w.boss_b, "Bench B").await;
        let mut ws = open(&app, &w.admin, Some(w.b)).await.unwrap();
        send(&mut ws, subscribe(None)).await;
        assert_eq!(ids(&next(&mut ws).await), vec![db.id]);

        // Signing out closes the stream with 4401.
        let mut ws = open(&app, &w.eng, None).await.unwrap();
        let (s, _) = app.patch("account/logout/", json!({}), Some(&w.eng)).await;
        assert_eq!(s, StatusCode::OK);
        let closed = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match ws.next().await {
                    Some(Ok(Message::Close(Some(f)))) => return u16::from(f.code),
                    Some(Ok(_)) => {}
                    other => panic!("no close frame: {other:?}"),
                }
            }
        })
        .await
        .expect("closed within 10 s");
        assert_eq!(closed, 4401);
    }
);

/// Two replicas share one PostgreSQL database and the external broker: a status
/// ingested by either, and settings changed through either, reach a watcher of the
/// other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_cross_replicas_on_the_external_broker() {
    let broker =
        std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or_else(|_| "mqtt://127.0.0.1:1883".into());
    let secret = gemba_cloud::config::Secret(format!("replicas-{}", uuid::Uuid::new_v4()));
    let group = format!("replicas-{}", uuid::Uuid::new_v4().simple());
    let (b1, s1, g1) = (broker.clone(), secret.clone(), group.clone());
    let one = TestApp::start_with(Backend::Postgres, move |s| {
        s.mqtt = b1;
        s.jwt_secret = Some(s1);
        s.mqtt_group = g1;
    })
    .await;
    let url = one.state.settings.database_url.clone().unwrap();
    let two = TestApp::start_with(Backend::Sqlite, move |s| {
        s.mqtt = broker;
        s.jwt_secret = Some(secret);
        s.mqtt_group = group;
        s.database_url = Some(url);
    })
    .await;
    for app in [&one, &two] {
        for _ in 0..200 {
            if app.state.mqtt.is_connected() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(app.state.mqtt.is_connected());
    }
    let w = world(&one).await;
    let dev = device(&one, &w.boss, "Bench 1").await;
    // Watched through replica two, changed through replica one.
    let mut ws = open(&two, &w.eng, Some(w.a)).await.unwrap();
    send(&mut ws, subscribe(None)).await;
    assert_eq!(ids(&next(&mut ws).await), vec![dev.id]);
    set_settings(&one, &w, dev.id, json!({"fps": 7})).await;
    let v = next(&mut ws).await;
    assert!(
        matches!(&v, ServerEvent::DeviceSettings(set) if set.settings == json!({"fps": 7})),
        "{v:?}"
    );
    // A status is ingested by one replica of the shared group, whichever: heard anyway.
    say_online(&dev, true).await;
    let v = next(&mut ws).await;
    assert!(
        matches!(&v, ServerEvent::DeviceStatus(st) if st.id == dev.id),
        "{v:?}"
    );
}
