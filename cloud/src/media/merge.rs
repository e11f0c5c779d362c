//! Videos joined one after another into one MP4 (H.264), each scaled to the first's
//! size and frame rate: what `merge_video_sequences` makes. GStreamer decodes each
//! file's video (sound is left out) and `concat` plays them in order into one encoder.
//! It blocks; call it on a blocking thread.

use std::path::{Path, PathBuf};

use gstreamer as gst;
use gstreamer::prelude::*;

/// The size and rate the joined video has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    pub width: i64,
    pub height: i64,
    pub fps: f64,
}

/// How long joining may take.
const MERGE_TIMEOUT_SECS: u64 = 1800;

/// Joins `inputs` in order into the MP4 file `out`, in `shape`.
pub fn concat(inputs: &[PathBuf], out: &Path, shape: Shape) -> anyhow::Result<()> {
    super::init()?;
    anyhow::ensure!(!inputs.is_empty(), "nothing to join");
    // Even sizes, for the encoder's 4:2:0; at least one frame a second.
    let (w, h) = ((shape.width.max(2) / 2) * 2, (shape.height.max(2) / 2) * 2);
    let fps = (shape.fps.round() as i64).clamp(1, 120);
    let raw = format!(
        "video/x-raw,format=I420,width={w},height={h},framerate={fps}/1,pixel-aspect-ratio=1/1"
    );
    let mut desc = String::from(
        "concat name=c ! queue ! x264enc speed-preset=ultrafast ! mp4mux faststart=true \
         ! filesink name=sink",
    );
    for i in 0..inputs.len() {
        desc.push_str(&format!(
            " uridecodebin name=s{i} ! queue \
             ! videoconvert ! videoscale ! videorate ! {raw} ! c."
        ));
    }
    let pipeline = gst::parse::launch(&desc)?
        .downcast::<gst::Pipeline>()
        .map_err(|_| anyhow::anyhow!("the merge pipeline is not a pipeline"))?;
    // Only the video of each file is decoded (sound is left out).
    let video: gst::Caps = "video/x-raw(ANY)".parse()?;
    for (i, p) in inputs.iter().enumerate() {
        let src = pipeline
            .by_name(&format!("s{i}"))
            .expect("each source is named");
        src.set_property("uri", super::file_uri(p)?);
        src.set_property("caps", &video);
        src.set_property("expose-all-streams", false);
    }
    pipeline
        .by_name("sink")
        .expect("the sink is named")
        .set_property("location", out);
    let ran = (|| {
        pipeline.set_state(gst::State::Playing)?;
        let bus = pipeline.bus().expect("a pipeline has a bus");
        for msg in bus.iter_timed(gst::ClockTime::from_seconds(MERGE_TIMEOUT_SECS)) {
            match msg.view() {
                gst::MessageView::Eos(..) => return anyhow::Ok(()),
                gst::MessageView::Error(e) => anyhow::bail!("joining the videos: {}", e.error()),
                _ => {}
            }
        }
        anyhow::bail!("joining the videos took over {MERGE_TIMEOUT_SECS} s")
    })();
    let _ = pipeline.set_state(gst::State::Null);
    ran
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chromium's 3 s recording (640×480 WebM) twice, at half its size: one 6 s MP4.
    #[test]
    fn videos_are_joined_in_order_at_the_first_ones_shape() {
        let p = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/chromium-recording.webm"
        ));
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.webm");
        std::fs::copy(p, &a).unwrap();
        crate::media::remux_matroska(&a).unwrap();
        let one = crate::media::probe(&a).unwrap();
        let out = dir.path().join("joined.mp4");
        let shape = Shape {
            width: 320,
            height: 240,
            fps: 30.0,
        };
        concat(&[a.clone(), a.clone()], &out, shape).unwrap();
        let joined = crate::media::probe(&out).unwrap();
        assert_eq!((joined.width, joined.height), (320, 240));
        let want = 2 * one.duration_ms;
        assert!(
            (joined.duration_ms - want).abs() < 300,
            "{} ms against {want} ms",
            joined.duration_ms
        );
    }
}
