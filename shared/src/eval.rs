//! A step model judged against true labels, frame by frame: frame accuracy, per-label
//! precision/recall/F1, the confusion matrix, and, through the cycle engine, how the
//! cycles it finds compare with the cycles the engine finds in the true labels (so the
//! comparison measures the model and not the definition of a cycle). `gemba-agent eval`
//! feeds it from the agent's own pipeline; the cloud's trainer from the held-out
//! predictions of a training run.

use crate::api::v1::training::{LabelScore, Metrics};
use crate::cycle::{Cycle, CycleEngine, EngineConfig, Event};

pub struct Scorer {
    config: EngineConfig,
    labels: Vec<String>,
    engine: CycleEngine,
    reference: CycleEngine,
    confusion: Vec<Vec<u64>>,
    found: Vec<Cycle>,
    expected: Vec<Cycle>,
    last: Option<i64>,
}

/// The scores, with the cycles behind them.
pub struct Scored {
    pub metrics: Metrics,
    /// The engine's cycles over the true labels, and over the model's output.
    pub reference_cycles: Vec<Cycle>,
    pub found_cycles: Vec<Cycle>,
}

impl Scorer {
    /// `labels`: the model's labels, steps in order then background (last).
    pub fn new(config: EngineConfig, labels: Vec<String>) -> Scorer {
        let n = labels.len();
        Scorer {
            engine: CycleEngine::new(config.clone()),
            reference: CycleEngine::new(config.clone()),
            config,
            labels,
            confusion: vec![vec![0; n]; n],
            found: vec![],
            expected: vec![],
            last: None,
        }
    }

    /// One frame at `t_ms`: the model's output and the true step (`None`: background).
    pub fn push(&mut self, t_ms: i64, probs: &[f32], truth: Option<u32>) {
        let background = self.labels.len() - 1;
        let predicted = probs
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(background, |(i, _)| i.min(background));
        let actual = truth.map_or(background, |s| (s as usize).min(background));
        self.confusion[actual][predicted] += 1;
        self.found.extend(cycles(self.engine.push(t_ms, probs)));
        self.expected
            .extend(cycles(self.reference.push_label(t_ms, truth)));
        self.last = Some(t_ms);
    }

    /// The end of one video: the next frames start another.
    pub fn end_video(&mut self) {
        if let Some(last) = self.last.take() {
            self.found.extend(cycles(self.engine.finish(last)));
            self.expected.extend(cycles(self.reference.finish(last)));
        }
        self.engine = CycleEngine::new(self.config.clone());
        self.reference = CycleEngine::new(self.config.clone());
    }

    pub fn finish(mut self) -> Scored {
        self.end_video();
        let n = self.labels.len();
        let frames: u64 = self.confusion.iter().flatten().sum();
        let right: u64 = (0..n).map(|i| self.confusion[i][i]).sum();
        let per_label = (0..n)
            .map(|i| {
                let tp = self.confusion[i][i] as f64;
                let support: u64 = self.confusion[i].iter().sum();
                let predicted: u64 = self.confusion.iter().map(|r| r[i]).sum();
                let precision = ratio(tp, predicted as f64);
                let recall = ratio(tp, support as f64);
                LabelScore {
                    label: self.labels[i].clone(),
                    precision,
                    recall,
                    f1: ratio(2.0 * precision * recall, precision + recall),
                    support,
                }
            })
            .collect();
        let (mut matched, mut err_s, mut err_share, mut agree) = (0usize, 0.0, 0.0, 0usize);
        for t in &self.expected {
            if let Some(c) = most_overlapping(&self.found, t.start_ms, t.end_ms) {
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
        let m = matched.max(1) as f64;
        Scored {
            metrics: Metrics {
                labels: self.labels,
                frames,
                frame_accuracy: ratio(right as f64, frames as f64),
                per_label,
                confusion: self.confusion,
                true_cycles: self.expected.len(),
                found_cycles: self.found.len(),
                matched_cycles: matched,
                cycle_time_error_s: err_s / m,
                cycle_time_error_share: err_share / m,
                verdict_agreement: agree as f64 / m,
            },
            reference_cycles: self.expected,
            found_cycles: self.found,
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

fn cycles(events: Vec<Event>) -> impl Iterator<Item = Cycle> {
    events.into_iter().filter_map(|e| match e {
        Event::Cycle(c) => Some(c),
        Event::Rejected { .. } => None,
    })
}

/// The cycle of `cycles` that overlaps `start..end` the most, if any does.
pub fn most_overlapping(cycles: &[Cycle], start: i64, end: i64) -> Option<&Cycle> {
    cycles
        .iter()
        .map(|c| ((c.end_ms.min(end) - c.start_ms.max(start)).max(0), c))
        .filter(|(o, _)| *o > 0)
        .max_by_key(|(o, _)| *o)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1::task::TaskSettings;

    fn scorer() -> Scorer {
        let s = TaskSettings::new("Op".into(), "Op\nA:\nB:\n".into());
        let labels = vec!["A".into(), "B".into(), "background".into()];
        Scorer::new(EngineConfig::from_task(&s), labels)
    }

    fn onehot(i: usize) -> Vec<f32> {
        let mut p = vec![0.0; 3];
        p[i] = 1.0;
        p
    }

    #[test]
    fn a_perfect_model_scores_one_everywhere() {
        let mut s = scorer();
        // Three cycles of A (1 s) then B (1 s) then 0.5 s idle, at 10 fps.
        let truth = |t: i64| match t % 2500 {
            x if x < 1000 => Some(0),
            x if x < 2000 => Some(1),
            _ => None,
        };
        for i in 0..75 {
            let t = i * 100;
            let label = truth(t);
            s.push(t, &onehot(label.map_or(2, |l| l as usize)), label);
        }
        let m = s.finish().metrics;
        assert_eq!(m.frames, 75);
        assert_eq!(m.frame_accuracy, 1.0);
        assert!(m.per_label.iter().all(|l| l.f1 == 1.0), "{:?}", m.per_label);
        assert_eq!(m.confusion[0], vec![30, 0, 0]);
        assert!(m.true_cycles >= 2, "{m:?}");
        assert_eq!(m.found_cycles, m.true_cycles);
        assert_eq!(m.matched_cycles, m.true_cycles);
        assert_eq!(m.cycle_time_error_share, 0.0);
    }

    #[test]
    fn confusions_count_where_they_fall() {
        let mut s = scorer();
        // True A throughout; the model says B for 3 frames of 10.
        for i in 0..10 {
            let p = if i < 3 { 1 } else { 0 };
            s.push(i * 100, &onehot(p), Some(0));
        }
        let m = s.finish().metrics;
        assert_eq!(m.confusion[0], vec![7, 3, 0]);
        assert!((m.frame_accuracy - 0.7).abs() < 1e-9);
        assert!((m.per_label[0].recall - 0.7).abs() < 1e-9);
        assert_eq!(m.per_label[0].precision, 1.0);
        assert_eq!(m.per_label[1].precision, 0.0);
        assert_eq!(m.per_label[1].f1, 0.0);
        assert_eq!(m.per_label[1].support, 0);
    }
}
