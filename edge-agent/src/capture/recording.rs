//! Recording: the full-size frames of the capture's second branch, let through its
//! `valve` for some seconds, encoded into a file of their own (H.264 in MP4, or VP8 in
//! WebM where x264 is missing) by a pipeline of their own; the camera's task keeps its
//! frames meanwhile. Also the encoding helpers the clips share (`to_file`,
//! `wait_encoded`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use super::{Capture, init};

/// How a recording ended: the file, its length and frames.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: PathBuf,
    pub duration_ms: i64,
    pub frames: u64,
}

/// Where a recording's outcome arrives (once, from a thread of its own).
pub type RecordingDone = std::sync::mpsc::Receiver<anyhow::Result<Recorded>>;

impl Capture {
    /// Records the next `seconds` of this camera, full size, into `path` (an MP4 with
    /// H.264, or WebM with VP8 where x264 is missing: see [`recording_format`]). Frames
    /// keep flowing to [`Capture::next_frame`] meanwhile. Stopping the camera before
    /// the end ends the recording there. One recording at a time.
    pub fn record(&self, path: &Path, seconds: u32) -> anyhow::Result<RecordingDone> {
        let mut active = self.recording.lock().expect("recording lock");
        if active.is_some() {
            bail!("this camera is already recording");
        }
        let (encoder, src) = encoder(path)?;
        let until = gst::ClockTime::from_seconds(u64::from(seconds.max(1)));
        let state = Arc::new(Mutex::new(Feed::default()));
        let (valve, feed, src2) = (self.valve.clone(), state.clone(), src.clone());
        self.rec_sink.set_callbacks(
            gst_app::AppSinkCallbacks::builder()
                .new_sample(move |sink| {
                    let sample = sink.pull_sample().map_err(|_| gst::FlowError::Eos)?;
                    let mut f = feed.lock().expect("feed lock");
                    if f.ended {
                        return Ok(gst::FlowSuccess::Ok);
                    }
                    let buffer = sample.buffer().ok_or(gst::FlowError::Error)?;
                    // Onward across a looped file's loops, whose time stamps start again.
                    let pts = buffer.pts().map_or(0, |t| t.nseconds() as i64);
                    let step = buffer.duration().map_or(NS / 30, |d| d.nseconds() as i64);
                    let pts = f.onward.place(pts, step);
                    let first = *f.first.get_or_insert_with(|| {
                        if let Some(caps) = sample.caps() {
                            src2.set_caps(Some(&caps.to_owned()));
                        }
                        pts
                    });
                    let at = gst::ClockTime::from_nseconds((pts - first).max(0) as u64);
                    if at >= until {
                        f.ended = true;
                        valve.set_property("drop", true);
                        let _ = src2.end_of_stream();
                        return Ok(gst::FlowSuccess::Ok);
                    }
                    let mut out = buffer.copy();
                    {
                        let b = out.make_mut();
                        b.set_pts(at);
                        b.set_dts(gst::ClockTime::NONE);
                    }
                    f.frames += 1;
                    f.last = at;
                    // A full encoder (`Flushing` once it ends) is no reason to stop the
                    // camera's frames.
                    let _ = src2.push_buffer(out);
                    Ok(gst::FlowSuccess::Ok)
                })
                .build(),
        );
        encoder
            .set_state(gst::State::Playing)
            .map_err(|_| anyhow!("the recording could not start"))?;
        *active = Some(src);
        self.valve.set_property("drop", false);
        drop(active);
        let (tx, rx) = std::sync::mpsc::channel();
        let (valve, active, path) = (
            self.valve.clone(),
            self.recording.clone(),
            path.to_path_buf(),
        );
        // The camera may give no frame (gone): give up a while after the end.
        let limit = Duration::from_secs(u64::from(seconds) + 60);
        std::thread::Builder::new()
            .name("recording".into())
            .spawn(move || {
                let r = wait_encoded(&encoder, limit);
                valve.set_property("drop", true);
                let _ = encoder.set_state(gst::State::Null);
                active.lock().expect("recording lock").take();
                let f = state.lock().expect("feed lock");
                let r = r.and_then(|()| {
                    if f.frames == 0 {
                        bail!("the camera gave no frame to record");
                    }
                    Ok(Recorded {
                        path,
                        duration_ms: f.last.mseconds() as i64,
                        frames: f.frames,
                    })
                });
                let _ = tx.send(r);
            })?;
        Ok(rx)
    }
}

/// Nanoseconds in a second.
const NS: i64 = 1_000_000_000;

/// What a recording's feed has seen.
#[derive(Default)]
struct Feed {
    /// The first frame's time, on the onward line.
    first: Option<i64>,
    onward: crate::capture::clip::Onward,
    last: gst::ClockTime,
    frames: u64,
    ended: bool,
}

/// The file extension recordings get here: `mp4` (H.264) where GStreamer has x264,
/// else `webm` (VP8).
pub fn recording_format() -> &'static str {
    if init().is_ok() && gst::ElementFactory::find("x264enc").is_some() {
        "mp4"
    } else {
        "webm"
    }
}

/// The elements that encode raw video into a file of [`recording_format`].
pub(super) fn encoding() -> &'static str {
    if recording_format() == "mp4" {
        "x264enc speed-preset=ultrafast tune=zerolatency key-int-max=60 ! h264parse ! mp4mux"
    } else {
        "vp8enc deadline=1 cpu-used=8 ! webmmux"
    }
}

/// The encoding pipeline of a recording into `path`, and its source.
fn encoder(path: &Path) -> anyhow::Result<(gst::Pipeline, gst_app::AppSrc)> {
    init()?;
    let (pipeline, src) = to_file(
        // Even sides: x264 (and browsers' decoders) refuse odd ones, which small
        // cameras and files do have (a 175 × 143 source is recorded as 176 × 144).
        &format!(
            "queue max-size-buffers=60 ! videoconvert ! videoscale \
             ! video/x-raw,format=I420,width=(int)[2,16384,2],height=(int)[2,16384,2] ! {}",
            encoding()
        ),
        path,
        "recording",
    )?;
    // At most 64 MiB of frames wait for a slow encoder; past that the oldest go (where
    // GStreamer can: 1.20 on), so a recording never holds the camera up.
    src.set_max_bytes(64 * 1024 * 1024);
    src.set_block(false);
    if src.find_property("leaky-type").is_some() {
        src.set_property_from_str("leaky-type", "downstream");
    }
    Ok((pipeline, src))
}

/// A pipeline `appsrc ! {middle} ! filesink` writing `path`, and its source (times in
/// `format=time`); `what` names it in errors.
pub(crate) fn to_file(
    middle: &str,
    path: &Path,
    what: &str,
) -> anyhow::Result<(gst::Pipeline, gst_app::AppSrc)> {
    init()?;
    let pipeline = gst::parse::launch(&format!(
        "appsrc name=src format=time ! {middle} ! filesink name=file"
    ))
    .with_context(|| format!("building the {what} pipeline"))?
    .downcast::<gst::Pipeline>()
    .map_err(|_| anyhow!("the {what} pipeline is not a pipeline"))?;
    pipeline
        .by_name("file")
        .expect("the file sink is named")
        .set_property("location", path.to_string_lossy().as_ref());
    let src = pipeline
        .by_name("src")
        .expect("the source is named")
        .downcast::<gst_app::AppSrc>()
        .map_err(|_| anyhow!("the {what} source is not an appsrc"))?;
    Ok((pipeline, src))
}

/// Waits for the encoder to write its file to the end (EOS), an error, or `limit`.
pub(crate) fn wait_encoded(encoder: &gst::Pipeline, limit: Duration) -> anyhow::Result<()> {
    let bus = encoder.bus().expect("a pipeline has a bus");
    let msg = bus.timed_pop_filtered(
        gst::ClockTime::from_mseconds(limit.as_millis() as u64),
        &[gst::MessageType::Eos, gst::MessageType::Error],
    );
    match msg.as_ref().map(|m| m.view()) {
        Some(gst::MessageView::Eos(_)) => Ok(()),
        Some(gst::MessageView::Error(e)) => bail!("recording: {}", e.error()),
        _ => bail!("the recording did not end in time (the camera gave no more frames)"),
    }
}
