//! Frames of a stored video as JPEGs of the video's own size (or a width asked for):
//! what annotation images are made of, one at a time (`POST
//! organization/task/annotation_image/`) or many of a video at once (the
//! `sample_images_for_detector` job). [`frames_at`] takes all of a video's frames in one
//! pass: GStreamer decodes forward once, keeping the frame on show, and jumps (an
//! accurate seek from the key frame before it) only over a gap longer than
//! [`SEEK_GAP_MS`]; the frames kept are JPEG-encoded by a second, small pipeline, so the
//! frames passed over are never converted or encoded. It blocks: call it on a blocking
//! thread.

use std::path::Path;

use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

/// A frame as a JPEG, with its size in pixels.
#[derive(Debug, Clone)]
pub struct Frame {
    pub jpeg: Vec<u8>,
    pub width: i64,
    pub height: i64,
}

/// How long the pipeline may take to reach a frame.
const FRAME_TIMEOUT_SECS: u64 = 60;

/// A frame asked for further than this past the one on show is reached by a seek rather
/// than by decoding every frame between (a few key frame intervals of the usual
/// recordings: decoding that far costs about what a seek's decoding from its key frame
/// does).
pub const SEEK_GAP_MS: u64 = 5_000;

/// The frame of the video at `path` shown at `at_ms` (the last one when `at_ms` is
/// past the end), at the video's size or scaled to `width` pixels wide.
pub fn frame_at(path: &Path, at_ms: u64, width: Option<u32>) -> anyhow::Result<Frame> {
    let mut one = frames_at(path, &[at_ms], width)?;
    Ok(one.remove(0))
}

/// The frames of the video at `path` shown at each of `at_ms` (in any order; answered
/// in that order), at the video's size or scaled to `width` pixels wide: the frame on
/// show at a time is the last one starting at or before it (the first frame before the
/// first one starts, the last one past the end).
pub fn frames_at(path: &Path, at_ms: &[u64], width: Option<u32>) -> anyhow::Result<Vec<Frame>> {
    super::init()?;
    if at_ms.is_empty() {
        return Ok(vec![]);
    }
    let scale = match width {
        Some(w) => format!("videoscale ! video/x-raw,width={w},pixel-aspect-ratio=1/1 ! "),
        None => String::new(),
    };
    // Raw frames, at most two waiting: the decoder runs just ahead of the picking.
    let decode = launch(&format!(
        "uridecodebin name=src ! videoconvert ! {scale}videoconvert ! video/x-raw,format=I420 \
         ! appsink name=sink sync=false max-buffers=2"
    ))?;
    decode
        .0
        .by_name("src")
        .expect("the source is named")
        .set_property("uri", super::file_uri(path)?);
    let encode =
        launch("appsrc name=src format=time ! jpegenc quality=90 ! appsink name=sink sync=false")?;
    let got = (|| {
        let timeout = gst::ClockTime::from_seconds(FRAME_TIMEOUT_SECS);
        decode.0.set_state(gst::State::Paused)?;
        // A file GStreamer cannot read fails the change to paused at once, rather than
        // leaving the pulls below to wait out their time.
        decode.0.state(timeout).0?;
        decode.0.set_state(gst::State::Playing)?;
        encode.0.set_state(gst::State::Playing)?;
        let src = encode
            .0
            .by_name("src")
            .expect("the source is named")
            .downcast::<gst_app::AppSrc>()
            .map_err(|_| anyhow::anyhow!("the encoder's source is not an appsrc"))?;
        let jpeg = |s: &gst::Sample| -> anyhow::Result<Frame> {
            let caps = s
                .caps()
                .ok_or_else(|| anyhow::anyhow!("a frame without caps"))?;
            let st = caps
                .structure(0)
                .ok_or_else(|| anyhow::anyhow!("a frame without a caps structure"))?;
            let (w, h) = (st.get::<i32>("width")?, st.get::<i32>("height")?);
            src.push_sample(s)?;
            let out = encode
                .1
                .try_pull_sample(timeout)
                .ok_or_else(|| anyhow::anyhow!("the frame was not encoded"))?;
            let buffer = out
                .buffer()
                .ok_or_else(|| anyhow::anyhow!("an empty frame"))?;
            let map = buffer.map_readable()?;
            Ok(Frame {
                jpeg: map.as_slice().to_vec(),
                width: w.into(),
                height: h.into(),
            })
        };
        let mut order: Vec<usize> = (0..at_ms.len()).collect();
        order.sort_by_key(|&i| at_ms[i]);
        let mut out: Vec<Option<Frame>> = vec![None; at_ms.len()];
        // The frame on show (the last one started by the next time asked for), its
        // start, and the JPEG of it once made.
        let mut shown: Option<(gst::Sample, u64, Option<Frame>)> = None;
        // A time past the end is sought short of it, so the last frame is decoded.
        let end = decode
            .0
            .query_duration::<gst::ClockTime>()
            .map(|d| d.mseconds().saturating_sub(SEEK_GAP_MS));
        let mut next = 0;
        // Where the last seek went: never twice to one place (a frame shown for longer
        // than the gap would send it back there).
        let mut sought = 0;
        while next < order.len() {
            let t = at_ms[order[next]];
            let to = end.map_or(t, |e| t.min(e));
            if to > shown.as_ref().map_or(0, |s| s.1) + SEEK_GAP_MS && to > sought {
                sought = to;
                decode.0.seek_simple(
                    gst::SeekFlags::FLUSH | gst::SeekFlags::ACCURATE,
                    gst::ClockTime::from_mseconds(to),
                )?;
                shown = None;
            }
            let Some(sample) = decode.1.try_pull_sample(timeout) else {
                if decode.1.is_eos() {
                    break;
                }
                anyhow::bail!("no frame at {t} ms");
            };
            let start = sample
                .buffer()
                .and_then(|b| b.pts())
                .map_or(0, |p| p.mseconds());
            let mut made_of_this = None;
            if start > t {
                // Every time asked for before this frame starts shows the one before
                // (this one, when none came before it).
                let before = shown.take();
                let first = before.is_none();
                let (s, _, made) = before.unwrap_or((sample.clone(), start, None));
                let made = match made {
                    Some(f) => f,
                    None => jpeg(&s)?,
                };
                while next < order.len() && at_ms[order[next]] < start {
                    out[order[next]] = Some(made.clone());
                    next += 1;
                }
                if first {
                    made_of_this = Some(made);
                }
            }
            shown = Some((sample, start, made_of_this));
        }
        // Past the end: the last frame.
        if next < order.len() {
            let (s, _, made) =
                shown.ok_or_else(|| anyhow::anyhow!("the video has no frame to show"))?;
            let last = match made {
                Some(f) => f,
                None => jpeg(&s)?,
            };
            for &i in &order[next..] {
                out[i] = Some(last.clone());
            }
        }
        anyhow::Ok(
            out.into_iter()
                .map(|f| f.expect("every time answered"))
                .collect(),
        )
    })();
    let _ = decode.0.set_state(gst::State::Null);
    let _ = encode.0.set_state(gst::State::Null);
    got
}

/// The pipeline `description` and its appsink named `sink`.
fn launch(description: &str) -> anyhow::Result<(gst::Pipeline, gst_app::AppSink)> {
    let pipeline = gst::parse::launch(description)?
        .downcast::<gst::Pipeline>()
        .map_err(|_| anyhow::anyhow!("the frame pipeline is not a pipeline"))?;
    let sink = pipeline
        .by_name("sink")
        .expect("the sink is named")
        .downcast::<gst_app::AppSink>()
        .map_err(|_| anyhow::anyhow!("the sink is not an appsink"))?;
    Ok((pipeline, sink))
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

    /// Frame `i`'s greys in [`numbered`], left half and right half: its number in base
    /// 14, each digit a grey 16 apart from the next (so coding errors of a few levels
    /// never read as another frame).
    fn greys(i: u64) -> (u8, u8) {
        ((16 + (i % 14) * 16) as u8, (16 + (i / 14) * 16) as u8)
    }

    /// A 20 s video at 10 frames a second (frame `i` from `i` × 100 ms), 64×48, frame
    /// `i` of greys [`greys`]`(i)`; H.264 in MP4, a key frame every 3 s.
    fn numbered(path: &Path) {
        crate::media::init().unwrap();
        let p = gst::parse::launch(
            "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=64,height=48,framerate=10/1 \
             ! videoconvert ! x264enc speed-preset=ultrafast key-int-max=30 ! mp4mux \
             ! filesink name=sink",
        )
        .unwrap()
        .downcast::<gst::Pipeline>()
        .unwrap();
        p.by_name("sink").unwrap().set_property("location", path);
        let src = p
            .by_name("src")
            .unwrap()
            .downcast::<gst_app::AppSrc>()
            .unwrap();
        p.set_state(gst::State::Playing).unwrap();
        for i in 0..200u64 {
            let (l, r) = greys(i);
            let row: Vec<u8> = [vec![l; 32], vec![r; 32]].concat();
            let mut b = gst::Buffer::from_mut_slice(row.repeat(48));
            let m = b.get_mut().unwrap();
            m.set_pts(gst::ClockTime::from_mseconds(i * 100));
            m.set_duration(gst::ClockTime::from_mseconds(100));
            src.push_buffer(b).unwrap();
        }
        src.end_of_stream().unwrap();
        let bus = p.bus().unwrap();
        let msg = bus
            .timed_pop_filtered(
                gst::ClockTime::from_seconds(60),
                &[gst::MessageType::Eos, gst::MessageType::Error],
            )
            .unwrap();
        assert_eq!(msg.type_(), gst::MessageType::Eos, "{msg:?}");
        p.set_state(gst::State::Null).unwrap();
    }

    /// The number of the [`numbered`] frame a JPEG shows.
    fn number_of(jpeg: &[u8]) -> u64 {
        let (p, sink) = launch(
            "appsrc name=src ! jpegdec ! videoconvert ! video/x-raw,format=GRAY8 \
             ! appsink name=sink sync=false",
        )
        .unwrap();
        let src = p
            .by_name("src")
            .unwrap()
            .downcast::<gst_app::AppSrc>()
            .unwrap();
        p.set_state(gst::State::Playing).unwrap();
        src.push_buffer(gst::Buffer::from_slice(jpeg.to_vec()))
            .unwrap();
        let s = sink
            .try_pull_sample(gst::ClockTime::from_seconds(10))
            .unwrap();
        let st = s.caps().unwrap().structure(0).unwrap().to_owned();
        let w = st.get::<i32>("width").unwrap() as usize;
        let h = st.get::<i32>("height").unwrap() as usize;
        let b = s.buffer().unwrap().map_readable().unwrap();
        // GRAY8 rows are padded to 4 bytes.
        let stride = w.div_ceil(4) * 4;
        let at = |x: usize| b[(h / 2) * stride + x];
        let digit = |v: u8| ((f64::from(v) - 16.0) / 16.0).round() as u64;
        let n = digit(at(w / 4)) + 14 * digit(at(3 * w / 4));
        p.set_state(gst::State::Null).unwrap();
        n
    }

    /// Each time asked for gets the frame on show then, in one pass as one by one:
    /// between two frames the earlier one, times close together decoded forward, far
    /// apart reached by a seek, in any order, the same time twice.
    #[test]
    fn each_time_gets_the_frame_on_show() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("numbered.mp4");
        numbered(&path);
        let at = [
            0, 50, 99, 100, 150, 2_340, 2_399, 12_340, 10_000, 9_999, 17_650, 19_950, 150,
        ];
        let all = frames_at(&path, &at, None).unwrap();
        assert_eq!(all.len(), at.len());
        for (t, f) in at.iter().zip(&all) {
            assert_eq!((f.width, f.height), (64, 48));
            assert_eq!(number_of(&f.jpeg), t / 100, "the frame on show at {t} ms");
        }
        // One by one (a seek for each time past the gap): the same pictures, to the byte.
        for (i, t) in [(2, 99), (7, 12_340), (10, 17_650), (11, 19_950)] {
            let one = frame_at(&path, t, None).unwrap();
            assert_eq!(one.jpeg, all[i].jpeg, "at {t} ms");
        }
        // Past the end: the last frame.
        let past = frame_at(&path, 25_000, None).unwrap();
        assert_eq!(number_of(&past.jpeg), 199);
        assert!(frames_at(&path, &[], None).unwrap().is_empty());
    }

    #[test]
    fn bytes_that_are_not_a_video_have_no_frame() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("notes.mp4");
        std::fs::write(&p, b"these are not frames").unwrap();
        assert!(frame_at(&p, 0, None).is_err());
    }
}
