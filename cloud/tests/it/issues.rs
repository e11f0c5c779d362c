//! The issue center (issue 7), on both backends: a range's bad cycles grouped by
//! operation and reason, with counts, open counts and a trend, equal to what the raw
//! cycles say (engine-made cycles of the demo footage, with their reasons); an issue's
//! cycles listed through `fetch_cycles/v2?reason=`; reviewing an issue's open cycles of
//! a range; archived cycles and other organisations' left out; bad input named.

use std::collections::BTreeMap;

use gemba_cloud::db::cycles::insert_cycles;
use gemba_shared::api::v1::telemetry::{
    ArchiveCycles, Archived, CycleDetails, CycleVerdict, IssueCenter, IssueKey, ReviewIssue,
    Reviewed,
};
use reqwest::{Method, StatusCode};
use serde_json::json;

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

async fn center(app: &TestApp, tok: &str, query: &str) -> IssueCenter {
    app.get_as(&format!("telemetry/issues?{query}"), tok).await
}

async fn review(app: &TestApp, tok: &str, body: &ReviewIssue) -> Reviewed {
    app.send_as(Method::POST, "telemetry/issues/review", body, tok)
        .await
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
        assert_eq!((v.bad, v.open), (bad, bad));
        assert_eq!(v.buckets.len(), 5);
        let issues = &v.issues;
        assert_eq!(issues.len(), want.len(), "{v:?}");
        let mut last = i64::MAX;
        for i in issues {
            let key = i.key.as_str();
            let (cycles, trend) = &want[key];
            assert_eq!(i.cycles, cycles.len() as i64, "{key}");
            assert_eq!(i.open, i.cycles, "{key}");
            assert_eq!(i.trend, *trend, "{key}");
            assert_eq!(i.task, d.task);
            assert_eq!(i.task_name, Some(d.truth.task_settings().task_name));
            if let Some(step) = i.step {
                assert_eq!(
                    i.step_name.as_ref(),
                    Some(&d.truth.steps[step as usize]),
                    "{key}"
                );
            }
            // Most cycles first.
            assert!(i.cycles <= last);
            last = i.cycles;
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
        let got: BTreeMap<String, i64> = of_other
            .issues
            .iter()
            .map(|i| (i.key.clone(), i.cycles))
            .collect();
        let wanted: BTreeMap<String, i64> = want_other
            .iter()
            .map(|(k, v)| (k.clone(), v.0.len() as i64))
            .collect();
        assert_eq!(got, wanted);

        // Reviewing the top issue's cycles of 14 and 15 October.
        let top = issues[0].key.clone();
        let in_range = want[&top].1[1] + want[&top].1[2];
        assert!(in_range > 0);
        let body = ReviewIssue {
            task: Some(d.task),
            key: Some(top.clone()),
            datetime_start: Some("2026-10-14".into()),
            datetime_end: Some("2026-10-15".into()),
            note: Some("  Retrained the line  ".into()),
            ..ReviewIssue::default()
        };
        let v = review(&app, &w.eng, &body).await;
        assert_eq!(v.reviewed, in_range);
        // Again: nothing open there any more.
        let v = review(&app, &w.eng, &body).await;
        assert_eq!(v.reviewed, 0);
        let after = center(&app, &w.analyst, DAYS).await;
        let issue = after.issues.iter().find(|i| i.key == top).unwrap();
        assert_eq!(issue.open, want[&top].0.len() as i64 - in_range);
        assert!(after.open <= bad - in_range);
        let (_, open) = ids(&app, &w, &format!("{DAYS}&reason={top}&reviewed=false")).await;
        let (seen, reviewed) = ids(&app, &w, &format!("{DAYS}&reason={top}&reviewed=true")).await;
        assert_eq!((open, reviewed), (issue.open, in_range));
        let v: CycleDetails = app
            .get_as(
                &format!(
                    "telemetry/trace/trace_single_cycle_details/?cycle_id={}",
                    seen[0]
                ),
                &w.analyst,
            )
            .await;
        assert_eq!(v.history[0].change, "reviewed", "{v:?}");
        assert_eq!(v.history[0].reason, "Retrained the line");
        assert_eq!(v.history[0].by.as_deref(), Some("eng@a.test"));

        // A good cycle marked bad by a person: an issue of its own. An archived bad
        // cycle: out of the issues.
        let good = d.raw.iter().position(|r| r.c.good).unwrap();
        let _: CycleDetails = app
            .send_as(
                Method::PATCH,
                &format!("telemetry/cycle/{}", d.received[good].cycle.id),
                &CycleVerdict {
                    good: Some(false),
                    reason: Some("Dropped the part".into()),
                },
                &w.eng,
            )
            .await;
        let bad_one = d.raw.iter().position(|r| !r.c.good).unwrap();
        let _: Archived = app
            .send_as(
                Method::POST,
                "telemetry/archive_cycle/",
                &ArchiveCycles {
                    ids: Some(vec![d.received[bad_one].cycle.id.clone()]),
                    reason: Some("trial".into()),
                },
                &w.eng,
            )
            .await;
        let later = center(&app, &w.analyst, DAYS).await;
        assert_eq!(later.bad, bad);
        let marked = later
            .issues
            .iter()
            .find(|i| i.key == "marked_bad")
            .unwrap_or_else(|| panic!("{later:?}"));
        assert_eq!((marked.cycles, marked.step.is_none()), (1, true));
        let (listed, _) = ids(&app, &w, &format!("{DAYS}&reason=marked_bad")).await;
        assert_eq!(listed, [d.received[good].cycle.id.clone()]);

        // B sees its own.
        let of_b = center(&app, &w.boss_b, DAYS).await;
        let b_bad = d.raw[..30].iter().filter(|r| !r.c.good).count() as i64;
        assert_eq!(of_b.bad, b_bad);
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
        let ok = ReviewIssue {
            task: Some(d.task),
            key: Some("too_long".into()),
            datetime_start: Some("2026-10-13".into()),
            datetime_end: Some("2026-10-13".into()),
            ..ReviewIssue::default()
        };
        let with = |change: &dyn Fn(&mut ReviewIssue)| {
            let mut b = ok.clone();
            change(&mut b);
            b
        };
        for (body, field) in [
            (with(&|b| b.task = None), "task"),
            (with(&|b| b.task = Some(task_b)), "task"),
            (with(&|b| b.key = None), "key"),
            (with(&|b| b.key = Some("late".into())), "key"),
            (with(&|b| b.datetime_start = None), "datetime_start"),
            (
                with(&|b| b.datetime_end = Some("2026-10-01".into())),
                "datetime_end",
            ),
            (with(&|b| b.device = Some(999_999)), "device"),
            (with(&|b| b.note = Some("n".repeat(501))), "note"),
        ] {
            let (s, v) = app
                .send_refused(Method::POST, "telemetry/issues/review", &body, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert!(v[field][0].is_string(), "{body:?}: {v}");
        }
        let mut extra = serde_json::to_value(&ok).unwrap();
        extra["extra"] = json!(1);
        for body in [json!({"task": "x"}), extra, json!([])] {
            let (s, _) = app
                .post("telemetry/issues/review", body.clone(), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
        }
        // The analytics user reads issues but reviews none; a labeler reads none.
        let (s, _) = app
            .send_refused(Method::POST, "telemetry/issues/review", &ok, &w.analyst)
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
