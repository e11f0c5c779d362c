//! Screenshots (issue 29): the next full-size frame of the capture's recording branch
//! (after the privacy blur, like every branch), let through its `valve` once and
//! encoded as a JPEG by a pipeline of its own (`appsrc ! videoconvert ! jpegenc`). The
//! camera's task keeps its frames meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use super::{Capture, Options, Source, init};

/// Where a screenshot's JPEG arrives (once, from a thread of its own).
pub type SnapshotDone = std::sync::mpsc::Receiver<anyhow::Result<Vec<u8>>>;

/// JPEG quality, 0–100.
const QUALITY: i32 = 85;

impl Capture {
    /// Takes the camera's next frame, full size, as a JPEG. Not while it records (the
    /// two share a branch).
    pub fn snapshot(&self) -> anyhow::Result<SnapshotDone> {
        if self.recording.lock().expect("recording lock").is_some() {
            bail!("this camera is recording; a screenshot can be taken once it is done");
        }
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let taken = Arc::new(AtomicBool::new(false));
        let valve = self.valve.clone();
        self.rec_sink.set_callbacks(
            gst_app::AppSinkCallbacks::builder()
                .new_sample(move |sink| {
                    let sample = sink.pull_sample().map_err(|_| gst::FlowError::Eos)?;
                    if taken.swap(true, Ordering::SeqCst) {
                        return Ok(gst::FlowSuccess::Ok);
                    }
                    valve.set_property("drop", true);
                    let tx = tx.clone();
                    // Encoding waits for a pipeline of its own: not on the streaming
                    // thread.
                    let _ =
                        std::thread::Builder::new()
                            .name("screenshot".into())
                            .spawn(move || {
                                let _ = tx.send(jpeg(&sample));
                            });
                    Ok(gst::FlowSuccess::Ok)
                })
                .build(),
        );
        self.valve.set_property("drop", false);
        Ok(rx)
    }
}

/// `sample` (raw video) as a JPEG.
pub fn jpeg(sample: &gst::Sample) -> anyhow::Result<Vec<u8>> {
    init()?;
    let caps = sample
        .caps()
        .ok_or_else(|| anyhow!("a frame without caps"))?;
    let buffer = sample
        .buffer_owned()
        .ok_or_else(|| anyhow!("a frame without data"))?;
    let pipeline = gst::parse::launch(&format!(
        "appsrc name=src format=time ! videoconvert ! jpegenc quality={QUALITY} \
         ! appsink name=out sync=false"
    ))
    .context("building the screenshot's encoder")?
    .downcast::<gst::Pipeline>()
    .map_err(|_| anyhow!("the screenshot's encoder is not a pipeline"))?;
    let src = pipeline
        .by_name("src")
        .and_then(|e| e.downcast::<gst_app::AppSrc>().ok())
        .ok_or_else(|| anyhow!("the screenshot's source"))?;
    let out = pipeline
        .by_name("out")
        .and_then(|e| e.downcast::<gst_app::AppSink>().ok())
        .ok_or_else(|| anyhow!("the screenshot's sink"))?;
    src.set_caps(Some(&caps.to_owned()));
    pipeline
        .set_state(gst::State::Playing)
        .map_err(|_| anyhow!("the screenshot's encoder could not start"))?;
    let mut buffer = buffer;
    {
        let b = buffer.make_mut();
        b.set_pts(gst::ClockTime::ZERO);
        b.set_dts(gst::ClockTime::NONE);
    }
    let r = src
        .push_buffer(buffer)
        .map_err(|e| anyhow!("encoding the screenshot: {e:?}"))
        .and_then(|_| {
            let _ = src.end_of_stream();
            out.try_pull_sample(gst::ClockTime::from_seconds(10))
                .ok_or_else(|| anyhow!("the screenshot was not encoded within 10 s"))
        })
        .and_then(|s| {
            let b = s.buffer().ok_or_else(|| anyhow!("an empty screenshot"))?;
            let map = b
                .map_readable()
                .map_err(|_| anyhow!("the screenshot could not be read"))?;
            Ok(map.to_vec())
        });
    let _ = pipeline.set_state(gst::State::Null);
    r
}

/// Waits up to `within` for a screenshot.
pub fn wait(done: SnapshotDone, within: Duration) -> anyhow::Result<Vec<u8>> {
    done.recv_timeout(within)
        .map_err(|_| anyhow!("the camera gave no frame within {} s", within.as_secs()))?
}

/// The first frame of the image or video file at `path`, RGB at `width × height`: how
/// what was encoded (a screenshot, a clip) is read back.
pub fn first_frame(path: &std::path::Path, width: u32, height: u32) -> anyhow::Result<Vec<u8>> {
    let mut cap = Capture::open(
        &Source::File(path.into()),
        Options::every_frame(width, height),
    )?;
    let frame = cap
        .next_frame()?
        .ok_or_else(|| anyhow!("{} has no frame", path.display()))?;
    Ok(frame.rgb.to_vec())
}
