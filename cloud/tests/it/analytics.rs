//! Cycle analytics (issue 7): `GET telemetry/cycle_stats` on both backends, over cycles
//! the cycle engine made from the demo footage's ground truth, spread over 40 days and
//! two stations and stored as ingestion stores them. Every figure (all cycles, each
//! station, each step, the distribution, every trend bucket) equals the same figure
//! computed here from the raw cycles, for ranges of whole days, of hours and minutes, in
//! other time zones, filtered; after a device is deleted; and after the roll-ups are
//! built again from the cycles. Bad parameters are refused and named.

use gemba_cloud::db::cycles::{Received, insert_cycles};
use gemba_shared::api::v1::task::{Task, TaskCreate, TaskPatch};
use gemba_shared::api::v1::telemetry::{CycleFigures, CycleStats};
use gemba_shared::cycle::{Cycle, EngineConfig};
use gemba_shared::footage::Truth;
use gemba_shared::mqtt::v1::CycleMessage;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::devices::{World, added, world};
use crate::learning_loop::models_dir;
use crate::videos::b_task;

pub(crate) const DAY: i64 = 86_400_000;
const HOUR: i64 = 3_600_000;
/// 2026-10-13T00:00:00Z.
pub(crate) const OCT_13: i64 = 1_791_849_600_000;

/// `c` moved by `by` ms.
fn moved(c: &Cycle, by: i64) -> Cycle {
    let mut c = c.clone();
    c.start_ms += by;
    c.end_ms += by;
    for s in &mut c.segments {
        s.start_ms += by;
        s.end_ms += by;
    }
    c
}

/// Cycle `c` of `task` as device `device` of `org` sent it (a new id).
pub(crate) fn as_sent(org: i64, device: i64, task: i64, c: &Cycle) -> Received {
    Received {
        org,
        device,
        cycle: CycleMessage::new(
            uuid::Uuid::new_v4().to_string(),
            task,
            "cam0".into(),
            c.clone(),
        ),
    }
}

/// A stored cycle as the test knows it.
pub(crate) struct Raw {
    pub(crate) device: i64,
    pub(crate) c: Cycle,
}

impl Raw {
    fn ms(&self) -> i64 {
        self.c.end_ms - self.c.start_ms
    }
}

/// [`check_cycle_figures`] of figures given as JSON.
pub(crate) fn check_figures(what: &str, got: &Value, raw: &[&Raw]) {
    let figures: CycleFigures = serde_json::from_value(got.clone())
        .unwrap_or_else(|e| panic!("{what}: no cycle figures: {e}: {got}"));
    check_cycle_figures(what, &figures, raw);
}

/// Figures computed here from raw cycles, to compare with an answer's.
pub(crate) fn check_cycle_figures(what: &str, got: &CycleFigures, raw: &[&Raw]) {
    let n = raw.len() as i64;
    assert_eq!(got.cycles, n, "{what}: {got:?}");
    let good = raw.iter().filter(|r| r.c.good).count() as i64;
    assert_eq!(got.good, good, "{what}: {got:?}");
    assert_eq!(got.bad, n - good, "{what}: {got:?}");
    let idle: i64 = raw.iter().map(|r| r.c.idle_ms).sum();
    assert_eq!(got.idle_ms, idle, "{what}: {got:?}");
    if n == 0 {
        assert!(
            got.avg_ms.is_none() && got.min_ms.is_none(),
            "{what}: {got:?}"
        );
        return;
    }
    let ms: Vec<f64> = raw.iter().map(|r| r.ms() as f64).collect();
    let mean = ms.iter().sum::<f64>() / n as f64;
    let sd = (ms.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
    close(what, got.avg_ms.unwrap(), mean);
    close(what, got.stddev_ms.unwrap(), sd);
    assert_eq!(got.min_ms, raw.iter().map(|r| r.ms()).min(), "{what}");
    assert_eq!(got.max_ms, raw.iter().map(|r| r.ms()).max(), "{what}");
}

fn close(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-6 * want.abs().max(1.0),
        "{what}: {got} ≠ {want}"
    );
}

/// Checks every figure of `query`'s answer against the raw cycles `keep` selects of
/// those started in the answer's range.
pub(crate) async fn check(
    app: &TestApp,
    w: &World,
    raw: &[Raw],
    query: &str,
    keep: &dyn Fn(&Raw) -> bool,
) -> CycleStats {
    let v: CycleStats = app
        .get_as(&format!("telemetry/cycle_stats?{query}"), &w.analyst)
        .await;
    let (start, end) = (v.start_ms, v.end_ms);
    let mine: Vec<&Raw> = raw
        .iter()
        .filter(|r| (start..end).contains(&r.c.start_ms) && keep(r))
        .collect();
    assert!(
        !mine.is_empty(),
        "{query}: a range without cycles checks little"
    );
    check_cycle_figures(&format!("{query}: total"), &v.total, &mine);

    // Each station, each step.
    let stations = &v.stations;
    let mut devices: Vec<i64> = mine.iter().map(|r| r.device).collect();
    devices.sort();
    devices.dedup();
    assert_eq!(stations.len(), devices.len(), "{query}: {v:?}");
    for st in stations {
        let d = st.device.unwrap_or(0);
        let of: Vec<&Raw> = mine.iter().copied().filter(|r| r.device == d).collect();
        check_cycle_figures(&format!("{query}: station {d}"), &st.figures, &of);
    }
    let steps = &v.steps;
    let mut expected_steps = 0;
    for step in 0..16u32 {
        let times: Vec<f64> = mine
            .iter()
            .filter_map(|r| {
                let t: i64 =
                    r.c.segments
                        .iter()
                        .filter(|s| s.step == step)
                        .map(|s| s.end_ms - s.start_ms)
                        .sum();
                r.c.segments
                    .iter()
                    .any(|s| s.step == step)
                    .then_some(t as f64)
            })
            .collect();
        if times.is_empty() {
            continue;
        }
        expected_steps += 1;
        let got = steps
            .iter()
            .find(|s| s.step == step)
            .unwrap_or_else(|| panic!("{query}: step {step} missing: {v:?}"));
        assert_eq!(got.cycles, times.len() as i64, "{query}");
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        close(query, got.avg_ms, mean);
        let sd =
            (times.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / times.len() as f64).sqrt();
        close(query, got.stddev_ms, sd);
        assert!(got.name.is_some(), "{query}: {got:?}");
    }
    assert_eq!(steps.len(), expected_steps, "{query}");

    // The distribution: each bin holds the cycles between its bounds; all are in one.
    let mut binned = 0;
    for b in &v.distribution {
        let (from, to) = (b.from_ms, b.to_ms.unwrap_or(i64::MAX));
        let n = mine.iter().filter(|r| (from..to).contains(&r.ms())).count() as i64;
        assert_eq!(b.cycles, n, "{query}: bin {b:?}");
        assert!(n > 0, "{query}: an empty bin is left out");
        binned += n;
    }
    assert_eq!(binned, mine.len() as i64, "{query}");

    // The trend: each bucket holds the cycles started in it.
    let trend = &v.trend;
    assert!(trend[0].start_ms <= start, "{query}");
    let mut in_trend = 0;
    for (i, p) in trend.iter().enumerate() {
        let from = p.start_ms;
        let to = trend.get(i + 1).map_or(end, |q| q.start_ms);
        assert!(from < to && from < end, "{query}: buckets in order");
        let of: Vec<&Raw> = mine
            .iter()
            .copied()
            .filter(|r| (from..to).contains(&r.c.start_ms))
            .collect();
        in_trend += of.len();
        check_cycle_figures(&format!("{query}: bucket {from}"), &p.figures, &of);
    }
    assert_eq!(in_trend, mine.len(), "{query}");
    v
}

/// The demo footage's operation as a task of A, two devices of A, and `days` days on
/// which each station works the footage once at an hour and minute that vary (so that
/// ranges cut through days, hours and cycles), stored as ingestion stores them.
pub(crate) struct Demo {
    pub(crate) truth: Truth,
    pub(crate) task: i64,
    pub(crate) bench: i64,
    pub(crate) other: i64,
    /// Cycles a station works a day.
    pub(crate) per_station: usize,
    pub(crate) raw: Vec<Raw>,
    pub(crate) received: Vec<Received>,
}

pub(crate) async fn demo_cycles(app: &TestApp, w: &World, days: i64) -> Demo {
    let truth: Truth =
        serde_json::from_slice(&std::fs::read(models_dir().join("demo.truth.json")).unwrap())
            .unwrap();
    // The footage's operation, a sub-step to each step as the portal asks.
    let detail: String = std::iter::once(format!("{}\n", truth.task_settings().task_name))
        .chain(truth.steps.iter().map(|s| format!("{s}:\nDo {s};\n")))
        .collect();
    let body = TaskCreate {
        task_detail: Some(detail),
        ..TaskCreate::default()
    };
    let task = app
        .create_as::<_, Task>("organization/task/", &body, &w.eng)
        .await
        .id;
    let template = truth.engine_cycles(&EngineConfig::from_task(&truth.task_settings()));
    assert!(
        template.len() >= 4 && template.iter().any(|c| !c.good),
        "the demo footage has good and bad cycles: {template:?}"
    );
    let bench = added(app, &w.boss, "Bench 1").await.device.id;
    let other = added(app, &w.boss, "Bench 2").await.device.id;
    let mut raw = Vec::new();
    for day in 0..days {
        for (s, device) in [bench, other].into_iter().enumerate() {
            let at = OCT_13
                + day * DAY
                + ((day * 7 + s as i64 * 11) % 24) * HOUR
                + ((day * 13 + s as i64 * 29) % 60) * 60_000;
            for c in &template {
                raw.push(Raw {
                    device,
                    c: moved(c, at),
                });
            }
        }
    }
    let received: Vec<Received> = raw
        .iter()
        .map(|r| as_sent(w.a, r.device, task, &r.c))
        .collect();
    // In batches as ingestion makes them.
    for batch in received.chunks(37) {
        insert_cycles(&app.state.db, batch).await.unwrap();
    }
    Demo {
        truth,
        task,
        bench,
        other,
        per_station: template.len(),
        raw,
        received,
    }
}

both!(
    cycle_figures_equal_the_raw_cycles_figures,
    |app: TestApp| async move {
        let w = world(&app).await;
        let Demo {
            truth,
            task,
            bench,
            other,
            per_station,
            mut raw,
            received,
        } = demo_cycles(&app, &w, 40).await;
        // One sent again changes nothing.
        let db = &app.state.db;
        insert_cycles(db, &received[100..140]).await.unwrap();
        // Organisation B's cycles at the same times: never counted for A.
        let (_, task_b) = b_task(&app, &w).await;
        let b: Vec<Received> = raw[..50]
            .iter()
            .map(|r| as_sent(w.b, bench, task_b, &r.c))
            .collect();
        insert_cycles(db, &b).await.unwrap();

        // A target cycle time of 14.5 s.
        let target = TaskPatch {
            steps_avg_time: Some(
                [("cycle_time".to_string(), json!(14.5))]
                    .into_iter()
                    .collect(),
            ),
            ..TaskPatch::default()
        };
        let _: Task = app
            .send_as(
                Method::PATCH,
                &format!("organization/task/{task}/"),
                &target,
                &w.eng,
            )
            .await;
        let all = |_: &Raw| true;
        let whole = check(
            &app,
            &w,
            &raw,
            "datetime_start=2026-10-13&datetime_end=2026-11-21",
            &all,
        )
        .await;
        assert_eq!(whole.total.cycles, raw.len() as i64);
        assert_eq!(whole.trend.len(), 40);
        // Days, hours and minutes at both ends; hourly trend.
        // Each end cuts a station's run of cycles, inside an hour.
        let per_day = 2 * per_station;
        let a = raw[7 * per_day + 3].c.start_ms - 1;
        let b = raw[23 * per_day + per_station + 5].c.start_ms + 1;
        let odd = format!("datetime_start={}&datetime_end={}", rfc3339(a), rfc3339(b));
        let hourly = check(&app, &w, &raw, &format!("{odd}&bucket=hour"), &all).await;
        assert_eq!(hourly.trend.len() as i64, (b - 1) / HOUR - a / HOUR + 1);
        check(
            &app,
            &w,
            &raw,
            &format!("{odd}&task={task}&cycle_filter=good_cycles"),
            &|r| r.c.good,
        )
        .await;
        check(
            &app,
            &w,
            &raw,
            &format!("{odd}&device={other}&cycle_filter=bad_cycles"),
            &|r| r.device == other && !r.c.good,
        )
        .await;
        // Weeks and months; time zones a whole hour and half an hour from UTC.
        check(
            &app,
            &w,
            &raw,
            &format!("{odd}&bucket=week&utc_offset_minutes=60"),
            &all,
        )
        .await;
        check(
            &app,
            &w,
            &raw,
            "datetime_start=2026-10-13&datetime_end=2026-11-21&bucket=month",
            &all,
        )
        .await;
        let india = check(
            &app,
            &w,
            &raw,
            "datetime_start=2026-10-20T18:30:00Z&datetime_end=2026-10-25T18:30:00Z&\
             utc_offset_minutes=330",
            &all,
        )
        .await;
        // Local midnights: 18:30 UTC.
        assert_eq!(india.trend.len(), 5);
        assert_eq!(
            india.trend[0].start_ms.rem_euclid(DAY),
            18 * HOUR + HOUR / 2
        );
        // Inside one hour: the raw cycles alone.
        let first = raw[0].c.start_ms;
        check(
            &app,
            &w,
            &raw,
            &format!(
                "datetime_start={}&datetime_end={}&bucket=hour",
                rfc3339(first),
                rfc3339(first + 10 * 60_000)
            ),
            &all,
        )
        .await;
        // Each station names its operation, target and device.
        for (st, name) in whole.stations.iter().zip(["Bench 1", "Bench 2"]) {
            assert_eq!(
                st.task_name,
                Some(truth.task_settings().task_name),
                "{st:?}"
            );
            assert_eq!(st.target_ms, Some(14_500.0), "{st:?}");
            assert_eq!(st.device_name.as_deref(), Some(name), "{st:?}");
        }
        // A step is named as in its task.
        assert_eq!(whole.steps[0].name.as_ref(), Some(&truth.steps[0]));

        // The device deleted: its cycles stay, under no device.
        let (s, v) = app.delete(&format!("device/{other}/"), &w.boss).await;
        assert!(s.is_success(), "{v}");
        for r in raw.iter_mut().filter(|r| r.device == other) {
            r.device = 0;
        }
        let after = check(
            &app,
            &w,
            &raw,
            "datetime_start=2026-10-13&datetime_end=2026-11-21",
            &all,
        )
        .await;
        assert!(after.stations.iter().any(|s| s.device.is_none()));
        same(&after.total, &whole.total);
        // The other too: its rows merge with those already under no device.
        let (s, v) = app.delete(&format!("device/{bench}/"), &w.boss).await;
        assert!(s.is_success(), "{v}");
        for r in raw.iter_mut() {
            r.device = 0;
        }
        let none = check(&app, &w, &raw, &odd, &all).await;
        assert_eq!(none.stations.len(), 1);

        // Built again from the cycles (as at the first start after the migration): the
        // same answers.
        for t in ["cycle_rollups", "cycle_step_rollups", "cycle_time_bins"] {
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {t}")))
                .execute(&db.pool)
                .await
                .unwrap();
        }
        gemba_cloud::db::rollups::backfill(db).await.unwrap();
        let again = check(&app, &w, &raw, &format!("{odd}&bucket=hour"), &all).await;
        same(&again.total, &hourly.total);
        assert_eq!(again.distribution, hourly.distribution);

        // B sees only its own.
        let v: CycleStats = app
            .get_as(
                "telemetry/cycle_stats?datetime_start=2026-10-13&datetime_end=2026-11-21",
                &w.boss_b,
            )
            .await;
        assert_eq!(v.total.cycles, 50);
        // B deleted: its roll-ups go with its cycles.
        let (s, v) = app
            .delete(&format!("organization/{}/", w.b), &w.admin)
            .await;
        assert!(s.is_success(), "{v}");
        for t in [
            "cycles",
            "cycle_rollups",
            "cycle_step_rollups",
            "cycle_time_bins",
        ] {
            let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM {t} WHERE organization_id = $1"
            )))
            .bind(w.b)
            .fetch_one(&db.pool)
            .await
            .unwrap();
            assert_eq!(n, 0, "{t}");
        }
    }
);

/// The same figures, but for the last bits of a standard deviation summed in another
/// order.
pub(crate) fn same(a: &CycleFigures, b: &CycleFigures) {
    let counts = |f: &CycleFigures| (f.cycles, f.good, f.bad, f.idle_ms);
    let times = |f: &CycleFigures| (f.avg_ms, f.min_ms, f.max_ms);
    assert_eq!(counts(a), counts(b), "{a:?} ≠ {b:?}");
    assert_eq!(times(a), times(b), "{a:?} ≠ {b:?}");
    close("stddev", a.stddev_ms.unwrap(), b.stddev_ms.unwrap());
}

pub(crate) fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

both!(
    bad_analytics_parameters_are_named,
    |app: TestApp| async move {
        let w = world(&app).await;
        let (_, task_b) = b_task(&app, &w).await;
        let range = "datetime_start=2026-11-01&datetime_end=2026-11-30";
        for (query, field) in [
            ("", "datetime_start"),
            ("datetime_start=2026-11-01", "datetime_end"),
            ("datetime_end=2026-11-01", "datetime_start"),
            (
                "datetime_start=2026-11-04&datetime_end=2026-11-03",
                "datetime_end",
            ),
            (
                "datetime_start=2026-11-04T10:00:00Z&datetime_end=2026-11-04T10:00:00Z",
                "datetime_end",
            ),
            (
                "datetime_start=04/11/2026&datetime_end=2026-11-05",
                "datetime_start",
            ),
            (&*format!("{range}&cycle_filter=best"), "cycle_filter"),
            (&*format!("{range}&bucket=year"), "bucket"),
            (
                "datetime_start=2025-01-01&datetime_end=2026-01-01&bucket=hour",
                "bucket",
            ),
            (
                "datetime_start=1900-01-01&datetime_end=2026-01-01",
                "bucket",
            ),
            (
                &*format!("{range}&utc_offset_minutes=900"),
                "utc_offset_minutes",
            ),
            (
                &*format!("{range}&utc_offset_minutes=-721"),
                "utc_offset_minutes",
            ),
            (&*format!("{range}&task={task_b}"), "task"),
            (&*format!("{range}&device=999999"), "device"),
        ] {
            let (s, v) = app
                .get(&format!("telemetry/cycle_stats?{query}"), &w.analyst)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {v}");
            assert!(v[field][0].is_string(), "{query}: {v}");
        }
        for query in ["task=x", "utc_offset_minutes=1.5"] {
            let (s, _) = app
                .get(
                    &format!("telemetry/cycle_stats?{range}&{query}"),
                    &w.analyst,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{query}");
        }
        // An empty range answers zeros, every day of it in the trend.
        let v: CycleStats = app
            .get_as(&format!("telemetry/cycle_stats?{range}"), &w.analyst)
            .await;
        assert_eq!(v.total.cycles, 0);
        assert!(v.total.avg_ms.is_none());
        assert_eq!(v.trend.len(), 30);
        // A labeler reads no figures.
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        let (s, _) = app
            .get(&format!("telemetry/cycle_stats?{range}"), &lab)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);
