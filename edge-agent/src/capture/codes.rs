//! The barcode branch (issue 31): the camera's frames as grayscale at a size where a
//! label is readable (the camera's own, at most [`MAX_SIDE`] pixels a side; the task's
//! frames are the model's size, far too small), a few a second.
//!
//! `tee → queue (leaky) → [sampler] → videoconvert → videoscale → GRAY8 → appsink`
//!
//! The queue is leaky and the sink keeps the newest frame only, so a slow reader never
//! holds up the task's frames. The [`Sampler`] runs on the queue's output, on each
//! frame's time stamp, before the conversion: the frames it passes over cost nothing
//! but the queue. Whoever reads ([`Codes::next`], from a thread of its own:
//! `crate::cameras::barcode::feed`) gets the newest frame sampled.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::anyhow;
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;
use gstreamer_video as gst_video;

use crate::cameras::barcode::Sampler;
use crate::clock::now_ms;

/// The longest side of a frame read for barcodes, in pixels: a 1080p camera's frames are
/// read at 1280 × 720 (a label's modules stay a few pixels wide), smaller ones as they
/// come.
pub const MAX_SIDE: u32 = 1280;

/// The branch, after the tee (`t.`).
pub fn branch() -> String {
    format!(
        " t. ! queue name=codequeue leaky=downstream max-size-buffers=2 max-size-bytes=0 \
         max-size-time=0 ! videoconvert ! videoscale \
         ! video/x-raw,format=GRAY8,width=[16,{MAX_SIDE}],height=[16,{MAX_SIDE}],\
         pixel-aspect-ratio=1/1 \
         ! appsink name=codesink sync=false async=false drop=true max-buffers=1"
    )
}

/// One grayscale frame: `width × height` bytes, rows top to bottom without padding.
pub struct Gray {
    /// The wall clock at real time; the frame's time stamp in its file when fast.
    pub t_ms: i64,
    pub width: u32,
    pub height: u32,
    pub luma: Vec<u8>,
}

/// The branch's frames, to read from another thread than the task's.
#[derive(Clone)]
pub struct Codes {
    sink: gst_app::AppSink,
    fast: bool,
}

/// Installs the sampler on the branch of `pipeline` (built with [`branch`]).
pub(super) fn install(pipeline: &gst::Pipeline, fast: bool) -> anyhow::Result<Codes> {
    let queue = pipeline
        .by_name("codequeue")
        .ok_or_else(|| anyhow!("the barcode queue is missing"))?;
    let sampler = Arc::new(Mutex::new(Sampler::default()));
    queue
        .static_pad("src")
        .expect("a queue has a source pad")
        .add_probe(gst::PadProbeType::BUFFER, move |_, info| {
            let t = match &info.data {
                Some(gst::PadProbeData::Buffer(b)) => b.pts().map_or(0, |p| p.mseconds() as i64),
                _ => return gst::PadProbeReturn::Ok,
            };
            if sampler.lock().expect("sampler lock").due(t) {
                gst::PadProbeReturn::Ok
            } else {
                gst::PadProbeReturn::Drop
            }
        });
    let sink = pipeline
        .by_name("codesink")
        .ok_or_else(|| anyhow!("the barcode sink is missing"))?
        .downcast::<gst_app::AppSink>()
        .map_err(|_| anyhow!("the barcode sink is not an appsink"))?;
    Ok(Codes { sink, fast })
}

impl Codes {
    /// The newest sampled frame, waiting up to `wait` for one; `None` meanwhile, and
    /// once the capture is closed.
    pub fn next(&self, wait: Duration) -> Option<Gray> {
        let sample = self
            .sink
            .try_pull_sample(gst::ClockTime::from_nseconds(wait.as_nanos() as u64))?;
        let info = gst_video::VideoInfo::from_caps(sample.caps()?).ok()?;
        let buffer = sample.buffer()?;
        let map = buffer.map_readable().ok()?;
        let (width, height) = (info.width(), info.height());
        let stride = info.stride()[0] as usize;
        let luma = packed(map.as_slice(), width as usize, height as usize, stride)?;
        let t_ms = if self.fast {
            buffer.pts().map_or(0, |p| p.mseconds() as i64)
        } else {
            now_ms()
        };
        Some(Gray {
            t_ms,
            width,
            height,
            luma,
        })
    }
}

/// The `height` rows of `width` bytes of `data` (rows `stride` bytes apart) without
/// their padding; `None` when `data` is too short.
fn packed(data: &[u8], width: usize, height: usize, stride: usize) -> Option<Vec<u8>> {
    if stride < width || data.len() < stride * height.saturating_sub(1) + width {
        return None;
    }
    if stride == width {
        return Some(data[..width * height].to_vec());
    }
    let mut out = Vec::with_capacity(width * height);
    for row in data.chunks(stride).take(height) {
        out.extend_from_slice(&row[..width]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::packed;
    use crate::capture::{Capture, Options, Source, make_video, recording};

    /// The gray frame the barcode branch holds once a file of `caps` was read to its end
    /// for a task of 32 × 24 frames.
    fn last_gray(caps: &str) -> super::Gray {
        let dir = tempfile::tempdir().unwrap();
        let path = dir
            .path()
            .join(format!("v.{}", crate::capture::recording_format()));
        make_video(&path, 15, caps, recording::encoding());
        let opts = Options {
            barcodes: true,
            ..Options::every_frame(32, 24)
        };
        let mut cap = Capture::open(&Source::File(path), opts).unwrap();
        let codes = cap.codes().expect("asked for");
        let mut n = 0;
        while let Some(f) = cap.next_frame().unwrap() {
            assert_eq!(
                f.rgb.len(),
                32 * 24 * 3,
                "the task's frames stay the model's size"
            );
            n += 1;
        }
        assert_eq!(n, 15);
        codes.next(Duration::from_secs(5)).expect("a frame sampled")
    }

    #[test]
    fn the_branch_gives_gray_frames_at_a_readable_size() {
        let g = last_gray("video/x-raw,width=160,height=120,framerate=15/1");
        assert_eq!((g.width, g.height, g.luma.len()), (160, 120, 160 * 120));
        assert!((0..1000).contains(&g.t_ms), "the file's time: {}", g.t_ms);
        // A 1080p camera's frames are read at 1280 × 720.
        let g = last_gray("video/x-raw,width=1920,height=1080,framerate=15/1");
        assert_eq!((g.width, g.height, g.luma.len()), (1280, 720, 1280 * 720));
    }

    #[test]
    fn rows_lose_their_padding() {
        // 3 × 2 with rows 4 bytes apart (GRAY8 rows are padded to 4 bytes).
        let data = [1, 2, 3, 0, 4, 5, 6, 0];
        assert_eq!(packed(&data, 3, 2, 4), Some(vec![1, 2, 3, 4, 5, 6]));
        // The last row's padding may be missing.
        assert_eq!(packed(&data[..7], 3, 2, 4), Some(vec![1, 2, 3, 4, 5, 6]));
        assert_eq!(packed(&[1, 2, 3, 4], 2, 2, 2), Some(vec![1, 2, 3, 4]));
        assert_eq!(packed(&data[..6], 3, 2, 4), None, "too short");
    }
}
