//! Labelled footage, as one JSON file beside a video: the operation performed, the step
//! segments (what a labeler marks; frames outside them are background) and the cycles
//! as they were performed. `models/demo.py` writes it for the demo footage,
//! `models/train.py` trains from it, `gemba-agent eval` judges a model against it, and
//! `gemba-cloud serve --demo` seeds the demo task from it.

use serde::{Deserialize, Serialize};

use crate::api::v1::task::TaskSettings;
use crate::cycle::{Cycle, CycleEngine, EngineConfig, Event};

/// Labelled footage: the operation (task-detail text), the steps, the step segments and
/// the cycles as they really happened.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Truth {
    pub operation: String,
    /// The task's strict step order (a step out of order makes a cycle bad).
    #[serde(default)]
    pub strict_step_order: bool,
    pub steps: Vec<String>,
    pub segments: Vec<TruthSegment>,
    /// The cycles as performed (for the reader; the evaluation's reference is the
    /// cycle engine over the true labels).
    #[serde(default)]
    pub cycles: Vec<TruthCycle>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TruthSegment {
    pub step: u32,
    pub start_ms: i64,
    pub end_ms: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TruthCycle {
    pub start_ms: i64,
    pub end_ms: i64,
    pub good: bool,
}

impl Truth {
    /// The footage's task: its operation (named by its first line), default
    /// parameters, its step order rule, and as its target cycle time
    /// (`stepsAvgTime.cycle_time`, seconds) the mean of the good cycles the cycle engine
    /// finds in the true labels: what a station running it measures.
    pub fn task_settings(&self) -> TaskSettings {
        let name = self.operation.lines().next().unwrap_or_default().trim();
        let mut s = TaskSettings::new(name.to_string(), self.operation.clone());
        s.task_parameters.telemetry_params.strict_step_order = self.strict_step_order;
        let good: Vec<i64> = self
            .engine_cycles(&EngineConfig::from_task(&s))
            .iter()
            .filter(|c| c.good)
            .map(|c| c.end_ms - c.start_ms)
            .collect();
        if !good.is_empty() {
            let mean_s = good.iter().sum::<i64>() as f64 / good.len() as f64 / 1000.0;
            s.steps_avg_time.insert(
                "cycle_time".into(),
                serde_json::json!((mean_s * 10.0).round() / 10.0),
            );
        }
        s
    }

    /// The cycles the cycle engine (`cfg`) finds in the true labels, read at 15 frames
    /// a second.
    pub fn engine_cycles(&self, cfg: &EngineConfig) -> Vec<Cycle> {
        let mut e = CycleEngine::new(cfg.clone());
        let end = self.segments.iter().map(|s| s.end_ms).max().unwrap_or(0);
        let mut events = Vec::new();
        let mut t = 0;
        while t < end {
            events.extend(e.push_label(t, self.label_at(t)));
            t += 1000 / 15;
        }
        events.extend(e.finish(t));
        events
            .into_iter()
            .filter_map(|e| match e {
                Event::Cycle(c) => Some(c),
                Event::Rejected { .. } => None,
            })
            .collect()
    }

    /// The step at `t_ms`, `None` for background.
    pub fn label_at(&self, t_ms: i64) -> Option<u32> {
        self.segments
            .iter()
            .find(|s| s.start_ms <= t_ms && t_ms < s.end_ms)
            .map(|s| s.step)
    }
}
