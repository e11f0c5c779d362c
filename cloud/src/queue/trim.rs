//! `trim_video`: cutting a video file to a span with GStreamer. The file is decoded, the
//! frames outside the span are dropped (a probe before the encoder, which also moves the
//! kept frames' times to start at zero) and the rest encoded again as H.264 in MP4 (like
//! the test clips, and what browsers play): a cut between key frames cannot be copied,
//! and a flushing seek into a running muxer leaves a broken file. Blocks; call it on a
//! blocking thread.

use std::path::Path;

use gstreamer as gst;
use gstreamer::prelude::*;

/// How long one trim may take.
const TIMEOUT_SECS: u64 = 600;

/// The span `[start_ms, end_ms)` of the video at `src`, written to `dst` as MP4.
pub fn trim(src: &Path, dst: &Path, start_ms: u64, end_ms: u64) -> anyhow::Result<()> {
    gst::init()?;
    let pipeline = gst::parse::launch(
        "filesrc name=src ! decodebin ! videoconvert name=conv ! video/x-raw,format=I420 \
         ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink name=sink",
    )?
    .downcast::<gst::Pipeline>()
    .map_err(|_| anyhow::anyhow!("the trim pipeline is not a pipeline"))?;
    let by = |n: &str| pipeline.by_name(n).expect("named");
    by("src").set_property("location", src);
    by("sink").set_property("location", dst);
    let start = gst::ClockTime::from_mseconds(start_ms);
    let end = gst::ClockTime::from_mseconds(end_ms);
    by("conv")
        .static_pad("sink")
        .expect("videoconvert has a sink pad")
        .add_probe(gst::PadProbeType::BUFFER, move |_, info| {
            let Some(gst::PadProbeData::Buffer(buf)) = info.data.as_mut() else {
                return gst::PadProbeReturn::Ok;
            };
            match buf.pts() {
                Some(pts) if pts >= start && pts < end => {
                    buf.make_mut().set_pts(pts - start);
                    gst::PadProbeReturn::Ok
                }
                _ => gst::PadProbeReturn::Drop,
            }
        });
    let ran = run(&pipeline);
    let _ = pipeline.set_state(gst::State::Null);
    ran
}

fn run(pipeline: &gst::Pipeline) -> anyhow::Result<()> {
    pipeline.set_state(gst::State::Playing)?;
    let bus = pipeline.bus().expect("a pipeline has a bus");
    for msg in bus.iter_timed(gst::ClockTime::from_seconds(TIMEOUT_SECS)) {
        match msg.view() {
            gst::MessageView::Eos(..) => return Ok(()),
            gst::MessageView::Error(e) => anyhow::bail!("trimming: {}", e.error()),
            _ => {}
        }
    }
    anyhow::bail!("trimming took over {TIMEOUT_SECS} s")
}
