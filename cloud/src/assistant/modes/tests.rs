//! The modes' facts from hand-made analytics answers.

use gemba_shared::api::v1::device::{CameraEvent, CameraEventKind, DeviceEvent, DeviceStatus};
use gemba_shared::api::v1::line::{LineStation, LineStationFigures, LineStats};
use gemba_shared::api::v1::telemetry::{
    CycleFigures, CycleStats, Issue, IssueCenter, StationFigures, StepFigures,
};

use super::*;
use crate::assistant::facts::Facts;

const DAY: i64 = 86_400_000;
/// 2026-10-13T00:00Z.
const OCT_13: i64 = 1_791_849_600_000;

fn period() -> Period {
    Period {
        start_ms: OCT_13,
        end_ms: OCT_13 + 5 * DAY,
    }
}

fn figures(cycles: i64, bad: i64, avg_ms: f64, sd_ms: f64) -> CycleFigures {
    CycleFigures {
        cycles,
        good: cycles - bad,
        bad,
        avg_ms: Some(avg_ms),
        stddev_ms: Some(sd_ms),
        min_ms: Some(1000),
        max_ms: Some(30_000),
        idle_ms: 0,
    }
}

fn stats(stations: Vec<StationFigures>, steps: Vec<StepFigures>) -> CycleStats {
    let mut total = CycleFigures::default();
    for s in &stations {
        total.cycles += s.figures.cycles;
        total.bad += s.figures.bad;
        total.good += s.figures.good;
    }
    CycleStats {
        start_ms: period().start_ms,
        end_ms: period().end_ms,
        bucket: "month".into(),
        total,
        stations,
        steps,
        distribution: vec![],
        trend: vec![],
    }
}

fn station(task: i64, device: i64, target_ms: Option<f64>, f: CycleFigures) -> StationFigures {
    StationFigures {
        task,
        task_name: Some("Pump".into()),
        target_ms,
        device: Some(device),
        device_name: Some(format!("Bench {device}")),
        figures: f,
    }
}

fn step(step: u32, avg_ms: f64) -> StepFigures {
    StepFigures {
        task: 1,
        step,
        name: Some(format!("S{step}")),
        cycles: 10,
        avg_ms,
        stddev_ms: 100.0,
    }
}

fn issue(reason: &str, step: Option<u32>, cycles: i64) -> Issue {
    Issue {
        task: 1,
        task_name: Some("Pump".into()),
        key: reason.into(),
        reason: reason.into(),
        step,
        step_name: step.map(|s| format!("S{s}")),
        cycles,
        open: cycles,
        trend: vec![],
    }
}

fn issues(list: Vec<Issue>) -> IssueCenter {
    IssueCenter {
        start_ms: period().start_ms,
        end_ms: period().end_ms,
        bucket: "month".into(),
        buckets: vec![],
        bad: list.iter().map(|i| i.cycles).sum(),
        open: 0,
        issues: list,
    }
}

fn value(f: &Facts, label: &str) -> f64 {
    f.figures
        .iter()
        .find(|x| x.label == label)
        .unwrap_or_else(|| panic!("{label} in {:?}", f.figures))
        .value
}

fn methods(f: &Facts) -> Vec<&'static str> {
    f.findings.iter().filter_map(|x| x.method).collect()
}

#[test]
fn station_performance_states_counts_targets_variation_steps_and_reasons() {
    let s = stats(
        vec![
            // 16 s against 14 s, steady.
            station(1, 7, Some(14_000.0), figures(40, 10, 16_000.0, 800.0)),
            // 12 s, no target, unsteady (cv 25%).
            station(1, 8, None, figures(10, 0, 12_000.0, 3_000.0)),
        ],
        vec![step(0, 3_000.0), step(1, 9_000.0)],
    );
    let i = issues(vec![
        issue("missed_step", Some(1), 6),
        issue("too_long", None, 4),
    ]);
    let f = station_performance(period(), Scope::default(), &s, &i);
    assert_eq!(value(&f, "Cycles"), 50.0);
    assert_eq!(value(&f, "Bad cycles"), 10.0);
    assert_eq!(value(&f, "Bad share"), 20.0);
    assert_eq!(value(&f, "Average cycle time, Pump on Bench 7"), 16.0);
    assert_eq!(value(&f, "Target cycle time, Pump on Bench 7"), 14.0);
    assert_eq!(value(&f, "Over target, Pump on Bench 7"), 14.3);
    assert_eq!(
        value(&f, "Variation (stddev / average), Pump on Bench 8"),
        25.0
    );
    assert_eq!(value(&f, "Average time, step S1"), 9.0);
    assert_eq!(value(&f, "Bad cycles: a missed step (S1), Pump"), 6.0);
    // Bench 7 is steady (5%): no variation figure.
    assert!(!f.figures.iter().any(|x| {
        x.label
            .contains("Variation (stddev / average), Pump on Bench 7")
    }));
    let m = methods(&f);
    for want in [
        method::STANDARD_WORK,
        method::MOTION_STUDY,
        method::POKA_YOKE,
        method::FIVE_WHYS,
    ] {
        assert!(m.contains(&want), "{want}: {m:?}");
    }
    // Each figure links to its cycles: the station's on the analytics screen, the
    // reasons' on the issue center, over the period's days.
    let avg = f
        .figures
        .iter()
        .find(|x| x.label == "Average cycle time, Pump on Bench 7")
        .unwrap();
    assert_eq!(
        avg.link,
        "/user/analytics?from=2026-10-13&to=2026-10-17&task=1&device=7"
    );
    let bad = f.figures.iter().find(|x| x.label == "Bad cycles").unwrap();
    assert!(bad.link.ends_with("filter=bad_cycles"), "{}", bad.link);
    let reason = f
        .figures
        .iter()
        .find(|x| x.label.starts_with("Bad cycles: a missed"))
        .unwrap();
    assert_eq!(
        reason.link,
        "/user/issue-center?from=2026-10-13&to=2026-10-17&task=1"
    );
    // Every cited id is a figure, every sentence cites by id.
    for x in &f.findings {
        for id in &x.figures {
            assert!(f.figures.iter().any(|g| &g.id == id), "{id}");
            assert!(
                x.kind == super::super::facts::Kind::Advice || x.text.contains(&format!("[{id}]")),
                "{x:?}"
            );
        }
    }
    assert!(!f.questions.is_empty());
}

#[test]
fn no_cycles_is_said_plainly() {
    let f = station_performance(
        period(),
        Scope::default(),
        &stats(vec![], vec![]),
        &issues(vec![]),
    );
    assert!(f.figures.is_empty());
    assert_eq!(f.findings[0].kind, super::super::facts::Kind::Note);
}

#[test]
fn a_comparison_states_both_periods_and_the_change() {
    let now = stats(
        vec![station(1, 7, None, figures(20, 5, 15_000.0, 100.0))],
        vec![],
    );
    let before = stats(
        vec![station(1, 7, None, figures(10, 1, 12_000.0, 100.0))],
        vec![],
    );
    let f = station_comparison((period(), &now), (period(), &before), Scope::default());
    assert_eq!(value(&f, "Cycles, period 1"), 20.0);
    assert_eq!(value(&f, "Cycles, period 2"), 10.0);
    assert_eq!(value(&f, "Bad share, period 1"), 25.0);
    assert_eq!(value(&f, "Bad share, period 2"), 10.0);
    assert_eq!(value(&f, "Change of the average, Pump on Bench 7"), 25.0);
    assert!(
        f.findings.iter().any(|x| x.text.contains("slower")),
        "{:?}",
        f.findings
    );
    assert!(methods(&f).contains(&method::PDCA));
}

fn line_station(position: usize, device: i64, f: CycleFigures) -> LineStationFigures {
    LineStationFigures {
        position,
        station: LineStation {
            task: 1,
            task_name: Some("Pump".into()),
            device,
            device_name: Some(format!("Bench {device}")),
        },
        figures: f,
    }
}

#[test]
fn line_performance_names_the_bottleneck_the_balance_and_stations_over_takt() {
    let s = LineStats {
        line: 3,
        start_ms: period().start_ms,
        end_ms: period().end_ms,
        takt_time_s: Some(14.0),
        stations: vec![
            line_station(0, 7, figures(10, 0, 10_000.0, 0.0)),
            line_station(1, 8, figures(10, 2, 20_000.0, 0.0)),
        ],
        bottleneck: Some(1),
        output: 8,
        capacity_per_hour: Some(180.0),
        balance: Some(0.75),
    };
    let f = line_performance(period(), "Pump line", &s);
    assert_eq!(value(&f, "Takt time, Pump line"), 14.0);
    assert_eq!(
        value(&f, "Bottleneck's average cycle time (station 2, Bench 8)"),
        20.0
    );
    assert_eq!(value(&f, "Line balance, Pump line"), 75.0);
    assert_eq!(value(&f, "Capacity at the bottleneck's pace"), 180.0);
    assert_eq!(value(&f, "Parts finished, Pump line"), 8.0);
    assert!(
        f.findings
            .iter()
            .any(|x| x.text.contains("cannot keep pace")),
        "{:?}",
        f.findings
    );
    assert!(methods(&f).contains(&method::LINE_BALANCING));
    let takt = f
        .figures
        .iter()
        .find(|x| x.label == "Takt time, Pump line")
        .unwrap();
    assert_eq!(
        takt.link,
        "/user/line-analytics?line=3&from=2026-10-13&to=2026-10-17"
    );
}

#[test]
fn ergonomics_says_what_is_not_measured_and_finds_long_holds_and_rework() {
    let s = stats(
        vec![station(1, 7, None, figures(10, 2, 15_000.0, 0.0))],
        vec![step(0, 2_000.0), step(1, 2_500.0), step(2, 8_000.0)],
    );
    let i = issues(vec![issue("wrong_order", None, 3)]);
    let f = ergonomics(period(), Scope::default(), &s, &i);
    assert!(
        f.findings[0].text.starts_with("Not measured: posture"),
        "{:?}",
        f.findings[0]
    );
    assert_eq!(value(&f, "Average time, step S2"), 8.0);
    assert_eq!(value(&f, "Median step time of the operation"), 2.5);
    assert_eq!(
        value(&f, "Cycles with repeated or out-of-order steps, Pump"),
        3.0
    );
    assert!(!f.figures.iter().any(|x| x.label == "Average time, step S0"));
}

#[test]
fn iot_counts_devices_online_and_events_by_kind() {
    let d = |id: i64, online: bool| DeviceStatus {
        id,
        display_name: format!("Bench {id}"),
        online,
        last_seen: None,
    };
    let e = |kind: CameraEventKind, open: bool| DeviceEvent {
        device: 7,
        device_name: "Bench 7".into(),
        event: CameraEvent {
            id: 1,
            camera: "cam0".into(),
            kind,
            started_at: OCT_13,
            ended_at: (!open).then_some(OCT_13 + 1000),
            unsure_share: None,
            brightness: None,
            sure_share: None,
            sure_brightness: None,
            detail: None,
        },
    };
    let f = iot(
        period(),
        &[d(7, true), d(8, false)],
        &[
            e(CameraEventKind::Offline, true),
            e(CameraEventKind::Offline, false),
            e(CameraEventKind::Frozen, false),
        ],
    );
    assert_eq!(value(&f, "Devices"), 2.0);
    assert_eq!(value(&f, "Devices online"), 1.0);
    assert_eq!(value(&f, "Health events: offline"), 2.0);
    assert_eq!(value(&f, "Health events: frozen"), 1.0);
    assert!(
        f.findings
            .iter()
            .any(|x| x.text.starts_with("Bench 8 is offline"))
    );
    assert!(
        f.findings.iter().any(|x| x.text.contains("1 still open")),
        "{:?}",
        f.findings
    );
    assert!(methods(&f).contains(&method::TPM));
}
