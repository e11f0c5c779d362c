//! Long because it is one algorithm, read top-down beside
//! `docs/cycle-engine.md` (its tests are in `cycle/tests.rs`).
//!
//! The cycle engine: per-frame step probabilities in, work cycles out. Pure (no I/O, no
//! clock): the device runs it on the model's output, the trainer's evaluation on held-out
//! footage, and the tests on made-up sequences, and all three agree.
//!
//! It applies a task's telemetry and training parameters; `docs/cycle-engine.md` tells
//! the algorithm in prose. In short, frame by frame:
//!
//! 1. **Label**: the most probable class (the last class is background, "no step").
//! 2. **Smoothing**: the label of a frame is the most frequent one among the last
//!    `temporal_smoothness` raw labels (ties: the most recent).
//! 3. **Verification**: a label is *confirmed* once it held `verify_threshold`
//!    consecutive smoothed frames; its segment starts at its first such frame, and the
//!    segment before it ends there (flicker in between stays with the segment before).
//! 4. **Similar steps**: a confirmed step of a `similarSteps` group counts as the group's
//!    first member the open cycle has not seen yet (they look alike; the order tells
//!    them apart).
//! 5. **Start**: with no cycle open, a confirmed start step (`required_steps_for_start`,
//!    the union over processes: one cycle covers the whole operation) opens one at its
//!    segment's start. Other steps then are outside any cycle.
//! 6. **End**: with end steps (`required_steps_for_end`), the end of an end step's
//!    segment closes the cycle. Without (the default), a start step seen again (or one
//!    before a step the cycle has seen) closes it, at that segment's start, and opens
//!    the next, once at least
//!    `min_percentage_of_steps_required_to_end_cycle` of the steps were seen; before
//!    that, the start step is part of the open cycle. A cycle open longer than
//!    `maximum_cycle_time` closes as bad (too long).
//! 7. **Verdict**: a cycle is bad when a step that is neither optional nor negative was
//!    not seen, a negative step was seen, with `strict_step_order` a step came after a
//!    later one, or it ran too long; each reason is listed. Cycles shorter than
//!    `minimum_cycle_time` are rejected (reported, not counted).
//! 8. **Idle time**: background inside a cycle counts toward the step before it with
//!    `add_background_time_to_step_time`, else as the cycle's idle time. Either way the
//!    segments and the idle time add up to the cycle's duration.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::api::v1::task::TaskSettings;

/// What the engine needs of a task, in engine terms (times in milliseconds). The cloud
/// sends it to the device with the command that starts the task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EngineConfig {
    /// Steps of the operation, across processes.
    pub steps: usize,
    pub start_steps: BTreeSet<u32>,
    pub end_steps: BTreeSet<u32>,
    pub optional_steps: BTreeSet<u32>,
    pub negative_steps: BTreeSet<u32>,
    pub similar_steps: Vec<Vec<u32>>,
    pub smoothing: usize,
    pub verify_frames: usize,
    pub min_share_to_end: f64,
    pub min_cycle_ms: i64,
    pub max_cycle_ms: i64,
    pub strict_order: bool,
    pub background_to_step: bool,
}

impl EngineConfig {
    /// The engine's view of a task's settings (cycle times there are seconds).
    pub fn from_task(s: &TaskSettings) -> EngineConfig {
        let steps = s.operation().step_count();
        let t = &s.task_parameters.telemetry_params;
        let union = |m: &crate::api::v1::task::StepsByProcess| -> BTreeSet<u32> {
            m.values()
                .flatten()
                .copied()
                .filter(|&i| (i as usize) < steps)
                .collect()
        };
        let secs = |v: i64| v.saturating_mul(1000);
        EngineConfig {
            steps,
            start_steps: union(&t.required_steps_for_start),
            end_steps: union(&t.required_steps_for_end),
            optional_steps: s.optional_steps.iter().copied().collect(),
            negative_steps: s.negative_steps.iter().copied().collect(),
            similar_steps: s.similar_steps.clone(),
            smoothing: t.temporal_smoothness.max(1) as usize,
            verify_frames: s.task_parameters.training_params.verify_threshold.max(1) as usize,
            min_share_to_end: t.min_percentage_of_steps_required_to_end_cycle,
            min_cycle_ms: secs(t.minimum_cycle_time),
            max_cycle_ms: secs(t.maximum_cycle_time),
            strict_order: t.strict_step_order,
            background_to_step: t.add_background_time_to_step_time,
        }
    }

    /// The steps a good cycle must show.
    fn required(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.steps as u32)
            .filter(|i| !self.optional_steps.contains(i) && !self.negative_steps.contains(i))
    }
}

/// A step's time within a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Segment {
    pub step: u32,
    pub start_ms: i64,
    pub end_ms: i64,
}

impl Segment {
    pub const fn new(step: u32, start_ms: i64, end_ms: i64) -> Segment {
        Segment {
            step,
            start_ms,
            end_ms,
        }
    }
}

/// Why a cycle is bad.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum BadReason {
    MissedStep { step: u32 },
    NegativeStep { step: u32 },
    WrongOrder { step: u32 },
    TooLong,
}

/// A finished cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cycle {
    pub start_ms: i64,
    pub end_ms: i64,
    /// In time order; with background time added to steps, contiguous.
    pub segments: Vec<Segment>,
    /// Background inside the cycle not counted toward a step.
    pub idle_ms: i64,
    pub good: bool,
    pub reasons: Vec<BadReason>,
}

/// What the engine reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Cycle(Cycle),
    /// A cycle shorter than the minimum cycle time: not counted.
    Rejected {
        start_ms: i64,
        end_ms: i64,
    },
}

/// A confirmed run of one label (`None`: background).
#[derive(Debug, Clone, Copy)]
struct Run {
    label: Option<u32>,
    start_ms: i64,
}

#[derive(Debug)]
struct OpenCycle {
    start_ms: i64,
    /// Closed pieces: a step's segment, or background (`None`).
    pieces: Vec<(Option<u32>, i64, i64)>,
    seen: BTreeSet<u32>,
}

/// Steps 1–3 of the engine: raw labels in, smoothed and verified; says when a label has
/// held `verify` consecutive smoothed frames, and from when.
#[derive(Debug)]
struct Steadier {
    smoothing: usize,
    verify: usize,
    /// The last `smoothing` raw labels.
    window: std::collections::VecDeque<Option<u32>>,
    /// The smoothed label being verified, its first frame's time, and how long it held.
    candidate: Option<(Option<u32>, i64, usize)>,
}

impl Steadier {
    fn new(smoothing: usize, verify: usize) -> Steadier {
        Steadier {
            smoothing: smoothing.max(1),
            verify: verify.max(1),
            window: std::collections::VecDeque::with_capacity(smoothing.max(1)),
            candidate: None,
        }
    }

    /// One frame's raw label; the label and its start when it has just held long enough.
    fn push(&mut self, t_ms: i64, label: Option<u32>) -> Option<(Option<u32>, i64)> {
        if self.window.len() == self.smoothing {
            self.window.pop_front();
        }
        self.window.push_back(label);
        let smoothed = self.smoothed();
        let candidate = match self.candidate {
            Some((l, start, n)) if l == smoothed => (l, start, n + 1),
            _ => (smoothed, t_ms, 1),
        };
        self.candidate = Some(candidate);
        let (l, start, n) = candidate;
        (n == self.verify).then_some((l, start))
    }

    fn smoothed(&self) -> Option<u32> {
        // The most frequent label of the window; ties go to the most recent. One count
        // pass and one scan from the newest (not a count per window position).
        let mut counts: Vec<(Option<u32>, usize)> = Vec::with_capacity(self.window.len());
        for l in &self.window {
            match counts.iter_mut().find(|(x, _)| x == l) {
                Some((_, n)) => *n += 1,
                None => counts.push((*l, 1)),
            }
        }
        let max = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
        self.window
            .iter()
            .rev()
            .find(|l| counts.iter().any(|(x, n)| x == *l && *n == max))
            .copied()
            .flatten()
    }

    fn reset(&mut self) {
        self.window.clear();
        self.candidate = None;
    }
}

/// The label of a frame's probabilities: the most probable class, `None` for
/// background (the last class, or any beyond `steps`).
fn label_of(probs: &[f32], steps: usize) -> Option<u32> {
    probs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.is_finite())
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
        .filter(|&i| i < steps)
        .map(|i| i as u32)
}

/// The step segments a model's output shows, smoothed and verified as the engine does
/// (steps 1–3, no cycles): each confirmed run of a step, ending where the next confirmed
/// run begins (the last at `end_ms`); background runs are left out. Frames: time (ms,
/// increasing) and probabilities. What the trainer offers a labeler as propagated labels.
pub fn step_segments<'a>(
    cfg: &EngineConfig,
    frames: impl IntoIterator<Item = (i64, &'a [f32])>,
    end_ms: i64,
) -> Vec<Segment> {
    let mut steady = Steadier::new(cfg.smoothing, cfg.verify_frames);
    let mut runs: Vec<(Option<u32>, i64)> = vec![];
    let mut last = i64::MIN;
    for (t_ms, probs) in frames {
        if t_ms <= last {
            continue;
        }
        last = t_ms;
        if let Some((l, start)) = steady.push(t_ms, label_of(probs, cfg.steps))
            && runs.last().is_none_or(|r| r.0 != l)
        {
            runs.push((l, start));
        }
    }
    let ends = runs
        .iter()
        .skip(1)
        .map(|r| r.1)
        .chain(std::iter::once(end_ms));
    runs.iter()
        .zip(ends)
        .filter_map(|(&(l, start), end)| {
            let end = end.min(end_ms);
            l.filter(|_| end > start).map(|step| Segment {
                step,
                start_ms: start,
                end_ms: end,
            })
        })
        .collect()
}

/// The engine for one camera running one task.
#[derive(Debug)]
pub struct CycleEngine {
    cfg: EngineConfig,
    steady: Steadier,
    /// The confirmed run now going on.
    current: Option<Run>,
    open: Option<OpenCycle>,
    last_ms: i64,
    /// Where the last cycle ended: the next cannot start before (a run confirmed late
    /// reaches back in time).
    closed_ms: i64,
    /// Cycles are opened ([`CycleEngine::start_at`]) and closed
    /// ([`CycleEngine::end_at`]) from outside (a PLC), not by the steps seen.
    outside_starts: bool,
    outside_ends: bool,
}

impl CycleEngine {
    pub fn new(cfg: EngineConfig) -> CycleEngine {
        CycleEngine {
            steady: Steadier::new(cfg.smoothing, cfg.verify_frames),
            cfg,
            current: None,
            open: None,
            last_ms: i64::MIN,
            closed_ms: i64::MIN,
            outside_starts: false,
            outside_ends: false,
        }
    }

    /// Whether cycles start (`starts`) and end (`ends`) from outside from now on: a
    /// start step then opens no cycle, and an end step (or a start step again) closes
    /// none; [`Self::start_at`] and [`Self::end_at`] do.
    pub fn set_outside(&mut self, starts: bool, ends: bool) {
        self.outside_starts = starts;
        self.outside_ends = ends;
    }

    /// A cycle starts at `t_ms` (told from outside): the open one closes there, whatever
    /// it has seen, and the next opens; the step going on counts as seen in it.
    pub fn start_at(&mut self, t_ms: i64) -> Vec<Event> {
        let out = self.end_at(t_ms);
        let t = t_ms.max(self.closed_ms);
        self.open_at(t);
        if let (Some(step), Some(open)) = (self.current.and_then(|r| r.label), self.open.as_mut()) {
            open.seen.insert(step);
        }
        out
    }

    /// The open cycle ends at `t_ms` (told from outside), whatever it has seen; one
    /// that would end where it began is dropped as rejected.
    pub fn end_at(&mut self, t_ms: i64) -> Vec<Event> {
        let mut out = vec![];
        if let Some(open) = &self.open {
            if t_ms <= open.start_ms {
                out.push(Event::Rejected {
                    start_ms: open.start_ms,
                    end_ms: open.start_ms,
                });
                self.open = None;
            } else {
                self.close(t_ms, false, &mut out);
            }
        }
        out
    }

    /// One frame: the model's probabilities for each step and, last, background.
    /// A frame whose time is not after the last one's is ignored.
    pub fn push(&mut self, t_ms: i64, probs: &[f32]) -> Vec<Event> {
        self.push_label(t_ms, label_of(probs, self.cfg.steps))
    }

    /// One frame as a label (`None`: background), e.g. from ground truth.
    pub fn push_label(&mut self, t_ms: i64, label: Option<u32>) -> Vec<Event> {
        if t_ms <= self.last_ms {
            return vec![];
        }
        self.last_ms = t_ms;
        let label = label.filter(|&l| (l as usize) < self.cfg.steps);
        let mut out = vec![];
        if let Some((l, start)) = self.steady.push(t_ms, label)
            && self.current.is_none_or(|c| c.label != l)
        {
            self.confirm(l, start, &mut out);
        }
        // Too long: closes at the limit.
        if let Some(open) = &self.open
            && t_ms - open.start_ms > self.cfg.max_cycle_ms
        {
            let end = open.start_ms.saturating_add(self.cfg.max_cycle_ms);
            self.close(end, true, &mut out);
        }
        out
    }

    /// The end of the input (or of the task on this camera): the open cycle closes at
    /// `t_ms` when it has shown enough steps, else it is dropped as unfinished.
    pub fn finish(&mut self, t_ms: i64) -> Vec<Event> {
        let mut out = vec![];
        if let Some(open) = &self.open {
            let limit = open.start_ms.saturating_add(self.cfg.max_cycle_ms);
            let end = t_ms.max(self.last_ms);
            if end > limit {
                self.close(limit, true, &mut out);
            } else if self.share_seen() >= self.cfg.min_share_to_end {
                self.end_current(end);
                self.close(end, false, &mut out);
            } else {
                self.open = None;
            }
        }
        self.current = None;
        self.steady.reset();
        out
    }

    fn share_seen(&self) -> f64 {
        let Some(open) = &self.open else { return 0.0 };
        let counted: Vec<u32> = (0..self.cfg.steps as u32)
            .filter(|i| !self.cfg.negative_steps.contains(i))
            .collect();
        if counted.is_empty() {
            return 1.0;
        }
        let seen = counted.iter().filter(|i| open.seen.contains(i)).count();
        seen as f64 / counted.len() as f64
    }

    /// A similar step counts as its group's first member not seen yet in the cycle.
    fn resolve_similar(&self, step: u32) -> u32 {
        let Some(open) = &self.open else { return step };
        for g in &self.cfg.similar_steps {
            if g.contains(&step) {
                let mut members: Vec<u32> = g.clone();
                members.sort_unstable();
                return members
                    .into_iter()
                    .find(|m| !open.seen.contains(m))
                    .unwrap_or(step);
            }
        }
        step
    }

    /// Ends the current run at `at`, as a piece of the open cycle.
    fn end_current(&mut self, at: i64) {
        if let (Some(run), Some(open)) = (self.current.take(), self.open.as_mut())
            && at > run.start_ms.max(open.start_ms)
        {
            open.pieces
                .push((run.label, run.start_ms.max(open.start_ms), at));
        }
    }

    /// A new confirmed run of `label` from `start`.
    fn confirm(&mut self, label: Option<u32>, start: i64, out: &mut Vec<Event>) {
        let label = label.map(|s| self.resolve_similar(s));
        // The run before ends where this one starts; an end step's end closes the cycle.
        let ended = self.current.and_then(|r| r.label);
        self.end_current(start);
        if self.open.is_some()
            && !self.outside_ends
            && ended.is_some_and(|s| self.cfg.end_steps.contains(&s))
        {
            self.close(start, false, out);
        }
        if let Some(step) = label {
            // Told from outside, steps neither open nor close cycles.
            let is_start = self.cfg.start_steps.contains(&step) && !self.outside_starts;
            match &self.open {
                None if is_start => self.open_at(start),
                // "Again": this start step, or one before a step already seen (a cycle
                // that skipped step 0 still ends when the next begins with it).
                Some(open)
                    if is_start
                        && !self.outside_ends
                        && self.cfg.end_steps.is_empty()
                        && (open.seen.contains(&step)
                            || open.seen.last().is_some_and(|&m| step < m))
                        && self.share_seen() >= self.cfg.min_share_to_end =>
                {
                    self.close(start, false, out);
                    self.open_at(start);
                }
                _ => {}
            }
            if let Some(open) = self.open.as_mut() {
                open.seen.insert(step);
            }
        }
        self.current = Some(Run {
            label,
            start_ms: start,
        });
    }

    fn open_at(&mut self, start: i64) {
        self.open = Some(OpenCycle {
            start_ms: start.max(self.closed_ms),
            pieces: vec![],
            seen: BTreeSet::new(),
        });
    }

    /// Closes the open cycle at `end` and reports it.
    fn close(&mut self, end: i64, too_long: bool, out: &mut Vec<Event>) {
        // Never past the time limit, whatever closes it.
        let Some(limit) = self
            .open
            .as_ref()
            .map(|o| o.start_ms.saturating_add(self.cfg.max_cycle_ms))
        else {
            return;
        };
        let (end, too_long) = if end > limit {
            (limit, true)
        } else {
            (end, too_long)
        };
        // The current run's part inside the cycle; it goes on after.
        if let (Some(run), Some(open)) = (self.current, self.open.as_mut())
            && end > run.start_ms.max(open.start_ms)
        {
            open.pieces
                .push((run.label, run.start_ms.max(open.start_ms), end));
        }
        if let Some(run) = self.current.as_mut() {
            run.start_ms = run.start_ms.max(end);
        }
        let Some(open) = self.open.take() else { return };
        self.closed_ms = end;
        if end - open.start_ms < self.cfg.min_cycle_ms {
            out.push(Event::Rejected {
                start_ms: open.start_ms,
                end_ms: end,
            });
            return;
        }
        out.push(Event::Cycle(self.verdict(open, end, too_long)));
    }

    fn verdict(&self, open: OpenCycle, end: i64, too_long: bool) -> Cycle {
        let mut segments: Vec<Segment> = vec![];
        let mut idle = 0;
        // Pieces within the cycle (a late close, at the time limit, may cut the last).
        let pieces = open.pieces.into_iter().filter_map(|(l, s, e)| {
            let (s, e) = (s.max(open.start_ms), e.min(end));
            (s < e).then_some((l, s, e))
        });
        for (label, s, e) in pieces {
            match label {
                Some(step) => match segments.last_mut() {
                    // One segment while a step goes on (background between counted too).
                    Some(last) if last.step == step && last.end_ms == s => last.end_ms = e,
                    _ => segments.push(Segment {
                        step,
                        start_ms: s,
                        end_ms: e,
                    }),
                },
                None if self.cfg.background_to_step && !segments.is_empty() => {
                    if let Some(last) = segments.last_mut() {
                        last.end_ms = e;
                    }
                }
                None => idle += e - s,
            }
        }
        let mut reasons = BTreeSet::new();
        for step in self.cfg.required() {
            if !open.seen.contains(&step) {
                reasons.insert(BadReason::MissedStep { step });
            }
        }
        for &step in &open.seen {
            if self.cfg.negative_steps.contains(&step) {
                reasons.insert(BadReason::NegativeStep { step });
            }
        }
        if self.cfg.strict_order {
            let mut highest: Option<u32> = None;
            for s in segments
                .iter()
                .filter(|s| !self.cfg.negative_steps.contains(&s.step))
            {
                if highest.is_some_and(|h| s.step < h) {
                    reasons.insert(BadReason::WrongOrder { step: s.step });
                }
                highest = highest.max(Some(s.step));
            }
        }
        if too_long {
            reasons.insert(BadReason::TooLong);
        }
        let reasons: Vec<BadReason> = reasons.into_iter().collect();
        Cycle {
            start_ms: open.start_ms,
            end_ms: end,
            segments,
            idle_ms: idle,
            good: reasons.is_empty(),
            reasons,
        }
    }
}

#[cfg(test)]
mod tests;
