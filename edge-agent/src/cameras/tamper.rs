//! A camera tampered with: covered (its picture nearly uniform — the lens blocked, or
//! dark) or moved (its view no longer the one it had), either lasting
//! [`Options::after`]. Its step model's output means nothing then, so the status says
//! so and a person reviews it (the cloud's tampering requests). Plain logic: the worker
//! gives it each frame; it answers the faults, and the reference to keep when it takes
//! one.
//!
//! How:
//! - Every [`SAMPLE_MS`] a frame is reduced to a grid of gray block means (at most
//!   [`GRID_W`] × [`GRID_H`]) and the spread (standard deviation) of its pixels' gray.
//! - Covered: the spread under [`Options::covered_spread`].
//! - The background is each block's median over the samples of the last
//!   [`Options::window`]: a hand or a person passing in front of the camera is in few
//!   samples of a block and does not move its median; only a change that stays over
//!   half the window does.
//! - The reference is a background, taken once the samples span a whole window none of
//!   which was covered (the camera has run steadily), kept by the worker in the data
//!   folder so that it survives restarts, and taken anew on the cloud's `rebaseline`.
//! - Moved: the background and the reference, each scaled to its own mean and spread (so
//!   that light turned up or down is not a move), differ by over [`BLOCK_DIFF`] in more
//!   than [`Options::moved_share`] of the blocks. A covered background is not compared.
//!
//! Invariant: a fault's `since` is the sample at which its condition began, kept while
//! it holds; the first sample where it does not ends it.

use std::collections::VecDeque;
use std::time::Duration;

use gemba_shared::api::v1::device::CameraEventKind;
use gemba_shared::mqtt::v1::Fault;
use serde::{Deserialize, Serialize};

/// A frame is sampled at most this often.
pub const SAMPLE_MS: i64 = 500;
/// The grid's most blocks across and down.
pub const GRID_W: usize = 32;
pub const GRID_H: usize = 18;
/// A block differs from the reference by over this many spreads (after scaling).
pub const BLOCK_DIFF: f32 = 0.6;

#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// How long a camera must stay covered or moved before it is reported.
    pub after: Duration,
    /// The background's span (the median's samples).
    pub window: Duration,
    /// A picture whose pixels' gray spreads under this (0–255) is covered.
    pub covered_spread: f32,
    /// The share of blocks that must differ for the view to count as moved.
    pub moved_share: f32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            after: Duration::from_secs(10),
            window: Duration::from_secs(8),
            covered_spread: 6.0,
            moved_share: 0.4,
        }
    }
}

/// The view a camera is compared with: a grid of gray block means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub width: usize,
    pub height: usize,
    /// Row by row, `width × height` means (0–255).
    pub blocks: Vec<f32>,
    /// When it was taken (unix ms).
    pub taken_ms: i64,
}

impl Reference {
    /// Whether it is a grid of its own size (a file read back may not be).
    fn fits(&self, width: usize, height: usize) -> bool {
        self.width == width && self.height == height && self.blocks.len() == width * height
    }
}

/// One frame reduced.
#[derive(Debug, Clone)]
struct Sample {
    t: i64,
    blocks: Vec<f32>,
    spread: f32,
}

#[derive(Debug, Clone)]
pub struct Tamper {
    opts: Options,
    /// The grid of this camera's frames, from the first frame.
    grid: Option<(usize, usize)>,
    samples: VecDeque<Sample>,
    reference: Option<Reference>,
    /// A reference taken and not yet handed to the worker to keep.
    taken: Option<Reference>,
    covered_since: Option<(i64, f32, f32)>,
    /// Since when, and the share of blocks that differed.
    moved_since: Option<(i64, f32)>,
}

impl Tamper {
    /// Watches a camera whose kept reference is `reference` (none yet: it takes one).
    pub fn new(opts: Options, reference: Option<Reference>) -> Tamper {
        Tamper {
            opts,
            grid: None,
            samples: VecDeque::new(),
            reference,
            taken: None,
            covered_since: None,
            moved_since: None,
        }
    }

    /// A frame (`width × height` RGB, row by row) at `now_ms`.
    pub fn frame(&mut self, now_ms: i64, rgb: &[u8], width: usize, height: usize) {
        if width == 0 || height == 0 || rgb.len() < width * height * 3 {
            return;
        }
        if self
            .samples
            .back()
            .is_some_and(|s| now_ms - s.t < SAMPLE_MS)
        {
            return;
        }
        let (gw, gh) = (width.min(GRID_W), height.min(GRID_H));
        if self.grid != Some((gw, gh)) {
            // Another frame size: what was sampled is of another grid.
            self.grid = Some((gw, gh));
            self.samples.clear();
        }
        if self.reference.as_ref().is_some_and(|r| !r.fits(gw, gh)) {
            self.reference = None;
        }
        let sample = reduce(now_ms, rgb, width, height, gw, gh);
        self.samples.push_back(sample);
        let window = self.opts.window.as_millis() as i64;
        while self.samples.front().is_some_and(|s| now_ms - s.t > window) {
            self.samples.pop_front();
        }
        self.judge(now_ms);
    }

    fn judge(&mut self, now_ms: i64) {
        let last = self.samples.back().expect("a sample was just taken");
        let covered = last.spread < self.opts.covered_spread;
        if covered {
            let mean = last.blocks.iter().sum::<f32>() / last.blocks.len() as f32;
            let since = self.covered_since.map_or(now_ms, |(s, _, _)| s);
            self.covered_since = Some((since, last.spread, mean));
        } else {
            self.covered_since = None;
        }
        let steady = self.spans_window() && self.samples.iter().all(|s| !self.is_covered(s));
        let background = self.background();
        if self.reference.is_none() && steady {
            let r = Reference {
                width: self.grid.expect("a grid").0,
                height: self.grid.expect("a grid").1,
                blocks: background.clone(),
                taken_ms: now_ms,
            };
            self.reference = Some(r.clone());
            self.taken = Some(r);
        }
        let share = match &self.reference {
            Some(r) if self.spans_window() && spread(&background) >= self.opts.covered_spread => {
                Some(differing_share(&background, &r.blocks))
            }
            _ => None,
        };
        self.moved_since = match share {
            Some(share) if share > self.opts.moved_share => {
                Some((self.moved_since.map_or(now_ms, |(s, _)| s), share))
            }
            _ => None,
        };
    }

    fn is_covered(&self, s: &Sample) -> bool {
        s.spread < self.opts.covered_spread
    }

    /// Whether the samples cover the whole window (most of it: one sample's time short).
    fn spans_window(&self) -> bool {
        match (self.samples.front(), self.samples.back()) {
            (Some(a), Some(b)) => {
                b.t - a.t >= self.opts.window.as_millis() as i64 - SAMPLE_MS.saturating_mul(2)
            }
            _ => false,
        }
    }

    /// Each block's median over the window's samples.
    fn background(&self) -> Vec<f32> {
        let n = self.samples.back().map_or(0, |s| s.blocks.len());
        let mut column = Vec::with_capacity(self.samples.len());
        (0..n)
            .map(|i| {
                column.clear();
                column.extend(self.samples.iter().map(|s| s.blocks[i]));
                column.sort_by(f32::total_cmp);
                column[column.len() / 2]
            })
            .collect()
    }

    /// The reference taken since last asked, for the worker to keep.
    pub fn take_new_reference(&mut self) -> Option<Reference> {
        self.taken.take()
    }

    /// Takes the view the camera has now as its reference (it was moved on purpose):
    /// the `moved` fault ends. Refused while the camera is covered or has not run a
    /// whole window yet.
    pub fn rebaseline(&mut self, now_ms: i64) -> Result<Reference, String> {
        if self.covered_since.is_some() {
            return Err("the camera is covered: its view cannot become its reference".into());
        }
        if !self.spans_window() {
            return Err(format!(
                "the camera has not run {} s yet: try again in a moment",
                self.opts.window.as_secs()
            ));
        }
        let (width, height) = self.grid.expect("samples have a grid");
        let r = Reference {
            width,
            height,
            blocks: self.background(),
            taken_ms: now_ms,
        };
        self.reference = Some(r.clone());
        self.moved_since = None;
        self.taken = None;
        Ok(r)
    }

    /// The faults that have lasted long enough by `now_ms`.
    pub fn faults(&self, now_ms: i64) -> Vec<Fault> {
        let lasted = |since: i64| now_ms - since >= self.opts.after.as_millis() as i64;
        let mut out = vec![];
        if let Some((since, spread, mean)) = self.covered_since
            && lasted(since)
        {
            out.push(Fault {
                kind: CameraEventKind::Covered,
                since_ms: since,
                detail: Some(format!(
                    "the picture is nearly uniform (gray {mean:.0} ± {spread:.1}) for {} s: \
                     the lens is blocked or it is dark",
                    (now_ms - since) / 1000
                )),
            });
        }
        if let Some((since, share)) = self.moved_since
            && lasted(since)
        {
            out.push(Fault {
                kind: CameraEventKind::Moved,
                since_ms: since,
                detail: Some(format!(
                    "{:.0} % of the view differs from its reference for {} s: the camera \
                     was moved or turned",
                    share * 100.0,
                    (now_ms - since) / 1000
                )),
            });
        }
        out
    }
}

/// A frame's gray block means (a `gw × gh` grid) and its pixels' gray spread.
fn reduce(t: i64, rgb: &[u8], width: usize, height: usize, gw: usize, gh: usize) -> Sample {
    let mut sums = vec![0f64; gw * gh];
    let mut counts = vec![0u32; gw * gh];
    let (mut sum, mut sq) = (0f64, 0f64);
    for y in 0..height {
        let by = y * gh / height;
        for x in 0..width {
            let p = (y * width + x) * 3;
            let gray = (f64::from(rgb[p]) * 0.299
                + f64::from(rgb[p + 1]) * 0.587
                + f64::from(rgb[p + 2]) * 0.114) as f32;
            let b = by * gw + x * gw / width;
            sums[b] += f64::from(gray);
            counts[b] += 1;
            sum += f64::from(gray);
            sq += f64::from(gray) * f64::from(gray);
        }
    }
    let n = (width * height) as f64;
    let mean = sum / n;
    Sample {
        t,
        blocks: sums
            .iter()
            .zip(&counts)
            .map(|(&s, &c)| (s / f64::from(c.max(1))) as f32)
            .collect(),
        spread: (sq / n - mean * mean).max(0.0).sqrt() as f32,
    }
}

/// The spread (standard deviation) of `v`.
fn spread(v: &[f32]) -> f32 {
    let n = v.len().max(1) as f32;
    let mean = v.iter().sum::<f32>() / n;
    (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / n).sqrt()
}

/// The share of blocks of `a` and `b`, each scaled to its mean and spread, that differ
/// by over [`BLOCK_DIFF`].
fn differing_share(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let scaled = |v: &[f32]| {
        let n = v.len() as f32;
        let mean = v.iter().sum::<f32>() / n;
        let s = spread(v).max(1e-3);
        v.iter().map(|x| (x - mean) / s).collect::<Vec<f32>>()
    };
    let (a, b) = (scaled(a), scaled(b));
    let differ = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| (*x - *y).abs() > BLOCK_DIFF)
        .count();
    differ as f32 / a.len() as f32
}

/// The file a camera's reference is kept in, in the agent's data folder.
pub fn reference_path(data: &std::path::Path, camera: &str) -> std::path::PathBuf {
    data.join("tamper").join(format!("{camera}.json"))
}

/// The reference kept at `path`, if any (a file unreadable is none: a new one is taken).
pub fn load_reference(path: &std::path::Path) -> Option<Reference> {
    let bytes = std::fs::read(path).ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(r) => Some(r),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "an unreadable camera reference: a new one is taken");
            None
        }
    }
}

/// Keeps `r` at `path` (written aside, then moved in place).
pub fn save_reference(path: &std::path::Path, r: &Reference) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_vec(r)?)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: usize = 64;
    const H: usize = 48;

    /// A scene: a gray pattern of `seed` (bands and a square), with noise of ±2 levels
    /// that changes with `t`.
    fn scene(seed: usize, t: i64) -> Vec<u8> {
        let mut out = Vec::with_capacity(W * H * 3);
        for y in 0..H {
            for x in 0..W {
                let base = match seed {
                    0 => ((x / 8 + y / 6) % 4) * 50 + 30,
                    // The same bench seen from elsewhere: other bands, other square.
                    _ => ((x / 5 + 2 * (y / 9)) % 5) * 40 + 20,
                };
                let square = if (20..36).contains(&x) && (10..30).contains(&y) {
                    40
                } else {
                    0
                };
                let noise = ((x * 7 + y * 13 + t as usize) % 5) as i32 - 2;
                let v = (base as i32 + square + noise).clamp(0, 255) as u8;
                out.extend([v, v, v]);
            }
        }
        out
    }

    fn shifted(t: i64, dx: usize) -> Vec<u8> {
        let s = scene(0, t);
        let mut out = s.clone();
        for y in 0..H {
            for x in 0..W {
                let from = (y * W + (x + dx) % W) * 3;
                let to = (y * W + x) * 3;
                out[to..to + 3].copy_from_slice(&s[from..from + 3]);
            }
        }
        out
    }

    fn covered(t: i64) -> Vec<u8> {
        (0..W * H)
            .flat_map(|i| {
                let v = 4 + ((i as i64 + t) % 3) as u8;
                [v, v, v]
            })
            .collect()
    }

    fn opts() -> Options {
        Options {
            after: Duration::from_secs(5),
            ..Options::default()
        }
    }

    /// Feeds `frame(t)` every 100 ms from `from` to `to` (ms).
    fn feed(tm: &mut Tamper, from: i64, to: i64, frame: impl Fn(i64) -> Vec<u8>) {
        let mut t = from;
        while t < to {
            tm.frame(t, &frame(t), W, H);
            t += 100;
        }
    }

    fn kinds(tm: &Tamper, now: i64) -> Vec<(CameraEventKind, i64)> {
        tm.faults(now)
            .iter()
            .map(|f| (f.kind, f.since_ms))
            .collect()
    }

    #[test]
    fn a_still_view_takes_its_reference_after_a_window_and_is_never_tampered() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 5_000, |t| scene(0, t));
        assert!(tm.take_new_reference().is_none(), "not a whole window yet");
        feed(&mut tm, 5_000, 60_000, |t| scene(0, t));
        let r = tm.take_new_reference().expect("a reference");
        assert_eq!((r.width, r.height, r.blocks.len()), (32, 18, 32 * 18));
        assert!((7_000..=8_000).contains(&r.taken_ms), "{}", r.taken_ms);
        assert!(tm.take_new_reference().is_none(), "handed over once");
        assert!(kinds(&tm, 60_000).is_empty());
    }

    #[test]
    fn a_covered_lens_is_reported_after_its_time_and_ends_when_uncovered() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 20_000, |t| scene(0, t));
        feed(&mut tm, 20_000, 24_900, covered);
        assert!(kinds(&tm, 24_900).is_empty(), "not yet 5 s");
        feed(&mut tm, 24_900, 40_000, covered);
        let f = tm.faults(40_000);
        assert_eq!(kinds(&tm, 40_000), [(CameraEventKind::Covered, 20_000)]);
        assert!(
            f[0].detail
                .as_deref()
                .unwrap()
                .starts_with("the picture is nearly uniform (gray 5 ± 0.8) for 20 s"),
            "{f:?}"
        );
        // Uncovered, the same view: over at once, and not moved.
        feed(&mut tm, 40_000, 70_000, |t| scene(0, t));
        assert!(kinds(&tm, 70_000).is_empty());
    }

    #[test]
    fn a_camera_covered_from_its_start_takes_no_reference() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 30_000, covered);
        assert!(tm.take_new_reference().is_none());
        assert_eq!(kinds(&tm, 30_000), [(CameraEventKind::Covered, 0)]);
        assert!(tm.rebaseline(30_000).is_err());
    }

    #[test]
    fn a_view_turned_elsewhere_is_moved_after_its_time() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 20_000, |t| scene(0, t));
        feed(&mut tm, 20_000, 60_000, |t| scene(1, t));
        let k = kinds(&tm, 60_000);
        assert_eq!(k.len(), 1, "{k:?}");
        assert_eq!(k[0].0, CameraEventKind::Moved);
        // The background follows the new view after half a window.
        assert!((23_000..=25_000).contains(&k[0].1), "{k:?}");
        let f = &tm.faults(60_000)[0];
        assert!(
            f.detail.as_deref().unwrap().contains("of the view differs"),
            "{f:?}"
        );
    }

    #[test]
    fn a_view_shifted_by_a_quarter_is_moved() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 20_000, |t| scene(0, t));
        feed(&mut tm, 20_000, 60_000, |t| shifted(t, W / 4));
        assert_eq!(
            kinds(&tm, 60_000).first().map(|k| k.0),
            Some(CameraEventKind::Moved)
        );
    }

    #[test]
    fn brighter_light_is_not_a_move() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 20_000, |t| scene(0, t));
        feed(&mut tm, 20_000, 60_000, |t| {
            scene(0, t)
                .into_iter()
                .map(|v| (f32::from(v) * 1.1 + 10.0).min(255.0) as u8)
                .collect()
        });
        assert!(kinds(&tm, 60_000).is_empty());
    }

    #[test]
    fn a_hand_passing_through_the_view_does_not_count() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 20_000, |t| scene(0, t));
        // A pale sleeve over 44 % of the frame, sweeping across and round again and again
        // for 40 s: at any moment many blocks differ, but each block shows the bench
        // most of the time.
        feed(&mut tm, 20_000, 60_000, |t| {
            let mut f = scene(0, t);
            let left = ((t - 20_000) / 100 * 7) as usize;
            for y in 0..H {
                for dx in 0..28 {
                    let p = (y * W + (left + dx) % W) * 3;
                    f[p..p + 3].copy_from_slice(&[250, 245, 240]);
                }
            }
            f
        });
        assert!(kinds(&tm, 60_000).is_empty(), "{:?}", tm.faults(60_000));
    }

    #[test]
    fn rebaseline_takes_the_new_view_and_ends_moved() {
        let mut tm = Tamper::new(opts(), None);
        feed(&mut tm, 0, 20_000, |t| scene(0, t));
        feed(&mut tm, 20_000, 40_000, |t| scene(1, t));
        assert_eq!(kinds(&tm, 40_000).len(), 1);
        let r = tm.rebaseline(40_000).unwrap();
        assert_eq!(r.taken_ms, 40_000);
        assert!(kinds(&tm, 40_000).is_empty());
        feed(&mut tm, 40_000, 80_000, |t| scene(1, t));
        assert!(kinds(&tm, 80_000).is_empty());
        // Back to the old view: that is a move now.
        feed(&mut tm, 80_000, 100_000, |t| scene(0, t));
        assert_eq!(kinds(&tm, 100_000)[0].0, CameraEventKind::Moved);
    }

    #[test]
    fn a_kept_reference_is_compared_from_the_start_and_survives_a_file() {
        let mut first = Tamper::new(opts(), None);
        feed(&mut first, 0, 20_000, |t| scene(0, t));
        let r = first.take_new_reference().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = reference_path(dir.path(), "cam0");
        save_reference(&path, &r).unwrap();
        let back = load_reference(&path).unwrap();
        assert_eq!(back, r);
        // Started again facing elsewhere: moved, with no new reference taken.
        let mut again = Tamper::new(opts(), Some(back));
        feed(&mut again, 0, 30_000, |t| scene(1, t));
        assert!(again.take_new_reference().is_none());
        assert_eq!(kinds(&again, 30_000)[0].0, CameraEventKind::Moved);
        std::fs::write(&path, b"not json").unwrap();
        assert!(load_reference(&path).is_none());
    }
}
