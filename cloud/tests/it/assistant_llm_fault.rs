//! The assistant's language model is optional (docs/decisions.md): a model that cannot
//! answer gives the plain answer, the facts in sentences, with a note saying so, never an
//! error. One server per backend whose `[assistant] base_url` is a port of the test's,
//! where in turn (a) nothing listens, (c) a socket accepts and stays silent past
//! `timeout_secs`, and (b) a real HTTP server (Python's `http.server`) answers 500. Each
//! answer is 200 with exactly the messages the facts give without a model, the note after
//! the question; the model is not named; no row of the database is added or removed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use gemba_cloud::assistant::facts::Period;
use gemba_cloud::assistant::llm::AssistantSettings;
use gemba_cloud::assistant::{answer, modes};
use gemba_cloud::db::Backend as DbBackend;
use gemba_shared::api::v1::assistant::{AssistantAnswer, AssistantMessage};
use gemba_shared::api::v1::telemetry::{CycleStats, IssueCenter};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::analytics::demo_cycles;
use crate::common::*;
use crate::devices::world;

/// What the answer says when the model did not answer (`http::assistant::ask`).
const NOTE: &str = "The language model did not answer: here are the facts in plain sentences.";
/// How long the model may take, in seconds: the silent server is waited for this long.
const TIMEOUT_SECS: u64 = 1;
const RANGE: &str = "datetime_start=2026-10-13&datetime_end=2026-10-14";

/// An HTTP server answering every POST with 500 and an OpenAI-style error body, writing
/// each path asked for to `log`.
const FAILING_SERVER: &str = r#"
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[2], "a") as f:
            f.write(self.path + "\n")
        body = b'{"error": {"message": "The server had an error", "type": "server_error"}}'
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"#;

async fn wait_listening(port: u16) {
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nothing listens on {port}");
}

/// Every table's row count, by name.
async fn row_counts(app: &TestApp) -> Vec<(String, i64)> {
    let list = match app.state.db.backend {
        DbBackend::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             ORDER BY name"
        }
        DbBackend::Postgres => {
            "SELECT CAST(tablename AS TEXT) FROM pg_tables WHERE schemaname = current_schema() \
             ORDER BY tablename"
        }
    };
    let tables: Vec<String> = sqlx::query_scalar(list)
        .fetch_all(&app.state.db.pool)
        .await
        .unwrap();
    let mut out = vec![];
    for t in tables {
        let q = format!("SELECT COUNT(*) FROM \"{t}\"");
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(q))
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        out.push((t, n));
    }
    assert!(out.len() > 20, "{out:?}");
    out
}

async fn fault(backend: Backend) {
    let port = free_port();
    let app = TestApp::start_with(backend, move |s| {
        // Read as the settings file is, so a setting added later keeps its default.
        let a: AssistantSettings = serde_json::from_value(json!({
            "base_url": format!("http://127.0.0.1:{port}/v1"),
            "model": "gpt-4o-mini",
            "api_key": "sk-test",
            "timeout_secs": TIMEOUT_SECS,
        }))
        .unwrap();
        s.assistant = Some(a);
    })
    .await;
    let w = world(&app).await;
    let d = demo_cycles(&app, &w, 2).await;
    let question = "Where do we lose time?";
    let body = json!({"mode": "station_performance", "task": d.task, "message": question,
        "datetime_start": "2026-10-13", "datetime_end": "2026-10-14"});

    // What the facts say without a model: the analytics calls' answers as the assistant
    // asks them (one bucket a month), in sentences.
    let q = format!("task={}&{RANGE}&bucket=month", d.task);
    let stats: CycleStats = app
        .get_as(&format!("telemetry/cycle_stats?{q}"), &w.analyst)
        .await;
    let issues: IssueCenter = app
        .get_as(&format!("telemetry/issues?{q}"), &w.analyst)
        .await;
    assert!(stats.total.cycles > 0, "the demo has cycles in the period");
    let facts = modes::station_performance(
        Period {
            start_ms: stats.start_ms,
            end_ms: stats.end_ms,
        },
        modes::Scope {
            task: Some(d.task),
            device: None,
        },
        &stats,
        &issues,
    );
    assert!(!facts.figures.is_empty());
    let mut plain: Vec<AssistantMessage> = vec![answer::question(question)];
    plain.push(AssistantMessage {
        kind: "note".into(),
        caption: NOTE.into(),
        is_advisor: true,
        figures: vec![],
        method: None,
        passage: None,
    });
    plain.extend(answer::plain(&facts));
    let follow_up = answer::follow_up(&facts);

    let before = row_counts(&app).await;
    let check = |what: &str, s: StatusCode, v: Value| {
        assert_eq!(s, StatusCode::OK, "{what}: {v}");
        let a: AssistantAnswer = serde_json::from_value(v).unwrap();
        assert_eq!(a.model, None, "{what}: no model answered");
        assert_eq!(a.messages, plain, "{what}");
        assert_eq!(a.facts, facts.figures, "{what}");
        assert_eq!(a.follow_up, follow_up, "{what}");
        assert!(
            !a.messages
                .iter()
                .any(|m| m.kind == "answer" || m.kind == "warning"),
            "{what}"
        );
    };

    // (a) Nothing listens at the address.
    let (s, v) = app
        .post("organization/assistant/", body.clone(), Some(&w.analyst))
        .await;
    check("a closed port", s, v);

    // (c) A server that takes the connection and never answers: the answer comes once
    // `timeout_secs` has passed, not before and not much after.
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let silent = {
        let accepted = accepted.clone();
        tokio::spawn(async move {
            let mut held = vec![];
            loop {
                let (sock, _) = listener.accept().await.unwrap();
                accepted.fetch_add(1, Ordering::SeqCst);
                held.push(sock);
            }
        })
    };
    let t0 = Instant::now();
    let (s, v) = app
        .post("organization/assistant/", body.clone(), Some(&w.analyst))
        .await;
    let took = t0.elapsed();
    check("a silent server", s, v);
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "the model was asked once"
    );
    assert!(
        took >= Duration::from_secs(TIMEOUT_SECS) && took < Duration::from_secs(TIMEOUT_SECS + 15),
        "{took:?}"
    );
    silent.abort();
    let _ = silent.await;

    // (b) A real HTTP server that answers 500.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("asked.log");
    let _server =
        tokio::process::Command::new(test_python("the language-model fault tests need a Python"))
            .args(["-c", FAILING_SERVER])
            .arg(port.to_string())
            .arg(&log)
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the test Python (scripts/test sets up target/venv)");
    wait_listening(port).await;
    let (s, v) = app
        .post("organization/assistant/", body.clone(), Some(&w.analyst))
        .await;
    check("a server answering 500", s, v);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "/v1/chat/completions\n",
        "the model was asked once, at the chat API"
    );

    assert_eq!(row_counts(&app).await, before, "nothing written or removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_fails_gives_the_plain_facts_with_a_note_sqlite() {
    fault(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_fails_gives_the_plain_facts_with_a_note_postgres() {
    fault(Backend::Postgres).await;
}
