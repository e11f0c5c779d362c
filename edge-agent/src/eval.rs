//! `gemba-agent eval`: a model judged on labelled footage through the agent's own
//! pipeline (GStreamer capture, ONNX inference, the cycle engine), against the footage's
//! ground truth. It gives the numbers of the model card: frame accuracy, cycles found,
//! cycle-time error, and how often the good/bad verdict is right.

use std::path::Path;

use anyhow::Context;
use gemba_shared::cycle::EngineConfig;
use gemba_shared::eval::{Scorer, most_overlapping};
use gemba_shared::footage::Truth;
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
    /// share of the true cycle time.
    pub cycle_time_error_s: f64,
    pub cycle_time_error_share: f64,
    /// Matched cycles whose good/bad verdict agrees with the reference's.
    pub verdict_agreement: f64,
    /// Cycles as performed (the footage's own list) that the engine finds in the true
    /// labels, and the share of those it judges as they were performed (good or bad).
    pub performed_cycles_found: usize,
    pub performed_verdict_agreement: f64,
}

pub fn evaluate(model_dir: &Path, video: &Path, truth: &Path) -> anyhow::Result<Report> {
    let truth: Truth = serde_json::from_slice(
        &std::fs::read(truth).with_context(|| format!("reading {}", truth.display()))?,
    )
    .with_context(|| format!("{}: not ground truth", truth.display()))?;
    let mut model = Model::load(model_dir)?;
    let engine = EngineConfig::from_task(&truth.task_settings());
    crate::camera::fits(&model, &engine)?;
    let mut cap = Capture::open(
        &Source::File(video.into()),
        capture::Options {
            width: model.width,
            height: model.height,
            fps: 1000,
            looped: false,
            fast: true,
            clips: None,
        },
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
    let scored = scorer.finish();
    let m = &scored.metrics;
    // The engine over the true labels against the cycles as performed: is each bad
    // cycle (a missed step, swapped picks) judged bad, and each good one good?
    let (mut performed, mut judged_right) = (0, 0);
    for t in &truth.cycles {
        if let Some(c) = most_overlapping(&scored.reference_cycles, t.start_ms, t.end_ms) {
            performed += 1;
            judged_right += usize::from(c.good == t.good);
        }
    }
    Ok(Report {
        model_version: model.version.clone(),
        frames,
        frame_accuracy: m.frame_accuracy,
        fps: frames as f64 / secs.max(1e-9),
        true_cycles: m.true_cycles,
        found_cycles: m.found_cycles,
        matched: m.matched_cycles,
        cycle_time_error_s: m.cycle_time_error_s,
        cycle_time_error_share: m.cycle_time_error_share,
        verdict_agreement: m.verdict_agreement,
        performed_cycles_found: performed,
        performed_verdict_agreement: judged_right as f64 / performed.max(1) as f64,
    })
}
