//! OPC UA on the agent (issue 32) against an independent server: Python's asyncua (from
//! PyPI) serving a PLC's line, `opcua_server.py`, started by the test.
//! - Asked (the agent's own service), the device finds the server and browses its
//!   line: the PLC's variables, each with its type and value.
//! - The real agent binary, enrolled with the real cloud, runs the demo task on cam0;
//!   its configuration binds the line's Start and End to cam0's cycles and its
//!   PartNumber, Torque and CycleCounter to their metadata. A pulse of Start then of End
//!   makes a cycle the cloud stores, as long as the PLC said (not the ~15 s the camera's
//!   own steps make), carrying the three values.
//! - The server killed and started again: the agent reconnects, subscribes again, and
//!   the next pulses make a cycle with the new values. A read through the cloud's
//!   command is answered.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use gemba_shared::mqtt::v1::{
    self, CameraState, DeviceConfig, OpcuaBinding, OpcuaNodeClass, OpcuaReply, OpcuaRequest,
    OpcuaRole,
};

mod common;
use common::{camera, cloud_on, demo, enroll, interrupt, run_cameras, wait_for};

/// The test's PLC: `opcua_server.py` on `port`, killed with the test.
struct Plc {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Plc {
    fn start(port: u16) -> Plc {
        let python = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/venv/bin/python");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/opcua_server.py");
        assert!(
            std::path::Path::new(python).exists(),
            "the test Python (scripts/test sets up target/venv with asyncua)"
        );
        let mut child = Command::new(python)
            .arg(script)
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut plc = Plc { child, stdin, out };
        assert_eq!(plc.line(), "ready");
        plc
    }

    fn line(&mut self) -> String {
        let mut l = String::new();
        tokio::task::block_in_place(|| self.out.read_line(&mut l)).unwrap();
        l.trim().to_string()
    }

    /// One command (`set NAME VALUE`, `pulse NAME`), done.
    fn send(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").unwrap();
        assert_eq!(self.line(), "ok", "{command}");
    }
}

impl Drop for Plc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// cam0's stored cycles: (start, end, metadata).
async fn cycles(db: &gemba_cloud::db::Db) -> Vec<(i64, i64, serde_json::Value)> {
    sqlx::query_as::<_, (i64, i64, String)>(
        "SELECT start_ms, end_ms, metadata FROM cycles WHERE camera = 'cam0' ORDER BY start_ms",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap()
    .into_iter()
    .map(|(s, e, m)| (s, e, serde_json::from_str(&m).unwrap()))
    .collect()
}

/// Pulses Start, then End 1.5 s later, until the cloud stores a cycle begun after
/// `after` whose part number is `part`: that cycle.
async fn plc_cycle(
    plc: &mut Plc,
    db: &gemba_cloud::db::Db,
    part: &str,
    after: i64,
) -> (i64, i64, serde_json::Value) {
    for _ in 0..20 {
        plc.send("pulse Start");
        tokio::time::sleep(Duration::from_millis(1500)).await;
        plc.send("pulse End");
        for _ in 0..30 {
            if let Some(c) = cycles(db)
                .await
                .into_iter()
                .find(|c| c.0 > after && c.2["part_number"] == part)
            {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    panic!("no cycle with part number {part} was stored");
}

fn binding(node: &str, role: OpcuaRole, endpoint: &str) -> OpcuaBinding {
    OpcuaBinding {
        endpoint: endpoint.into(),
        node_id: format!("ns=2;s=Line1.{node}"),
        camera: "cam0".into(),
        task: None,
        role,
    }
}

fn meta(key: &str) -> OpcuaRole {
    OpcuaRole::Metadata { key: key.into() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plc_browsed_drives_cycles_and_is_followed_across_a_restart() {
    let d = demo();
    let dir = tempfile::tempdir().unwrap();
    let port = gemba_cloud::seed::free_port();
    let endpoint = format!("opc.tcp://127.0.0.1:{port}/");
    let mut plc = Plc::start(port);
    plc.send("set PartNumber P-100");
    plc.send("set Torque 12.5");
    plc.send("set CycleCounter 41");

    // Found and browsed by the device's own service.
    let service = gemba_agent::opcua::Opcua::new(dir.path(), vec![]).unwrap();
    let (_, found) = service
        .answer(OpcuaRequest::Discover {
            urls: vec![endpoint.clone()],
        })
        .await
        .unwrap();
    let OpcuaReply::Discover { servers, .. } = found else {
        panic!("{found:?}")
    };
    assert!(
        servers
            .iter()
            .any(|s| s.application_uri == "urn:gemba:test:plc-server"
                && s.endpoint.starts_with("opc.tcp://127.0.0.1")
                && s.found_at == endpoint),
        "{servers:?}"
    );
    let (_, top) = service
        .answer(OpcuaRequest::Browse {
            endpoint: endpoint.clone(),
            node_id: None,
        })
        .await
        .unwrap();
    let OpcuaReply::Browse { nodes, .. } = top else {
        panic!("{top:?}")
    };
    let line = nodes
        .iter()
        .find(|n| n.node_id == "ns=2;s=Line1")
        .unwrap_or_else(|| panic!("{nodes:?}"));
    assert_eq!(
        (line.display_name.as_str(), line.node_class),
        ("Line1", OpcuaNodeClass::Object)
    );
    let (_, children) = service
        .answer(OpcuaRequest::Browse {
            endpoint: endpoint.clone(),
            node_id: Some(line.node_id.clone()),
        })
        .await
        .unwrap();
    let OpcuaReply::Browse { nodes, .. } = children else {
        panic!("{children:?}")
    };
    let var = |name: &str| {
        let n = nodes
            .iter()
            .find(|n| n.display_name == name)
            .unwrap_or_else(|| panic!("{name} in {nodes:?}"));
        (
            n.node_id.as_str(),
            n.node_class,
            n.data_type.as_deref(),
            n.value.as_deref(),
        )
    };
    use OpcuaNodeClass::Variable;
    assert_eq!(
        var("PartNumber"),
        (
            "ns=2;s=Line1.PartNumber",
            Variable,
            Some("String"),
            Some("P-100")
        )
    );
    assert_eq!(var("Torque").2, Some("Double"));
    assert_eq!(var("Torque").3, Some("12.5"));
    assert_eq!(var("CycleCounter").3, Some("41"));
    assert_eq!(var("Start").2, Some("Boolean"));
    assert_eq!(var("Start").3, Some("false"));
    // A node that is not there is an error in words.
    let missing = service
        .answer(OpcuaRequest::Read {
            endpoint: endpoint.clone(),
            node_id: "ns=2;s=Line1.Nope".into(),
        })
        .await
        .unwrap_err();
    assert!(format!("{missing:#}").contains("Line1.Nope"), "{missing:#}");
    drop(service);

    // The real agent, its cycles driven by the PLC.
    let c = cloud_on(None, &d.truth.operation, &["cam0"]).await;
    let db = &c.state.db;
    let data = dir.path().join("agent");
    enroll(&data, &c.url);
    let agent = run_cameras(
        &data,
        &d,
        &[format!("cam0={}", d.footage.display())],
        &["--loop", "--heartbeat", "1"],
    );
    wait_for("cam0 running its task", 60, async || {
        camera(&c, "cam0")
            .await
            .is_some_and(|x| x.state == CameraState::Running)
    })
    .await;
    let config = DeviceConfig {
        // Above any version the cloud's own configuration has.
        version: 1_000,
        opcua: vec![
            binding("Start", OpcuaRole::StartCycle, &endpoint),
            binding("End", OpcuaRole::EndCycle, &endpoint),
            binding("PartNumber", meta("part_number"), &endpoint),
            binding("Torque", meta("torque"), &endpoint),
            binding("CycleCounter", meta("plc_counter"), &endpoint),
        ],
        ..DeviceConfig::default()
    };
    let (ok, message) = common::command(&c, v1::Command::Config { config }).await;
    assert!(ok, "{message}");
    let bound_at = gemba_agent::clock::now_ms();

    let (start, end, metadata) = plc_cycle(&mut plc, db, "P-100", bound_at).await;
    // As long as the PLC said: Start, 0.3 s, 1.5 s, then End.
    assert!((1_000..4_000).contains(&(end - start)), "{start}..{end}");
    assert_eq!(metadata["torque"], "12.5");
    assert_eq!(metadata["plc_counter"], "41");
    // Every cycle begun since the bindings is the PLC's.
    let since: Vec<_> = cycles(db)
        .await
        .into_iter()
        .filter(|c| c.0 > bound_at)
        .collect();
    assert!(
        since.iter().all(|c| c.2.get("part_number").is_some()),
        "{since:?}"
    );

    // The server goes away and comes back with other values.
    drop(plc);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let restarted = gemba_agent::clock::now_ms();
    let mut plc = Plc::start(port);
    plc.send("set PartNumber P-200");
    plc.send("set Torque 9.75");
    plc.send("set CycleCounter 42");
    let (_, _, metadata) = plc_cycle(&mut plc, db, "P-200", restarted).await;
    assert_eq!(metadata["torque"], "9.75");
    assert_eq!(metadata["plc_counter"], "42");

    // A read through the cloud's command, answered on cmd/ack.
    let (ok, message) = common::command(
        &c,
        v1::Command::Opcua {
            request: OpcuaRequest::Read {
                endpoint: endpoint.clone(),
                node_id: "ns=2;s=Line1.Torque".into(),
            },
        },
    )
    .await;
    assert!(ok && message.contains("Line1.Torque"), "{message}");
    interrupt(agent);
}
