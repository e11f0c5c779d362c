//! The Kaizen assistant (issue 32 item 2): its figures equal the analytics calls' for the
//! same period and data (station, two periods, line, devices), each linking to its
//! cycles; bad input named; retrieval finds the right passage of a seeded corpus (a
//! .docx made by python-docx among text files) on both backends; and the language-model
//! path against a real local OpenAI-API server (`mockllm`, from PyPI), whose answer
//! keeps the figures that are facts and drops the one that is not.

use std::path::PathBuf;
use std::time::Duration;

use gemba_cloud::assistant::llm::AssistantSettings;
use gemba_shared::api::v1::assistant::{AssistantAnswer, AssistantDocument, BETA_NOTICE};
use gemba_shared::api::v1::device::DeviceStatus;
use gemba_shared::api::v1::line::{Line, LineBody, LineStats, Station};
use gemba_shared::api::v1::task::{Task, TaskPatch};
use gemba_shared::api::v1::telemetry::{CycleStats, IssueCenter};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::analytics::{Demo, demo_cycles};
use crate::both;
use crate::common::*;
use crate::devices::world;
use crate::videos::b_task;

const ASK: &str = "organization/assistant/";
const DOCS: &str = "organization/assistant/documents/";
const RANGE: &str = "datetime_start=2026-10-13&datetime_end=2026-10-17";

/// A value as the assistant shows it.
fn shown(v: f64) -> f64 {
    if v.fract() == 0.0 {
        v
    } else {
        (v * 10.0).round() / 10.0
    }
}

fn fig(a: &AssistantAnswer, label: &str) -> f64 {
    a.facts
        .iter()
        .find(|f| f.label == label)
        .unwrap_or_else(|| {
            panic!(
                "{label} in {:?}",
                a.facts.iter().map(|f| &f.label).collect::<Vec<_>>()
            )
        })
        .value
}

async fn ask(app: &TestApp, tok: &str, body: Value) -> AssistantAnswer {
    let (s, v) = app.post(ASK, body.clone(), Some(tok)).await;
    assert_eq!(s, StatusCode::OK, "{body}: {v}");
    serde_json::from_value(v).unwrap()
}

async fn target(app: &TestApp, tok: &str, task: i64, seconds: f64) {
    let p = TaskPatch {
        steps_avg_time: Some(
            [("cycle_time".to_string(), json!(seconds))]
                .into_iter()
                .collect(),
        ),
        ..TaskPatch::default()
    };
    let _: Task = app
        .send_as(
            Method::PATCH,
            &format!("organization/task/{task}/"),
            &p,
            tok,
        )
        .await;
}

both!(
    the_assistants_figures_are_the_analytics_figures,
    |app: TestApp| async move {
        let w = world(&app).await;
        let d: Demo = demo_cycles(&app, &w, 5).await;
        target(&app, &w.eng, d.task, 14.5).await;
        let period = json!({"datetime_start": "2026-10-13", "datetime_end": "2026-10-17"});

        // One period: the totals, each station's average and target, the slowest step,
        // the reasons, as cycle_stats and issues answer them.
        let mut body = period.clone();
        body["mode"] = json!("station_performance");
        body["task"] = json!(d.task);
        let a = ask(&app, &w.analyst, body).await;
        let q = format!("task={}&{RANGE}", d.task);
        let s: CycleStats = app
            .get_as(&format!("telemetry/cycle_stats?{q}"), &w.analyst)
            .await;
        let i: IssueCenter = app
            .get_as(&format!("telemetry/issues?{q}"), &w.analyst)
            .await;
        assert!(s.total.cycles > 0 && s.total.bad > 0, "{:?}", s.total);
        assert_eq!(fig(&a, "Cycles"), s.total.cycles as f64);
        assert_eq!(fig(&a, "Bad cycles"), s.total.bad as f64);
        for st in &s.stations {
            let name = format!(
                "{} on {}",
                st.task_name.as_deref().unwrap(),
                st.device_name.as_deref().unwrap()
            );
            let avg = st.figures.avg_ms.unwrap() / 1000.0;
            assert_eq!(fig(&a, &format!("Average cycle time, {name}")), shown(avg));
            assert_eq!(fig(&a, &format!("Target cycle time, {name}")), 14.5);
            let link = &a
                .facts
                .iter()
                .find(|f| f.label == format!("Average cycle time, {name}"))
                .unwrap()
                .link;
            assert_eq!(
                link,
                &format!(
                    "/user/analytics?from=2026-10-13&to=2026-10-17&task={}&device={}",
                    st.task,
                    st.device.unwrap()
                )
            );
        }
        let slow = s
            .steps
            .iter()
            .max_by(|x, y| x.avg_ms.total_cmp(&y.avg_ms))
            .unwrap();
        assert_eq!(
            fig(
                &a,
                &format!("Average time, step {}", slow.name.as_deref().unwrap())
            ),
            shown(slow.avg_ms / 1000.0)
        );
        let top = &i.issues[0];
        let reasons: Vec<f64> = a
            .facts
            .iter()
            .filter(|f| f.label.starts_with("Bad cycles: "))
            .map(|f| f.value)
            .collect();
        assert_eq!(reasons[0], top.cycles as f64, "{reasons:?} {:?}", i.issues);
        assert!(
            a.facts.iter().all(|f| f.link.starts_with("/user/")),
            "{:?}",
            a.facts
        );
        // Without a model: the facts in sentences, with their methods; the notice; the
        // follow-up questions.
        assert!(a.model.is_none());
        assert_eq!(a.notice, BETA_NOTICE);
        assert!(a.messages.iter().all(|m| m.is_advisor));
        assert!(
            a.messages
                .iter()
                .any(|m| m.kind == "advice" && m.method.is_some())
        );
        assert!(!a.follow_up.is_empty());
        // …and none when not asked for.
        let mut body = period.clone();
        body["mode"] = json!("station_performance");
        body["suggest_followup_questions"] = json!(false);
        body["message"] = json!("How are we doing?");
        let b = ask(&app, &w.analyst, body).await;
        assert!(b.follow_up.is_empty());
        assert_eq!(
            (b.messages[0].kind.as_str(), b.messages[0].is_advisor),
            ("question", false)
        );

        // Two periods: each one's cycles as cycle_stats counts them.
        let mut body = json!({"mode": "station_comparison", "datetime_start": "2026-10-13",
            "datetime_end": "2026-10-14", "compare_start": "2026-10-15", "compare_end": "2026-10-17"});
        let c = ask(&app, &w.analyst, body.clone()).await;
        for (label, q) in [
            (
                "Cycles, period 1",
                "datetime_start=2026-10-13&datetime_end=2026-10-14",
            ),
            (
                "Cycles, period 2",
                "datetime_start=2026-10-15&datetime_end=2026-10-17",
            ),
        ] {
            let s: CycleStats = app
                .get_as(&format!("telemetry/cycle_stats?{q}"), &w.analyst)
                .await;
            assert_eq!(fig(&c, label), s.total.cycles as f64, "{label}");
        }

        // A line: its takt, bottleneck, balance and output as line_stats answers them.
        let line: Line = app
            .create_as(
                "telemetry/trace/line/",
                &LineBody {
                    name: Some("Demo line".into()),
                    takt_time_s: Some(14.0),
                    stations: Some(vec![
                        Station {
                            task: d.task,
                            device: d.bench,
                        },
                        Station {
                            task: d.task,
                            device: d.other,
                        },
                    ]),
                },
                &w.eng,
            )
            .await;
        let mut lb = period.clone();
        lb["mode"] = json!("line_performance");
        lb["line"] = json!(line.id);
        let l = ask(&app, &w.analyst, lb).await;
        let ls: LineStats = app
            .get_as(
                &format!("telemetry/line_stats?line={}&{RANGE}", line.id),
                &w.analyst,
            )
            .await;
        assert_eq!(fig(&l, "Takt time, Demo line"), 14.0);
        assert_eq!(
            fig(&l, "Line balance, Demo line"),
            shown(100.0 * ls.balance.unwrap())
        );
        assert_eq!(fig(&l, "Parts finished, Demo line"), ls.output as f64);
        let b = &ls.stations[ls.bottleneck.unwrap()];
        assert_eq!(
            fig(
                &l,
                &format!(
                    "Bottleneck's average cycle time (station {}, {})",
                    b.position + 1,
                    b.station.device_name.as_deref().unwrap()
                )
            ),
            shown(b.figures.avg_ms.unwrap() / 1000.0)
        );

        // Devices: as device_status answers them (the boss sees devices).
        let mut ib = period.clone();
        ib["mode"] = json!("iot_infrastructure");
        let iot = ask(&app, &w.boss, ib.clone()).await;
        let ds: Vec<DeviceStatus> = app.get_as("device/device_status/", &w.boss).await;
        assert_eq!(fig(&iot, "Devices"), ds.len() as f64);
        assert_eq!(
            fig(&iot, "Devices online"),
            ds.iter().filter(|d| d.online).count() as f64
        );
        // The analytics user reads cycles, not devices: the devices call refuses them.
        let (st, _) = app.post(ASK, ib, Some(&w.analyst)).await;
        assert_eq!(st, StatusCode::FORBIDDEN);

        // Ergonomics says what it cannot measure.
        let mut eb = period.clone();
        eb["mode"] = json!("ergonomics");
        let e = ask(&app, &w.analyst, eb).await;
        assert!(
            e.messages
                .iter()
                .any(|m| m.kind == "note" && m.caption.starts_with("Not measured"))
        );

        // Bad input, each named; another organisation's task and line are unknown.
        let (_, task_b) = b_task(&app, &w).await;
        body["compare_start"] = Value::Null;
        for (b, field) in [
            (json!({"mode": "chat"}), "mode"),
            (
                json!({"datetime_start": "2026-10-13", "datetime_end": "2026-10-17"}),
                "mode",
            ),
            (
                json!({"mode": "station_performance", "datetime_end": "2026-10-17"}),
                "datetime_start",
            ),
            (
                json!({"mode": "station_performance", "datetime_start": "2026-10-18", "datetime_end": "2026-10-17"}),
                "datetime_end",
            ),
            (body.clone(), "compare_start"),
            (
                json!({"mode": "station_comparison", "datetime_start": "2026-10-13", "datetime_end": "2026-10-14",
                "compare_start": "2026-10-15", "compare_end": "not a date"}),
                "compare_end",
            ),
            (
                json!({"mode": "line_performance", "datetime_start": "2026-10-13", "datetime_end": "2026-10-17"}),
                "line",
            ),
            (
                json!({"mode": "station_performance", "task": task_b, "datetime_start": "2026-10-13", "datetime_end": "2026-10-17"}),
                "task",
            ),
            (json!({"mode": "rag"}), "message"),
            (
                json!({"mode": "rag", "message": "x".repeat(2001)}),
                "message",
            ),
        ] {
            let (s, v) = app.post(ASK, b.clone(), Some(&w.analyst)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{b}: {v}");
            assert!(v[field][0].is_string(), "{b}: {v}");
        }
        let (s, _) = app
            .post(
                ASK,
                json!({"mode": "line_performance", "line": line.id, "datetime_start": "2026-10-13",
                "datetime_end": "2026-10-17"}),
                Some(&w.boss_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);

fn python() -> PathBuf {
    std::env::var_os("GEMBA_TEST_PYTHON").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../target/venv/bin/python"
            ))
        },
        PathBuf::from,
    )
}

async fn upload(app: &TestApp, tok: &str, name: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    let r = app
        .client
        .post(format!("{}/{DOCS}", app.base))
        .query(&[("name", name)])
        .bearer_auth(tok)
        .header("content-type", "application/octet-stream")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

const TORQUE: &str = "Fastening standard\n\nTorque\nTighten the four M6 housing screws crosswise to \
    12 Nm with the blue torque wrench. A screw that turns past 12 Nm is replaced, never re-used.\n\n\
    Storage\nKeep the wrench in the shadow board after each shift.\n";
const PAINT: &str = "Painting line manual\n\nCuring\nThe oven cures the coat at 180 degrees for 20 \
    minutes. Open the door only after the fan stops.\n";

both!(
    retrieval_finds_the_right_passage,
    |app: TestApp| async move {
        let w = world(&app).await;
        let (docx, _) = crate::sop::documents();
        for (name, bytes) in [
            ("fastening.txt", TORQUE.as_bytes().to_vec()),
            ("painting.txt", PAINT.as_bytes().to_vec()),
            ("pump.docx", docx),
        ] {
            let (s, v) = upload(&app, &w.eng, name, bytes).await;
            assert_eq!(s, StatusCode::CREATED, "{name}: {v}");
        }
        // Organisation B's own torque rule: never A's answer.
        let (eng_b, _) = b_task(&app, &w).await;
        let (s, v) = upload(
            &app,
            &eng_b,
            "b.txt",
            b"Torque the M6 screws to 99 Nm.\n".to_vec(),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let docs: Vec<AssistantDocument> = app.get_as(DOCS, &w.analyst).await;
        assert_eq!(docs.len(), 3);
        let pump = docs.iter().find(|d| d.name == "pump.docx").unwrap();
        assert_eq!(pump.source, "docx");

        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "What torque for the M6 screws?"}),
        )
        .await;
        let p: Vec<_> = a
            .messages
            .iter()
            .filter_map(|m| m.passage.as_ref())
            .collect();
        assert_eq!(p[0].document_name, "fastening.txt", "{p:?}");
        assert!(p[0].text.contains("12 Nm"), "{p:?}");
        assert!(p.iter().all(|x| !x.text.contains("99 Nm")), "{p:?}");
        // The summary is the sentences that answer.
        let summary = p[0].summary.as_deref().unwrap();
        assert!(
            summary.contains(
                "Tighten the four M6 housing screws crosswise to 12 Nm with the blue torque wrench."
            ),
            "{summary}"
        );
        assert!(!summary.contains("shadow board"), "{summary}");
        // The .docx's text is searched as well.
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "alcohol for the mat",
        "use_query_contextual_summaries": false}),
        )
        .await;
        let p: Vec<_> = a
            .messages
            .iter()
            .filter_map(|m| m.passage.as_ref())
            .collect();
        assert_eq!(p[0].document, pump.id, "{p:?}");
        assert!(p[0].summary.is_none());
        // Nothing matching: said so.
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "welding"}),
        )
        .await;
        assert!(
            a.messages.iter().any(|m| m.kind == "note"),
            "{:?}",
            a.messages
        );

        // Bad files and names, nothing stored; the analytics user cannot add; deleted, gone
        // from the answers; B cannot delete A's.
        for (name, bytes, field) in [
            ("", b"text".to_vec(), "name"),
            ("x.bin", vec![0, 159, 146, 150, 0], "file"),
            ("x.txt", vec![], "file"),
        ] {
            let (s, v) = upload(&app, &w.eng, name, bytes).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{name}: {v}");
            assert!(v[field][0].is_string(), "{v}");
        }
        let (s, _) = upload(&app, &w.analyst, "x.txt", b"text".to_vec()).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let fastening = docs.iter().find(|d| d.name == "fastening.txt").unwrap().id;
        let (s, _) = app.delete(&format!("{DOCS}{fastening}/"), &eng_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app.delete(&format!("{DOCS}{fastening}/"), &w.eng).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "M6 torque"}),
        )
        .await;
        assert!(
            a.messages
                .iter()
                .filter_map(|m| m.passage.as_ref())
                .all(|p| p.document != fastening)
        );
        let docs: Vec<AssistantDocument> = app.get_as(DOCS, &w.analyst).await;
        assert_eq!(docs.len(), 2);
    }
);

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
        let child = tokio::process::Command::new(python())
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

/// A document of organisation `org`, added by the super admin `admin` (the tenancy
/// walk's record of B's).
pub(crate) async fn walk_document(app: &TestApp, admin: &str, org: i64) -> i64 {
    let r = app
        .client
        .post(format!("{}/{DOCS}", app.base))
        .query(&[("name", "b.txt")])
        .bearer_auth(admin)
        .header("Organization", org.to_string())
        .body("B's manual: torque to 99 Nm.\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    r.json::<AssistantDocument>().await.unwrap().id
}
