//! The task's frame rate, kept in the agent rather than by GStreamer's `videorate`:
//! a frame is kept when it opens a new slot of the rate's grid, with a tenth of a frame
//! of give, so a source at the task's own rate whose times jitter (a camera's clock, a
//! WebM file's times rounded to the millisecond) keeps every frame. `videorate` in its
//! drop-only mode dropped such a frame whenever one landed a hair before its slot (a
//! 15 fps WebM file read at 15 fps lost about a frame a second in one of five reads).

/// Which frames of a source to keep for a rate of `fps`.
#[derive(Debug)]
pub(super) struct Rate {
    /// A frame's length at the rate, in milliseconds.
    period: f64,
    /// The slot of the last frame kept.
    last: Option<i64>,
}

impl Rate {
    pub(super) fn new(fps: u32) -> Rate {
        Rate {
            period: 1000.0 / f64::from(fps.max(1)),
            last: None,
        }
    }

    /// Whether the frame at `t_ms` (times that never go back: a source's running time
    /// placed onward across its loops) is kept.
    pub(super) fn keep(&mut self, t_ms: i64) -> bool {
        let slot = ((t_ms as f64 + self.period / 10.0) / self.period).floor() as i64;
        if self.last.is_some_and(|last| slot <= last) {
            return false;
        }
        self.last = Some(slot);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Rate;

    fn kept(fps: u32, times: impl IntoIterator<Item = i64>) -> Vec<i64> {
        let mut r = Rate::new(fps);
        times.into_iter().filter(|t| r.keep(*t)).collect()
    }

    #[test]
    fn a_source_at_the_rate_keeps_every_frame_though_its_times_jitter() {
        // 15 fps rounded to the millisecond, as WebM keeps them.
        let webm: Vec<i64> = (0..45).map(|i| (i * 1000) / 15).collect();
        assert_eq!(kept(15, webm.clone()), webm);
        // A camera's clock a few milliseconds either way.
        let jitter: Vec<i64> = (0..45)
            .map(|i| i * 1000 / 15 + [0, -4, 3, -2, 5][i as usize % 5])
            .collect();
        assert_eq!(kept(15, jitter.clone()).len(), 45);
    }

    #[test]
    fn a_faster_source_is_brought_down_to_the_rate() {
        // 30 fps to 15: every other frame.
        let thirty: Vec<i64> = (0..60).map(|i| i * 1000 / 30).collect();
        let k = kept(15, thirty.clone());
        assert_eq!(k, thirty.iter().copied().step_by(2).collect::<Vec<_>>());
        // 25 fps to 15: fifteen of every second's twenty-five.
        let k = kept(15, (0..250).map(|i| i * 40));
        assert_eq!(k.len(), 150, "{k:?}");
        // Spread out: one or two of the source's frames apart, never both of a slot.
        assert!(
            k.windows(2).all(|w| (40..=80).contains(&(w[1] - w[0]))),
            "{k:?}"
        );
    }

    #[test]
    fn a_slower_source_keeps_every_frame_and_a_stall_loses_none_after() {
        let five: Vec<i64> = (0..20).map(|i| i * 200).collect();
        assert_eq!(kept(15, five.clone()), five);
        // Frames after a gap of seconds are kept as they come.
        assert_eq!(
            kept(15, [0, 67, 3000, 3067, 3133]),
            [0, 67, 3000, 3067, 3133]
        );
        // The same time twice: the second goes.
        assert_eq!(kept(15, [0, 67, 67, 133]), [0, 67, 133]);
    }
}
