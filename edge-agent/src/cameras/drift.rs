//! Drift: whether a camera's model has become unsure of what it sees (issue 26), so a
//! person can add video and retrain before cycles go wrong. Plain logic, fed by the
//! camera's thread with each inferred frame; no I/O.
//!
//! A frame is *unsure* when its most likely label's probability is under
//! [`UNSURE_BELOW`], or when its light is more than [`LIGHT_STOPS`] stops (a factor of
//! two) from the light at which the model was last sure: a model is often confidently
//! wrong outside the light it learnt (measured: the default demo model says
//! "background" with a probability of 1.00 for every frame once the light falls to 30%
//! or less), so its probabilities alone would not show that drift. Over a sliding window (a minute by default) the state keeps the
//! share of unsure frames and the frames' mean brightness (luma 0–255 of the RGB the
//! model sees). The model is *unsure since T* once the share has stayed over
//! [`RISE`] from T for the sustain time (two minutes by default); it is sure again
//! once the share has stayed under [`CLEAR`] for the sustain time (hysteresis in level
//! and time: a share hovering at the threshold neither flaps nor raises events).
//!
//! Invariants: the window holds at most `window / BUCKET_MS + 1` buckets whatever the
//! frame rate; no figure is given before [`MIN_FRAMES`] frames are in the window; the
//! figures of "when it was sure" are the window's last ones whose share was under
//! [`CLEAR`] (kept through an event, so the page can show the light that fell).

use std::collections::VecDeque;
use std::time::Duration;

pub use gemba_shared::mqtt::v1::UNSURE_BELOW;

/// The unsure share over which (sustained) the model is unsure.
pub const RISE: f32 = 0.30;
/// The unsure share under which (sustained) it is sure again.
pub const CLEAR: f32 = 0.15;
/// How far (in stops: doublings or halvings, of luma + [`LIGHT_FLOOR`]) a frame's
/// light may be from the light at which the model was last sure.
pub const LIGHT_STOPS: f32 = 1.0;
/// Added to the luma before comparing lights, so that sensor noise in the dark is not
/// a change of light.
pub const LIGHT_FLOOR: f32 = 8.0;
/// Fewest frames in the window to say anything.
pub const MIN_FRAMES: u32 = 10;
/// The window's granularity.
const BUCKET_MS: i64 = 250;

/// How long the window is and how long a rise (or a fall) must last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub window: Duration,
    pub sustain: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            window: Duration::from_secs(60),
            sustain: Duration::from_secs(120),
        }
    }
}

/// A window's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Share of unsure frames, 0–1.
    pub unsure_share: f32,
    /// Mean luma, 0–255.
    pub brightness: f32,
}

/// What the status says of a camera's drift.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Report {
    /// The window now (`None` until it holds [`MIN_FRAMES`] frames).
    pub now: Option<Figures>,
    pub unsure_since_ms: Option<i64>,
    /// The window when the model was last sure.
    pub sure: Option<Figures>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Its start, a multiple of [`BUCKET_MS`].
    t_ms: i64,
    frames: u32,
    unsure: u32,
    luma: f64,
}

/// One camera's drift state.
#[derive(Debug, Clone)]
pub struct Drift {
    opts: Options,
    buckets: VecDeque<Bucket>,
    frames: u32,
    unsure: u32,
    luma: f64,
    /// The share has been over [`RISE`] since then (while sure).
    above_since: Option<i64>,
    /// The share has been under [`CLEAR`] since then (while unsure).
    below_since: Option<i64>,
    unsure_since: Option<i64>,
    sure: Option<Figures>,
}

impl Drift {
    pub fn new(opts: Options) -> Drift {
        Drift {
            opts,
            buckets: VecDeque::new(),
            frames: 0,
            unsure: 0,
            luma: 0.0,
            above_since: None,
            below_since: None,
            unsure_since: None,
            sure: None,
        }
    }

    /// Forgets everything (another model: its certainty is another matter).
    pub fn reset(&mut self) {
        *self = Drift::new(self.opts);
    }

    /// One inferred frame at `t_ms` (the device's clock): its labels' probabilities
    /// and its mean brightness.
    pub fn frame(&mut self, t_ms: i64, probs: &[f32], brightness: f32) {
        let unsure = top_probability(probs) < UNSURE_BELOW
            || self
                .sure
                .is_some_and(|s| !same_light(s.brightness, brightness));
        let start = t_ms - t_ms.rem_euclid(BUCKET_MS);
        match self.buckets.back_mut() {
            Some(b) if b.t_ms >= start => {
                b.frames += 1;
                b.unsure += u32::from(unsure);
                b.luma += f64::from(brightness);
            }
            _ => self.buckets.push_back(Bucket {
                t_ms: start,
                frames: 1,
                unsure: u32::from(unsure),
                luma: f64::from(brightness),
            }),
        }
        self.frames += 1;
        self.unsure += u32::from(unsure);
        self.luma += f64::from(brightness);
        let window = i64::try_from(self.opts.window.as_millis()).unwrap_or(i64::MAX);
        while let Some(old) = self.buckets.front().copied() {
            if old.t_ms + BUCKET_MS > t_ms.saturating_sub(window) {
                break;
            }
            self.buckets.pop_front();
            self.frames -= old.frames;
            self.unsure -= old.unsure;
            self.luma -= old.luma;
        }
        self.decide(t_ms);
    }

    fn figures(&self) -> Option<Figures> {
        (self.frames >= MIN_FRAMES).then(|| Figures {
            unsure_share: self.unsure as f32 / self.frames as f32,
            brightness: (self.luma / f64::from(self.frames)).clamp(0.0, 255.0) as f32,
        })
    }

    fn decide(&mut self, t_ms: i64) {
        let Some(f) = self.figures() else {
            return;
        };
        let sustain = i64::try_from(self.opts.sustain.as_millis()).unwrap_or(i64::MAX);
        match self.unsure_since {
            None => {
                if f.unsure_share > RISE {
                    let since = *self.above_since.get_or_insert(t_ms);
                    if t_ms - since >= sustain {
                        self.unsure_since = Some(since);
                        self.below_since = None;
                    }
                } else {
                    self.above_since = None;
                    if f.unsure_share < CLEAR {
                        self.sure = Some(f);
                    }
                }
            }
            Some(_) => {
                if f.unsure_share < CLEAR {
                    let since = *self.below_since.get_or_insert(t_ms);
                    if t_ms - since >= sustain {
                        self.unsure_since = None;
                        self.above_since = None;
                        self.sure = Some(f);
                    }
                } else {
                    self.below_since = None;
                }
            }
        }
    }

    pub fn report(&self) -> Report {
        Report {
            now: self.figures(),
            unsure_since_ms: self.unsure_since,
            sure: self.sure,
        }
    }
}

/// The most likely label's probability. A model that gives scores rather than
/// probabilities (not summing to 1) has them turned into probabilities first.
pub fn top_probability(probs: &[f32]) -> f32 {
    let max = probs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return 0.0;
    }
    let sum: f32 = probs.iter().sum();
    if (sum - 1.0).abs() <= 0.01 && probs.iter().all(|p| *p >= 0.0) {
        return max;
    }
    // Softmax's top: 1 / Σ exp(x - max).
    1.0 / probs.iter().map(|x| (x - max).exp()).sum::<f32>()
}

/// Whether a frame of luma `b` is in the light of `reference` (within [`LIGHT_STOPS`]).
pub fn same_light(reference: f32, b: f32) -> bool {
    ((b + LIGHT_FLOOR) / (reference + LIGHT_FLOOR)).log2().abs() <= LIGHT_STOPS
}

/// The mean luma (BT.601, 0–255) of an RGB frame.
pub fn brightness(rgb: &[u8]) -> f32 {
    let px = rgb.chunks_exact(3);
    let n = px.len();
    if n == 0 {
        return 0.0;
    }
    let sum: u64 = px
        .map(|p| 299 * u64::from(p[0]) + 587 * u64::from(p[1]) + 114 * u64::from(p[2]))
        .sum();
    (sum as f64 / 1000.0 / n as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    const SURE: [f32; 3] = [0.9, 0.05, 0.05];
    const UNSURE: [f32; 3] = [0.4, 0.35, 0.25];

    fn opts() -> Options {
        Options {
            window: Duration::from_secs(10),
            sustain: Duration::from_secs(20),
        }
    }

    /// Feeds `secs` seconds of frames at 10 fps from `t` on; answers the next time.
    fn feed(d: &mut Drift, t: i64, secs: i64, probs: &[f32], light: f32) -> i64 {
        let mut t = t;
        for _ in 0..secs * 10 {
            d.frame(t, probs, light);
            t += 100;
        }
        t
    }

    #[test]
    fn nothing_is_said_before_enough_frames() {
        let mut d = Drift::new(opts());
        for i in 0..MIN_FRAMES - 1 {
            d.frame(i64::from(i) * 100, &UNSURE, 10.0);
        }
        assert_eq!(d.report(), Report::default());
        d.frame(1000, &UNSURE, 10.0);
        let now = d.report().now.unwrap();
        assert_eq!(now.unsure_share, 1.0);
        assert_eq!(now.brightness, 10.0);
    }

    #[test]
    fn a_sustained_rise_is_unsure_since_it_began_and_remembers_when_it_was_sure() {
        let mut d = Drift::new(opts());
        let t = feed(&mut d, 0, 30, &SURE, 120.0);
        let r = d.report();
        assert_eq!(r.now.unwrap().unsure_share, 0.0);
        assert_eq!(r.sure.unwrap().brightness, 120.0);
        assert_eq!(r.unsure_since_ms, None);
        // It darkens: the share climbs through the window, over RISE after 3 s.
        let dark = t;
        let t = feed(&mut d, t, 15, &UNSURE, 8.0);
        assert_eq!(d.report().unsure_since_ms, None, "not sustained yet");
        let t = feed(&mut d, t, 10, &UNSURE, 8.0);
        let r = d.report();
        let since = r.unsure_since_ms.expect("sustained for 20 s");
        assert!(since > dark && since <= dark + 4000, "{since} after {dark}");
        assert_eq!(r.now.unwrap().unsure_share, 1.0);
        assert_eq!(r.now.unwrap().brightness, 8.0);
        let sure = r.sure.unwrap();
        assert!(
            sure.unsure_share < CLEAR && sure.brightness > 100.0,
            "{sure:?}"
        );
        // Light again: it clears only once the share stayed low for the sustain time.
        let t = feed(&mut d, t, 15, &SURE, 120.0);
        assert_eq!(d.report().unsure_since_ms, Some(since));
        feed(&mut d, t, 20, &SURE, 120.0);
        let r = d.report();
        assert_eq!(r.unsure_since_ms, None);
        assert_eq!(r.sure.unwrap().brightness, 120.0);
    }

    #[test]
    fn a_share_hovering_between_the_thresholds_neither_raises_nor_clears() {
        let mut d = Drift::new(opts());
        // Every 4th frame unsure: 25%, under RISE.
        let mut t = 0;
        for i in 0..600 {
            d.frame(t, if i % 4 == 0 { &UNSURE } else { &SURE }, 50.0);
            t += 100;
        }
        assert_eq!(d.report().unsure_since_ms, None);
        // Unsure for good, then back to 25%: still unsure (over CLEAR).
        t = feed(&mut d, t, 40, &UNSURE, 50.0);
        let since = d.report().unsure_since_ms.unwrap();
        for i in 0..600 {
            d.frame(t, if i % 4 == 0 { &UNSURE } else { &SURE }, 50.0);
            t += 100;
        }
        assert_eq!(d.report().unsure_since_ms, Some(since));
    }

    #[test]
    fn a_model_sure_in_the_dark_is_unsure_by_its_light_and_a_smaller_change_is_not_drift() {
        let mut d = Drift::new(opts());
        let t = feed(&mut d, 0, 20, &SURE, 90.0);
        // Two thirds of the light: within a stop, nothing.
        let t = feed(&mut d, t, 40, &SURE, 60.0);
        assert_eq!(d.report().unsure_since_ms, None);
        assert_eq!(d.report().sure.unwrap().brightness, 60.0);
        // Near black, the model as sure as ever: its frames count as unsure.
        let dark = t;
        let t = feed(&mut d, t, 30, &SURE, 4.0);
        let r = d.report();
        assert!(r.unsure_since_ms.is_some_and(|s| s > dark), "{r:?}");
        assert_eq!(r.now.unwrap().unsure_share, 1.0);
        assert!(r.sure.unwrap().brightness > 50.0, "{r:?}");
        // The light back: sure again.
        feed(&mut d, t, 40, &SURE, 62.0);
        assert_eq!(d.report().unsure_since_ms, None);
        assert!(same_light(4.0, 12.0) && !same_light(4.0, 30.0) && !same_light(90.0, 40.0));
    }

    #[test]
    fn a_short_dip_raises_nothing() {
        let mut d = Drift::new(opts());
        let t = feed(&mut d, 0, 20, &SURE, 100.0);
        let t = feed(&mut d, t, 5, &UNSURE, 5.0);
        feed(&mut d, t, 30, &SURE, 100.0);
        assert_eq!(d.report().unsure_since_ms, None);
    }

    #[test]
    fn the_window_forgets_old_frames_and_stays_bounded_at_any_rate() {
        let mut d = Drift::new(opts());
        // 1000 fps for 30 s.
        for i in 0..30_000 {
            d.frame(i, &SURE, 200.0);
        }
        assert!(d.buckets.len() <= 41, "{}", d.buckets.len());
        assert!(d.frames <= 10_250, "{}", d.frames);
        // A gap: the old frames are gone at the next one.
        for i in 0..MIN_FRAMES {
            d.frame(100_000 + i64::from(i), &UNSURE, 0.0);
        }
        assert_eq!(d.report().now.unwrap().unsure_share, 1.0);
        d.reset();
        assert_eq!(d.report(), Report::default());
    }

    #[test]
    fn scores_are_read_as_probabilities_and_brightness_is_luma() {
        assert_eq!(top_probability(&SURE), 0.9);
        // Logits: the top one well ahead is sure, close ones are not.
        assert!(top_probability(&[8.0, 0.0, -1.0]) > 0.99);
        assert!(top_probability(&[1.0, 0.9, 0.8]) < UNSURE_BELOW);
        assert_eq!(top_probability(&[]), 0.0);
        assert_eq!(brightness(&[255, 255, 255, 0, 0, 0]), 127.5);
        assert!((brightness(&[0, 255, 0]) - 149.685).abs() < 0.01);
        assert_eq!(brightness(&[]), 0.0);
    }
}
