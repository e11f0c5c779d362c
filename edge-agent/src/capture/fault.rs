//! What went wrong with a camera's source, in words a technician can act on: the
//! GStreamer error a pipeline posts (its domain and code, the missing plug-in decodebin
//! named before it) becomes one sentence about the file, stream or device, without the
//! camera (the camera's worker puts `camera NAME (SOURCE): ` in front). Pure: no I/O.
//!
//! Also what a file's length says: a file whose frames stop well before the length its
//! header gives is damaged or was cut short ([`ended_early`]).

use gstreamer as gst;

use super::Source;

/// What kind of fault an error is, as far as the technician is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// GStreamer cannot tell what the data is, or it is not media (a text file).
    NotMedia,
    /// Media for which GStreamer here has no plug-in: what decodebin says is missing
    /// (its description, e.g. "H.265 (Main Profile) decoder"), when it said.
    MissingPlugin(Option<String>),
    /// Media that holds no video a camera can give (sound only).
    NoVideo,
    /// Media whose data is broken (a demuxer or decoder gave up).
    Damaged,
    /// The file, stream or device is not there.
    NotFound,
    /// It is there but cannot be opened or read (permissions, busy, network).
    Unreadable,
    /// Anything else: GStreamer's own words.
    Other,
}

/// The kind of `err` (posted by the source's part of the pipeline).
pub fn kind(err: &gst::glib::Error, debug: Option<&str>, missing: Option<&str>) -> Kind {
    use gst::{CoreError, ResourceError, StreamError};
    if let Some(e) = err.kind::<StreamError>() {
        return match e {
            StreamError::TypeNotFound | StreamError::WrongType => Kind::NotMedia,
            StreamError::CodecNotFound => Kind::MissingPlugin(missing.map(Into::into)),
            StreamError::Decode | StreamError::Demux | StreamError::Format => Kind::Damaged,
            // A flow error: a pad of the source found nothing downstream to take it.
            StreamError::Failed if debug.is_some_and(|d| d.contains("not-negotiated")) => {
                Kind::NoVideo
            }
            _ => Kind::Other,
        };
    }
    if err.kind::<CoreError>() == Some(CoreError::MissingPlugin) {
        return Kind::MissingPlugin(missing.map(Into::into));
    }
    match err.kind::<ResourceError>() {
        Some(ResourceError::NotFound) => Kind::NotFound,
        Some(
            ResourceError::OpenRead
            | ResourceError::Read
            | ResourceError::OpenReadWrite
            | ResourceError::Busy
            | ResourceError::NotAuthorized
            | ResourceError::Settings
            | ResourceError::Failed,
        ) => Kind::Unreadable,
        _ => Kind::Other,
    }
}

/// Whether a missing plug-in decodebin named is one for video (else the file holds
/// something that is not video, such as text or sound, and no decoder would help).
fn is_video_decoder(what: &str) -> bool {
    let w = what.to_ascii_lowercase();
    !(w.contains("text") || w.contains("audio") || w.contains("subtitle"))
        && [
            "video", "h.26", "mpeg", "vp", "av1", "theora", "jpeg", "xvid", "divx",
        ]
        .iter()
        .any(|v| w.contains(v))
}

/// The sentence for a fault of `kind` on `source`; `said`: GStreamer's own message.
pub fn sentence(source: &Source, kind: &Kind, said: &str) -> String {
    let file = matches!(source, Source::File(_));
    match (kind, source) {
        (Kind::NotMedia, _) if file => "not a video file GStreamer can read".into(),
        (Kind::MissingPlugin(Some(what)), _) if is_video_decoder(what) => format!(
            "GStreamer here cannot decode this video ({what} missing): install its plug-in \
             (Debian: gstreamer1.0-libav, gstreamer1.0-plugins-bad, gstreamer1.0-plugins-ugly)"
        ),
        (Kind::MissingPlugin(_), _) if file => "not a video file GStreamer can read".into(),
        (Kind::NoVideo, _) if file => "the file holds no video (sound or other data only)".into(),
        (Kind::Damaged, _) if file => {
            format!("the file is damaged or incomplete and cannot be played (GStreamer: {said})")
        }
        (Kind::NotFound, _) if file => "no video file there".into(),
        (Kind::Unreadable, _) if file => format!("the file cannot be read (GStreamer: {said})"),
        (Kind::NotMedia | Kind::MissingPlugin(_) | Kind::NoVideo, Source::Uri(_)) => {
            "the address answers with no video GStreamer can read: check the URL's path".into()
        }
        (Kind::NotFound | Kind::Unreadable, Source::Uri(_)) => format!(
            "the stream cannot be reached: check the address, the network and that the \
             camera is on (GStreamer: {said})"
        ),
        (Kind::NotFound, Source::V4l2(_)) => {
            "no such video device: check that the camera is plugged in".into()
        }
        (Kind::Unreadable, Source::V4l2(_)) => format!(
            "the video device cannot be opened: check that it is plugged in and that no other \
             program uses it (GStreamer: {said})"
        ),
        (Kind::Damaged, _) => format!("the video cannot be decoded (GStreamer: {said})"),
        _ => format!("GStreamer: {said}"),
    }
}

/// Whether a file whose last frame ends at `last` (stream time) ended early, the
/// length its header gives being `length`: by more than a second.
pub fn ended_early(last: gst::ClockTime, length: gst::ClockTime) -> bool {
    length > last + gst::ClockTime::from_seconds(1)
}

/// The warning for a file that ended early.
pub fn ended_early_warning(last: gst::ClockTime, length: gst::ClockTime) -> String {
    let s = |t: gst::ClockTime| t.mseconds() as f64 / 1000.0;
    format!(
        "the file ends early, at {:.1} s of the {:.1} s it should last: it is damaged or was \
         cut short, and only its first {:.1} s are used",
        s(last),
        s(length),
        s(last)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Source {
        Source::File("/x/y.txt".into())
    }

    #[test]
    fn gstreamer_errors_become_sentences_about_the_source() {
        gst::init().unwrap();
        let e = |k: gst::StreamError| gst::glib::Error::new(k, "what GStreamer said");
        let not_media = kind(&e(gst::StreamError::TypeNotFound), None, None);
        assert_eq!(not_media, Kind::NotMedia);
        assert_eq!(
            sentence(&file(), &not_media, "Could not determine type of stream."),
            "not a video file GStreamer can read"
        );
        // A plug-in "missing" for something that is not video: not a video file.
        let text = gst::glib::Error::new(gst::CoreError::MissingPlugin, "missing a plug-in");
        let k = kind(&text, None, Some("text/plain decoder"));
        assert_eq!(
            sentence(&file(), &k, ""),
            "not a video file GStreamer can read"
        );
        // One for video: install it.
        let k = kind(&text, None, Some("H.265 (Main Profile) decoder"));
        assert!(
            sentence(&file(), &k, "").contains("(H.265 (Main Profile) decoder missing)"),
            "{k:?}"
        );
        let flow = gst::glib::Error::new(gst::StreamError::Failed, "Internal data stream error.");
        let k = kind(
            &flow,
            Some("streaming stopped, reason not-negotiated (-4)"),
            None,
        );
        assert_eq!(k, Kind::NoVideo);
        let k = kind(&e(gst::StreamError::Demux), None, None);
        assert_eq!(
            sentence(&file(), &k, "This file contains no playable streams."),
            "the file is damaged or incomplete and cannot be played \
             (GStreamer: This file contains no playable streams.)"
        );
        let gone = gst::glib::Error::new(gst::ResourceError::OpenRead, "Could not open");
        let rtsp = Source::Uri("rtsp://10.0.0.5/stream".into());
        assert!(
            sentence(&rtsp, &kind(&gone, None, None), "Could not open").starts_with(
                "the stream cannot be reached: check the address, the network and that the \
                 camera is on"
            )
        );
        assert_eq!(
            sentence(&file(), &Kind::Other, "something else"),
            "GStreamer: something else"
        );
    }

    #[test]
    fn a_file_that_stops_more_than_a_second_short_ended_early() {
        let s = gst::ClockTime::from_mseconds;
        assert!(!ended_early(s(9_934), s(10_000)));
        assert!(!ended_early(s(9_000), s(10_000)));
        assert!(ended_early(s(4_800), s(10_000)));
        assert_eq!(
            ended_early_warning(s(4_800), s(10_000)),
            "the file ends early, at 4.8 s of the 10.0 s it should last: it is damaged or \
             was cut short, and only its first 4.8 s are used"
        );
    }
}
