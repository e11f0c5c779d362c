//! Long because it holds the cycle engine's tests in one file, in the order of
//! `docs/cycle-engine.md`'s rules, sharing one frame builder and the property tests.

use super::*;
use proptest::prelude::*;

const FRAME: i64 = 100; // 10 fps

/// A config for `steps` steps with the spec's defaults, no smoothing and verification
/// after 2 frames.
fn cfg(steps: usize) -> EngineConfig {
    EngineConfig {
        steps,
        start_steps: [0, 1].into(),
        end_steps: BTreeSet::new(),
        optional_steps: BTreeSet::new(),
        negative_steps: BTreeSet::new(),
        similar_steps: vec![],
        smoothing: 1,
        verify_frames: 2,
        min_share_to_end: 0.75,
        min_cycle_ms: 0,
        max_cycle_ms: i64::MAX,
        strict_order: false,
        background_to_step: false,
    }
}

/// `(label, frames)` runs → frames at 10 fps from t = 0; then `finish`.
fn run(cfg: EngineConfig, runs: &[(Option<u32>, usize)]) -> Vec<Event> {
    let mut e = CycleEngine::new(cfg);
    let mut out = vec![];
    let mut t = 0;
    for &(label, n) in runs {
        for _ in 0..n {
            out.extend(e.push_label(t, label));
            t += FRAME;
        }
    }
    out.extend(e.finish(t));
    out
}

fn cycles(events: &[Event]) -> Vec<&Cycle> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Cycle(c) => Some(c),
            Event::Rejected { .. } => None,
        })
        .collect()
}

const S0: Option<u32> = Some(0);
const S1: Option<u32> = Some(1);
const S2: Option<u32> = Some(2);
const S3: Option<u32> = Some(3);
const BG: Option<u32> = None;

#[test]
fn good_cycles_follow_each_other() {
    let one = [(S0, 5), (S1, 5), (S2, 5), (S3, 5)];
    let runs: Vec<_> = one.iter().chain(&one).chain(&one).copied().collect();
    let ev = run(cfg(4), &runs);
    let c = cycles(&ev);
    assert_eq!(c.len(), 3, "{ev:?}");
    assert!(c.iter().all(|c| c.good), "{c:?}");
    assert_eq!((c[0].start_ms, c[0].end_ms), (0, 2000));
    assert_eq!((c[1].start_ms, c[1].end_ms), (2000, 4000));
    assert_eq!(c[2].end_ms, 6000, "the last closes at the end of the input");
    assert_eq!(
        c[0].segments,
        vec![
            Segment {
                step: 0,
                start_ms: 0,
                end_ms: 500
            },
            Segment {
                step: 1,
                start_ms: 500,
                end_ms: 1000
            },
            Segment {
                step: 2,
                start_ms: 1000,
                end_ms: 1500
            },
            Segment {
                step: 3,
                start_ms: 1500,
                end_ms: 2000
            },
        ]
    );
}

#[test]
fn a_missed_step_makes_a_bad_cycle_unless_optional() {
    let runs = [
        (S0, 5),
        (S1, 5),
        (S3, 5),
        (S0, 5),
        (S1, 5),
        (S2, 5),
        (S3, 5),
    ];
    let ev = run(cfg(4), &runs);
    let c = cycles(&ev);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].reasons, vec![BadReason::MissedStep { step: 2 }]);
    assert!(!c[0].good && c[1].good);
    let mut optional = cfg(4);
    optional.optional_steps = [2].into();
    assert!(cycles(&run(optional, &runs)).iter().all(|c| c.good));
}

#[test]
fn a_negative_step_seen_makes_a_bad_cycle() {
    let mut c = cfg(5);
    c.negative_steps = [4].into();
    let ev = run(c, &[(S0, 5), (S1, 5), (Some(4), 3), (S2, 5), (S3, 5)]);
    assert_eq!(
        cycles(&ev)[0].reasons,
        vec![BadReason::NegativeStep { step: 4 }]
    );
}

#[test]
fn strict_order_refuses_a_step_after_a_later_one() {
    let runs = [(S0, 5), (S2, 5), (S1, 5), (S3, 5)];
    assert!(cycles(&run(cfg(4), &runs))[0].good);
    let mut strict = cfg(4);
    strict.strict_order = true;
    let ev = run(strict, &runs);
    assert_eq!(
        cycles(&ev)[0].reasons,
        vec![BadReason::WrongOrder { step: 1 }]
    );
}

#[test]
fn flicker_is_smoothed_and_unverified_labels_stay_with_the_step_before() {
    // One frame of step 3 inside step 1: gone with a smoothing window of 3; with none,
    // still not a step (verification needs 2 frames), so step 1 goes on.
    let runs = [(S0, 5), (S1, 3), (S3, 1), (S1, 3), (S2, 5), (S3, 5)];
    for smoothing in [1, 3] {
        let mut c = cfg(4);
        c.smoothing = smoothing;
        let ev = run(c, &runs);
        let cy = cycles(&ev);
        assert_eq!(cy.len(), 1, "{ev:?}");
        assert!(cy[0].good);
        let steps: Vec<u32> = cy[0].segments.iter().map(|s| s.step).collect();
        assert_eq!(steps, [0, 1, 2, 3], "smoothing {smoothing}");
    }
    // A step shorter than the verify threshold is never seen.
    let mut c = cfg(4);
    c.verify_frames = 4;
    let ev = run(c, &[(S0, 5), (S1, 5), (S2, 3), (S3, 5)]);
    assert_eq!(
        cycles(&ev)[0].reasons,
        vec![BadReason::MissedStep { step: 2 }]
    );
}

#[test]
fn a_start_step_again_before_enough_steps_stays_in_the_cycle() {
    // 0, 1, 0 (only 2 of 4 seen: the 0 belongs to the open cycle), 2, 3, then 0 again.
    let runs = [
        (S0, 5),
        (S1, 5),
        (S0, 5),
        (S2, 5),
        (S3, 5),
        (S0, 5),
        (S1, 5),
        (S2, 5),
        (S3, 5),
    ];
    let ev = run(cfg(4), &runs);
    let c = cycles(&ev);
    assert_eq!(c.len(), 2, "{ev:?}");
    assert_eq!((c[0].start_ms, c[0].end_ms), (0, 2500));
}

#[test]
fn end_steps_close_the_cycle_when_they_end() {
    let mut c = cfg(4);
    c.end_steps = [3].into();
    let ev = run(
        c,
        &[
            (S0, 5),
            (S1, 5),
            (S2, 5),
            (S3, 5),
            (BG, 10),
            (S0, 5),
            (S1, 5),
            (S2, 5),
            (S3, 5),
        ],
    );
    let cy = cycles(&ev);
    assert_eq!(cy.len(), 2, "{ev:?}");
    assert_eq!(
        (cy[0].start_ms, cy[0].end_ms),
        (0, 2000),
        "closed as step 3 ended"
    );
    assert_eq!(cy[1].start_ms, 3000);
    assert_eq!(cy[0].idle_ms, 0);
}

#[test]
fn background_is_idle_time_or_the_step_befores() {
    let runs = [
        (S0, 5),
        (BG, 4),
        (S1, 5),
        (S2, 5),
        (S3, 5),
        (S0, 5),
        (S1, 5),
        (S2, 5),
        (S3, 5),
    ];
    let c = run(cfg(4), &runs);
    let first = cycles(&c)[0];
    assert_eq!(first.idle_ms, 400);
    assert_eq!(
        first.segments[0],
        Segment {
            step: 0,
            start_ms: 0,
            end_ms: 500
        }
    );
    let mut to_step = cfg(4);
    to_step.background_to_step = true;
    let c = run(to_step, &runs);
    let first = cycles(&c)[0];
    assert_eq!(first.idle_ms, 0);
    assert_eq!(
        first.segments[0],
        Segment {
            step: 0,
            start_ms: 0,
            end_ms: 900
        }
    );
}

#[test]
fn too_long_cycles_close_at_the_limit_and_short_ones_are_rejected() {
    let mut c = cfg(4);
    c.max_cycle_ms = 1200;
    let ev = run(c, &[(S0, 5), (S1, 5), (S2, 5), (S3, 5)]);
    let cy = cycles(&ev);
    assert_eq!((cy[0].start_ms, cy[0].end_ms), (0, 1200));
    assert!(cy[0].reasons.contains(&BadReason::TooLong));
    let mut c = cfg(4);
    c.min_cycle_ms = 3000;
    let ev = run(c, &[(S0, 5), (S1, 5), (S2, 5), (S3, 5), (S0, 5)]);
    assert_eq!(
        ev,
        vec![Event::Rejected {
            start_ms: 0,
            end_ms: 2000
        }]
    );
}

#[test]
fn similar_steps_are_told_apart_by_their_order() {
    // Steps 1 and 2 look alike: the model says 1 twice; the second counts as 2.
    let mut c = cfg(4);
    c.similar_steps = vec![vec![1, 2]];
    let ev = run(c, &[(S0, 5), (S1, 5), (BG, 2), (S1, 5), (S3, 5)]);
    let cy = cycles(&ev);
    assert!(cy[0].good, "{cy:?}");
    let steps: Vec<u32> = cy[0].segments.iter().map(|s| s.step).collect();
    assert_eq!(steps, [0, 1, 2, 3]);
}

#[test]
fn probabilities_pick_the_likeliest_class_and_the_last_is_background() {
    let mut e = CycleEngine::new(cfg(2));
    let mut out = vec![];
    let mut t = 0;
    for probs in [
        [0.7, 0.2, 0.1],
        [0.7, 0.2, 0.1],
        [0.1, 0.8, 0.1],
        [0.1, 0.8, 0.1],
        [0.0, 0.1, 0.9],
        [f32::NAN, 0.6, 0.2],
        [0.0, 0.9, 0.1],
    ] {
        out.extend(e.push(t, &probs));
        t += FRAME;
    }
    // Out-of-order and repeated times are ignored.
    out.extend(e.push(0, &[1.0, 0.0, 0.0]));
    out.extend(e.finish(t));
    let c = cycles(&out);
    assert_eq!(c.len(), 1);
    assert!(c[0].good);
    assert_eq!(
        c[0].segments.iter().map(|s| s.step).collect::<Vec<_>>(),
        [0, 1]
    );
}

#[test]
fn the_config_comes_from_a_task_with_the_specs_defaults() {
    let s = TaskSettings::new("T".into(), "T\nA:\na;\nB:\nb;\nP~\nC:\nc;\n".into());
    let c = EngineConfig::from_task(&s);
    assert_eq!(c.steps, 3);
    assert_eq!(c.start_steps, [0, 1].into());
    assert!(c.end_steps.is_empty());
    assert_eq!(c.verify_frames, 6);
    assert_eq!(c.min_share_to_end, 0.75);
    assert_eq!(
        c.max_cycle_ms, 9_007_199_254_740_991_000,
        "seconds, no overflow"
    );
    assert_eq!(c.smoothing, 1);
}

// ---- Property tests: made-up footage with its ground truth ----

/// One cycle of a script: per step its frames (0: skipped), background frames after it.
#[derive(Debug, Clone)]
struct ScriptCycle {
    steps: Vec<(usize, usize)>,
}

fn script() -> impl Strategy<Value = (usize, Vec<ScriptCycle>, usize, usize)> {
    (4usize..8, 1usize..4, 1usize..4).prop_flat_map(|(n, verify, smoothing)| {
        // Runs long enough to be seen through smoothing and verification.
        let min = verify + smoothing + 1;
        let step = (
            min..min + 8,
            prop_oneof![3 => Just(0usize), 1 => min..min + 5],
        );
        let cycle = (prop::collection::vec(step, n), prop::option::of(2usize..n)).prop_map(
            |(steps, skip)| ScriptCycle {
                steps: steps
                    .into_iter()
                    .enumerate()
                    .map(|(i, (f, bg))| if Some(i) == skip { (0, 0) } else { (f, bg) })
                    .collect(),
            },
        );
        (
            Just(n),
            prop::collection::vec(cycle, 1..6),
            Just(verify),
            Just(smoothing),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_engine_finds_the_scripts_cycles_and_verdicts(
        (n, cycles_in, verify, smoothing) in script(),
        to_step in any::<bool>(),
    ) {
        let mut c = cfg(n);
        c.verify_frames = verify;
        c.smoothing = smoothing;
        c.background_to_step = to_step;
        let mut runs = vec![];
        for cy in &cycles_in {
            for (i, &(f, bg)) in cy.steps.iter().enumerate() {
                if f > 0 {
                    runs.push((Some(i as u32), f));
                    if bg > 0 {
                        runs.push((None, bg));
                    }
                }
            }
        }
        let ev = run(c, &runs);
        let found = cycles(&ev);
        prop_assert_eq!(found.len(), cycles_in.len(), "{:?}", ev);
        for (got, want) in found.iter().zip(&cycles_in) {
            let missed: Vec<BadReason> = want
                .steps
                .iter()
                .enumerate()
                .filter(|(_, s)| s.0 == 0)
                .map(|(i, _)| BadReason::MissedStep { step: i as u32 })
                .collect();
            prop_assert_eq!(&got.reasons, &missed);
            prop_assert_eq!(got.good, missed.is_empty());
        }
        // Cycles never overlap; segments and idle time make up each cycle exactly.
        for w in found.windows(2) {
            prop_assert!(w[0].end_ms <= w[1].start_ms);
        }
        for cy in &found {
            let steps: i64 = cy.segments.iter().map(|s| s.end_ms - s.start_ms).sum();
            prop_assert_eq!(steps + cy.idle_ms, cy.end_ms - cy.start_ms, "{:?}", cy);
            prop_assert!(cy.segments.iter().all(|s| s.start_ms < s.end_ms));
            if to_step {
                prop_assert_eq!(cy.idle_ms, 0);
            }
        }
    }

    #[test]
    fn no_input_panics_or_breaks_the_invariants(
        labels in prop::collection::vec(prop::option::of(0u32..6), 0..400),
        verify in 1usize..5,
        smoothing in 1usize..5,
        strict in any::<bool>(),
    ) {
        let mut c = cfg(5);
        c.verify_frames = verify;
        c.smoothing = smoothing;
        c.strict_order = strict;
        c.max_cycle_ms = 3000;
        let runs: Vec<_> = labels.into_iter().map(|l| (l, 1)).collect();
        let ev = run(c, &runs);
        let found = cycles(&ev);
        for w in found.windows(2) {
            prop_assert!(w[0].end_ms <= w[1].start_ms);
        }
        for cy in &found {
            let steps: i64 = cy.segments.iter().map(|s| s.end_ms - s.start_ms).sum();
            prop_assert_eq!(steps + cy.idle_ms, cy.end_ms - cy.start_ms);
            prop_assert!(cy.end_ms - cy.start_ms <= 3000, "{:?} {:?}", cy, ev);
        }
    }
}

/// `(label, frames)` runs → one-hot probabilities at 10 fps from t = 0 (`steps` + 1
/// classes, background last).
fn one_hot(steps: usize, runs: &[(Option<u32>, usize)]) -> Vec<(i64, Vec<f32>)> {
    let mut t = 0;
    let mut out = vec![];
    for &(label, n) in runs {
        for _ in 0..n {
            let mut p = vec![0.0; steps + 1];
            p[label.map_or(steps, |l| l as usize)] = 1.0;
            out.push((t, p));
            t += FRAME;
        }
    }
    out
}

fn segments_of(cfg: &EngineConfig, frames: &[(i64, Vec<f32>)], end_ms: i64) -> Vec<Segment> {
    step_segments(cfg, frames.iter().map(|(t, p)| (*t, p.as_slice())), end_ms)
}

#[test]
fn step_segments_are_the_confirmed_runs_without_background() {
    let frames = one_hot(2, &[(BG, 3), (S0, 5), (BG, 4), (S1, 6), (BG, 2)]);
    // Verified after 2 frames: each run starts at its first frame and ends where the
    // next confirmed run starts; trailing background is left out.
    assert_eq!(
        segments_of(&cfg(2), &frames, 2000),
        [Segment::new(0, 300, 800), Segment::new(1, 1200, 1800)]
    );
    // A step running to the end ends at the video's end.
    let frames = one_hot(2, &[(S0, 4), (S1, 4)]);
    assert_eq!(
        segments_of(&cfg(2), &frames, 900),
        [Segment::new(0, 0, 400), Segment::new(1, 400, 900)]
    );
    assert_eq!(segments_of(&cfg(2), &[], 1000), []);
}

#[test]
fn step_segments_ignore_flicker_shorter_than_verification() {
    // One frame of step 1 inside step 0: not confirmed, step 0 goes on.
    let frames = one_hot(2, &[(S0, 5), (S1, 1), (S0, 5)]);
    assert_eq!(
        segments_of(&cfg(2), &frames, 1100),
        [Segment::new(0, 0, 1100)]
    );
    // Smoothing over three frames hides a two-frame flicker too.
    let mut c = cfg(2);
    c.smoothing = 3;
    c.verify_frames = 3;
    let frames = one_hot(2, &[(S0, 6), (BG, 1), (S0, 6), (S1, 6)]);
    assert_eq!(
        segments_of(&c, &frames, 1900),
        [Segment::new(0, 0, 1400), Segment::new(1, 1400, 1900)]
    );
}

#[test]
fn step_segments_agree_with_the_engine_on_a_cycle() {
    // The segments of a cycle the engine reports are the step segments in it.
    let runs = [
        (S0, 5),
        (S1, 5),
        (S2, 5),
        (S3, 5),
        (S0, 5),
        (S1, 5),
        (S2, 5),
        (S3, 5),
    ];
    let frames = one_hot(4, &runs);
    let mut c = cfg(4);
    c.start_steps = [0].into();
    let all = segments_of(&c, &frames, 4000);
    let events = run(c, &runs);
    let first = cycles(&events)[0];
    assert_eq!(first.segments, all[..4]);
}

proptest! {
    #[test]
    fn step_segments_stay_in_order_inside_the_video(
        runs in prop::collection::vec((prop::option::of(0u32..3), 1usize..8), 0..30),
        smoothing in 1usize..4,
        verify in 1usize..4,
    ) {
        let mut c = cfg(3);
        c.smoothing = smoothing;
        c.verify_frames = verify;
        let frames = one_hot(3, &runs);
        let end = frames.len() as i64 * FRAME;
        let out = segments_of(&c, &frames, end);
        for s in &out {
            prop_assert!(0 <= s.start_ms && s.start_ms < s.end_ms && s.end_ms <= end, "{s:?}");
            prop_assert!(s.step < 3);
        }
        for w in out.windows(2) {
            prop_assert!(w[0].end_ms <= w[1].start_ms, "{out:?}");
        }
    }
}

#[test]
fn cycles_told_from_outside_follow_the_plc_not_the_steps() {
    // Steps 0..3 go round every 20 frames (2 s); the PLC says start at 0.5 s and 3 s,
    // end at 5 s.
    let mut e = CycleEngine::new(cfg(4));
    e.set_outside(true, true);
    let one = [(S0, 5), (S1, 5), (S2, 5), (S3, 5)];
    let labels: Vec<Option<u32>> = one
        .iter()
        .chain(&one)
        .chain(&one)
        .flat_map(|&(l, n)| std::iter::repeat_n(l, n))
        .collect();
    let mut out = vec![];
    for (i, l) in labels.iter().enumerate() {
        let t = i as i64 * FRAME;
        match t {
            500 | 3_000 => out.extend(e.start_at(t)),
            5_000 => out.extend(e.end_at(t)),
            _ => {}
        }
        out.extend(e.push_label(t, *l));
    }
    out.extend(e.finish(labels.len() as i64 * FRAME));
    let got = cycles(&out);
    // The steps' own starts (at 0, 2 s, 4 s) opened none; the PLC's did.
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[0].start_ms, got[0].end_ms), (500, 3_000));
    assert_eq!((got[1].start_ms, got[1].end_ms), (3_000, 5_000));
    // Step 1 was going on at 0.5 s: it counts, and its time inside the cycle too.
    assert_eq!(got[0].segments[0], Segment::new(1, 500, 1_000));
    assert!(got[0].good, "{:?}", got[0].reasons);
    // Segments and idle time add up to each cycle, as ever.
    for c in &got {
        let busy: i64 = c.segments.iter().map(|s| s.end_ms - s.start_ms).sum();
        assert_eq!(busy + c.idle_ms, c.end_ms - c.start_ms);
    }
    // After the end nothing is open: the steps after 5 s made no cycle.
    assert!(
        out.iter()
            .all(|x| !matches!(x, Event::Cycle(c) if c.start_ms > 5_000))
    );
}

#[test]
fn an_outside_end_closes_what_the_steps_opened_and_an_empty_one_is_rejected() {
    // Steps open cycles; the PLC ends them (not a start step again).
    let mut e = CycleEngine::new(cfg(2));
    e.set_outside(false, true);
    let mut out = vec![];
    let mut t = 0;
    for (l, n) in [(S0, 5), (S1, 5), (S0, 5), (S1, 5)] {
        for _ in 0..n {
            out.extend(e.push_label(t, l));
            t += FRAME;
        }
    }
    assert!(cycles(&out).is_empty(), "step 0 again closed nothing");
    out.extend(e.end_at(t));
    let got = cycles(&out);
    assert_eq!((got.len(), got[0].start_ms, got[0].end_ms), (1, 0, 2_000));
    // Nothing open: an end changes nothing.
    assert!(e.end_at(t + 100).is_empty());
    // A start and an end at the same time: no cycle.
    let mut e = CycleEngine::new(cfg(2));
    e.set_outside(true, true);
    assert!(e.start_at(1_000).is_empty());
    assert_eq!(
        e.end_at(1_000),
        [Event::Rejected {
            start_ms: 1_000,
            end_ms: 1_000
        }]
    );
}
