//! The OPC UA explorer's cloud side (issue 32), from the outside: node bindings
//! (`device/{id}/opcua_bindings/`) checked, kept and sent in the device's configuration,
//! and `discover_devices_opcua` on the real device stream reaching a device (a test
//! device on the real broker, answering as the agent does) and its answer coming back
//! to the stream that asked alone. Both behind the 'OPCUA Explorer' subscription.

use std::time::Duration;

use futures_util::StreamExt;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::opcua::{OpcuaBindingCreate, OpcuaBindingRecord, OpcuaRoleName};
use gemba_shared::api::v1::stream::{ClientEvent, OpcuaAsk, OpcuaEvent, ServerEvent};
use gemba_shared::mqtt::v1::{
    self, Channel, Command, OpcuaBinding, OpcuaNode, OpcuaNodeClass, OpcuaReply, OpcuaRequest,
    OpcuaRole,
};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::both;
use crate::common::*;
use crate::device_config::{bench, next_config, version};
use crate::devices::{TestDevice, enrolled};
use crate::stream::{Socket, next, open, send};

const PLC: &str = "opc.tcp://127.0.0.1:4840";
const OFF: &str = "OPCUA Explorer is not enabled for this organization.";

fn binding(node: &str, role: OpcuaRoleName, key: Option<&str>) -> OpcuaBindingCreate {
    let role = serde_json::to_value(role)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    OpcuaBindingCreate {
        endpoint: PLC.into(),
        node_id: node.into(),
        camera: "cam0".into(),
        task: None,
        role,
        key: key.map(str::to_string),
    }
}

async fn bindings_in_db(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM opcua_bindings")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

both!(
    bindings_are_checked_kept_and_sent_behind_the_subscription,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let path = format!("device/{id}/opcua_bindings/");
        let part = binding(
            "ns=2;s=Line1.PartNumber",
            OpcuaRoleName::Metadata,
            Some("part"),
        );

        // Off by default: refused, saying why.
        let (s, v) = app.send_refused(Method::POST, &path, &part, &w.eng).await;
        assert_eq!((s, &v["detail"]), (StatusCode::FORBIDDEN, &json!(OFF)));
        app.subscribe(&w.admin, w.a, "OPCUA Explorer").await;

        let got: OpcuaBindingRecord = app.create_as(&path, &part, &w.eng).await;
        assert_eq!(
            (got.device, got.role, got.key.as_deref(), got.task),
            (id, OpcuaRoleName::Metadata, Some("part"), None)
        );
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(
            config.opcua,
            vec![OpcuaBinding {
                endpoint: PLC.into(),
                node_id: "ns=2;s=Line1.PartNumber".into(),
                camera: "cam0".into(),
                task: None,
                role: OpcuaRole::Metadata { key: "part".into() },
            }]
        );
        let start = OpcuaBindingCreate {
            task: Some(w.task),
            ..binding("ns=2;s=Line1.Start", OpcuaRoleName::StartCycle, None)
        };
        let started: OpcuaBindingRecord = app.create_as(&path, &start, &w.eng).await;
        assert_eq!(started.task_name.as_deref(), Some("Pump"));
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.opcua.len(), 2);
        assert_eq!(config.opcua[1].task, Some(w.task));

        // Bad bindings: a 400 on the field, nothing written, nothing sent.
        let before = (bindings_in_db(&app).await, version(&app, id).await);
        let with = |f: &dyn Fn(&mut OpcuaBindingCreate)| {
            let mut x = binding(
                "ns=2;s=Line1.Torque",
                OpcuaRoleName::Metadata,
                Some("torque"),
            );
            f(&mut x);
            x
        };
        let cases: Vec<(OpcuaBindingCreate, &str, &str)> = vec![
            (
                with(&|x| x.camera = "cam9".into()),
                "camera",
                "Bench has no camera cam9.",
            ),
            (
                with(&|x| x.endpoint = "http://plc".into()),
                "endpoint",
                "must start with opc.tcp://",
            ),
            (
                with(&|x| x.node_id = "Torque".into()),
                "node_id",
                "is not an OPC UA node id",
            ),
            (with(&|x| x.key = None), "key", "needs a key"),
            (
                with(&|x| x.key = Some(" torque".into())),
                "key",
                "without spaces",
            ),
            (with(&|x| x.task = Some(999_999)), "task", "No such task."),
            // Another node for a key the camera has.
            (
                with(&|x| x.key = Some("part".into())),
                "non_field_errors",
                "Two nodes give",
            ),
            // The same binding again.
            (part.clone(), "non_field_errors", "twice"),
        ];
        for (body, field, want) in cases {
            let (s, v) = app.send_refused(Method::POST, &path, &body, &w.eng).await;
            let msg = v[field][0].as_str().unwrap_or_default();
            assert!(
                s == StatusCode::BAD_REQUEST && msg.contains(want),
                "{body:?}: {s} {v}"
            );
        }
        assert_eq!(
            (bindings_in_db(&app).await, version(&app, id).await),
            before
        );

        // Read by those who see devices; changed only by the explorer's roles, in the
        // organisation's own devices.
        let list: Vec<OpcuaBindingRecord> = app.get_as(&path, &w.boss).await;
        assert_eq!(
            list.iter().map(|b| b.id).collect::<Vec<_>>(),
            vec![got.id, started.id]
        );
        let (s, _) = app.get(&path, &w.analyst).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let docs = app.signed_in("docs@a.test", "doc_user", w.a).await;
        let _: Vec<OpcuaBindingRecord> = app.get_as(&path, &docs).await;
        let end = binding("ns=2;s=Line1.End", OpcuaRoleName::EndCycle, None);
        let (s, _) = app.send_refused(Method::POST, &path, &end, &docs).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app.get(&path, &w.boss_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let one = format!("{path}{}/", got.id);
        let (s, _) = app.delete(&one, &w.boss_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // A binding named under another device is not found there.
        let other = enrolled(&app, &w.boss, "Other bench").await;
        let (s, _) = app
            .delete(
                &format!("device/{}/opcua_bindings/{}/", other.device, got.id),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        let m: Msg = app.send_as(Method::DELETE, &one, &(), &w.eng).await;
        assert_eq!(m.msg, "Data deleted successfully!");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.opcua.len(), 1);
        assert_eq!(config.opcua[0].node_id, "ns=2;s=Line1.Start");
        let (s, _) = app.delete(&one, &w.eng).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);

fn ask(device: i64, request: OpcuaRequest) -> ClientEvent {
    ClientEvent::DiscoverDevicesOpcua(OpcuaAsk { device, request })
}

fn browse() -> OpcuaRequest {
    OpcuaRequest::Browse {
        endpoint: PLC.into(),
        node_id: Some("ns=2;s=Line1".into()),
    }
}

/// The next OPC UA event on `ws` (an `error` is answered as `Err`).
async fn next_opc(ws: &mut Socket) -> Result<OpcuaEvent, String> {
    loop {
        match next(ws).await {
            ServerEvent::DiscoverDevicesOpcua(e) => return Ok(e),
            ServerEvent::Error(e) => return Err(e.message),
            _ => {}
        }
    }
}

/// The next command to `dev`, which must be an OPC UA request: its id and the request.
async fn request_on(dev: &mut TestDevice) -> (String, OpcuaRequest) {
    loop {
        let c: v1::CommandMessage = dev.next(Channel::Cmd).await;
        match c.command {
            Command::Opcua { request } => return (c.id, request),
            Command::Config { .. } => {}
            other => panic!("an OPC UA request, not {other:?}"),
        }
    }
}

async fn answer(dev: &TestDevice, id: &str, ok: bool, message: &str, opcua: Option<OpcuaReply>) {
    let ack = v1::CommandAck {
        v: 1,
        id: id.into(),
        ok,
        message: message.into(),
        opcua,
    };
    dev.publish(
        dev.topic(Channel::CmdAck),
        v1::sign(&dev.key, &dev.kid, &ack),
    )
    .await;
}

/// Nothing arrives on `ws` for a second.
async fn hears_nothing(ws: &mut Socket) {
    let r = tokio::time::timeout(Duration::from_secs(1), ws.next()).await;
    assert!(r.is_err(), "heard {r:?}");
}

both!(
    a_request_reaches_its_device_and_only_its_answer_comes_back_to_its_stream,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let mut ws = open(&app, &w.eng, Some(w.a)).await.unwrap();
        let mut ws2 = open(&app, &w.boss, Some(w.a)).await.unwrap();

        // Off by default: refused, nothing sent.
        send(&mut ws, ask(id, browse())).await;
        assert_eq!(next_opc(&mut ws).await, Err(OFF.to_string()));
        app.subscribe(&w.admin, w.a, "OPCUA Explorer").await;

        send(&mut ws, ask(id, browse())).await;
        let Ok(OpcuaEvent::Sent {
            id: rid,
            device,
            request,
        }) = next_opc(&mut ws).await
        else {
            panic!("not sent")
        };
        assert_eq!((device, &request), (id, &browse()));
        let (cid, got) = request_on(&mut b.dev).await;
        assert_eq!((cid.as_str(), &got), (rid.as_str(), &browse()));

        // Another device cannot answer it; its own answer reaches this stream alone.
        let other = TestDevice::of(&enrolled(&app, &w.boss, "Other").await).await;
        answer(&other, &rid, true, "", None).await;
        hears_nothing(&mut ws).await;
        let reply = OpcuaReply::Browse {
            endpoint: PLC.into(),
            node_id: Some("ns=2;s=Line1".into()),
            nodes: vec![OpcuaNode {
                node_id: "ns=2;s=Line1.PartNumber".into(),
                browse_name: "2:PartNumber".into(),
                display_name: "PartNumber".into(),
                node_class: OpcuaNodeClass::Variable,
                data_type: Some("String".into()),
                value: Some("P-100".into()),
                status: None,
            }],
            truncated: false,
        };
        answer(&b.dev, &rid, true, "", Some(reply.clone())).await;
        assert_eq!(
            next_opc(&mut ws).await,
            Ok(OpcuaEvent::Answer {
                id: rid.clone(),
                device: id,
                request: browse(),
                reply
            })
        );
        hears_nothing(&mut ws2).await;

        // The device's error, in its words.
        send(&mut ws, ask(id, OpcuaRequest::Discover { urls: vec![] })).await;
        let Ok(OpcuaEvent::Sent { id: rid, .. }) = next_opc(&mut ws).await else {
            panic!("not sent")
        };
        let (cid, _) = request_on(&mut b.dev).await;
        answer(
            &b.dev,
            &cid,
            false,
            "BadTimeout: no server at that address",
            None,
        )
        .await;
        assert_eq!(
            next_opc(&mut ws).await,
            Ok(OpcuaEvent::Failed {
                id: rid,
                device: id,
                request: OpcuaRequest::Discover { urls: vec![] },
                message: "BadTimeout: no server at that address".into()
            })
        );

        // Refused before anything is sent: another organisation's device, a device
        // offline, a malformed request, a role without the explorer.
        let theirs = enrolled(&app, &w.boss_b, "Bench B").await;
        let offline = enrolled(&app, &w.boss, "Away").await;
        let bad = OpcuaRequest::Read {
            endpoint: "http://plc".into(),
            node_id: "i=85".into(),
        };
        for (frame, want) in [
            (
                ask(theirs.device, browse()),
                format!("Device {} not found.", theirs.device),
            ),
            (ask(offline.device, browse()), "Away is offline".into()),
            (ask(id, bad), "must start with opc.tcp://".into()),
        ] {
            send(&mut ws, frame).await;
            let got = next_opc(&mut ws).await.unwrap_err();
            assert!(got.contains(&want), "{got}");
        }
        let docs = app.signed_in("docs@a.test", "doc_user", w.a).await;
        let mut ws3 = open(&app, &docs, Some(w.a)).await.unwrap();
        send(&mut ws3, ask(id, browse())).await;
        assert!(
            next_opc(&mut ws3)
                .await
                .unwrap_err()
                .contains("may not use")
        );
        // Nothing more reached the device.
        let more = tokio::time::timeout(Duration::from_millis(500), request_on(&mut b.dev)).await;
        assert!(more.is_err(), "{more:?}");
    }
);
