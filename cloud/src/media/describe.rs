//! A video file described for people (`extract_video_metadata`): what [`super::probe`]
//! reads (length, frame rate, size), and the video codec, the container and whether
//! there is sound, as GStreamer names them. One discovery of the file.

use std::path::Path;

use gstreamer as gst;
use gstreamer_pbutils as gst_pbutils;
use gstreamer_pbutils::prelude::*;

use super::{DISCOVER_TIMEOUT, NotVideo, ReadError, VideoInfo, file_uri, init};

/// A video file's metadata and formats.
#[derive(Debug, Clone, PartialEq)]
pub struct Description {
    pub info: VideoInfo,
    /// The video codec, as GStreamer describes it ("H.264 (Constrained Baseline
    /// Profile)").
    pub codec: String,
    /// The container ("Quicktime" for an MP4), none for a bare stream.
    pub container: Option<String>,
    pub has_audio: bool,
    /// The video stream's bits per second, when the file says.
    pub bitrate: Option<u32>,
}

/// Describes the video file at `path`; the same refusals as [`super::probe`].
pub fn describe(path: &Path) -> Result<Description, ReadError> {
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
    if duration_ms <= 0 || video.width() == 0 {
        return Err(NotVideo::Empty.into());
    }
    let rate = video.framerate();
    let fps = if rate.denom() > 0 {
        rate.numer() as f64 / rate.denom() as f64
    } else {
        0.0
    };
    let described = |caps: Option<gst::Caps>| {
        caps.map(|c| gst_pbutils::pb_utils_get_codec_description(&c).to_string())
    };
    let codec = described(video.caps()).unwrap_or_default();
    let top = info.stream_info();
    let container = top
        .filter(|s| s.is::<gst_pbutils::DiscovererContainerInfo>())
        .and_then(|s| described(s.caps()));
    Ok(Description {
        info: VideoInfo {
            duration_ms,
            fps,
            width: video.width() as i64,
            height: video.height() as i64,
        },
        codec,
        container,
        has_audio: !info.audio_streams().is_empty(),
        bitrate: Some(video.bitrate()).filter(|b| *b > 0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short H.264 MP4 made by GStreamer itself.
    fn clip(path: &Path) {
        init().unwrap();
        let p = gst::parse::launch(&format!(
            "videotestsrc num-buffers=30 ! video/x-raw,width=160,height=120,framerate=15/1 \
             ! x264enc speed-preset=ultrafast ! mp4mux ! filesink location={}",
            path.display()
        ))
        .unwrap();
        p.set_state(gst::State::Playing).unwrap();
        let bus = p.bus().unwrap();
        bus.timed_pop_filtered(
            gst::ClockTime::from_seconds(30),
            &[gst::MessageType::Eos, gst::MessageType::Error],
        )
        .unwrap();
        p.set_state(gst::State::Null).unwrap();
    }

    #[test]
    fn an_mp4_is_described_with_its_codec_and_container() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clip.mp4");
        clip(&path);
        let d = describe(&path).unwrap();
        assert_eq!((d.info.width, d.info.height), (160, 120));
        assert!((d.info.fps - 15.0).abs() < 1e-9, "{d:?}");
        assert!((1900..=2100).contains(&d.info.duration_ms), "{d:?}");
        assert!(d.codec.contains("H.264"), "{d:?}");
        // GStreamer names an MP4 by its caps, video/quicktime.
        assert_eq!(d.container.as_deref(), Some("Quicktime"), "{d:?}");
        assert!(!d.has_audio);
    }

    #[test]
    fn text_is_no_video() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.mp4");
        std::fs::write(&path, "not a video at all").unwrap();
        assert!(matches!(
            describe(&path),
            Err(ReadError::NotVideo(NotVideo::Unreadable))
        ));
    }
}
