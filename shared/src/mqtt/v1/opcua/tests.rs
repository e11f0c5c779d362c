use super::*;

fn binding(node: &str, camera: &str, task: Option<i64>, role: OpcuaRole) -> OpcuaBinding {
    OpcuaBinding {
        endpoint: "opc.tcp://plc.local:4840/line1".into(),
        node_id: node.into(),
        camera: camera.into(),
        task,
        role,
    }
}

fn meta(key: &str) -> OpcuaRole {
    OpcuaRole::Metadata { key: key.into() }
}

fn node(i: usize) -> OpcuaNode {
    OpcuaNode {
        node_id: format!("ns=2;s=Line1.Var{i}"),
        browse_name: format!("2:Var{i}"),
        display_name: format!("Var{i}"),
        node_class: OpcuaNodeClass::Variable,
        data_type: Some("Double".into()),
        value: Some("12.5".into()),
        status: None,
    }
}

#[test]
fn requests_and_replies_read_as_the_contract_writes_them() {
    let r: OpcuaRequest = serde_json::from_str(r#"{"op":"discover"}"#).unwrap();
    assert_eq!(r, OpcuaRequest::Discover { urls: vec![] });
    let r: OpcuaRequest =
        serde_json::from_str(r#"{"op":"browse","endpoint":"opc.tcp://h:4840"}"#).unwrap();
    assert_eq!(
        r,
        OpcuaRequest::Browse {
            endpoint: "opc.tcp://h:4840".into(),
            node_id: None
        }
    );
    assert!(serde_json::from_str::<OpcuaRequest>(r#"{"op":"read","endpoint":"x"}"#).is_err());
    assert!(serde_json::from_str::<OpcuaRequest>(r#"{"op":"discover","x":1}"#).is_err());
    let read = OpcuaReply::Read {
        endpoint: "opc.tcp://h:4840".into(),
        node: node(1),
    };
    let json = serde_json::to_value(&read).unwrap();
    assert_eq!(json["op"], "read");
    assert_eq!(json["node"]["node_class"], "variable");
    assert!(json["node"].get("status").is_none(), "{json}");
    assert_eq!(serde_json::from_value::<OpcuaReply>(json).unwrap(), read);
    assert_eq!(read.check(), Ok(()));
    let role = serde_json::to_value(meta("part")).unwrap();
    assert_eq!(role, serde_json::json!({"type": "metadata", "key": "part"}));
    let start = serde_json::to_value(OpcuaRole::StartCycle).unwrap();
    assert_eq!(start, serde_json::json!({"type": "start_cycle"}));
}

#[test]
fn requests_are_checked() {
    let browse = |endpoint: &str, node: Option<&str>| OpcuaRequest::Browse {
        endpoint: endpoint.into(),
        node_id: node.map(Into::into),
    };
    assert_eq!(browse("opc.tcp://10.0.0.9:4840", None).check(), Ok(()));
    assert_eq!(
        browse("opc.tcp://h:48400/a/b", Some("i=85")).check(),
        Ok(())
    );
    assert!(
        browse("http://h:4840", None)
            .check()
            .unwrap_err()
            .contains("opc.tcp://")
    );
    assert!(
        browse("opc.tcp://h", Some("85"))
            .check()
            .unwrap_err()
            .contains("node id")
    );
    let many = OpcuaRequest::Discover {
        urls: vec!["opc.tcp://h:4840".into(); MAX_DISCOVERY_URLS + 1],
    };
    assert!(many.check().unwrap_err().contains("at most"));
    let bad_url = OpcuaRequest::Discover {
        urls: vec!["opc.tcp://h:0".into()],
    };
    assert!(bad_url.check().unwrap_err().contains("port"));
}

#[test]
fn endpoints_are_opc_tcp_urls_without_a_login() {
    for ok in [
        "opc.tcp://plc:4840",
        "OPC.TCP://plc.local",
        "opc.tcp://10.0.0.9:4840/freeopcua/server/",
        "opc.tcp://[fe80::1]:4840",
        "opc.tcp://[::1]",
    ] {
        assert_eq!(check_endpoint(ok), Ok(()), "{ok}");
    }
    for (bad, why) in [
        ("", "opc.tcp://"),
        ("opc.tcp:/plc", "opc.tcp://"),
        ("tcp://plc:4840", "opc.tcp://"),
        ("opc.tcp://", "host"),
        ("opc.tcp://:4840", "host"),
        ("opc.tcp://plc:99999", "port"),
        ("opc.tcp://plc:x", "port"),
        ("opc.tcp://user:pw@plc:4840", "login"),
        ("opc.tcp://pl c:4840", "spaces"),
        ("opc.tcp://[zz]:4840", "IPv6"),
        ("opc.tcp://[::1]x", "IPv6"),
    ] {
        let e = check_endpoint(bad).unwrap_err();
        assert!(e.contains(why), "{bad}: {e}");
    }
    assert!(check_endpoint(&format!("opc.tcp://h/{}", "x".repeat(MAX_ENDPOINT_BYTES))).is_err());
}

#[test]
fn node_ids_are_read_as_opc_ua_writes_them() {
    for ok in [
        "i=85",
        "ns=0;i=2253",
        "ns=2;s=Line1.PartNumber",
        "ns=2;s=a;b=c",
        "ns=1;g=09087e75-8e5e-499b-954f-f2a9603db28a",
        "ns=3;b=AAECAw==",
    ] {
        assert_eq!(check_node_id(ok), Ok(()), "{ok}");
    }
    for bad in [
        "",
        "85",
        "i=",
        "i=-1",
        "i=+5",
        "i=4294967296",
        "ns=70000;i=1",
        "ns=x;i=1",
        "ns=2",
        "ns=2;s=",
        "s=a\nb",
        "g=1234",
        "b=AAE",
        "x=1",
    ] {
        assert!(check_node_id(bad).is_err(), "{bad}");
    }
    assert!(check_node_id(&format!("s={}", "x".repeat(MAX_NODE_ID_BYTES))).is_err());
}

#[test]
fn bindings_are_checked_one_by_one_and_together() {
    let ok = vec![
        binding("ns=2;s=Start", "cam0", None, OpcuaRole::StartCycle),
        binding("ns=2;s=End", "cam0", None, OpcuaRole::EndCycle),
        binding("ns=2;s=Part", "cam0", Some(3), meta("part_number")),
        // The same key on another task, or another camera, is another key.
        binding("ns=2;s=Part2", "cam0", Some(4), meta("part_number")),
        binding("ns=2;s=Part", "cam1", None, meta("part_number")),
        // One node may do two things.
        binding("ns=2;s=Counter", "cam0", None, OpcuaRole::EndCycle),
        binding("ns=2;s=Counter", "cam0", None, meta("plc_counter")),
    ];
    assert_eq!(check_bindings(&ok), Ok(()));
    let bad = |f: &dyn Fn(&mut Vec<OpcuaBinding>)| {
        let mut b = ok.clone();
        f(&mut b);
        check_bindings(&b).unwrap_err()
    };
    assert!(bad(&|b| b.push(b[0].clone())).contains("twice"));
    // A key for any task meets the same key for one task.
    assert!(
        bad(&|b| b.push(binding("ns=2;s=X", "cam0", None, meta("part_number"))))
            .contains("Two nodes")
    );
    assert!(bad(&|b| b[0].camera = "cam 0".into()).contains("camera name"));
    assert!(bad(&|b| b[0].endpoint = "opc.tcp://a@b".into()).contains("login"));
    assert!(bad(&|b| b[0].node_id = "Start".into()).contains("node id"));
    assert!(bad(&|b| b[0].task = Some(0)).contains("positive"));
    assert!(bad(&|b| b[2].role = meta(" part")).contains("metadata key"));
    assert!(bad(&|b| b[2].role = meta("")).contains("metadata key"));
    assert!(bad(&|b| b[2].role = meta(&"k".repeat(101))).contains("metadata key"));
    assert!(
        bad(&|b| b.extend((0..MAX_BINDINGS).map(|i| binding(
            &format!("i={i}"),
            "cam2",
            None,
            OpcuaRole::EndCycle
        ))))
        .contains("at most")
    );
    assert!(
        bad(&|b| b.extend((0..MAX_METADATA_BINDINGS).map(|i| binding(
            &format!("i={i}"),
            "cam1",
            None,
            meta(&format!("k{i}"))
        ))))
        .contains("metadata keys")
    );
    assert!(
        bad(&|b| {
            let first = b[0].clone();
            b.extend((0..MAX_BINDING_ENDPOINTS).map(|i| OpcuaBinding {
                endpoint: format!("opc.tcp://plc{i}:4840"),
                ..first.clone()
            }))
        })
        .contains("servers")
    );
    // Which camera and task a binding applies to.
    assert!(ok[0].applies_to("cam0", Some(9)));
    assert!(ok[0].applies_to("cam0", None));
    assert!(!ok[0].applies_to("cam1", Some(9)));
    assert!(ok[2].applies_to("cam0", Some(3)));
    assert!(!ok[2].applies_to("cam0", Some(4)));
    assert!(!ok[2].applies_to("cam0", None));
}

#[test]
fn replies_are_bounded_and_fitted_to_the_payload() {
    let browse = |n: usize| OpcuaReply::Browse {
        endpoint: "opc.tcp://h:4840".into(),
        node_id: None,
        nodes: (0..n).map(node).collect(),
        truncated: false,
    };
    // Small: unchanged.
    assert_eq!(browse(10).fit(REPLY_BUDGET_BYTES), browse(10));
    // More than the list may hold: cut to it, and said so.
    let fitted = browse(MAX_NODES + 5).fit(usize::MAX);
    let OpcuaReply::Browse {
        nodes, truncated, ..
    } = &fitted
    else {
        panic!()
    };
    assert_eq!((nodes.len(), *truncated), (MAX_NODES, true));
    assert_eq!(fitted.check(), Ok(()));
    // Over the budget: the last nodes left out, the first kept in order.
    let budget = 4_000;
    let fitted = browse(200).fit(budget);
    assert!(serde_json::to_vec(&fitted).unwrap().len() <= budget);
    let OpcuaReply::Browse {
        nodes, truncated, ..
    } = &fitted
    else {
        panic!()
    };
    assert!(*truncated && nodes.len() > 10, "{}", nodes.len());
    assert_eq!(
        nodes[..],
        (0..nodes.len()).map(node).collect::<Vec<_>>()[..]
    );
    // No more left out than needed.
    let mut one_more = browse(nodes.len() + 1);
    if let OpcuaReply::Browse { truncated, .. } = &mut one_more {
        *truncated = true;
    }
    assert!(serde_json::to_vec(&one_more).unwrap().len() > budget);
    // A discovery leaves out its last servers.
    let server = |i: usize| OpcuaServer {
        endpoint: format!("opc.tcp://h{i}:4840"),
        application_name: "x".repeat(500),
        application_uri: format!("urn:h{i}"),
        found_at: format!("opc.tcp://h{i}:4840"),
    };
    let d = OpcuaReply::Discover {
        servers: (0..150).map(server).collect(),
        connections: vec![],
    }
    .fit(10_000);
    let OpcuaReply::Discover { servers, .. } = &d else {
        panic!()
    };
    assert!(!servers.is_empty() && servers.len() < 20);
    assert_eq!(servers[0], server(0));
    // What the cloud refuses.
    let mut long = node(1);
    long.value = Some("v".repeat(MAX_TEXT_BYTES + 1));
    let r = OpcuaReply::Read {
        endpoint: "opc.tcp://h:4840".into(),
        node: long,
    };
    assert!(r.check().unwrap_err().contains("bytes"));
    assert!(browse(MAX_NODES + 1).check().is_err());
    assert_eq!(cut("aé", 2), "a");
    assert_eq!(cut("abc", 5), "abc");
}

#[test]
fn a_request_rides_as_a_command_and_its_reply_on_the_acknowledgement() {
    use crate::mqtt::v1::{
        COMMAND_VERSION, Command, CommandAck, CommandMessage, Message, VERSION, sign, verify,
    };
    const K: &[u8] = b"0123456789abcdef0123456789abcdef";
    let c = CommandMessage {
        v: COMMAND_VERSION,
        id: "q1".into(),
        sent_ms: 1,
        expires_ms: 2,
        command: Command::Opcua {
            request: OpcuaRequest::Read {
                endpoint: "opc.tcp://plc:4840".into(),
                node_id: "ns=2;s=Torque".into(),
            },
        },
    };
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["command"]["type"], "opcua");
    assert_eq!(json["command"]["request"]["op"], "read");
    assert_eq!(
        verify::<CommandMessage>(K, &sign(K, "1", &c)),
        Ok(c.clone())
    );
    let mut bad = c.clone();
    bad.command = Command::Opcua {
        request: OpcuaRequest::Read {
            endpoint: "opc.tcp://plc:4840".into(),
            node_id: "Torque".into(),
        },
    };
    assert!(bad.check().unwrap_err().contains("node id"));
    let ack = CommandAck {
        v: VERSION,
        id: "q1".into(),
        ok: true,
        message: "read".into(),
        opcua: Some(OpcuaReply::Read {
            endpoint: "opc.tcp://plc:4840".into(),
            node: node(1),
        }),
    };
    assert_eq!(
        verify::<CommandAck>(K, &sign(K, "1", &ack)),
        Ok(ack.clone())
    );
    // An acknowledgement of any other command carries none, and reads as before.
    let plain: CommandAck =
        serde_json::from_str(r#"{"v":1,"id":"c","ok":false,"message":"no"}"#).unwrap();
    assert_eq!(plain.opcua, None);
    assert!(!serde_json::to_string(&plain).unwrap().contains("opcua"));
    let mut long = ack;
    long.opcua = Some(OpcuaReply::Browse {
        endpoint: "opc.tcp://plc:4840".into(),
        node_id: None,
        nodes: (0..MAX_NODES + 1).map(node).collect(),
        truncated: true,
    });
    assert!(long.check().is_err());
}
