//! Each mode's facts from the analytics calls' answers (`telemetry/cycle_stats`,
//! `telemetry/issues`, `telemetry/line_stats`, `device/device_status/`,
//! `telemetry/device_events`): plain functions, no I/O. Each figure links to the screen
//! listing its cycles with the same filter.

use std::collections::BTreeMap;

use gemba_shared::api::v1::device::{DeviceEvent, DeviceStatus};
use gemba_shared::api::v1::line::LineStats;
use gemba_shared::api::v1::telemetry::{CycleStats, IssueCenter, StationFigures};

use super::facts::{Facts, Period, link, method, text};

/// A station's coefficient of variation above which its cycle times are called unsteady.
pub const UNSTEADY_CV: f64 = 0.15;
/// A line balance (average station time over the bottleneck's) under which the line is
/// called unbalanced.
pub const BALANCED: f64 = 0.85;
/// A step this many times the operation's median step is called a long hold.
pub const LONG_STEP: f64 = 1.5;

/// The filter the answer was asked with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope {
    pub task: Option<i64>,
    pub device: Option<i64>,
}

fn id(v: Option<i64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// `/user/analytics` over `p` for a station, with a cycle filter.
fn analytics(p: Period, task: Option<i64>, device: Option<i64>, filter: &str) -> String {
    let (from, to) = p.days();
    link(
        "/user/analytics",
        &[
            ("from", from),
            ("to", to),
            ("task", id(task)),
            ("device", id(device)),
            ("filter", filter.to_string()),
        ],
    )
}

fn issue_center(p: Period, task: Option<i64>) -> String {
    let (from, to) = p.days();
    link(
        "/user/issue-center",
        &[("from", from), ("to", to), ("task", id(task))],
    )
}

fn station_name(s: &StationFigures) -> String {
    let op = s
        .task_name
        .clone()
        .unwrap_or_else(|| format!("operation {}", s.task));
    match (&s.device_name, s.device) {
        (Some(d), _) => format!("{op} on {d}"),
        (None, Some(d)) => format!("{op} on device {d}"),
        (None, None) => format!("{op} (device removed)"),
    }
}

/// The method a bad-cycle reason points to.
fn method_of_reason(reason: &str) -> &'static str {
    match reason {
        "missed_step" => method::POKA_YOKE,
        "wrong_order" | "negative_step" => method::STANDARD_WORK,
        _ => method::FIVE_WHYS,
    }
}

fn reason_words(reason: &str) -> &'static str {
    match reason {
        "missed_step" => "a missed step",
        "negative_step" => "a step that should not be done",
        "wrong_order" => "steps out of order",
        "too_long" => "over the maximum cycle time",
        _ => "marked bad by a person",
    }
}

/// Station Performance over one period: cycle count, good and bad, each station's
/// average against its target, its variation, the slowest and least steady steps and the
/// bad cycles' reasons.
pub fn station_performance(p: Period, scope: Scope, s: &CycleStats, issues: &IssueCenter) -> Facts {
    let mut f = Facts::default();
    let t = &s.total;
    if t.cycles == 0 {
        f.note("No cycles in this period for this choice: nothing to say about performance.");
        f.ask("Which period has cycles for this station?");
        return f;
    }
    let n = f.figure(
        "Cycles",
        t.cycles as f64,
        "cycles",
        analytics(p, scope.task, scope.device, ""),
    );
    let bad = f.figure(
        "Bad cycles",
        t.bad as f64,
        "cycles",
        analytics(p, scope.task, scope.device, "bad_cycles"),
    );
    let share = 100.0 * t.bad as f64 / t.cycles as f64;
    let share_id = f.figure(
        "Bad share",
        share,
        "%",
        analytics(p, scope.task, scope.device, "bad_cycles"),
    );
    f.fact(
        format!(
            "{} were recorded; {} of them bad ({}).",
            f.cite(&n),
            f.cite(&bad),
            f.cite(&share_id)
        ),
        vec![n, bad, share_id],
        None,
    );
    for st in &s.stations {
        let (Some(avg), Some(sd)) = (st.figures.avg_ms, st.figures.stddev_ms) else {
            continue;
        };
        let name = station_name(st);
        let to = analytics(p, Some(st.task), st.device, "");
        let a = f.figure(
            format!("Average cycle time, {name}"),
            avg / 1000.0,
            "s",
            to.clone(),
        );
        match st.target_ms {
            Some(target) => {
                let tg = f.figure(
                    format!("Target cycle time, {name}"),
                    target / 1000.0,
                    "s",
                    to.clone(),
                );
                let over = 100.0 * (avg - target) / target;
                if over > 0.0 {
                    let o = f.figure(format!("Over target, {name}"), over, "%", to.clone());
                    f.fact(
                        format!(
                            "{name} averages {} against a target of {}: {} over.",
                            f.cite(&a),
                            f.cite(&tg),
                            f.cite(&o)
                        ),
                        vec![a.clone(), tg, o.clone()],
                        Some(method::STANDARD_WORK),
                    );
                    f.advice(
                        format!(
                            "Walk the gemba at {name}: time the operators' method against the \
                             standard, find the steps that take the {} extra, and rewrite the \
                             standard work or remove the waste.",
                            f.cite(&o)
                        ),
                        vec![o],
                        method::STANDARD_WORK,
                    );
                    f.ask(format!("Which steps make {name} slower than its target?"));
                } else {
                    f.fact(
                        format!(
                            "{name} averages {}, within its target of {}.",
                            f.cite(&a),
                            f.cite(&tg)
                        ),
                        vec![a.clone(), tg],
                        None,
                    );
                }
            }
            None => {
                f.fact(
                    format!(
                        "{name} averages {}; it has no target cycle time.",
                        f.cite(&a)
                    ),
                    vec![a.clone()],
                    None,
                );
                f.ask(format!("What should the target cycle time of {name} be?"));
            }
        }
        if avg > 0.0 && sd / avg > UNSTEADY_CV {
            let cv = f.figure(
                format!("Variation (stddev / average), {name}"),
                100.0 * sd / avg,
                "%",
                to.clone(),
            );
            let sd_id = f.figure(format!("Standard deviation, {name}"), sd / 1000.0, "s", to);
            f.fact(
                format!(
                    "{name}'s cycle times vary by {} ({} of the average): the work is not yet \
                     done one way.",
                    f.cite(&sd_id),
                    f.cite(&cv)
                ),
                vec![sd_id, cv.clone()],
                Some(method::STANDARD_WORK),
            );
            f.advice(
                format!(
                    "A variation of {} calls for standard work: one agreed sequence, timing \
                     and layout, trained to every operator of {name}.",
                    f.cite(&cv)
                ),
                vec![cv],
                method::STANDARD_WORK,
            );
        }
    }
    // The slowest and the least steady step of each operation.
    let mut by_task: BTreeMap<i64, Vec<&gemba_shared::api::v1::telemetry::StepFigures>> =
        BTreeMap::new();
    for st in &s.steps {
        by_task.entry(st.task).or_default().push(st);
    }
    for (task, steps) in by_task {
        let Some(slow) = steps.iter().max_by(|a, b| a.avg_ms.total_cmp(&b.avg_ms)) else {
            continue;
        };
        let name = slow
            .name
            .clone()
            .unwrap_or_else(|| format!("step {}", slow.step + 1));
        let to = analytics(p, Some(task), scope.device, "");
        let a = f.figure(
            format!("Average time, step {name}"),
            slow.avg_ms / 1000.0,
            "s",
            to,
        );
        f.fact(
            format!("The slowest step is {name}, at {} on average.", f.cite(&a)),
            vec![a.clone()],
            Some(method::MOTION_STUDY),
        );
        f.advice(
            format!(
                "Study the motions of {name} ({}): reach, search and waiting are the first \
                 wastes to take out.",
                f.cite(&a)
            ),
            vec![a],
            method::MOTION_STUDY,
        );
        f.ask(format!(
            "How does step {name} compare with the previous period?"
        ));
    }
    issue_facts(&mut f, p, issues, 3);
    f
}

/// The bad cycles' most frequent reasons, at most `most`.
fn issue_facts(f: &mut Facts, p: Period, issues: &IssueCenter, most: usize) {
    for i in issues.issues.iter().take(most) {
        let op = i
            .task_name
            .clone()
            .unwrap_or_else(|| format!("operation {}", i.task));
        let what = match &i.step_name {
            Some(s) => format!("{} ({s})", reason_words(&i.reason)),
            None => reason_words(&i.reason).to_string(),
        };
        let c = f.figure(
            format!("Bad cycles: {what}, {op}"),
            i.cycles as f64,
            "cycles",
            issue_center(p, Some(i.task)),
        );
        let m = method_of_reason(&i.reason);
        f.fact(
            format!("{} of {op} were bad for {what}.", f.cite(&c)),
            vec![c.clone()],
            Some(m),
        );
        f.advice(
            match m {
                method::POKA_YOKE => format!(
                    "{what} happened in {}: error-proof the step (a fixture, a sensor or a \
                     check that makes missing it impossible).",
                    f.cite(&c)
                ),
                method::STANDARD_WORK => format!(
                    "{what} in {}: make the sequence visible at the station and retrain to \
                     the standard.",
                    f.cite(&c)
                ),
                _ => format!(
                    "Ask why five times for the {} ({what}) until the root cause is one you \
                     can fix.",
                    f.cite(&c)
                ),
            },
            vec![c],
            m,
        );
        f.ask(format!("Why do cycles of {op} fail for {what}?"));
    }
}

/// Station Performance, two periods compared: each total and each station's average,
/// then and now.
pub fn station_comparison(
    now: (Period, &CycleStats),
    before: (Period, &CycleStats),
    scope: Scope,
) -> Facts {
    let mut f = Facts::default();
    let (pn, sn) = now;
    let (pb, sb) = before;
    if sn.total.cycles == 0 && sb.total.cycles == 0 {
        f.note("Neither period has cycles for this choice: nothing to compare.");
        return f;
    }
    let cn = f.figure(
        "Cycles, period 1",
        sn.total.cycles as f64,
        "cycles",
        analytics(pn, scope.task, scope.device, ""),
    );
    let cb = f.figure(
        "Cycles, period 2",
        sb.total.cycles as f64,
        "cycles",
        analytics(pb, scope.task, scope.device, ""),
    );
    f.fact(
        format!("Period 1 has {}, period 2 {}.", f.cite(&cn), f.cite(&cb)),
        vec![cn, cb],
        None,
    );
    let share = |s: &CycleStats| {
        (s.total.cycles > 0).then(|| 100.0 * s.total.bad as f64 / s.total.cycles as f64)
    };
    if let (Some(a), Some(b)) = (share(sn), share(sb)) {
        let x = f.figure(
            "Bad share, period 1",
            a,
            "%",
            analytics(pn, scope.task, scope.device, "bad_cycles"),
        );
        let y = f.figure(
            "Bad share, period 2",
            b,
            "%",
            analytics(pb, scope.task, scope.device, "bad_cycles"),
        );
        let word = if a > b {
            "more"
        } else if a < b {
            "fewer"
        } else {
            "as many"
        };
        f.fact(
            format!(
                "Period 1 had {word} bad cycles: {} against {}.",
                f.cite(&x),
                f.cite(&y)
            ),
            vec![x, y],
            (a > b).then_some(method::FIVE_WHYS),
        );
    }
    for st in &sn.stations {
        let Some(then) = sb
            .stations
            .iter()
            .find(|o| o.task == st.task && o.device == st.device)
        else {
            continue;
        };
        let (Some(a), Some(b)) = (st.figures.avg_ms, then.figures.avg_ms) else {
            continue;
        };
        let name = station_name(st);
        let x = f.figure(
            format!("Average cycle time, {name}, period 1"),
            a / 1000.0,
            "s",
            analytics(pn, Some(st.task), st.device, ""),
        );
        let y = f.figure(
            format!("Average cycle time, {name}, period 2"),
            b / 1000.0,
            "s",
            analytics(pb, Some(st.task), st.device, ""),
        );
        if b > 0.0 {
            let ch = f.figure(
                format!("Change of the average, {name}"),
                100.0 * (a - b) / b,
                "%",
                analytics(pn, Some(st.task), st.device, ""),
            );
            let word = if a > b { "slower" } else { "faster" };
            f.fact(
                format!(
                    "{name} averaged {} in period 1 against {} in period 2: {} {word}.",
                    f.cite(&x),
                    f.cite(&y),
                    f.cite(&ch).trim_start_matches('-')
                ),
                vec![x, y, ch.clone()],
                Some(method::PDCA),
            );
            f.advice(
                format!(
                    "Check what changed at {name} between the periods ({}): keep it in the \
                     standard if it helped, undo it if not.",
                    f.cite(&ch)
                ),
                vec![ch],
                method::PDCA,
            );
        }
    }
    f.ask("Which bad-cycle reasons changed between the two periods?");
    f
}

/// Line Performance: the takt, each station's average against it, the bottleneck, the
/// balance and the output.
pub fn line_performance(p: Period, line_name: &str, s: &LineStats) -> Facts {
    let mut f = Facts::default();
    let (from, to) = p.days();
    let here = link(
        "/user/line-analytics",
        &[("line", s.line.to_string()), ("from", from), ("to", to)],
    );
    if s.stations.iter().all(|st| st.figures.cycles == 0) {
        f.note(format!(
            "The line {line_name} has no cycles in this period."
        ));
        return f;
    }
    let takt = s
        .takt_time_s
        .map(|t| f.figure(format!("Takt time, {line_name}"), t, "s", here.clone()));
    for st in &s.stations {
        let Some(avg) = st.figures.avg_ms else {
            continue;
        };
        let name = format!(
            "station {} ({})",
            st.position + 1,
            st.station
                .device_name
                .clone()
                .unwrap_or_else(|| format!("device {}", st.station.device))
        );
        let a = f.figure(
            format!("Average cycle time, {name}"),
            avg / 1000.0,
            "s",
            analytics(p, Some(st.station.task), Some(st.station.device), ""),
        );
        match (&takt, s.takt_time_s) {
            (Some(t), Some(ts)) if avg / 1000.0 > ts => f.fact(
                format!(
                    "{name} averages {}, over the takt time of {}: it cannot keep pace.",
                    f.cite(&a),
                    f.cite(t)
                ),
                vec![a, t.clone()],
                Some(method::LINE_BALANCING),
            ),
            _ => f.fact(format!("{name} averages {}.", f.cite(&a)), vec![a], None),
        }
    }
    if let Some(b) = s.bottleneck.and_then(|b| s.stations.get(b)) {
        let name = b
            .station
            .device_name
            .clone()
            .unwrap_or_else(|| format!("device {}", b.station.device));
        let a = f.figure(
            format!(
                "Bottleneck's average cycle time (station {}, {name})",
                b.position + 1
            ),
            b.figures.avg_ms.unwrap_or(0.0) / 1000.0,
            "s",
            analytics(p, Some(b.station.task), Some(b.station.device), ""),
        );
        f.fact(
            format!(
                "The bottleneck is station {} ({name}) at {}.",
                b.position + 1,
                f.cite(&a)
            ),
            vec![a.clone()],
            Some(method::LINE_BALANCING),
        );
        f.ask(format!(
            "Which steps of station {} could move to another station?",
            b.position + 1
        ));
        if let Some(c) = s.capacity_per_hour {
            let c = f.figure(
                "Capacity at the bottleneck's pace",
                c,
                "parts/h",
                here.clone(),
            );
            f.fact(
                format!("At the bottleneck's pace the line makes {}.", f.cite(&c)),
                vec![c],
                None,
            );
        }
    }
    if let Some(bal) = s.balance {
        let b = f.figure(
            format!("Line balance, {line_name}"),
            100.0 * bal,
            "%",
            here.clone(),
        );
        if bal < BALANCED {
            f.fact(
                format!(
                    "The line is balanced to {}: stations wait on the bottleneck.",
                    f.cite(&b)
                ),
                vec![b.clone()],
                Some(method::LINE_BALANCING),
            );
            f.advice(
                format!(
                    "Draw a Yamazumi chart of the stations' steps and move work off the \
                     bottleneck until the balance ({} now) nears 100%.",
                    f.cite(&b)
                ),
                vec![b],
                method::LINE_BALANCING,
            );
        } else {
            f.fact(
                format!("The line is balanced to {}.", f.cite(&b)),
                vec![b],
                None,
            );
        }
    }
    let o = f.figure(
        format!("Parts finished, {line_name}"),
        s.output as f64,
        "cycles",
        here,
    );
    f.fact(
        format!("The last station finished {} good parts.", f.cite(&o)),
        vec![o],
        None,
    );
    if takt.is_none() {
        f.note(format!(
            "{line_name} has no takt time: set one to see which stations cannot keep pace."
        ));
    }
    f
}

/// Ergonomics: what the cycles can say (long holds, re-work, cycles over the maximum,
/// unsteady steps) and what they cannot.
pub fn ergonomics(p: Period, scope: Scope, s: &CycleStats, issues: &IssueCenter) -> Facts {
    let mut f = Facts::default();
    f.note(
        "Not measured: posture, joint angles, force, lifted weights and reach distances. \
         The cameras see which step is done and for how long, not how the body does it; \
         an ergonomic assessment (RULA, REBA, NIOSH lifting) needs an observer at the station.",
    );
    let mut by_task: BTreeMap<i64, Vec<&gemba_shared::api::v1::telemetry::StepFigures>> =
        BTreeMap::new();
    for st in &s.steps {
        by_task.entry(st.task).or_default().push(st);
    }
    for (task, steps) in by_task {
        let mut avgs: Vec<f64> = steps.iter().map(|s| s.avg_ms).collect();
        avgs.sort_by(f64::total_cmp);
        let median = avgs[avgs.len() / 2];
        for st in steps
            .iter()
            .filter(|st| steps.len() > 1 && st.avg_ms > LONG_STEP * median)
        {
            let name = st
                .name
                .clone()
                .unwrap_or_else(|| format!("step {}", st.step + 1));
            let to = analytics(p, Some(task), scope.device, "");
            let a = f.figure(
                format!("Average time, step {name}"),
                st.avg_ms / 1000.0,
                "s",
                to.clone(),
            );
            let m = f.figure(
                "Median step time of the operation",
                median / 1000.0,
                "s",
                to,
            );
            f.fact(
                format!(
                    "Step {name} holds the operator {} on average, against a median step of {}: \
                     a long hold or static load is worth watching.",
                    f.cite(&a),
                    f.cite(&m)
                ),
                vec![a.clone(), m],
                Some(method::ERGONOMICS),
            );
            f.advice(
                format!(
                    "Observe step {name} ({}): check the working height, reach and whether a \
                     fixture could hold the part instead of the hand.",
                    f.cite(&a)
                ),
                vec![a],
                method::ERGONOMICS,
            );
        }
    }
    let rework: Vec<_> = issues
        .issues
        .iter()
        .filter(|i| i.reason == "wrong_order" || i.reason == "negative_step")
        .collect();
    for i in rework.iter().take(3) {
        let op = i
            .task_name
            .clone()
            .unwrap_or_else(|| format!("operation {}", i.task));
        let c = f.figure(
            format!("Cycles with repeated or out-of-order steps, {op}"),
            i.cycles as f64,
            "cycles",
            issue_center(p, Some(i.task)),
        );
        f.fact(
            format!(
                "{} of {op} redid or reordered steps: re-work adds motions and strain.",
                f.cite(&c)
            ),
            vec![c],
            Some(method::STANDARD_WORK),
        );
    }
    if let Some(i) = issues.issues.iter().find(|i| i.reason == "too_long") {
        let op = i
            .task_name
            .clone()
            .unwrap_or_else(|| format!("operation {}", i.task));
        let c = f.figure(
            format!("Cycles over the maximum time, {op}"),
            i.cycles as f64,
            "cycles",
            issue_center(p, Some(i.task)),
        );
        f.fact(
            format!(
                "{} of {op} ran over the maximum cycle time: look for fatigue late in shifts.",
                f.cite(&c)
            ),
            vec![c],
            Some(method::FIVE_WHYS),
        );
    }
    if f.findings.len() == 1 {
        f.note("No step stands out as a long hold and no re-work was recorded in this period.");
    }
    f.ask("Which station should an ergonomic assessment start with?");
    f
}

/// IoT Infrastructure: devices online, and the health events of the period by kind.
pub fn iot(p: Period, devices: &[DeviceStatus], events: &[DeviceEvent]) -> Facts {
    let mut f = Facts::default();
    let all = link("/user/devices", &[]);
    if devices.is_empty() {
        f.note("The organisation has no devices.");
        return f;
    }
    let online = devices.iter().filter(|d| d.online).count();
    let n = f.figure("Devices", devices.len() as f64, "devices", all.clone());
    let on = f.figure("Devices online", online as f64, "devices", all.clone());
    f.fact(
        format!("{} of {} are online.", f.cite(&on), f.cite(&n)),
        vec![on, n],
        None,
    );
    for d in devices.iter().filter(|d| !d.online) {
        let seen = d
            .last_seen
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map_or("never".to_string(), |t| {
                t.format("%Y-%m-%d %H:%M UTC").to_string()
            });
        f.fact(
            format!("{} is offline (last heard {seen}).", d.display_name),
            vec![],
            Some(method::TPM),
        );
    }
    let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for e in events {
        let k = serde_json::to_value(e.event.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let c = kinds.entry(k).or_default();
        c.0 += 1;
        if e.event.ended_at.is_none() {
            c.1 += 1;
        }
    }
    let (from, to) = p.days();
    let here = link("/user/devices", &[("from", from), ("to", to)]);
    for (kind, (n, open)) in &kinds {
        let words = kind.replace('_', " ");
        let c = f.figure(
            format!("Health events: {words}"),
            *n as f64,
            "events",
            here.clone(),
        );
        f.fact(
            format!(
                "{} of {words} in the period, {} still open.",
                f.cite(&c),
                text(*open as f64)
            ),
            vec![c],
            Some(method::TPM),
        );
    }
    if !kinds.is_empty() {
        f.advice(
            "Treat the devices and cameras as equipment: a daily check of the open events, the \
             causes of the repeated ones fixed (TPM), so that no cycle goes unrecorded."
                .to_string(),
            vec![],
            method::TPM,
        );
        f.ask("Which device has the most health events, and why?");
    } else {
        f.fact("No health events in the period.".to_string(), vec![], None);
    }
    f
}

#[cfg(test)]
#[path = "modes_tests.rs"]
mod tests;
