//! `gemba-agent eval`: a model judged on labelled footage through the agent's own
//! pipeline (GStreamer capture, ONNX inference, the cycle engine), against the footage's
//! ground truth. It gives the numbers of the model card: frame accuracy, cycles found,
//! cycle-time error, and how often the good/bad verdict is right.

use std::path::Path;

use anyhow::Context;
use gemba_shared::api::v1::training::LabelScore;
use gemba_shared::cycle::EngineConfig;
use gemba_shared::eval::{Scored, Scorer, most_overlapping};
use gemba_shared::footage::{Truth, TruthCycle};
use serde::Serialize;

use crate::capture::{self, Capture, Source};
use crate::infer::Model;

#[derive(Debug, Serialize)]
pub struct Report {
    pub model_version: String,
    pub frames: u64,
    pub frame_accuracy: f64,
    pub fps: f64,
    /// Cycles the engine finds in the true labels, and in the model's output.
    pub true_cycles: usize,
    pub found_cycles: usize,
    /// True cycles with a found cycle overlapping them.
    pub matched: usize,
    /// Mean |found − true| cycle time over the matched cycles, in seconds and as a
    /// share of the true cycle time; absent (`null`) when no cycle matched: there is
    /// nothing to measure, which is not an error of 0.
    pub cycle_time_error_s: Option<f64>,
    pub cycle_time_error_share: Option<f64>,
    /// Matched cycles whose good/bad verdict agrees with the reference's; absent when
    /// no cycle matched.
    pub verdict_agreement: Option<f64>,
    /// Cycles as performed (the footage's own list) that the engine finds in the true
    /// labels, and the share of those it judges as they were performed (good or bad).
    pub performed_cycles_found: usize,
    pub performed_verdict_agreement: f64,
    /// Per label (the steps, then background): precision, recall and F1 of the frames,
    /// and `confusion[true][predicted]` frame counts, so figures over several videos
    /// can be pooled (the cloud's validation runs).
    pub per_label: Vec<LabelScore>,
    pub confusion: Vec<Vec<u64>>,
}

pub fn evaluate(model_dir: &Path, video: &Path, truth: &Path) -> anyhow::Result<Report> {
    let truth: Truth = serde_json::from_slice(
        &std::fs::read(truth).with_context(|| format!("reading {}", truth.display()))?,
    )
    .with_context(|| format!("{}: not ground truth", truth.display()))?;
    let mut model = Model::load(model_dir)?;
    let engine = EngineConfig::from_task(&truth.task_settings());
    crate::cameras::fits(&model, &engine)?;
    let mut cap = Capture::open(
        &Source::File(video.into()),
        capture::Options::every_frame(model.width, model.height),
    )?;
    let mut labels = truth.steps.clone();
    labels.push("background".into());
    let mut scorer = Scorer::new(engine, labels);
    let mut frames = 0u64;
    let started = std::time::Instant::now();
    while let Some(f) = cap.next_frame()? {
        let probs = model.infer(&f.rgb)?;
        scorer.push(f.t_ms, &probs, truth.label_at(f.t_ms));
        frames += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    Ok(report(
        model.version.clone(),
        frames,
        secs,
        &scorer.finish(),
        &truth.cycles,
    ))
}

/// The report of `frames` scored in `secs`, against the cycles as `performed`.
fn report(
    model_version: String,
    frames: u64,
    secs: f64,
    scored: &Scored,
    performed_cycles: &[TruthCycle],
) -> Report {
    let m = &scored.metrics;
    let matched = |v: f64| (m.matched_cycles > 0).then_some(v);
    // The engine over the true labels against the cycles as performed: is each bad
    // cycle (a missed step, swapped picks) judged bad, and each good one good?
    let (mut performed, mut judged_right) = (0, 0);
    for t in performed_cycles {
        if let Some(c) = most_overlapping(&scored.reference_cycles, t.start_ms, t.end_ms) {
            performed += 1;
            judged_right += usize::from(c.good == t.good);
        }
    }
    Report {
        model_version,
        frames,
        frame_accuracy: m.frame_accuracy,
        fps: frames as f64 / secs.max(1e-9),
        true_cycles: m.true_cycles,
        found_cycles: m.found_cycles,
        matched: m.matched_cycles,
        cycle_time_error_s: matched(m.cycle_time_error_s),
        cycle_time_error_share: matched(m.cycle_time_error_share),
        verdict_agreement: matched(m.verdict_agreement),
        performed_cycles_found: performed,
        performed_verdict_agreement: judged_right as f64 / performed.max(1) as f64,
        per_label: m.per_label.clone(),
        confusion: m.confusion.clone(),
    }
}

#[cfg(test)]
mod tests {
    use gemba_shared::api::v1::task::TaskSettings;

    use super::*;

    /// Scores 30 s of footage with cycles of A then B, the model's output from `says`.
    fn scored(says: impl Fn(Option<u32>) -> usize) -> Scored {
        let s = TaskSettings::new("Op".into(), "Op\nA:\nB:\n".into());
        let labels = vec!["A".into(), "B".into(), "background".into()];
        let mut scorer = Scorer::new(EngineConfig::from_task(&s), labels);
        for i in 0..300 {
            let t = i * 100;
            let truth = match t % 2500 {
                x if x < 1000 => Some(0),
                x if x < 2000 => Some(1),
                _ => None,
            };
            let mut p = vec![0.0; 3];
            p[says(truth)] = 1.0;
            scorer.push(t, &p, truth);
        }
        scorer.finish()
    }

    #[test]
    fn no_cycle_found_reports_no_cycle_time_error() {
        // A model that sees only background finds no cycle: no error to report, not 0.
        let r = report("v".into(), 300, 1.0, &scored(|_| 2), &[]);
        assert!(r.true_cycles > 0, "{r:?}");
        assert_eq!((r.found_cycles, r.matched), (0, 0));
        assert_eq!(r.cycle_time_error_s, None);
        assert_eq!(r.cycle_time_error_share, None);
        assert_eq!(r.verdict_agreement, None);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["cycle_time_error_s"], serde_json::Value::Null);
        assert_eq!(json["cycle_time_error_share"], serde_json::Value::Null);
        // A model that is right everywhere: an error of 0, said as 0.
        let r = report(
            "v".into(),
            300,
            1.0,
            &scored(|t| t.map_or(2, |s| s as usize)),
            &[],
        );
        assert!(r.matched > 0, "{r:?}");
        assert_eq!(r.cycle_time_error_s, Some(0.0));
        assert_eq!(r.verdict_agreement, Some(1.0));
    }
}
