//! A running camera's picture and pace (issue 30): frozen when its frames have not
//! changed at all for [`Options::frozen_after`], slow when they come at under
//! [`Options::fps_floor`] for [`Options::slow_after`]. Plain logic: the worker gives it
//! each frame and each frame rate it measures, and reports what it answers.
//!
//! "Not changed at all": the mean absolute difference of a sample of the frame's bytes
//! from the last frame's is under [`STILL`] (a level in 20 on average). A live sensor
//! watching a still scene has noise well above that; a stuck camera or encoder repeats
//! its last picture exactly.

use std::time::Duration;

use gemba_shared::api::v1::device::CameraEventKind;
use gemba_shared::mqtt::v1::Fault;

/// The largest mean difference (0–255) between two frames that counts as none.
pub const STILL: f64 = 0.05;
/// Every this many bytes of a frame are compared.
const STRIDE: usize = 3;

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub frozen_after: Duration,
    pub slow_after: Duration,
    /// Frames a second under which the camera is slow (0: never).
    pub fps_floor: f32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            frozen_after: Duration::from_secs(30),
            slow_after: Duration::from_secs(30),
            fps_floor: 0.0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Vitals {
    opts: Options,
    last: Vec<u8>,
    still_since: Option<i64>,
    slow_since: Option<(i64, f32)>,
}

impl Vitals {
    pub fn new(opts: Options) -> Vitals {
        Vitals {
            opts,
            last: vec![],
            still_since: None,
            slow_since: None,
        }
    }

    /// A frame (its bytes) at `now_ms`.
    pub fn frame(&mut self, now_ms: i64, bytes: &[u8]) {
        let sample: Vec<u8> = bytes.iter().step_by(STRIDE).copied().collect();
        let same = sample.len() == self.last.len() && !sample.is_empty() && {
            let diff: u64 = sample
                .iter()
                .zip(&self.last)
                .map(|(&a, &b)| u64::from(a.abs_diff(b)))
                .sum();
            (diff as f64 / sample.len() as f64) <= STILL
        };
        if same {
            self.still_since.get_or_insert(now_ms);
        } else {
            self.still_since = None;
        }
        self.last = sample;
    }

    /// The frame rate measured at `now_ms`.
    pub fn rate(&mut self, now_ms: i64, fps: f32) {
        if fps < self.opts.fps_floor {
            let since = self.slow_since.map_or(now_ms, |(s, _)| s);
            self.slow_since = Some((since, fps));
        } else {
            self.slow_since = None;
        }
    }

    /// The faults that have lasted long enough by `now_ms`.
    pub fn faults(&self, now_ms: i64) -> Vec<Fault> {
        let lasted = |since: i64, d: Duration| now_ms - since >= d.as_millis() as i64;
        let mut out = vec![];
        if let Some(since) = self.still_since
            && lasted(since, self.opts.frozen_after)
        {
            out.push(Fault {
                kind: CameraEventKind::Frozen,
                since_ms: since,
                detail: Some(format!(
                    "the picture has not changed for {} s",
                    (now_ms - since) / 1000
                )),
            });
        }
        if let Some((since, fps)) = self.slow_since
            && lasted(since, self.opts.slow_after)
        {
            out.push(Fault {
                kind: CameraEventKind::Slow,
                since_ms: since,
                detail: Some(format!(
                    "{fps:.1} frames a second, under the floor of {:.1}",
                    self.opts.fps_floor
                )),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            frozen_after: Duration::from_secs(10),
            slow_after: Duration::from_secs(5),
            fps_floor: 7.5,
        }
    }

    #[test]
    fn a_picture_that_stays_exactly_the_same_is_frozen_after_its_time() {
        let mut v = Vitals::new(opts());
        let still = vec![100u8; 300];
        for t in 0..=10 {
            v.frame(t * 1000, &still);
        }
        // Identical since the second frame (t = 1 s): frozen at 11 s, not before.
        assert!(v.faults(10_999).is_empty());
        let f = v.faults(11_000);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].kind, f[0].since_ms), (CameraEventKind::Frozen, 1_000));
        // One frame with noise (a level here and there) ends it.
        let mut noisy = still.clone();
        for i in (0..300).step_by(9) {
            noisy[i] = 103;
        }
        v.frame(12_000, &noisy);
        assert!(v.faults(60_000).is_empty());
    }

    #[test]
    fn a_live_sensors_noise_on_a_still_scene_is_not_frozen() {
        let mut v = Vitals::new(opts());
        // ±1 level on every sampled byte, alternating: a mean difference of 1.
        for t in 0..100 {
            let frame: Vec<u8> = (0..300).map(|i| 100 + ((i + t) % 2) as u8).collect();
            v.frame(t * 1000, &frame);
        }
        assert!(v.faults(100_000).is_empty());
    }

    #[test]
    fn a_rate_under_the_floor_is_slow_after_its_time_and_recovers() {
        let mut v = Vitals::new(opts());
        v.rate(0, 15.0);
        v.rate(1_000, 5.0);
        v.rate(3_000, 4.0);
        assert!(v.faults(5_999).is_empty());
        let f = v.faults(6_000);
        assert_eq!((f[0].kind, f[0].since_ms), (CameraEventKind::Slow, 1_000));
        assert_eq!(
            f[0].detail.as_deref(),
            Some("4.0 frames a second, under the floor of 7.5")
        );
        v.rate(7_000, 14.0);
        assert!(v.faults(60_000).is_empty());
        // No floor: never slow.
        let mut never = Vitals::new(Options::default());
        never.rate(0, 0.1);
        assert!(never.faults(1_000_000).is_empty());
    }
}
