//! Live view's signalling and relay (issue 29), from the outside: viewers on the real
//! device stream (`/api/ws`, `webrtc_stream_offer`), devices speaking MQTT through the
//! embedded broker, and a real TURN client (webrtc-rs's) allocating on the cloud's
//! relay. The media itself is played by Chromium in `web/e2e/live-view.spec.ts`.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use gemba_shared::api::v1::device::DeviceDetails;
use gemba_shared::api::v1::stream::{ClientEvent, LiveEvent, LiveRequest, ServerEvent};
use gemba_shared::mqtt::v1::{self, Channel, RtcAnswer, RtcMessage, RtcReply, RtcRequest};
use reqwest::StatusCode;

use crate::both;
use crate::common::*;
use crate::devices::{TestDevice, enrolled, world};
use crate::stream::{Socket, next, open, send};

const SDP: &str = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";

fn live(step: LiveRequest) -> ClientEvent {
    ClientEvent::WebrtcStreamOffer(step)
}

/// The next live event on `ws`, other events skipped.
async fn next_live(ws: &mut Socket) -> LiveEvent {
    loop {
        match next(ws).await {
            ServerEvent::WebrtcStreamOffer(e) => return e,
            ServerEvent::Error(e) => panic!("refused: {}", e.message),
            _ => {}
        }
    }
}

/// The next error on `ws`.
async fn next_error(ws: &mut Socket) -> String {
    loop {
        if let ServerEvent::Error(e) = next(ws).await {
            return e.message;
        }
    }
}

/// Nothing live arrives on `ws` for a second.
async fn hears_nothing(ws: &mut Socket) {
    let r = tokio::time::timeout(Duration::from_secs(1), ws.next()).await;
    assert!(r.is_err(), "heard {r:?}");
}

/// Asks for `camera` of `device`: the session and its ICE servers.
async fn ready(ws: &mut Socket, device: i64, camera: &str) -> (String, Vec<v1::IceServer>) {
    send(
        ws,
        live(LiveRequest::Request {
            device,
            camera: camera.into(),
        }),
    )
    .await;
    match next_live(ws).await {
        LiveEvent::Ready {
            session,
            device: d,
            camera: c,
            ice_servers,
        } => {
            assert_eq!((d, c.as_str()), (device, camera));
            (session, ice_servers)
        }
        other => panic!("not ready: {other:?}"),
    }
}

async fn offer(ws: &mut Socket, session: &str) {
    send(
        ws,
        live(LiveRequest::Offer {
            session: session.into(),
            sdp: SDP.into(),
        }),
    )
    .await;
}

async fn reply(d: &TestDevice, session: &str, answer: RtcAnswer) {
    let r = RtcReply {
        v: v1::VERSION,
        session: session.into(),
        answer,
    };
    d.publish(d.topic(Channel::RtcAnswer), v1::sign(&d.key, &d.kid, &r))
        .await;
}

/// An online device of the organisation, connected as its agent, once the cloud has
/// taken its status.
async fn online(app: &TestApp, tok: &str, name: &str) -> TestDevice {
    let creds = enrolled(app, tok, name).await;
    let d = TestDevice::of(&creds).await;
    d.send_status(&v1::StatusMessage {
        v: v1::VERSION,
        online: true,
        ts_ms: unix_now() as i64 * 1000,
        agent_version: "test".into(),
        cameras: vec![],
        outbox: 0,
        disk_free_mb: None,
        temperature_c: None,
        config_version: 0,
        target: String::new(),
        updatable: false,
        update: None,
        faults: vec![],
    })
    .await;
    for _ in 0..100 {
        let details: DeviceDetails = app
            .get_as(&format!("device/{}/device_details/", d.id), tok)
            .await;
        if details.device.online {
            return d;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{name} never came online");
}

both!(
    an_offer_reaches_its_device_and_only_its_answer_comes_back,
    |app| async move {
        let w = world(&app).await;
        let mut bench = online(&app, &w.boss, "Bench").await;
        let other = online(&app, &w.boss, "Other").await;
        let mut ws = open(&app, &w.eng, Some(w.a)).await.unwrap();
        let mut ws2 = open(&app, &w.boss, Some(w.a)).await.unwrap();
        let (session, ice) = ready(&mut ws, bench.id, "cam0").await;
        let (session2, _) = ready(&mut ws2, bench.id, "cam0").await;
        assert_ne!(session, session2);
        // The relay, with this session's own credentials.
        assert_eq!(ice.len(), 1);
        assert!(
            ice[0].urls[0].starts_with("turn:127.0.0.1:"),
            "{:?}",
            ice[0]
        );
        assert!(ice[0].username.ends_with(&format!(":{session}")));
        assert!(!ice[0].credential.is_empty());

        // The offer reaches the device, signed with its key, fresh, with the relay.
        offer(&mut ws, &session).await;
        let m: RtcMessage = bench.next(Channel::Rtc).await;
        assert_eq!(m.session, session);
        assert_eq!(m.expires_ms - m.sent_ms, v1::OFFER_VALID_MS);
        match &m.request {
            RtcRequest::Offer {
                camera,
                sdp,
                ice_servers,
            } => {
                assert_eq!((camera.as_str(), sdp.as_str()), ("cam0", SDP));
                assert_eq!(ice_servers[0].urls, ice[0].urls);
            }
            other => panic!("not an offer: {other:?}"),
        }
        // Offered once only.
        offer(&mut ws, &session).await;
        assert!(next_error(&mut ws).await.contains("offered already"));

        // Another device cannot answer it; the other stream never hears it.
        reply(
            &other,
            &session,
            RtcAnswer::Answer {
                sdp: "v=0\r\nforged".into(),
            },
        )
        .await;
        hears_nothing(&mut ws).await;
        reply(
            &bench,
            &session,
            RtcAnswer::Answer {
                sdp: "v=0\r\nanswer".into(),
            },
        )
        .await;
        assert_eq!(
            next_live(&mut ws).await,
            LiveEvent::Answer {
                session: session.clone(),
                sdp: "v=0\r\nanswer".into()
            }
        );
        hears_nothing(&mut ws2).await;

        // The viewer leaves: its device is told.
        send(
            &mut ws,
            live(LiveRequest::Close {
                session: session.clone(),
            }),
        )
        .await;
        let m: RtcMessage = bench.next(Channel::Rtc).await;
        assert_eq!(
            (m.session.as_str(), &m.request),
            (session.as_str(), &RtcRequest::Close)
        );

        // A device's refusal and its end reach the viewer with why.
        let (s3, _) = ready(&mut ws, bench.id, "cam9").await;
        offer(&mut ws, &s3).await;
        let _: RtcMessage = bench.next(Channel::Rtc).await;
        let why = "this device has no camera cam9".to_string();
        reply(
            &bench,
            &s3,
            RtcAnswer::Refused {
                message: why.clone(),
            },
        )
        .await;
        assert_eq!(
            next_live(&mut ws).await,
            LiveEvent::Refused {
                session: s3.clone(),
                message: why
            }
        );

        // A stream that closes with a session offered tells its device.
        offer(&mut ws2, &session2).await;
        let _: RtcMessage = bench.next(Channel::Rtc).await;
        drop(ws2);
        let m: RtcMessage = bench.next(Channel::Rtc).await;
        assert_eq!(
            (m.session.as_str(), &m.request),
            (session2.as_str(), &RtcRequest::Close)
        );
    }
);

both!(
    a_viewer_gets_no_session_on_what_it_may_not_watch,
    |app| async move {
        let w = world(&app).await;
        let bench = online(&app, &w.boss, "Bench").await;
        let creds_b = enrolled(&app, &w.boss_b, "Theirs").await;
        let quiet = enrolled(&app, &w.boss, "Quiet").await;
        let mut ws = open(&app, &w.eng, Some(w.a)).await.unwrap();
        // Another organisation's device, a bad camera name, an unknown session.
        send(
            &mut ws,
            live(LiveRequest::Request {
                device: creds_b.device,
                camera: "cam0".into(),
            }),
        )
        .await;
        assert_eq!(
            next_error(&mut ws).await,
            format!("Device {} not found.", creds_b.device)
        );
        send(
            &mut ws,
            live(LiveRequest::Request {
                device: bench.id,
                camera: "cam 0/#".into(),
            }),
        )
        .await;
        assert!(next_error(&mut ws).await.starts_with("Camera"));
        offer(&mut ws, "no-such-session").await;
        assert!(next_error(&mut ws).await.contains("send a request first"));
        // A malformed step says what to send.
        ws_text(
            &mut ws,
            r#"{"event":"webrtc_stream_offer","data":{"type":"offer"}}"#,
        )
        .await;
        assert!(next_error(&mut ws).await.contains("\"type\": \"offer\""));
        // An offer that is not a session description never leaves the cloud.
        let (s, _) = ready(&mut ws, bench.id, "cam0").await;
        send(
            &mut ws,
            live(LiveRequest::Offer {
                session: s.clone(),
                sdp: "hello".into(),
            }),
        )
        .await;
        match next_live(&mut ws).await {
            LiveEvent::Refused { session, message } => {
                assert_eq!(session, s);
                assert!(message.contains("v=0"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // A device that is not online is refused at once.
        let (s, _) = ready(&mut ws, quiet.device, "cam0").await;
        offer(&mut ws, &s).await;
        assert_eq!(
            next_live(&mut ws).await,
            LiveEvent::Refused {
                session: s,
                message: "The device is offline.".into()
            }
        );
        // Roles without device access, and another organisation's users, get no stream.
        assert_eq!(
            open(&app, &w.analyst, Some(w.a)).await.err(),
            Some(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            open(&app, &w.boss_b, Some(w.a)).await.err(),
            Some(StatusCode::FORBIDDEN)
        );
    }
);

both!(
    the_relay_allocates_only_with_a_sessions_live_credentials,
    |app| async move {
        let w = world(&app).await;
        let bench = online(&app, &w.boss, "Bench").await;
        let mut ws = open(&app, &w.eng, Some(w.a)).await.unwrap();
        let (_, ice) = ready(&mut ws, bench.id, "cam0").await;
        let server = ice[0].urls[0]
            .trim_start_matches("turn:")
            .split('?')
            .next()
            .unwrap()
            .to_string();
        let allocate = |username: String, password: String| {
            let server = server.clone();
            async move {
                let conn = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
                let client = turn::client::Client::new(turn::client::ClientConfig {
                    stun_serv_addr: server.clone(),
                    turn_serv_addr: server,
                    username,
                    password,
                    realm: String::new(),
                    software: String::new(),
                    rto_in_ms: 0,
                    conn: Arc::new(conn),
                    vnet: None,
                })
                .await
                .unwrap();
                client.listen().await.unwrap();
                let r = tokio::time::timeout(Duration::from_secs(10), client.allocate()).await;
                let ok = matches!(r, Ok(Ok(_)));
                let _ = client.close().await;
                ok
            }
        };
        let good = &ice[0];
        assert!(allocate(good.username.clone(), good.credential.clone()).await);
        // Forged: another password, another session under the same password, expired.
        assert!(!allocate(good.username.clone(), "bm90IGl0".into()).await);
        let (expiry, _) = good.username.split_once(':').unwrap();
        assert!(!allocate(format!("{expiry}:another"), good.credential.clone()).await);
        assert!(
            !allocate(
                format!("1:{}", good.username.split_once(':').unwrap().1),
                good.credential.clone()
            )
            .await
        );
    }
);

async fn ws_text(ws: &mut Socket, text: &str) {
    use futures_util::SinkExt;
    ws.send(tokio_tungstenite::tungstenite::Message::Text(text.into()))
        .await
        .unwrap();
}
