//! The assistant's figures against the analytics calls'.

use gemba_shared::api::v1::assistant::{AssistantAnswer, BETA_NOTICE};
use gemba_shared::api::v1::device::DeviceStatus;
use gemba_shared::api::v1::line::{Line, LineBody, LineStats, Station};
use gemba_shared::api::v1::task::{Task, TaskPatch};
use gemba_shared::api::v1::telemetry::{CycleStats, IssueCenter};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::{ASK, ask};
use crate::analytics::{Demo, demo_cycles};
use crate::both;
use crate::common::*;
use crate::devices::world;
use crate::videos::b_task;

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
