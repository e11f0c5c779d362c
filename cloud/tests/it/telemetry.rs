//! Telemetry (issue 7): the organisation's cycles listed with the spec's filters, on both
//! backends; every page and count equals the same figure computed from the raw cycles
//! here; bad parameters and another organisation's ids are refused.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::device::RecentCycle;
use gemba_shared::api::v1::telemetry::TopCycles;
use gemba_shared::cycle::BadReason;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::both;
use crate::common::*;
use crate::devices::{World, added, world};
use crate::videos::b_task;

/// A cycle as stored: id, task, device, start, length, good.
struct Raw {
    id: String,
    task: i64,
    device: i64,
    start_ms: i64,
    len_ms: i64,
    good: bool,
}

/// Stores `cycles` of organisation `org` as ingestion writes them.
async fn store(app: &TestApp, org: i64, cycles: &[Raw]) {
    for c in cycles {
        sqlx::query(
            "INSERT INTO cycles (id, organization_id, device_id, task_id, camera, start_ms, \
             end_ms, idle_ms, good, reasons, segments, metadata, received_at) \
             VALUES ($1, $2, $3, $4, 'cam0', $5, $6, 0, $7, $8, '[]', '{}', $6)",
        )
        .bind(&c.id)
        .bind(org)
        .bind(c.device)
        .bind(c.task)
        .bind(c.start_ms)
        .bind(c.start_ms + c.len_ms)
        .bind(i64::from(c.good))
        .bind(if c.good {
            "[]"
        } else {
            r#"[{"reason":"too_long"}]"#
        })
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    }
}

const DAY: i64 = 86_400_000;
/// 2026-11-02T00:00:00Z.
const NOV_2: i64 = 1_793_577_600_000;

/// The ids and count of `fetch_cycles/v2?{query}` as the analytics user reads them.
pub(crate) async fn ids(app: &TestApp, w: &World, query: &str) -> (Vec<String>, i64) {
    let v: Page<RecentCycle> = app
        .get_as(&format!("telemetry/fetch_cycles/v2?{query}"), &w.analyst)
        .await;
    (v.results.into_iter().map(|c| c.id).collect(), v.count)
}

both!(
    cycles_are_listed_with_the_specs_filters_as_the_raw_data_says,
    |app: TestApp| async move {
        let w = world(&app).await;
        let bench = added(&app, &w.boss, "Bench 1").await.device.id;
        let other = added(&app, &w.boss, "Bench 2").await.device.id;
        // 30 cycles over three days, on two devices; every third bad; lengths vary.
        let raw: Vec<Raw> = (0..30)
            .map(|i: i64| Raw {
                id: format!("c{i:02}"),
                task: w.task,
                device: if i % 4 == 0 { other } else { bench },
                start_ms: NOV_2 + (i % 3) * DAY + i * 60_000,
                len_ms: 20_000 + (i * 7919) % 15_000,
                good: i % 3 != 0,
            })
            .collect();
        store(&app, w.a, &raw).await;
        // Organisation B's cycle: never listed for A.
        let (_, task_b) = b_task(&app, &w).await;
        store(
            &app,
            w.b,
            &[Raw {
                id: "b1".into(),
                task: task_b,
                device: bench,
                start_ms: NOV_2,
                len_ms: 1000,
                good: true,
            }],
        )
        .await;

        let expect = |keep: &dyn Fn(&Raw) -> bool, by_len: bool| {
            let mut v: Vec<&Raw> = raw.iter().filter(|c| keep(c)).collect();
            if by_len {
                v.sort_by(|a, b| a.len_ms.cmp(&b.len_ms).then(a.id.cmp(&b.id)));
            } else {
                v.sort_by(|a, b| b.start_ms.cmp(&a.start_ms).then(a.id.cmp(&b.id)));
            }
            v.into_iter().map(|c| c.id.clone()).collect::<Vec<_>>()
        };

        // All, newest first, ten a page; the count is all of them.
        let all = expect(&|_| true, false);
        let (page1, count) = ids(&app, &w, "").await;
        assert_eq!((page1.as_slice(), count), (&all[..10], 30));
        let (page3, _) = ids(&app, &w, "page=3").await;
        assert_eq!(page3, all[20..]);
        let (big, _) = ids(&app, &w, "page_size=100").await;
        assert_eq!(big, all);
        // Good and bad cycles.
        let (good, n) = ids(&app, &w, "cycle_filter=good_cycles&page_size=100").await;
        assert_eq!((good, n), (expect(&|c| c.good, false), 20));
        let (bad, n) = ids(&app, &w, "cycle_filter=bad_cycles&page_size=100").await;
        assert_eq!((bad, n), (expect(&|c| !c.good, false), 10));
        // A device, a day, a task.
        let (mine, _) = ids(&app, &w, &format!("device={other}&page_size=100")).await;
        assert_eq!(mine, expect(&|c| c.device == other, false));
        let (day, _) = ids(
            &app,
            &w,
            "datetime_start=2026-11-03&datetime_end=2026-11-03&page_size=100",
        )
        .await;
        assert_eq!(
            day,
            expect(
                &|c| (NOV_2 + DAY..NOV_2 + 2 * DAY).contains(&c.start_ms),
                false
            )
        );
        let (task, n) = ids(&app, &w, &format!("task={}&page_size=5", w.task)).await;
        assert_eq!((task.as_slice(), n), (&all[..5], 30));
        // Shortest first.
        let (short, _) = ids(&app, &w, "ordering=duration&page_size=100").await;
        assert_eq!(short, expect(&|_| true, true));
        // A cycle as its device sent it.
        let v: Page<RecentCycle> = app
            .get_as(
                "telemetry/fetch_cycles/v2?cycle_filter=bad_cycles&page_size=1",
                &w.eng,
            )
            .await;
        let c = &v.results[0];
        let r = raw.iter().find(|r| r.id == c.id).unwrap();
        assert_eq!(c.task, w.task);
        assert_eq!(c.device, Some(r.device));
        assert_eq!(c.end_ms - c.start_ms, r.len_ms);
        assert!(!c.good);
        assert_eq!(c.reasons[0], BadReason::TooLong);

        // Bad parameters, named; another organisation's task or device is unknown.
        for (query, field) in [
            (
                "datetime_start=2026-11-04&datetime_end=2026-11-03",
                "datetime_end",
            ),
            ("datetime_start=03/11/2026", "datetime_start"),
            ("cycle_filter=some", "cycle_filter"),
            ("page=0", "page"),
            ("page_size=0", "page_size"),
            ("page_size=100000", "page_size"),
            ("page=9223372036854775807&page_size=100", "page"),
            ("ordering=id", "ordering"),
            (&*format!("task={task_b}"), "task"),
            ("device=999999", "device"),
        ] {
            let (s, v) = app
                .get(&format!("telemetry/fetch_cycles/v2?{query}"), &w.analyst)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {v}");
            assert!(v[field][0].is_string(), "{query}: {v}");
        }
        let (s, _) = app
            .get("telemetry/fetch_cycles/v2?task=x", &w.analyst)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // B sees only its own.
        let v: Page<RecentCycle> = app.get_as("telemetry/fetch_cycles/v2", &w.boss_b).await;
        assert_eq!(v.count, 1);
        assert_eq!(v.results[0].id, "b1");
        // A labeler reads no cycles.
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        let (s, _) = app.get("telemetry/fetch_cycles/v2", &lab).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);

both!(
    the_slowest_five_percent_are_the_raw_cycles_slowest,
    |app: TestApp| async move {
        let w = world(&app).await;
        let bench = added(&app, &w.boss, "Bench 1").await.device.id;
        let other = added(&app, &w.boss, "Bench 2").await.device.id;
        // 45 cycles of lengths that repeat now and then (ties go by id).
        let raw: Vec<Raw> = (0..45)
            .map(|i: i64| Raw {
                id: format!("c{i:02}"),
                task: w.task,
                device: if i % 3 == 0 { other } else { bench },
                start_ms: NOV_2 + i * 60_000,
                len_ms: 20_000 + (i * 7919) % 9_000 / 1000 * 1000,
                good: i % 4 != 0,
            })
            .collect();
        store(&app, w.a, &raw).await;
        // Their roll-ups, as ingestion keeps them: a closed range is read through them.
        gemba_cloud::db::rollups::backfill(&app.state.db)
            .await
            .unwrap();
        let slowest = |keep: &dyn Fn(&Raw) -> bool| {
            let mut v: Vec<&Raw> = raw.iter().filter(|c| keep(c)).collect();
            v.sort_by(|a, b| b.len_ms.cmp(&a.len_ms).then(a.id.cmp(&b.id)));
            let k = v.len().div_ceil(20);
            let ids: Vec<String> = v[..k].iter().map(|c| c.id.clone()).collect();
            (ids, v[k - 1].len_ms, v.len() as i64)
        };
        let top = |query: String| {
            let app = &app;
            let tok = w.analyst.clone();
            async move {
                let v: TopCycles = app
                    .get_as(&format!("telemetry/top_five_percentile?{query}"), &tok)
                    .await;
                let ids: Vec<String> = v.results.iter().map(|c| c.id.clone()).collect();
                (ids, v)
            }
        };
        // All 45: the slowest 3 (5% rounded up), slowest first, with the threshold; the
        // same over the closed range of their day (read through the roll-ups' cycle-time
        // bins). A page at a time, never past the 5%.
        let (want, threshold, n) = slowest(&|_| true);
        for range in ["", "datetime_start=2026-11-02&datetime_end=2026-11-02&"] {
            let (ids, v) = top(range.to_string()).await;
            assert_eq!(ids, want);
            assert_eq!((v.count, v.cycles, v.threshold_ms), (3, n, Some(threshold)));
            let (p2, _) = top(format!("{range}page=2&page_size=2")).await;
            assert_eq!(p2, want[2..]);
            let (p3, _) = top(format!("{range}page=3&page_size=2")).await;
            assert!(p3.is_empty());
        }
        // One device's bad cycles: its own slowest.
        let keep = |c: &Raw| c.device == other && !c.good;
        let (want, threshold, _) = slowest(&keep);
        let (ids, v) = top(format!("device={other}&cycle_filter=bad_cycles")).await;
        assert_eq!((ids, v.threshold_ms), (want, Some(threshold)));
        // A closed range cutting the hour (its raw cycles), one device's good cycles.
        let keep = |c: &Raw| {
            c.device == bench
                && c.good
                && c.start_ms >= NOV_2 + 5 * 60_000
                && c.start_ms < NOV_2 + 40 * 60_000
        };
        let (want, threshold, n) = slowest(&keep);
        let (ids, v) = top(format!(
            "device={bench}&cycle_filter=good_cycles&datetime_start={}&datetime_end={}",
            "2026-11-02T00:05:00Z", "2026-11-02T00:40:00Z"
        ))
        .await;
        assert_eq!((ids, v.threshold_ms, v.cycles), (want, Some(threshold), n));
        // A range without cycles: none, no threshold.
        let (ids, v) = top("datetime_start=2026-10-01&datetime_end=2026-10-02".into()).await;
        assert!(
            ids.is_empty() && v.threshold_ms.is_none() && v.count == 0,
            "{v:?}"
        );

        let (_, task_b) = b_task(&app, &w).await;
        for (query, field) in [
            ("ordering=duration", "ordering"),
            ("page_size=0", "page_size"),
            ("page=0", "page"),
            ("cycle_filter=worst", "cycle_filter"),
            (
                "datetime_start=2026-11-04&datetime_end=2026-11-03",
                "datetime_end",
            ),
            (&*format!("task={task_b}"), "task"),
        ] {
            let (s, v) = app
                .get(
                    &format!("telemetry/top_five_percentile?{query}"),
                    &w.analyst,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {v}");
            assert!(v[field][0].is_string(), "{query}: {v}");
        }
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        let (s, _) = app.get("telemetry/top_five_percentile", &lab).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);

both!(
    cycles_are_found_by_their_metadata_and_the_keys_listed,
    |app: TestApp| async move {
        use gemba_cloud::db::cycles::insert_cycles;
        let w = world(&app).await;
        let bench = added(&app, &w.boss, "Bench 1").await.device.id;
        let with = |i: i64, meta: &[(&str, &str)]| {
            let c = gemba_shared::cycle::Cycle {
                start_ms: NOV_2 + i * 60_000,
                end_ms: NOV_2 + i * 60_000 + 30_000,
                segments: vec![],
                idle_ms: 0,
                good: true,
                reasons: vec![],
            };
            let mut r = crate::analytics::as_sent(w.a, bench, w.task, &c);
            r.cycle.metadata = meta
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            r
        };
        let sent = vec![
            with(0, &[("barcode", "A1")]),
            with(1, &[("barcode", "A12")]),
            with(2, &[("barcode", "A1"), ("lot", "7")]),
            // Neither is a barcode: the text is inside a value, or the key has a quote.
            with(3, &[("note", r#"said "barcode":"A1""#)]),
            with(4, &[(r#"x"barcode"#, "A1")]),
            with(5, &[]),
        ];
        insert_cycles(&app.state.db, &sent).await.unwrap();
        let (_, task_b) = b_task(&app, &w).await;
        let mut theirs = with(6, &[("secret", "1")]);
        theirs.org = w.b;
        theirs.cycle.task = task_b;
        insert_cycles(&app.state.db, &[theirs]).await.unwrap();
        let id = |k: usize| sent[k].cycle.id.clone();

        let keys: Vec<String> = app
            .get_as("telemetry/unique_metadata_keys/", &w.analyst)
            .await;
        assert_eq!(keys, ["barcode", "lot", "note", r#"x"barcode"#]);
        let keys: Vec<String> = app
            .get_as(
                &format!("telemetry/unique_metadata_keys/?task={}", w.task),
                &w.analyst,
            )
            .await;
        assert_eq!(keys.len(), 4);

        let found = |query: &str| {
            let query = query.to_string();
            let app = &app;
            let w = &w;
            async move {
                let (mut got, n) = ids(app, w, &format!("{query}&page_size=100")).await;
                got.sort();
                assert_eq!(got.len() as i64, n);
                got
            }
        };
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert_eq!(
            found("metadata_key=barcode").await,
            sorted(vec![id(0), id(1), id(2)])
        );
        assert_eq!(
            found("metadata_key=barcode&metadata_value=A1").await,
            sorted(vec![id(0), id(2)])
        );
        assert_eq!(found("metadata_key=lot").await, vec![id(2)]);
        assert_eq!(found("metadata_key=x%22barcode").await, vec![id(4)]);
        assert!(found("metadata_key=secret").await.is_empty());

        // The same through the first version's POST (its parameters are the cloud's
        // own query type, not a shared one: the body stays JSON).
        let v: Page<RecentCycle> = app
            .send_as(
                Method::POST,
                "telemetry/fetch_cycles/",
                &json!({"metadata_key": "barcode", "page_size": 2}),
                &w.analyst,
            )
            .await;
        assert_eq!((v.count, v.results.len()), (3, 2));

        for (query, field) in [
            ("metadata_value=A1", "metadata_key"),
            (
                &*format!("metadata_key={}", "k".repeat(101)),
                "metadata_key",
            ),
            (
                &*format!("metadata_key=k&metadata_value={}", "v".repeat(1001)),
                "metadata_value",
            ),
        ] {
            let (s, v) = app
                .get(&format!("telemetry/fetch_cycles/v2?{query}"), &w.analyst)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {v}");
            assert!(v[field][0].is_string(), "{v}");
        }
        for (body, field) in [
            (json!({"page_size": 0}), Some("page_size")),
            (json!({"task": task_b}), Some("task")),
            (json!({"task": "x"}), None),
            (json!([]), None),
        ] {
            let (s, v) = app
                .post("telemetry/fetch_cycles/", body.clone(), Some(&w.analyst))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            if let Some(f) = field {
                assert!(v[f][0].is_string(), "{v}");
            }
        }
        let (s, v) = app
            .get(
                &format!("telemetry/unique_metadata_keys/?task={task_b}"),
                &w.analyst,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        for (s, _) in [
            app.get("telemetry/unique_metadata_keys/", &lab).await,
            app.post("telemetry/fetch_cycles/", json!({}), Some(&lab))
                .await,
        ] {
            assert_eq!(s, StatusCode::FORBIDDEN);
        }
    }
);
