//! Capture with GStreamer: a camera's frames, decoded, converted to RGB and scaled to the
//! model's input size inside the pipeline (`videoconvert ! videoscale`), limited to the
//! camera's frame rate (`videorate`), pulled from an `appsink`.
//!
//! Sources: a video file (once or looped; at real time or as fast as possible), an
//! RTSP or HTTP stream, a V4L2 device and GStreamer's test source. What a user names is
//! set as an element property, never pasted into a pipeline description.

use std::path::Path;

use anyhow::{Context, anyhow, bail};
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

/// Where a camera's frames come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A video file.
    File(std::path::PathBuf),
    /// A network stream (`rtsp://`, `http://`, `https://`).
    Uri(String),
    /// A V4L2 device such as `/dev/video0`.
    V4l2(String),
    /// GStreamer's moving test pattern.
    Test,
}

impl std::str::FromStr for Source {
    type Err = anyhow::Error;
    /// `test`, `v4l2:/dev/video0`, `rtsp://…`, `http(s)://…`, `file:PATH` or a path.
    fn from_str(s: &str) -> anyhow::Result<Source> {
        let s = s.trim();
        if s.is_empty() {
            bail!("a camera source is empty");
        }
        Ok(if s == "test" {
            Source::Test
        } else if let Some(d) = s.strip_prefix("v4l2:") {
            Source::V4l2(d.into())
        } else if ["rtsp://", "rtsps://", "http://", "https://"]
            .iter()
            .any(|p| s.starts_with(p))
        {
            Source::Uri(s.into())
        } else {
            Source::File(s.strip_prefix("file:").unwrap_or(s).into())
        })
    }
}

/// How a camera is read.
#[derive(Debug, Clone)]
pub struct Options {
    pub width: u32,
    pub height: u32,
    /// Frames per second at most.
    pub fps: u32,
    /// Files start again at their end.
    pub looped: bool,
    /// As fast as possible (files only), every frame kept; else at real time, and a
    /// slow consumer gets the newest frame.
    pub fast: bool,
}

/// One frame: RGB, `width × height × 3` bytes, and its time in milliseconds (the wall
/// clock at real time; the video's own time, across loops, when fast).
pub struct Frame {
    pub t_ms: i64,
    pub rgb: gst::MappedBuffer<gst::buffer::Readable>,
}

pub struct Capture {
    pipeline: gst::Pipeline,
    sink: gst_app::AppSink,
    opts: Options,
    /// Time added to a looped file's frames: the length of the loops before.
    offset_ms: i64,
    /// The first frame's time stamp in this loop: a file's time starts at its first
    /// frame (decoders with B-frames start a few frames late).
    first_pts: Option<i64>,
    last_ms: i64,
    ended: bool,
}

/// GStreamer, once per process.
pub fn init() -> anyhow::Result<()> {
    gst::init().context("GStreamer could not start")
}

impl Capture {
    pub fn open(source: &Source, opts: Options) -> anyhow::Result<Capture> {
        init()?;
        let (head, prop): (&str, Option<(&str, String)>) = match source {
            Source::File(p) => {
                if !p.is_file() {
                    bail!("no video file at {}", p.display());
                }
                ("uridecodebin name=src", Some(("uri", file_uri(p)?)))
            }
            Source::Uri(u) => ("uridecodebin name=src", Some(("uri", u.clone()))),
            Source::V4l2(d) => ("v4l2src name=src ! decodebin", Some(("device", d.clone()))),
            Source::Test => ("videotestsrc name=src is-live=true pattern=ball", None),
        };
        let desc = format!(
            "{head} ! videoconvert ! videoscale ! videorate drop-only=true max-rate={fps} \
             ! video/x-raw,format=RGB,width={w},height={h},pixel-aspect-ratio=1/1 \
             ! appsink name=sink",
            fps = opts.fps.max(1),
            w = opts.width,
            h = opts.height,
        );
        let pipeline = gst::parse::launch(&desc)
            .context("building the capture pipeline")?
            .downcast::<gst::Pipeline>()
            .map_err(|_| anyhow!("the capture pipeline is not a pipeline"))?;
        if let Some((name, value)) = prop {
            let src = pipeline.by_name("src").expect("the source is named");
            src.set_property_from_str(name, &value);
        }
        let sink = pipeline
            .by_name("sink")
            .expect("the sink is named")
            .downcast::<gst_app::AppSink>()
            .map_err(|_| anyhow!("the sink is not an appsink"))?;
        let live = !opts.fast;
        sink.set_sync(live);
        sink.set_max_buffers(if live { 2 } else { 8 });
        sink.set_drop(live);
        pipeline
            .set_state(gst::State::Playing)
            .map_err(|_| anyhow!("the camera source could not start"))?;
        Ok(Capture {
            pipeline,
            sink,
            opts,
            offset_ms: 0,
            first_pts: None,
            last_ms: 0,
            ended: false,
        })
    }

    /// The next frame; `Ok(None)` at the end of a file that is not looped. An error
    /// from the source (a file that is not video, a camera gone) is an `Err`.
    pub fn next_frame(&mut self) -> anyhow::Result<Option<Frame>> {
        loop {
            if self.ended {
                return Ok(None);
            }
            self.check_bus()?;
            if let Some(sample) = self
                .sink
                .try_pull_sample(gst::ClockTime::from_mseconds(200))
            {
                let buffer = sample
                    .buffer_owned()
                    .ok_or_else(|| anyhow!("a frame without data"))?;
                let pts = buffer.pts().map(|t| t.mseconds() as i64).unwrap_or(0);
                let first = *self.first_pts.get_or_insert(pts);
                let t_ms = if self.opts.fast {
                    self.offset_ms + pts - first
                } else {
                    now_ms()
                };
                self.last_ms = t_ms.max(self.last_ms);
                let rgb = buffer
                    .into_mapped_buffer_readable()
                    .map_err(|_| anyhow!("a frame could not be read"))?;
                return Ok(Some(Frame { t_ms, rgb }));
            }
            if self.sink.is_eos() {
                if self.opts.looped {
                    // The next loop's frames come after this one's.
                    self.offset_ms = self.last_ms + 1000 / self.opts.fps.max(1) as i64;
                    self.first_pts = None;
                    self.pipeline
                        .seek_simple(
                            gst::SeekFlags::FLUSH | gst::SeekFlags::KEY_UNIT,
                            gst::ClockTime::ZERO,
                        )
                        .map_err(|_| anyhow!("the video could not start again"))?;
                } else {
                    self.ended = true;
                }
            }
        }
    }

    fn check_bus(&self) -> anyhow::Result<()> {
        let bus = self.pipeline.bus().expect("a pipeline has a bus");
        while let Some(msg) = bus.pop_filtered(&[gst::MessageType::Error]) {
            if let gst::MessageView::Error(e) = msg.view() {
                bail!("{}", e.error());
            }
        }
        Ok(())
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        let _ = self.pipeline.set_state(gst::State::Null);
    }
}

fn file_uri(p: &Path) -> anyhow::Result<String> {
    let abs = std::fs::canonicalize(p).with_context(|| format!("{}", p.display()))?;
    gst::glib::filename_to_uri(&abs, None)
        .map(|u| u.to_string())
        .map_err(|e| anyhow!("{}: {e}", p.display()))
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
