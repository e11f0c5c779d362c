//! `gemba-agent eval`: a model judged on labelled footage through the agent's own
//! pipeline (GStreamer capture, ONNX inference, the cycle engine), against the footage's
//! ground truth. It gives the numbers of the model card: frame accuracy, cycles found,
//! cycle-time error, and how often the good/bad verdict is right.

use std::path::Path;

use anyhow::Context;
use gemba_shared::cycle::{Cycle, CycleEngine, EngineConfig, Event};
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
        },
    )?;
    // The reference: the same engine over the true labels, frame by frame, so that the
    // comparison measures the model and not the definition of a cycle.
    let mut reference = CycleEngine::new(engine.clone());
    let mut expected = vec![];
    let mut eng = CycleEngine::new(engine);
    let (mut frames, mut right, mut last) = (0u64, 0u64, 0i64);
    let mut found = vec![];
    let started = std::time::Instant::now();
    while let Some(f) = cap.next_frame()? {
        let probs = model.infer(&f.rgb)?;
        let best = probs
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| i as u32);
        let label = best.filter(|&i| (i as usize) < truth.steps.len());
        frames += 1;
        right += u64::from(label == truth.label_at(f.t_ms));
        found.extend(cycles(eng.push(f.t_ms, &probs)));
        expected.extend(cycles(reference.push_label(f.t_ms, truth.label_at(f.t_ms))));
        last = f.t_ms;
    }
    found.extend(cycles(eng.finish(last)));
    expected.extend(cycles(reference.finish(last)));
    let secs = started.elapsed().as_secs_f64();
    let mut matched = 0;
    let (mut err_s, mut err_share, mut agree) = (0.0, 0.0, 0);
    for t in &expected {
        if let Some(c) = most_overlapping(&found, t.start_ms, t.end_ms) {
            matched += 1;
            let (a, b) = (
                (c.end_ms - c.start_ms) as f64,
                (t.end_ms - t.start_ms) as f64,
            );
            err_s += (a - b).abs() / 1000.0;
            err_share += (a - b).abs() / b.max(1.0);
            agree += usize::from(c.good == t.good);
        }
    }
    // The engine over the true labels against the cycles as performed: is each bad
    // cycle (a missed step, swapped picks) judged bad, and each good one good?
    let (mut performed, mut judged_right) = (0, 0);
    for t in &truth.cycles {
        if let Some(c) = most_overlapping(&expected, t.start_ms, t.end_ms) {
            performed += 1;
            judged_right += usize::from(c.good == t.good);
        }
    }
    let m = matched.max(1) as f64;
    Ok(Report {
        model_version: model.version.clone(),
        frames,
        frame_accuracy: right as f64 / frames.max(1) as f64,
        fps: frames as f64 / secs.max(1e-9),
        true_cycles: expected.len(),
        found_cycles: found.len(),
        matched,
        cycle_time_error_s: err_s / m,
        cycle_time_error_share: err_share / m,
        verdict_agreement: agree as f64 / m,
        performed_cycles_found: performed,
        performed_verdict_agreement: judged_right as f64 / performed.max(1) as f64,
    })
}

fn cycles(events: Vec<Event>) -> impl Iterator<Item = Cycle> {
    events.into_iter().filter_map(|e| match e {
        Event::Cycle(c) => Some(c),
        Event::Rejected { .. } => None,
    })
}

/// The cycle of `cycles` that overlaps `start..end` the most, if any does.
fn most_overlapping(cycles: &[Cycle], start: i64, end: i64) -> Option<&Cycle> {
    cycles
        .iter()
        .map(|c| ((c.end_ms.min(end) - c.start_ms.max(start)).max(0), c))
        .filter(|(o, _)| *o > 0)
        .max_by_key(|(o, _)| *o)
        .map(|(_, c)| c)
}
