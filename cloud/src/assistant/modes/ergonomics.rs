//! Ergonomics: what the cycles can say, and what they cannot.

use std::collections::BTreeMap;

use gemba_shared::api::v1::telemetry::{CycleStats, IssueCenter, StepFigures};

use super::{LONG_STEP, Scope, analytics, issue_center};
use crate::assistant::facts::{Facts, Period, method};

/// Ergonomics: what the cycles can say (long holds, re-work, cycles over the maximum,
/// unsteady steps) and what they cannot.
pub fn ergonomics(p: Period, scope: Scope, s: &CycleStats, issues: &IssueCenter) -> Facts {
    let mut f = Facts::default();
    f.note(
        "Not measured: posture, joint angles, force, lifted weights and reach distances. \
         The cameras see which step is done and for how long, not how the body does it; \
         an ergonomic assessment (RULA, REBA, NIOSH lifting) needs an observer at the station.",
    );
    let mut by_task: BTreeMap<i64, Vec<&StepFigures>> = BTreeMap::new();
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
