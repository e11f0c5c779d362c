//! Line Performance: takt, bottleneck, balance, output.

use gemba_shared::api::v1::line::LineStats;

use super::{BALANCED, analytics};
use crate::assistant::facts::{Facts, Period, link, method};

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
