//! Lines (issue 7), on both backends: defining a line (stations in order, takt time)
//! with every bad value named and nothing written; another organisation's lines and a
//! reader's changes refused; a line's figures equal to the raw cycles' of its stations
//! (with the bottleneck, output and balance); and a part traced along a line by time.

use gemba_cloud::db::cycles::insert_cycles;
use gemba_shared::api::v1::line::{Line, LineBody, LineStats, LineTrace, Station};
use gemba_shared::api::v1::task::{Task, TaskCreate};
use gemba_shared::api::v1::telemetry::{ArchiveCycles, Archived};
use gemba_shared::cycle::Cycle;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::analytics::{Demo, Raw, as_sent, check_figures, demo_cycles};
use crate::both;
use crate::common::*;
use crate::devices::{add, world};
use crate::videos::b_task;

const DAYS: &str = "datetime_start=2026-10-13&datetime_end=2026-10-17";

async fn device(app: &TestApp, tok: &str, name: &str) -> i64 {
    add(app, tok, name).await["device"]["id"].as_i64().unwrap()
}

/// Task `task` on each of `devices`, in order.
fn stations(task: i64, devices: &[i64]) -> Vec<Station> {
    devices
        .iter()
        .map(|&device| Station { task, device })
        .collect()
}

both!(
    lines_are_defined_checked_and_kept_to_their_organisation,
    |app: TestApp| async move {
        let w = world(&app).await;
        let (d1, d2) = (
            device(&app, &w.boss, "Bench 1").await,
            device(&app, &w.boss, "Bench 2").await,
        );
        let t = w.task;
        let line = LineBody {
            name: Some("Pump line".into()),
            takt_time_s: Some(60.0),
            stations: Some(stations(t, &[d1, d2])),
        };
        let v: Line = app.create_as("telemetry/trace/line/", &line, &w.eng).await;
        let id = v.id;
        assert_eq!(v.name, "Pump line");
        assert_eq!(v.takt_time_s, Some(60.0));
        assert_eq!(v.stations[0].task_name.as_deref(), Some("Pump"));
        assert_eq!(
            (
                v.stations[0].device_name.as_deref(),
                v.stations[1].device_name.as_deref()
            ),
            (Some("Bench 1"), Some("Bench 2"))
        );
        // Read by the analytics user.
        let list: Vec<Line> = app.get_as("telemetry/trace/line/", &w.analyst).await;
        assert_eq!(list.len(), 1);
        let one: Line = app
            .get_as(&format!("telemetry/trace/line/{id}"), &w.analyst)
            .await;
        assert_eq!(one, v);
        // Changed: renamed, stations reversed, the takt time removed.
        let v: Line = app
            .send_as(
                Method::PATCH,
                &format!("telemetry/trace/line/{id}"),
                &LineBody {
                    name: Some("Pump line A".into()),
                    stations: Some(stations(t, &[d2, d1])),
                    ..LineBody::default()
                },
                &w.boss,
            )
            .await;
        assert_eq!(v.stations[0].device, d2);
        assert_eq!(v.takt_time_s, Some(60.0));
        let v: Line = app
            .send_as(
                Method::PATCH,
                &format!("telemetry/trace/line/{id}"),
                &LineBody {
                    takt_time_s: Some(0.0),
                    ..LineBody::default()
                },
                &w.boss,
            )
            .await;
        assert!(v.takt_time_s.is_none(), "{v:?}");
        assert_eq!(v.name, "Pump line A");

        // Bad values, each named; nothing written: changes of the good body, as JSON.
        let body = serde_json::to_value(&line).unwrap();
        let (_, task_b) = b_task(&app, &w).await;
        let twenty_one: Vec<Value> = (0..21)
            .map(|i| json!({"task": t, "device": d1 + i}))
            .collect();
        let with = |k: &str, val: Value| {
            let mut b = body.clone();
            b[k] = val;
            b
        };
        for (b, field) in [
            (with("name", json!("")), "name"),
            (with("name", json!("  ")), "name"),
            (with("name", json!("n".repeat(101))), "name"),
            (with("name", json!("PUMP LINE a")), "name"),
            (with("stations", json!([])), "stations"),
            (with("stations", json!(twenty_one)), "stations"),
            (
                with(
                    "stations",
                    json!([{"task": t, "device": d1}, {"task": t, "device": d1}]),
                ),
                "stations",
            ),
            (
                with("stations", json!([{"task": task_b, "device": d1}])),
                "stations",
            ),
            (
                with("stations", json!([{"task": t, "device": 999_999}])),
                "stations",
            ),
            (with("takt_time_s", json!(-1)), "takt_time_s"),
            (with("takt_time_s", json!(86_401)), "takt_time_s"),
        ] {
            let (s, v) = app
                .post("telemetry/trace/line/", b.clone(), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{b}: {v}");
            assert!(v[field][0].is_string(), "{b}: {v}");
        }
        for b in [
            json!({"name": "x", "stations": [{"task": t}]}),
            json!({"name": "x", "stations": "all"}),
            with("colour", json!("red")),
            json!([]),
        ] {
            let (s, _) = app
                .post("telemetry/trace/line/", b.clone(), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{b}");
        }
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("telemetry/trace/line/{id}"),
                &LineBody {
                    stations: Some(vec![]),
                    ..LineBody::default()
                },
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let list: Vec<Line> = app.get_as("telemetry/trace/line/", &w.eng).await;
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].stations.len(), 2);

        // A reader changes nothing; a labeler reads nothing; B reaches none of A's.
        for (s, v) in [
            app.post("telemetry/trace/line/", body.clone(), Some(&w.analyst))
                .await,
            app.patch(
                &format!("telemetry/trace/line/{id}"),
                json!({"name": "Mine"}),
                Some(&w.analyst),
            )
            .await,
            app.delete(&format!("telemetry/trace/line/{id}"), &w.analyst)
                .await,
        ] {
            assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        }
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        assert_eq!(
            app.get("telemetry/trace/line/", &lab).await.0,
            StatusCode::FORBIDDEN
        );
        for (s, v) in [
            app.get(&format!("telemetry/trace/line/{id}"), &w.boss_b)
                .await,
            app.patch(
                &format!("telemetry/trace/line/{id}"),
                json!({"name": "Taken"}),
                Some(&w.boss_b),
            )
            .await,
            app.delete(&format!("telemetry/trace/line/{id}"), &w.boss_b)
                .await,
            app.get(&format!("telemetry/line_stats?line={id}&{DAYS}"), &w.boss_b)
                .await,
        ] {
            assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
        }
        let list_b: Vec<Line> = app.get_as("telemetry/trace/line/", &w.boss_b).await;
        assert!(list_b.is_empty(), "{list_b:?}");
        let still: Line = app
            .get_as(&format!("telemetry/trace/line/{id}"), &w.eng)
            .await;
        assert_eq!(still.name, "Pump line A");

        // Deleted.
        let (s, _) = app
            .delete(&format!("telemetry/trace/line/{id}"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        for (s, _) in [
            app.get(&format!("telemetry/trace/line/{id}"), &w.eng).await,
            app.delete(&format!("telemetry/trace/line/{id}"), &w.eng)
                .await,
        ] {
            assert_eq!(s, StatusCode::NOT_FOUND);
        }
    }
);

both!(
    a_lines_figures_are_its_stations_raw_cycles,
    |app: TestApp| async move {
        let w = world(&app).await;
        let d: Demo = demo_cycles(&app, &w, 5).await;
        let line: Line = app
            .create_as(
                "telemetry/trace/line/",
                &LineBody {
                    name: Some("Demo line".into()),
                    takt_time_s: Some(14.0),
                    stations: Some(stations(d.task, &[d.bench, d.other])),
                },
                &w.eng,
            )
            .await;
        let id = line.id;
        // Both stations work the same footage: a tie, the first is the bottleneck. Then
        // the first's slowest cycles archived: the second is.
        let mut gone = std::collections::HashSet::new();
        let v = check_line(&app, &w, &d, id, &gone, 0).await;
        let mut slow: Vec<usize> = (0..d.raw.len())
            .filter(|&i| d.raw[i].device == d.bench)
            .collect();
        slow.sort_by_key(|&i| std::cmp::Reverse(d.raw[i].c.end_ms - d.raw[i].c.start_ms));
        let archive = ArchiveCycles {
            ids: Some(
                slow[..3]
                    .iter()
                    .map(|&i| d.received[i].cycle.id.clone())
                    .collect(),
            ),
            reason: Some("slow trial".into()),
        };
        let _: Archived = app
            .send_as(Method::POST, "telemetry/archive_cycle/", &archive, &w.eng)
            .await;
        gone.extend(slow[..3].iter().copied());
        check_line(&app, &w, &d, id, &gone, 1).await;
        assert_eq!(v.takt_time_s, Some(14.0));
        // A range without cycles: no bottleneck, no balance.
        let empty: LineStats = app
            .get_as(
                &format!("telemetry/line_stats?line={id}&datetime_start=2026-01-01&datetime_end=2026-01-02"),
                &w.analyst,
            )
            .await;
        assert!(
            empty.bottleneck.is_none()
                && empty.balance.is_none()
                && empty.capacity_per_hour.is_none(),
            "{empty:?}"
        );
        assert_eq!(empty.output, 0);
        for (query, field) in [
            (DAYS.to_string(), "line"),
            (format!("line={id}"), "datetime_start"),
            (
                format!("line={id}&datetime_start=2026-10-13"),
                "datetime_end",
            ),
            (
                format!("line={id}&datetime_start=2026-10-14&datetime_end=2026-10-13"),
                "datetime_end",
            ),
        ] {
            let (s, v) = app
                .get(&format!("telemetry/line_stats?{query}"), &w.analyst)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {v}");
            assert!(v[field][0].is_string(), "{query}: {v}");
        }
        let (s, _) = app
            .get(
                &format!("telemetry/line_stats?line=999999&{DAYS}"),
                &w.analyst,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);

/// Checks line `id`'s figures over the five days against the raw cycles of its two
/// stations (bench, then other) but `gone`; the bottleneck must be `bottleneck`.
async fn check_line(
    app: &TestApp,
    w: &crate::devices::World,
    d: &Demo,
    id: i64,
    gone: &std::collections::HashSet<usize>,
    bottleneck: usize,
) -> LineStats {
    let v: LineStats = app
        .get_as(
            &format!("telemetry/line_stats?line={id}&{DAYS}"),
            &w.analyst,
        )
        .await;
    let mut avgs = vec![];
    let live = |i: &usize| !gone.contains(i);
    for (k, dev) in [d.bench, d.other].into_iter().enumerate() {
        let mine: Vec<&Raw> = (0..d.raw.len())
            .filter(live)
            .map(|i| &d.raw[i])
            .filter(|r| r.device == dev)
            .collect();
        let st = &v.stations[k];
        assert_eq!((st.position, st.station.device), (k, dev));
        // `check_figures` (analytics.rs) reads the figures as JSON.
        let figures = serde_json::to_value(&st.figures).unwrap();
        check_figures(&format!("station {k}"), &figures, &mine);
        avgs.push(st.figures.avg_ms.unwrap());
    }
    // The slowest station; on a tie, the first.
    let most = avgs.iter().cloned().fold(f64::MIN, f64::max);
    assert_eq!(avgs.iter().position(|a| *a == most), Some(bottleneck));
    assert_eq!(v.bottleneck, Some(bottleneck));
    let output = (0..d.raw.len())
        .filter(live)
        .filter(|&i| d.raw[i].device == d.other && d.raw[i].c.good)
        .count() as i64;
    assert_eq!(v.output, output);
    assert!((v.capacity_per_hour.unwrap() - 3_600_000.0 / most).abs() < 1e-9);
    let balance = avgs.iter().sum::<f64>() / (2.0 * most);
    assert!((v.balance.unwrap() - balance).abs() < 1e-9, "{v:?}");
    v
}

/// A cycle of `ms` from `from` (s after `base`) to `to`.
fn at(base: i64, from: i64, to: i64) -> Cycle {
    Cycle {
        start_ms: base + from * 1000,
        end_ms: base + to * 1000,
        segments: vec![],
        idle_ms: 0,
        good: true,
        reasons: vec![],
    }
}

both!(
    a_part_is_traced_along_a_line_by_time_and_by_barcode,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = w.task;
        let ds = [
            device(&app, &w.boss, "Press").await,
            device(&app, &w.boss, "Weld").await,
            device(&app, &w.boss, "Paint").await,
        ];
        const BASE: i64 = 1_793_577_600_000;
        // Each station's cycles (s): a part moves on once a station is done with it.
        let times = [
            [(0, 10), (20, 30), (40, 50)],
            [(12, 25), (31, 45), (52, 60)],
            [(26, 35), (46, 58), (61, 70)],
        ];
        let mut ids = vec![];
        for (k, dev) in ds.iter().enumerate() {
            let sent: Vec<_> = times[k]
                .iter()
                .map(|&(a, b)| as_sent(w.a, *dev, t, &at(BASE, a, b)))
                .collect();
            ids.push(sent.iter().map(|r| r.cycle.id.clone()).collect::<Vec<_>>());
            insert_cycles(&app.state.db, &sent).await.unwrap();
        }
        let line: Line = app
            .create_as(
                "telemetry/trace/line/",
                &LineBody {
                    name: Some("Body line".into()),
                    stations: Some(stations(t, &ds)),
                    ..LineBody::default()
                },
                &w.eng,
            )
            .await;
        let id = line.id;
        // How the line's traceability follows `cycle` (`how`: time or barcode): the
        // traced cycle's position, `by`, the barcode and each station's cycle.
        let follow = |cycle: String, how: &'static str| {
            let app = &app;
            let tok = w.analyst.clone();
            async move {
                let v: LineTrace = app
                    .get_as(
                        &format!(
                            "telemetry/trace/line_traceability/?line={id}&cycle_id={cycle}&by={how}"
                        ),
                        &tok,
                    )
                    .await;
                let found: Vec<Option<String>> = v
                    .stations
                    .into_iter()
                    .map(|s| s.cycle.map(|c| c.id))
                    .collect();
                (v.position, v.by, v.barcode, found)
            }
        };
        let trace = async |cycle: String| {
            let (position, _, _, found) = follow(cycle, "time").await;
            (position, found)
        };
        let some = |k: usize, i: usize| Some(ids[k][i].clone());
        // From the middle station's second cycle: Press's second before, Paint's second
        // after (the first started before Weld was done).
        assert_eq!(
            trace(ids[1][1].clone()).await,
            (1, vec![some(0, 1), some(1, 1), some(2, 1)])
        );
        // From the first station's last cycle: Weld's last; Paint's last starts after it.
        assert_eq!(
            trace(ids[0][2].clone()).await,
            (0, vec![some(0, 2), some(1, 2), some(2, 2)])
        );
        // From the last station's first cycle, back to the start.
        assert_eq!(
            trace(ids[2][0].clone()).await,
            (2, vec![some(0, 0), some(1, 0), some(2, 0)])
        );
        // From the last station's last cycle: Weld's last ended at 60, before 61; Press's
        // last at 50, before 52.
        assert_eq!(
            trace(ids[2][2].clone()).await,
            (2, vec![some(0, 2), some(1, 2), some(2, 2)])
        );
        // By barcode: parts that overtook one another. Press makes P-1 then P-2; Weld
        // and Paint take P-2 first. By time, P-1's Press cycle is followed by Weld's
        // next cycle (P-2's); by barcode, by P-1's own, the one nearest in time (a
        // later P-1 at Weld, hours on, is another pass).
        let coded = [
            [
                (1000, 1010, "P-1"),
                (1020, 1030, "P-2"),
                (9000, 9010, "P-3"),
            ],
            [
                (1012, 1025, "P-2"),
                (1031, 1045, "P-1"),
                (9000, 9010, "P-1"),
            ],
            [
                (1026, 1035, "P-2"),
                (1046, 1058, "P-1"),
                (9100, 9110, "P-3"),
            ],
        ];
        let mut coded_ids = vec![];
        for (k, dev) in ds.iter().enumerate() {
            let sent: Vec<_> = coded[k]
                .iter()
                .map(|&(a, b, code)| {
                    let mut r = as_sent(w.a, *dev, t, &at(BASE, a, b));
                    r.cycle.metadata.insert("barcode".into(), code.into());
                    r
                })
                .collect();
            coded_ids.push(sent.iter().map(|r| r.cycle.id.clone()).collect::<Vec<_>>());
            insert_cycles(&app.state.db, &sent).await.unwrap();
        }
        let by = async |cycle: String, how: &'static str| {
            let (_, by, barcode, found) = follow(cycle, how).await;
            (by, barcode, found)
        };
        let c = |k: usize, i: usize| Some(coded_ids[k][i].clone());
        assert_eq!(
            by(coded_ids[0][0].clone(), "time").await,
            ("time".into(), None, vec![c(0, 0), c(1, 0), c(2, 0)])
        );
        assert_eq!(
            by(coded_ids[0][0].clone(), "barcode").await,
            (
                "barcode".into(),
                Some("P-1".into()),
                vec![c(0, 0), c(1, 1), c(2, 1)]
            )
        );
        // From the middle station, both ways; a barcode some station never saw.
        assert_eq!(
            by(coded_ids[1][0].clone(), "barcode").await.2,
            vec![c(0, 1), c(1, 0), c(2, 0)]
        );
        assert_eq!(
            by(coded_ids[2][2].clone(), "barcode").await.2,
            vec![c(0, 2), None, c(2, 2)]
        );
        // A cycle without a barcode, or a way that is neither: refused on `by`.
        for (cycle, how, why) in [
            (
                ids[0][0].clone(),
                "barcode",
                "The cycle carries no barcode: trace it by time.",
            ),
            (
                coded_ids[0][0].clone(),
                "colour",
                "Trace by time or by barcode.",
            ),
        ] {
            let (s, v) = app
                .get(
                    &format!(
                        "telemetry/trace/line_traceability/?line={id}&cycle_id={cycle}&by={how}"
                    ),
                    &w.analyst,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert_eq!(v["by"][0], why);
        }
        // A cycle of no station of the line; an unknown one; bad parameters.
        let stray = as_sent(w.a, ds[0], t, &at(BASE, 100, 110));
        let mut other_task = stray;
        let t2: Task = app
            .create_as(
                "organization/task/",
                &TaskCreate {
                    task_detail: Some("Other\nDo:\nIt;\n".into()),
                    ..TaskCreate::default()
                },
                &w.eng,
            )
            .await;
        other_task.cycle.task = t2.id;
        insert_cycles(&app.state.db, std::slice::from_ref(&other_task))
            .await
            .unwrap();
        for (query, want) in [
            (
                format!("line={id}&cycle_id={}", other_task.cycle.id),
                StatusCode::BAD_REQUEST,
            ),
            (
                format!("line={id}&cycle_id=no-such-cycle"),
                StatusCode::NOT_FOUND,
            ),
            (format!("cycle_id={}", ids[0][0]), StatusCode::BAD_REQUEST),
            (format!("line={id}"), StatusCode::BAD_REQUEST),
            (
                format!("line=999999&cycle_id={}", ids[0][0]),
                StatusCode::NOT_FOUND,
            ),
        ] {
            let (s, v) = app
                .get(
                    &format!("telemetry/trace/line_traceability/?{query}"),
                    &w.analyst,
                )
                .await;
            assert_eq!(s, want, "{query}: {v}");
        }
        // B cannot trace A's cycle on A's line.
        let (s, _) = app
            .get(
                &format!(
                    "telemetry/trace/line_traceability/?line={id}&cycle_id={}",
                    ids[0][0]
                ),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);
