//! The issue center (issue 7), on both backends: a range's bad cycles grouped by
//! operation and reason, with counts, open counts and a trend, equal to what the raw
//! cycles say (engine-made cycles of the demo footage, with their reasons); an issue's
//! cycles listed through `fetch_cycles/v2?reason=`; reviewing an issue's open cycles of
//! a range; archived cycles and other organisations' left out; bad input named.

use std::collections::BTreeMap;

use gemba_cloud::db::cycles::insert_cycles;
use gemba_shared::api::v1::telemetry::IssueKey;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::analytics::{DAY, Demo, OCT_13, as_sent, demo_cycles};
use crate::both;
use crate::common::*;
use crate::devices::world;
use crate::telemetry::ids;
use crate::videos::b_task;

const DAYS: &str = "datetime_start=2026-10-13&datetime_end=2026-10-17";

/// Per issue key: the ids of its bad cycles and how many of them start on each of the
/// five days.
fn expected(d: &Demo, keep: &dyn Fn(usize) -> bool) -> BTreeMap<String, (Vec<String>, [i64; 5])> {
    let mut out: BTreeMap<String, (Vec<String>, [i64; 5])> = BTreeMap::new();
    for (i, r) in d.raw.iter().enumerate() {
        if r.c.good || !keep(i) {
            continue;
        }
        let day = ((r.c.start_ms - OCT_13) / DAY) as usize;
        for k in IssueKey::of(&r.c.reasons) {
            let e = out.entry(k.key()).or_default();
            e.0.push(d.received[i].cycle.id.clone());
            e.1[day] += 1;
        }
    }
    out
}

async fn center(app: &TestApp, tok: &str, query: &str) -> Value {
    let (s, v) = app.get(&format!("telemetry/issues?{query}"), tok).await;
    assert_eq!(s, StatusCode::OK, "{query}: {v}");
    v
}

both!(
    issues_are_the_raw_bad_cycles_grouped_by_reason,
    |app: TestApp| async move {
        let w = world(&app).await;
        let d = demo_cycles(&app, &w, 5).await;
        // B's bad cycles at the same times: never A's issues.
        let (_, task_b) = b_task(&app, &w).await;
        let b: Vec<_> = d.raw[..30]
            .iter()
            .map(|r| as_sent(w.b, r.device, task_b, &r.c))
            .collect();
        insert_cycles(&app.state.db, &b).await.unwrap();

        let want = expected(&d, &|_| true);
        assert!(
            want.len() >= 2,
            "the footage has bad cycles of several reasons: {want:?}"
        );
        let v = center(&app, &w.analyst, DAYS).await;
        let bad = d.raw.iter().filter(|r| !r.c.good).count() as i64;
        assert_eq!(
            (v["bad"].as_i64(), v["open"].as_i64()),
            (Some(bad), Some(bad))
        );
        assert_eq!(v["buckets"].as_array().unwrap().len(), 5);
        let issues = v["issues"].as_array().unwrap();
        assert_eq!(issues.len(), want.len(), "{v}");
        let mut last = i64::MAX;
        for i in issues {
            let key = i["key"].as_str().unwrap();
            let (cycles, trend) = &want[key];
            assert_eq!(i["cycles"].as_i64(), Some(cycles.len() as i64), "{key}");
            assert_eq!(i["open"], i["cycles"], "{key}");
            assert_eq!(i["trend"], json!(trend), "{key}");
            assert_eq!(i["task"], d.task);
            assert_eq!(i["task_name"], json!(d.truth.task_settings().task_name));
            if let Some(step) = i["step"].as_u64() {
                assert_eq!(i["step_name"], json!(d.truth.steps[step as usize]), "{key}");
            }
            // Most cycles first.
            assert!(i["cycles"].as_i64().unwrap() <= last);
            last = i["cycles"].as_i64().unwrap();
            // The issue's cycles, as fetch_cycles lists them.
            let (mut listed, n) = ids(
                &app,
                &w,
                &format!("{DAYS}&reason={key}&cycle_filter=bad_cycles&page_size=100"),
            )
            .await;
            listed.sort();
            let mut mine = cycles.clone();
            mine.sort();
            assert_eq!((listed, n), (mine, cycles.len() as i64), "{key}");
        }
        // One device's issues: its own.
        let of_other = center(&app, &w.analyst, &format!("{DAYS}&device={}", d.other)).await;
        let want_other = expected(&d, &|i| d.raw[i].device == d.other);
        let got: BTreeMap<String, i64> = of_other["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["key"].as_str().unwrap().to_string(),
                    i["cycles"].as_i64().unwrap(),
                )
            })
            .collect();
        let wanted: BTreeMap<String, i64> = want_other
            .iter()
            .map(|(k, v)| (k.clone(), v.0.len() as i64))
            .collect();
        assert_eq!(got, wanted);

        // Reviewing the top issue's cycles of 14 and 15 October.
        let top = issues[0]["key"].as_str().unwrap().to_string();
        let in_range = want[&top].1[1] + want[&top].1[2];
        assert!(in_range > 0);
        let review = json!({"task": d.task, "key": top, "datetime_start": "2026-10-14",
            "datetime_end": "2026-10-15", "note": "  Retrained the line  "});
        let (s, v) = app
            .post("telemetry/issues/review", review.clone(), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["reviewed"].as_i64(), Some(in_range));
        // Again: nothing open there any more.
        let (_, v) = app
            .post("telemetry/issues/review", review, Some(&w.eng))
            .await;
        assert_eq!(v["reviewed"], 0);
        let after = center(&app, &w.analyst, DAYS).await;
        let issue = after["issues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["key"] == top)
            .unwrap()
            .clone();
        assert_eq!(
            issue["open"].as_i64(),
            Some(want[&top].0.len() as i64 - in_range)
        );
        assert!(after["open"].as_i64().unwrap() <= bad - in_range);
        let (_, open) = ids(&app, &w, &format!("{DAYS}&reason={top}&reviewed=false")).await;
        let (seen, reviewed) = ids(&app, &w, &format!("{DAYS}&reason={top}&reviewed=true")).await;
        assert_eq!(
            (open, reviewed),
            (issue["open"].as_i64().unwrap(), in_range)
        );
        let (_, v) = app
            .get(
                &format!(
                    "telemetry/trace/trace_single_cycle_details/?cycle_id={}",
                    seen[0]
                ),
                &w.analyst,
            )
            .await;
        assert_eq!(v["history"][0]["change"], "reviewed", "{v}");
        assert_eq!(v["history"][0]["reason"], "Retrained the line");
        assert_eq!(v["history"][0]["by"], "eng@a.test");

        // A good cycle marked bad by a person: an issue of its own. An archived bad
        // cycle: out of the issues.
        let good = d.raw.iter().position(|r| r.c.good).unwrap();
        let (s, v) = app
            .patch(
                &format!("telemetry/cycle/{}", d.received[good].cycle.id),
                json!({"good": false, "reason": "Dropped the part"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let bad_one = d.raw.iter().position(|r| !r.c.good).unwrap();
        let (s, v) = app
            .post(
                "telemetry/archive_cycle/",
                json!({"ids": [d.received[bad_one].cycle.id], "reason": "trial"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let later = center(&app, &w.analyst, DAYS).await;
        assert_eq!(later["bad"].as_i64(), Some(bad));
        let marked = later["issues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["key"] == "marked_bad")
            .unwrap_or_else(|| panic!("{later}"));
        assert_eq!(
            (marked["cycles"].as_i64(), marked["step"].is_null()),
            (Some(1), true)
        );
        let (listed, _) = ids(&app, &w, &format!("{DAYS}&reason=marked_bad")).await;
        assert_eq!(listed, [d.received[good].cycle.id.clone()]);

        // B sees its own.
        let of_b = center(&app, &w.boss_b, DAYS).await;
        let b_bad = d.raw[..30].iter().filter(|r| !r.c.good).count() as i64;
        assert_eq!(of_b["bad"].as_i64(), Some(b_bad));
    }
);

both!(
    bad_issue_center_input_is_named_and_reviews_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let d = demo_cycles(&app, &w, 1).await;
        let (_, task_b) = b_task(&app, &w).await;
        for (query, field) in [
            ("", "datetime_start"),
            ("datetime_start=2026-10-13", "datetime_end"),
            (&*format!("{DAYS}&cycle_filter=bad_cycles"), "cycle_filter"),
            (&*format!("{DAYS}&bucket=year"), "bucket"),
            (&*format!("{DAYS}&task={task_b}"), "task"),
            (&*format!("{DAYS}&device=999999"), "device"),
        ] {
            let (s, v) = app
                .get(&format!("telemetry/issues?{query}"), &w.analyst)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {v}");
            assert!(v[field][0].is_string(), "{query}: {v}");
        }
        for reason in ["bogus", "missed_step", "missed_step:x", "too_long:1"] {
            let (s, v) = app
                .get(
                    &format!("telemetry/fetch_cycles/v2?reason={reason}"),
                    &w.analyst,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{reason}: {v}");
            assert!(v["reason"][0].is_string(), "{v}");
        }
        let (s, _) = app
            .get("telemetry/fetch_cycles/v2?reviewed=maybe", &w.analyst)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let (s, v) = app
            .get(
                "telemetry/fetch_cycles/v2?reason=too_long&cycle_filter=good_cycles",
                &w.analyst,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["cycle_filter"][0].is_string(), "{v}");
        let ok = json!({"task": d.task, "key": "too_long", "datetime_start": "2026-10-13",
            "datetime_end": "2026-10-13"});
        let with = |k: &str, v: Value| {
            let mut b = ok.clone();
            match v {
                Value::Null => {
                    b.as_object_mut().unwrap().remove(k);
                }
                v => b[k] = v,
            }
            b
        };
        for (body, field) in [
            (with("task", Value::Null), "task"),
            (with("task", json!(task_b)), "task"),
            (with("key", Value::Null), "key"),
            (with("key", json!("late")), "key"),
            (with("datetime_start", Value::Null), "datetime_start"),
            (with("datetime_end", json!("2026-10-01")), "datetime_end"),
            (with("device", json!(999_999)), "device"),
            (with("note", json!("n".repeat(501))), "note"),
        ] {
            let (s, v) = app
                .post("telemetry/issues/review", body.clone(), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            assert!(v[field][0].is_string(), "{body}: {v}");
        }
        for body in [json!({"task": "x"}), with("extra", json!(1)), json!([])] {
            let (s, _) = app
                .post("telemetry/issues/review", body.clone(), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
        }
        // The analytics user reads issues but reviews none; a labeler reads none.
        let (s, _) = app
            .post("telemetry/issues/review", ok.clone(), Some(&w.analyst))
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        let (s, _) = app.get(&format!("telemetry/issues?{DAYS}"), &lab).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Nothing was reviewed.
        let n: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM cycles WHERE reviewed_at IS NOT NULL")
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
        assert_eq!(n, 0);
    }
);
