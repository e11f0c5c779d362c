//! Test footage made with GStreamer's test source, encoded as the recordings are.

use std::path::Path;
use std::time::Duration;

use gstreamer as gst;
use gstreamer::prelude::*;

use super::recording::encoding;
use super::{init, recording_format, wait_encoded};

/// A video file of `seconds` of GStreamer's moving ball, 160x120 at 15 fps, for tests:
/// `{dir}/{name}.mp4` (or `.webm` where x264 is missing).
pub(crate) fn test_video(dir: &Path, name: &str, seconds: u32) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.{}", recording_format()));
    make_video(
        &path,
        seconds * 15,
        "video/x-raw,width=160,height=120,framerate=15/1",
        encoding(),
    );
    path
}

/// Writes `frames` of GStreamer's moving ball as raw video `caps` (size, rate, pixel
/// aspect ratio), encoded and muxed by `encode`, into `path`: test footage.
pub(crate) fn make_video(path: &Path, frames: u32, caps: &str, encode: &str) {
    make_pattern(path, "ball", frames, caps, encode);
}

/// [`make_video`] of `videotestsrc`'s `pattern`.
pub(crate) fn make_pattern(path: &Path, pattern: &str, frames: u32, caps: &str, encode: &str) {
    init().unwrap();
    let p = gst::parse::launch(&format!(
        "videotestsrc num-buffers={frames} pattern={pattern} ! {caps} ! {encode} \
         ! filesink name=file"
    ))
    .unwrap()
    .downcast::<gst::Pipeline>()
    .unwrap();
    p.by_name("file")
        .unwrap()
        .set_property("location", path.to_string_lossy().as_ref());
    p.set_state(gst::State::Playing).unwrap();
    wait_encoded(&p, Duration::from_secs(60)).unwrap();
    p.set_state(gst::State::Null).unwrap();
}
