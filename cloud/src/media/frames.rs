//! One frame of a stored video, at a time, as a JPEG of the video's own size: what an
//! annotation image is made of. GStreamer decodes up to the frame (an accurate seek
//! from the key frame before it); it blocks, so call it on a blocking thread.

use std::path::Path;

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

/// A frame as a JPEG, with its size in pixels.
#[derive(Debug)]
pub struct Frame {
    pub jpeg: Vec<u8>,
    pub width: i64,
    pub height: i64,
}

/// How long the pipeline may take to reach a frame.
const FRAME_TIMEOUT_SECS: u64 = 60;

/// The frame of the video at `path` shown at `at_ms` (the last one when `at_ms` is
/// past the end), at the video's size or scaled to `width` pixels wide.
pub fn frame_at(path: &Path, at_ms: u64, width: Option<u32>) -> anyhow::Result<Frame> {
    super::init()?;
    let scale = match width {
        Some(w) => format!("videoscale ! video/x-raw,width={w},pixel-aspect-ratio=1/1 ! "),
        None => String::new(),
    };
    let pipeline = gst::parse::launch(&format!(
        "uridecodebin name=src ! videoconvert ! {scale}videoconvert ! video/x-raw,format=I420 \
         ! jpegenc quality=90 ! appsink name=sink sync=false"
    ))?
    .downcast::<gst::Pipeline>()
    .map_err(|_| anyhow::anyhow!("the frame pipeline is not a pipeline"))?;
    pipeline
        .by_name("src")
        .expect("the source is named")
        .set_property("uri", super::file_uri(path)?);
    let sink = pipeline
        .by_name("sink")
        .expect("the sink is named")
        .downcast::<gst_app::AppSink>()
        .map_err(|_| anyhow::anyhow!("the sink is not an appsink"))?;
    let timeout = gst::ClockTime::from_seconds(FRAME_TIMEOUT_SECS);
    let got = (|| {
        pipeline.set_state(gst::State::Paused)?;
        // A file GStreamer cannot read fails the change to paused at once, rather than
        // leaving the preroll below to wait out its time.
        pipeline.state(timeout).0?;
        let mut sample = sink
            .try_pull_preroll(timeout)
            .ok_or_else(|| anyhow::anyhow!("the video has no frame to show"))?;
        if at_ms > 0 {
            pipeline.seek_simple(
                gst::SeekFlags::FLUSH | gst::SeekFlags::ACCURATE,
                gst::ClockTime::from_mseconds(at_ms),
            )?;
            sample = sink
                .try_pull_preroll(timeout)
                .ok_or_else(|| anyhow::anyhow!("no frame at {at_ms} ms"))?;
        }
        let caps = sample
            .caps()
            .ok_or_else(|| anyhow::anyhow!("a frame without caps"))?;
        let s = caps
            .structure(0)
            .ok_or_else(|| anyhow::anyhow!("a frame without a caps structure"))?;
        let width = s.get::<i32>("width")?;
        let height = s.get::<i32>("height")?;
        let buffer = sample
            .buffer()
            .ok_or_else(|| anyhow::anyhow!("an empty frame"))?;
        let map = buffer.map_readable()?;
        anyhow::Ok(Frame {
            jpeg: map.as_slice().to_vec(),
            width: width.into(),
            height: height.into(),
        })
    })();
    let _ = pipeline.set_state(gst::State::Null);
    got
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chromium's 3 s recording (its test camera draws a moving pattern): the frames
    /// at 0 and 2 s are the video's size and differ.
    #[test]
    fn frames_are_taken_where_asked() {
        let p = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/chromium-recording.webm"
        ));
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("recording.webm");
        std::fs::copy(p, &copy).unwrap();
        crate::media::remux_matroska(&copy).unwrap();
        let first = frame_at(&copy, 0, None).unwrap();
        let later = frame_at(&copy, 2000, None).unwrap();
        assert_eq!((first.width, first.height), (640, 480));
        assert_eq!((later.width, later.height), (640, 480));
        let small = frame_at(&copy, 2000, Some(320)).unwrap();
        assert_eq!((small.width, small.height), (320, 240));
        assert_eq!(&first.jpeg[..2], &[0xff, 0xd8]);
        assert_ne!(first.jpeg, later.jpeg);
    }

    #[test]
    fn bytes_that_are_not_a_video_have_no_frame() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("notes.mp4");
        std::fs::write(&p, b"these are not frames").unwrap();
        assert!(frame_at(&p, 0, None).is_err());
    }
}
