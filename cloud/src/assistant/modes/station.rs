//! Station Performance: one period, and two periods compared.

use std::collections::BTreeMap;

use gemba_shared::api::v1::telemetry::{CycleStats, IssueCenter, StepFigures};

use super::{
    Scope, UNSTEADY_CV, analytics, issue_center, method_of_reason, reason_words, station_name,
};
use crate::assistant::facts::{Facts, Period, method};

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
    let mut by_task: BTreeMap<i64, Vec<&StepFigures>> = BTreeMap::new();
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
