//! The media service: what HTTP handlers, MQTT ingestion and the demo share about
//! video files, apart from any request.
//!
//! - this file: what the cloud reads from a video with GStreamer: its metadata
//!   (duration, frame rate, frame size, by the discoverer) and a thumbnail (the first
//!   frame, scaled and JPEG-encoded in the pipeline). Both block; call them on a
//!   blocking thread.
//! - [`upload`]: staging an upload in `{data}/uploads`, one part at a time per video,
//!   and finishing it: read, thumbnail, both into the object store, the video ready.
//! - [`urls`]: signed media URLs (`/api/media/{token}`) and when they expire.
//! - [`clips`]: the cycle clip URL a device's acknowledgement carries, and the sweeper
//!   of clips kept past `clip_days`.

pub mod clips;
pub mod describe;
pub mod frames;
pub mod merge;
pub mod upload;
pub mod urls;

use std::path::Path;
use std::time::Duration;

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;
use gstreamer_pbutils as gst_pbutils;

/// A video's metadata.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VideoInfo {
    pub duration_ms: i64,
    pub fps: f64,
    pub width: i64,
    pub height: i64,
}

/// Why a file is not a video the product can use; the text is the user's message.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NotVideo {
    #[error("The file is not a video that can be read (corrupt, or of an unknown format).")]
    Unreadable,
    #[error("The file has no video stream.")]
    NoVideo,
    #[error("The video has no length: it holds no frames.")]
    Empty,
}

/// Why a file could not be read: it is no usable video (the user's message), or
/// GStreamer, the disk or the store failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error(transparent)]
    NotVideo(#[from] NotVideo),
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// How long the discoverer may take over one file.
const DISCOVER_TIMEOUT: Duration = Duration::from_secs(30);

/// GStreamer's features turned off for reading video, as `GST_PLUGIN_FEATURE_RANK`
/// says it to a GStreamer process (the training code): Chromium's recordings
/// (MediaRecorder, WebM) mark VP8/VP9 as carrying alpha without sending any, and the
/// alpha decoders decodebin then picks fail on them; the plain decoders read them.
pub const FEATURE_RANKS: &str = "vp8alphadecodebin:NONE,vp9alphadecodebin:NONE";

fn init() -> anyhow::Result<()> {
    gst::init().map_err(|e| anyhow::anyhow!("GStreamer could not start: {e}"))?;
    static RANKS: std::sync::Once = std::sync::Once::new();
    RANKS.call_once(|| {
        for f in FEATURE_RANKS.split(',') {
            let name = f.split(':').next().unwrap_or(f);
            if let Some(factory) = gst::ElementFactory::find(name) {
                factory.set_rank(gst::Rank::NONE);
            }
        }
    });
    Ok(())
}

fn file_uri(p: &Path) -> anyhow::Result<String> {
    let abs = std::fs::canonicalize(p)?;
    gst::glib::filename_to_uri(&abs, None)
        .map(|u| u.to_string())
        .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

/// The metadata of the video file at `path`.
pub fn probe(path: &Path) -> Result<VideoInfo, ReadError> {
    init()?;
    let uri = file_uri(path)?;
    let discoverer = gst_pbutils::Discoverer::new(gst::ClockTime::from_nseconds(
        DISCOVER_TIMEOUT.as_nanos() as u64,
    ))
    .map_err(|e| anyhow::anyhow!("the discoverer could not start: {e}"))?;
    let info = discoverer
        .discover_uri(&uri)
        .map_err(|_| NotVideo::Unreadable)?;
    if info.result() != gst_pbutils::DiscovererResult::Ok {
        return Err(NotVideo::Unreadable.into());
    }
    let Some(video) = info.video_streams().into_iter().next() else {
        return Err(NotVideo::NoVideo.into());
    };
    let duration_ms = info.duration().map(|d| d.mseconds() as i64).unwrap_or(0);
    let rate = video.framerate();
    let fps = if rate.denom() > 0 {
        rate.numer() as f64 / rate.denom() as f64
    } else {
        0.0
    };
    if duration_ms <= 0 || video.width() == 0 {
        return Err(NotVideo::Empty.into());
    }
    Ok(VideoInfo {
        duration_ms,
        fps,
        width: video.width() as i64,
        height: video.height() as i64,
    })
}

/// Rewrites a Matroska/WebM file at `path` with its duration and index: a browser's
/// MediaRecorder writes WebM as a live stream (neither), which the discoverer misreads
/// (it guesses the length from the first frames) and a `<video>` element cannot seek
/// in. The streams are copied, not decoded, by the muxer, which writes both; the new
/// file replaces the original. Answers whether the file was Matroska (and rewritten).
pub fn remux_matroska(path: &Path) -> anyhow::Result<bool> {
    init()?;
    let matroska = {
        let mut head = [0u8; 4];
        use std::io::Read;
        std::fs::File::open(path)?.read_exact(&mut head).is_ok() && head == [0x1a, 0x45, 0xdf, 0xa3]
    };
    if !matroska {
        return Ok(false);
    }
    let tmp = path.with_extension("remux");
    let pipeline = gst::parse::launch(
        "filesrc name=src ! matroskademux ! queue ! matroskamux name=mux ! filesink name=sink",
    )?
    .downcast::<gst::Pipeline>()
    .map_err(|_| anyhow::anyhow!("the remux pipeline is not a pipeline"))?;
    let by = |n: &str| pipeline.by_name(n).expect("named");
    by("src").set_property("location", path);
    by("sink").set_property("location", &tmp);
    let ran = (|| {
        pipeline.set_state(gst::State::Playing)?;
        let bus = pipeline.bus().expect("a pipeline has a bus");
        for msg in bus.iter_timed(gst::ClockTime::from_seconds(600)) {
            match msg.view() {
                gst::MessageView::Eos(..) => return anyhow::Ok(()),
                gst::MessageView::Error(e) => anyhow::bail!("remuxing: {}", e.error()),
                _ => {}
            }
        }
        anyhow::bail!("remuxing took over 10 minutes")
    })();
    let _ = pipeline.set_state(gst::State::Null);
    match ran {
        Ok(()) => {
            std::fs::rename(&tmp, path)?;
            Ok(true)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The first frame of the video at `path`, `width` pixels wide, as a JPEG.
pub fn thumbnail(path: &Path, width: u32) -> anyhow::Result<Vec<u8>> {
    init()?;
    let pipeline = gst::parse::launch(&format!(
        "uridecodebin name=src ! videoconvert ! videoscale \
         ! video/x-raw,width={width},pixel-aspect-ratio=1/1 ! jpegenc quality=80 \
         ! appsink name=sink sync=false"
    ))?
    .downcast::<gst::Pipeline>()
    .map_err(|_| anyhow::anyhow!("the thumbnail pipeline is not a pipeline"))?;
    pipeline
        .by_name("src")
        .expect("the source is named")
        .set_property("uri", file_uri(path)?);
    let sink = pipeline
        .by_name("sink")
        .expect("the sink is named")
        .downcast::<gst_app::AppSink>()
        .map_err(|_| anyhow::anyhow!("the sink is not an appsink"))?;
    let got = (|| {
        pipeline.set_state(gst::State::Paused)?;
        let sample = sink
            .try_pull_preroll(gst::ClockTime::from_seconds(30))
            .ok_or_else(|| anyhow::anyhow!("no frame to make a thumbnail of"))?;
        let buffer = sample
            .buffer()
            .ok_or_else(|| anyhow::anyhow!("an empty thumbnail"))?;
        let map = buffer.map_readable()?;
        anyhow::Ok(map.as_slice().to_vec())
    })();
    let _ = pipeline.set_state(gst::State::Null);
    got
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_a_video_are_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("notes.mp4");
        std::fs::write(&p, b"these are not frames").unwrap();
        assert!(matches!(
            probe(&p),
            Err(ReadError::NotVideo(NotVideo::Unreadable))
        ));
        assert!(thumbnail(&p, 160).is_err());
    }

    /// A 3 s recording of Chromium's test camera by its MediaRecorder (WebM, VP8
    /// marked as carrying alpha), as Record Training Set's camera makes them.
    #[test]
    fn chromium_recordings_are_read() {
        let p = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/chromium-recording.webm"
        ));
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("recording.webm");
        std::fs::copy(p, &copy).unwrap();
        // As recorded it has no duration (the discoverer waits out its time and then
        // guesses from the first frames); rewritten, it has.
        assert!(remux_matroska(&copy).unwrap());
        let p = copy.as_path();
        let info = probe(p).unwrap();
        assert_eq!((info.width, info.height), (640, 480));
        assert!(
            (2500..=3500).contains(&info.duration_ms),
            "{}",
            info.duration_ms
        );
        let jpeg = thumbnail(p, 160).unwrap();
        assert_eq!(&jpeg[..2], &[0xff, 0xd8]);
    }
}
