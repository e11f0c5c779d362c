//! Privacy blur (issue 29): rectangles of a camera's frame made unreadable on the device,
//! before the capture's `tee`, so no branch (the task's frames, live view, clips,
//! recordings, screenshots) ever has their pixels. Each rectangle, grown to even edges
//! ([`area`]), is pixelated: cut into blocks of at least [`MIN_BLOCK`] pixels (an
//! eighth of the rectangle's longer side when larger, even), each block filled with its
//! mean, in all three planes of I420.
//! The regions of a camera are shared ([`Regions`]) and read per frame, so a change
//! from the cloud applies to a running camera at its next frame.

use std::sync::{Arc, RwLock};

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_video as gst_video;
use gstreamer_video::prelude::*;

/// The smallest block, in luma pixels.
pub const MIN_BLOCK: usize = 16;

/// A rectangle of the frame in fractions 0–1 of its width and height, from the top left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// A camera's blur regions, shared between the agent (which sets them) and the
/// capture's pipeline (which reads them each frame).
#[derive(Debug, Clone, Default)]
pub struct Regions(Arc<RwLock<Vec<Rect>>>);

impl Regions {
    pub fn set(&self, rects: Vec<Rect>) {
        *self.0.write().expect("blur lock") = rects;
    }

    pub fn is_empty(&self) -> bool {
        self.0.read().expect("blur lock").is_empty()
    }

    pub fn get(&self) -> Vec<Rect> {
        self.0.read().expect("blur lock").clone()
    }
}

/// The pipeline's part that [`install`] hooks: raw video in I420, whatever the source
/// gave, through an element named `blur`.
pub const HEAD: &str = "videoconvert ! video/x-raw,format=I420 ! identity name=blur";

/// Blurs each frame through the `blur` element of `pipeline` by `regions`.
pub fn install(pipeline: &gst::Pipeline, regions: Regions) -> anyhow::Result<()> {
    let element = pipeline
        .by_name("blur")
        .ok_or_else(|| anyhow::anyhow!("the capture pipeline has no blur element"))?;
    let pad = element
        .static_pad("src")
        .ok_or_else(|| anyhow::anyhow!("the blur element has no source pad"))?;
    pad.add_probe(gst::PadProbeType::BUFFER, move |pad, info| {
        let rects = regions.get();
        if rects.is_empty() {
            return gst::PadProbeReturn::Ok;
        }
        let Some(info_video) = pad
            .current_caps()
            .and_then(|c| gst_video::VideoInfo::from_caps(&c).ok())
        else {
            return gst::PadProbeReturn::Ok;
        };
        if let Some(gst::PadProbeData::Buffer(buffer)) = &mut info.data {
            // A copy of the pixels, never the decoder's own: it may keep decoding the
            // next frames from them (a reference picture), which would carry the blur
            // on after its region is gone.
            let Ok(mut copy) = buffer.copy_deep() else {
                return gst::PadProbeReturn::Drop;
            };
            if let Ok(mut frame) =
                gst_video::VideoFrameRef::from_buffer_ref_writable(copy.make_mut(), &info_video)
            {
                blur_i420(&mut frame, &rects);
            } else {
                // Never let the pixels through unblurred.
                return gst::PadProbeReturn::Drop;
            }
            *buffer = copy;
        }
        gst::PadProbeReturn::Ok
    });
    Ok(())
}

/// Pixelates `rects` of an I420 frame.
fn blur_i420(frame: &mut gst_video::VideoFrameRef<&mut gst::BufferRef>, rects: &[Rect]) {
    let (w, h) = (frame.width() as usize, frame.height() as usize);
    for plane in 0..frame.n_planes() {
        // Chroma planes are half the size each way.
        let sub = if plane == 0 { 1 } else { 2 };
        let (pw, ph) = (w.div_ceil(sub), h.div_ceil(sub));
        let stride = frame.plane_stride()[plane as usize] as usize;
        let Ok(data) = frame.plane_data_mut(plane) else {
            continue;
        };
        for r in rects {
            let (x0, y0, x1, y1) = area(r, w, h);
            let block = block_size(x1 - x0, y1 - y0) / sub;
            // Even edges: a colour sample's 2 × 2 pixels are all in or all out (but
            // at an odd frame edge, whose last sample is half a pixel pair).
            let scaled = (
                x0 / sub,
                y0 / sub,
                x1.div_ceil(sub).min(pw),
                y1.div_ceil(sub).min(ph),
            );
            pixelate(data, stride, scaled, block.max(1));
        }
    }
}

/// `r` in pixels of a `w × h` frame: `[x0, x1) × [y0, y1)`, inside it.
pub fn pixels(r: &Rect, w: usize, h: usize) -> (usize, usize, usize, usize) {
    let clamp = |v: f32, n: usize| ((v.clamp(0.0, 1.0) * n as f32) as usize).min(n);
    let x0 = clamp(r.x, w);
    let y0 = clamp(r.y, h);
    let x1 = ((r.x + r.width).clamp(0.0, 1.0) * w as f32).ceil() as usize;
    let y1 = ((r.y + r.height).clamp(0.0, 1.0) * h as f32).ceil() as usize;
    (x0, y0, x1.min(w).max(x0), y1.min(h).max(y0))
}

/// What is pixelated of `r` in a `w × h` frame: its [`pixels`] grown to even edges (a
/// colour sample of I420 covers 2 × 2 pixels, so the colour blocks match the
/// brightness blocks; growing, never shrinking, so no pixel of the region is left).
pub fn area(r: &Rect, w: usize, h: usize) -> (usize, usize, usize, usize) {
    let (x0, y0, x1, y1) = pixels(r, w, h);
    let up = |v: usize, n: usize| (v + (v & 1)).min(n);
    (x0 & !1, y0 & !1, up(x1, w), up(y1, h))
}

/// The block of a `w × h` rectangle: an eighth of its longer side, at least
/// [`MIN_BLOCK`], even (its colour blocks are half as wide, exactly).
pub fn block_size(w: usize, h: usize) -> usize {
    let b = (w.max(h) / 8).max(MIN_BLOCK);
    b + (b & 1)
}

/// Fills each `block × block` square of `[x0, x1) × [y0, y1)` of a plane (rows of
/// `stride` bytes) with its mean.
pub fn pixelate(
    plane: &mut [u8],
    stride: usize,
    (x0, y0, x1, y1): (usize, usize, usize, usize),
    block: usize,
) {
    let mut by = y0;
    while by < y1 {
        let ey = (by + block).min(y1);
        let mut bx = x0;
        while bx < x1 {
            let ex = (bx + block).min(x1);
            let mut sum = 0u64;
            for y in by..ey {
                sum += plane[y * stride + bx..y * stride + ex]
                    .iter()
                    .map(|&v| u64::from(v))
                    .sum::<u64>();
            }
            let mean = (sum / ((ey - by) * (ex - bx)) as u64) as u8;
            for y in by..ey {
                plane[y * stride + bx..y * stride + ex].fill(mean);
            }
            bx = ex;
        }
        by = ey;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rectangle_is_filled_block_by_block_and_nothing_else_changes() {
        let (w, h, stride) = (40, 20, 48);
        let source: Vec<u8> = (0..stride * h).map(|i| (i * 37 % 251) as u8).collect();
        let mut plane = source.clone();
        pixelate(&mut plane, stride, (4, 2, 24, 18), 8);
        for y in 0..h {
            for x in 0..stride {
                let inside = (4..24).contains(&x) && (2..18).contains(&y);
                let i = y * stride + x;
                if !inside {
                    assert_eq!(plane[i], source[i], "{x},{y} outside changed");
                }
            }
        }
        // Each block is one value, its source's mean; the last ones are cut short.
        let block = |x0: usize, y0: usize, x1: usize, y1: usize| {
            let vals: Vec<u8> = (y0..y1)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .map(|(x, y)| plane[y * stride + x])
                .collect();
            let mean = (y0..y1)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .map(|(x, y)| u64::from(source[y * stride + x]))
                .sum::<u64>()
                / vals.len() as u64;
            assert!(vals.iter().all(|&v| u64::from(v) == mean), "{x0},{y0}");
        };
        block(4, 2, 12, 10);
        block(20, 10, 24, 18);
        let _ = w;
    }

    #[test]
    fn fractions_become_pixels_inside_the_frame() {
        let r = Rect {
            x: 0.25,
            y: 0.5,
            width: 0.5,
            height: 0.5,
        };
        assert_eq!(pixels(&r, 320, 240), (80, 120, 240, 240));
        let past = Rect {
            x: 0.9,
            y: -0.1,
            width: 0.5,
            height: 0.2,
        };
        assert_eq!(pixels(&past, 100, 100), (90, 0, 100, 10));
        assert_eq!(block_size(40, 10), MIN_BLOCK);
        assert_eq!(block_size(400, 10), 50);
        // Odd blocks would put the colour's blocks off the brightness's.
        assert_eq!(block_size(152, 10), 20);
        // Odd edges grow to even ones, inside the frame.
        let odd = Rect {
            x: 0.31,
            y: 0.0,
            width: 0.4,
            height: 1.0,
        };
        assert_eq!(pixels(&odd, 101, 99), (31, 0, 72, 99));
        assert_eq!(area(&odd, 101, 99), (30, 0, 72, 99));
    }
}
