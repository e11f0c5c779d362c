//! The language-model path against `mockllm`.

use std::path::PathBuf;
use std::time::Duration;

use gemba_cloud::assistant::llm::AssistantSettings;
use gemba_shared::api::v1::telemetry::CycleStats;
use serde_json::json;

use super::ask;
use crate::analytics::{Demo, demo_cycles};
use crate::common::*;
use crate::devices::world;

/// `mockllm` (PyPI), an OpenAI chat-completions server answering from a YAML file of
/// responses, on a port of its own.
struct MockLlm {
    url: String,
    responses: PathBuf,
    _dir: tempfile::TempDir,
    _child: tokio::process::Child,
}

impl MockLlm {
    async fn start() -> MockLlm {
        let dir = tempfile::tempdir().unwrap();
        let responses = dir.path().join("responses.yml");
        std::fs::write(
            &responses,
            "responses: {}\ndefaults:\n  unknown_response: \"No facts.\"\n",
        )
        .unwrap();
        let port = free_port();
        let child = tokio::process::Command::new(test_python(
            "the assistant tests need a Python with mockllm",
        ))
        .args([
            "-m",
            "uvicorn",
            "mockllm.server:app",
            "--host",
            "127.0.0.1",
            "--port",
        ])
        .arg(port.to_string())
        .env("MOCKLLM_RESPONSES_FILE", &responses)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the test Python with mockllm (scripts/test sets up target/venv)");
        for _ in 0..300 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return MockLlm {
                    url: format!("http://127.0.0.1:{port}/v1"),
                    responses,
                    _dir: dir,
                    _child: child,
                };
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("mockllm did not start");
    }

    /// The model's next answers.
    fn answer(&self, text: &str) {
        let yaml = format!(
            "responses: {{}}\ndefaults:\n  unknown_response: {}\n",
            serde_json::to_string(text).unwrap()
        );
        std::fs::write(&self.responses, yaml).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_phrases_the_facts_and_may_cite_only_them() {
    let mock = MockLlm::start().await;
    let url = mock.url.clone();
    let app = TestApp::start_with(Backend::Sqlite, move |s| {
        s.assistant = Some(AssistantSettings {
            base_url: url,
            model: "gpt-4o-mini".into(),
            api_key: Some(gemba_cloud::config::Secret("sk-test".into())),
            timeout_secs: 30,
        });
    })
    .await;
    let w = world(&app).await;
    let d: Demo = demo_cycles(&app, &w, 2).await;
    let body = json!({"mode": "station_performance", "task": d.task, "message": "How many cycles?",
        "datetime_start": "2026-10-13", "datetime_end": "2026-10-14"});
    let s: CycleStats = app
        .get_as(
            &format!(
                "telemetry/cycle_stats?task={}&datetime_start=2026-10-13&datetime_end=2026-10-14",
                d.task
            ),
            &w.analyst,
        )
        .await;
    let n = s.total.cycles;
    mock.answer(&format!(
        "You recorded {n} cycles [F1]. Bench 9 lost 4321 parts last week. Start with standard work."
    ));
    let a = ask(&app, &w.analyst, body).await;
    assert_eq!(a.model.as_deref(), Some("gpt-4o-mini"));
    let answer = a
        .messages
        .iter()
        .find(|m| m.kind == "answer")
        .expect("the model's answer");
    assert_eq!(
        answer.caption,
        format!("You recorded {n} cycles [F1]. Start with standard work.")
    );
    assert_eq!(answer.figures[0].id, "F1");
    assert_eq!(answer.figures[0].value, n as f64);
    assert!(answer.figures[0].link.starts_with("/user/analytics?"));
    let warning = a
        .messages
        .iter()
        .find(|m| m.kind == "warning")
        .expect("the dropped sentence flagged");
    assert!(warning.caption.contains("4321"), "{}", warning.caption);
    // The facts are all still there, linked.
    assert_eq!(a.facts[0].value, n as f64);
}
