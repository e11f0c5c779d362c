//! Capture with GStreamer: a camera's frames, decoded, converted to RGB and scaled to the
//! model's input size inside the pipeline (`videoconvert ! videoscale`), pulled from an
//! `appsink`, and limited to the task's frame rate here (`rate.rs`).
//! Here the pipeline and its frames; where a source comes from in `source.rs`, the
//! recording in `recording.rs`, the clips in `clip.rs`, the fault wording in `fault.rs`.
//!
//! Sources: a video file (once or looped; at real time or as fast as possible), an
//! RTSP or HTTP stream, a V4L2 device and GStreamer's test source. What a user names is
//! set as an element property, never pasted into a pipeline description.
//!
//! Recording: the decoded frames also go, through a `tee`, to a second branch closed by
//! a `valve`; [`Capture::record`] opens it for some seconds and feeds the full-size
//! frames to an encoding pipeline (`appsrc ! x264enc ! mp4mux ! filesink`, or VP8 in
//! WebM where x264 is missing), so a camera that runs a task records without being
//! opened twice (a V4L2 camera cannot be) and without dropping a frame of its task.
//!
//! Privacy: the camera's blur regions are applied right after decoding, before the
//! `tee` ([`blur`]), so no branch ever has their pixels; a screenshot is the recording
//! branch's next frame as a JPEG (`snapshot.rs`).
//!
//! Faults: an error of the source's part of the pipeline ends the capture with one
//! sentence a technician can act on ([`fault`]; the camera's name goes in front where
//! the camera is known). The clip branch (a third branch, [`clip`]) never ends
//! it: its flow errors stop at an `errorignore` after the tee, and its error messages
//! on the bus (told apart by their elements' `clip` names) are logged once and end
//! the clips only. A file whose frames stop well before the length its header gives
//! warns once that it is damaged or cut short ([`Capture::warning`]).
//!
//! Barcodes: a fourth branch, when asked for, is the frames in grayscale at a readable
//! size, a few a second, for a reader on a thread of its own ([`codes`]).

pub mod blur;
pub mod clip;
pub mod codes;
mod fault;
pub mod live;
mod options;
mod passthrough;
mod rate;
mod recording;
mod snapshot;
mod source;
pub mod stamp;

pub use options::Options;
pub use recording::{Recorded, RecordingDone, recording_format};
pub(crate) use recording::{to_file, wait_encoded};
pub use snapshot::{SnapshotDone, first_frame, jpeg, wait as wait_snapshot};
pub use source::Source;

#[cfg(test)]
use recording::encoding;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

use crate::clock::now_ms;

/// One frame: RGB, `width × height × 3` bytes, and its time in milliseconds (the wall
/// clock at real time; the video's own time, across loops, when fast).
pub struct Frame {
    pub t_ms: i64,
    pub rgb: gst::MappedBuffer<gst::buffer::Readable>,
}

pub struct Capture {
    pipeline: gst::Pipeline,
    sink: gst_app::AppSink,
    /// The recording branch: its valve and sink, and the recording under way.
    valve: gst::Element,
    rec_sink: gst_app::AppSink,
    recording: Arc<Mutex<Option<gst_app::AppSrc>>>,
    /// The clip branch's last minutes and its sink, and the offset from running times
    /// to frame times.
    clips: Option<(clip::Shared, gst_app::AppSink)>,
    /// The live view branch, when asked for and x264 is here.
    live: Option<live::Branch>,
    /// The barcode branch's frames, when asked for.
    codes: Option<codes::Codes>,
    clock: Arc<clip::Clock>,
    /// The source's frames' running times, onward across loops (as the clips' are).
    running: clip::Onward,
    /// Which of them the task takes at its rate.
    rate: rate::Rate,
    opts: Options,
    /// The frames' time stamps, onward across a looped file's loops (when fast).
    pts: clip::Onward,
    /// The first frame's (onward) time stamp: a file's time starts at its first frame
    /// (decoders with B-frames start a few frames late).
    first_pts: Option<i64>,
    ended: bool,
    source: Source,
    /// What decodebin said was missing before its error (a plug-in's description).
    missing: Option<String>,
    /// The clip branch failed: no more clips, the camera goes on.
    clips_failed: bool,
    /// A file's length as its header gives it (asked at the first frame), and where its
    /// last frame so far ends (stream time), to tell a file that ends early.
    length: Option<gst::ClockTime>,
    last_end: Option<gst::ClockTime>,
    /// The latest warning about this source, in a technician's words; whether the
    /// file's early end was told.
    warning: Option<String>,
    told_short: bool,
}

/// GStreamer, once per process.
pub fn init() -> anyhow::Result<()> {
    gst::init().context("GStreamer could not start")
}

impl Capture {
    /// Opens `source`. Its faults show on the first [`Capture::next_frame`].
    pub fn open(source: &Source, opts: Options) -> anyhow::Result<Capture> {
        let clip_branch = opts
            .clips
            .map(|c| clip::branch(opts.fps, !opts.fast, c.webm));
        Capture::build(source, opts, clip_branch)
    }

    /// [`Capture::open`] with the clip branch's encoding tail given (tests give one
    /// that fails).
    fn build(
        source: &Source,
        opts: Options,
        clip_branch: Option<String>,
    ) -> anyhow::Result<Capture> {
        init()?;
        let stamp_head = stamp::head();
        let (head, prop): (&str, Option<(&str, String)>) = match source {
            Source::File(p) => {
                if !p.is_file() {
                    bail!("no video file at {}", p.display());
                }
                ("uridecodebin name=src", Some(("uri", file_uri(p)?)))
            }
            Source::Uri(u) => ("uridecodebin name=src", Some(("uri", u.clone()))),
            Source::V4l2(d) => ("v4l2src name=src ! decodebin", Some(("device", d.clone()))),
            // A camera of its own size (320 × 240), whatever its branches ask for.
            Source::Test => (
                "videotestsrc name=src is-live=true pattern=ball ! video/x-raw,width=320,height=240",
                None,
            ),
            Source::Stamp => (stamp_head.as_str(), None),
        };
        // The clip branch's flow errors (an encoder refusing the video) stop here: the
        // tee, and so the task's frames, never see them.
        let clip_branch = match clip_branch {
            Some(b) => format!(" t. ! errorignore name=clip-guard convert-to=ok ! {b}"),
            None => String::new(),
        };
        let live_branch = match &opts.live {
            Some(_) if clip::has_x264() => {
                format!(" t. ! {}", live::branch(opts.fps.max(1) * 2))
            }
            _ => String::new(),
        };
        let code_branch = if opts.barcodes {
            codes::branch()
        } else {
            String::new()
        };
        let desc = format!(
            "{head} ! {blur} ! tee name=t{clip_branch}{live_branch}{code_branch} \
             t. ! queue ! videoconvert ! videoscale \
             ! video/x-raw,format=RGB,width={w},height={h},pixel-aspect-ratio=1/1 \
             ! appsink name=sink \
             t. ! queue leaky=downstream max-size-buffers=30 max-size-bytes=0 max-size-time=0 \
             ! valve name=rec drop=true ! videoconvert ! video/x-raw,format=I420 \
             ! appsink name=recsink sync=false async=false max-buffers=30",
            w = opts.width,
            h = opts.height,
            blur = blur::HEAD,
        );
        let pipeline = gst::parse::launch(&desc)
            .context("building the capture pipeline")?
            .downcast::<gst::Pipeline>()
            .map_err(|_| anyhow!("the capture pipeline is not a pipeline"))?;
        if let Some((name, value)) = prop {
            let src = pipeline.by_name("src").expect("the source is named");
            src.set_property_from_str(name, &value);
        }
        if matches!(source, Source::Stamp) {
            stamp::install(&pipeline)?;
        }
        source::whole_frames_only(&pipeline);
        blur::install(&pipeline, opts.blur.clone())?;
        let sink = pipeline
            .by_name("sink")
            .expect("the sink is named")
            .downcast::<gst_app::AppSink>()
            .map_err(|_| anyhow!("the sink is not an appsink"))?;
        let valve = pipeline.by_name("rec").expect("the valve is named");
        let rec_sink = pipeline
            .by_name("recsink")
            .expect("the recording sink is named")
            .downcast::<gst_app::AppSink>()
            .map_err(|_| anyhow!("the recording sink is not an appsink"))?;
        let clock = Arc::new(clip::Clock::new());
        let clips = match opts.clips {
            Some(c) => {
                let ring = clip::ring(c, clock.clone());
                let clip_sink = pipeline
                    .by_name("clipsink")
                    .expect("the clip sink is named")
                    .downcast::<gst_app::AppSink>()
                    .map_err(|_| anyhow!("the clip sink is not an appsink"))?;
                clip::feed(&clip_sink, ring.clone());
                Some((ring, clip_sink))
            }
            None => None,
        };
        let live = match &opts.live {
            Some(feed) if !live_branch.is_empty() => {
                // A network camera's own H.264 may go to its viewers as it came.
                let pass = matches!(source, Source::Uri(_))
                    .then(|| passthrough::install(&pipeline, feed.clone()));
                Some(live::Branch::new(
                    &pipeline,
                    feed.clone(),
                    pass,
                    opts.blur.clone(),
                )?)
            }
            Some(feed) => {
                feed.set_failed(Some(
                    "live view needs GStreamer's x264 encoder (gstreamer1.0-plugins-ugly), \
                     which this device lacks"
                        .into(),
                ));
                None
            }
            None => None,
        };
        let codes = if opts.barcodes {
            Some(codes::install(&pipeline, opts.fast)?)
        } else {
            None
        };
        let real_time = !opts.fast;
        sink.set_sync(real_time);
        sink.set_max_buffers(if real_time { 2 } else { 8 });
        sink.set_drop(real_time);
        pipeline
            .set_state(gst::State::Playing)
            .map_err(|_| anyhow!("the camera source could not start"))?;
        Ok(Capture {
            pipeline,
            sink,
            valve,
            rec_sink,
            recording: Arc::new(Mutex::new(None)),
            clips,
            live,
            codes,
            clock,
            running: Default::default(),
            rate: rate::Rate::new(opts.fps),
            opts,
            pts: Default::default(),
            first_pts: None,
            ended: false,
            source: source.clone(),
            missing: None,
            clips_failed: false,
            length: None,
            last_end: None,
            warning: None,
            told_short: false,
        })
    }

    /// The latest warning about the source (a file that ends early, clips that
    /// stopped), in a technician's words.
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    /// The next frame; `Ok(None)` at the end of a file that is not looped. An error
    /// from the source (a file that is not video, a camera gone) is an `Err`.
    pub fn next_frame(&mut self) -> anyhow::Result<Option<Frame>> {
        loop {
            if self.ended {
                return Ok(None);
            }
            self.check_bus()?;
            if let Some(l) = &mut self.live {
                l.tend();
            }
            if let Some(sample) = self
                .sink
                .try_pull_sample(gst::ClockTime::from_mseconds(200))
            {
                self.note_end(&sample);
                // A frame's length: a loop's first frame comes one after the last's.
                let step = 1000 / i64::from(self.opts.fps.max(1));
                let running = clip::running_ms(&sample).map(|r| self.running.place(r, step));
                if running.is_some_and(|r| !self.rate.keep(r)) {
                    continue;
                }
                let buffer = sample
                    .buffer_owned()
                    .ok_or_else(|| anyhow!("a frame without data"))?;
                let t_ms = if self.opts.fast {
                    let pts = buffer.pts().map_or(0, |t| t.mseconds() as i64);
                    let pts = self.pts.place(pts, step);
                    pts - *self.first_pts.get_or_insert(pts)
                } else {
                    now_ms()
                };
                if let Some(r) = running {
                    self.clock.set(r, t_ms);
                }
                let rgb = buffer
                    .into_mapped_buffer_readable()
                    .map_err(|_| anyhow!("a frame could not be read"))?;
                return Ok(Some(Frame { t_ms, rgb }));
            }
            if self.sink.is_eos() {
                self.check_length();
                if self.opts.looped {
                    // The next loop's frames come after this one's (onward).
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

    /// Ends the capture on an error of the source's part of the pipeline, in a
    /// technician's words; an error of the clip branch ends the clips only.
    fn check_bus(&mut self) -> anyhow::Result<()> {
        let bus = self.pipeline.bus().expect("a pipeline has a bus");
        while let Some(msg) =
            bus.pop_filtered(&[gst::MessageType::Error, gst::MessageType::Element])
        {
            match msg.view() {
                gst::MessageView::Element(e) => {
                    if let Some(s) = e.structure().filter(|s| s.name() == "missing-plugin") {
                        self.missing = s
                            .get::<String>("name")
                            .ok()
                            .or_else(|| s.get::<gst::Caps>("detail").ok().map(|c| c.to_string()));
                    }
                }
                gst::MessageView::Error(e) => {
                    let said = e.error().to_string();
                    if msg.src().is_some_and(|s| clip::in_branch(&s.name())) {
                        self.fail_clips(&said);
                        continue;
                    }
                    if msg.src().is_some_and(|s| live::in_branch(&s.name())) {
                        if let Some(l) = &mut self.live {
                            l.fail(&said);
                        }
                        let _ = self.pipeline.set_state(gst::State::Playing);
                        continue;
                    }
                    let detail = e.debug().map(|d| d.to_string());
                    let kind = fault::kind(&e.error(), detail.as_deref(), self.missing.as_deref());
                    tracing::debug!(source = %self.source, error = said, detail, "the source failed");
                    bail!("{}", fault::sentence(&self.source, &kind, &said));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The clip branch failed: said once, its ring ends, and the camera goes on.
    fn fail_clips(&mut self, said: &str) {
        if std::mem::replace(&mut self.clips_failed, true) {
            return;
        }
        let warning = format!(
            "cycle clips stopped: GStreamer could not encode this camera's video for them \
             ({said}); steps are still recognised and cycles recorded, without clips"
        );
        tracing::warn!(source = %self.source, "{warning}");
        self.warning = Some(warning);
        if let Some((ring, _)) = &self.clips {
            clip::fail(ring);
        }
        // An error posted while the pipeline goes to playing stops it on the way (the
        // sinks wait in paused): the rest of the pipeline is asked to go on.
        let _ = self.pipeline.set_state(gst::State::Playing);
    }

    /// Notes where a file's frame ends (stream time), and the file's length at the
    /// first.
    fn note_end(&mut self, sample: &gst::Sample) {
        if !matches!(self.source, Source::File(_)) {
            return;
        }
        if self.length.is_none() {
            self.length = self.pipeline.query_duration::<gst::ClockTime>();
        }
        let Some(buffer) = sample.buffer() else {
            return;
        };
        let stream = sample
            .segment()
            .and_then(|s| s.downcast_ref::<gst::ClockTime>().cloned())
            .and_then(|s| buffer.pts().and_then(|p| s.to_stream_time(p)));
        if let Some(t) = stream {
            let end = t + buffer.duration().unwrap_or(gst::ClockTime::ZERO);
            self.last_end = Some(self.last_end.map_or(end, |l| l.max(end)));
        }
    }

    /// At a file's end: warns once when its frames stopped well short of its length.
    fn check_length(&mut self) {
        let (Some(last), Some(length)) = (self.last_end, self.length) else {
            return;
        };
        if !self.told_short && fault::ended_early(last, length) {
            self.told_short = true;
            let warning = fault::ended_early_warning(last, length);
            tracing::warn!(source = %self.source, "{warning}");
            self.warning = Some(warning);
        }
    }
}

impl Capture {
    /// The last minutes kept for cycle clips (when asked for in [`Options`]).
    pub fn clips(&self) -> Option<clip::Shared> {
        self.clips.as_ref().map(|(ring, _)| ring.clone())
    }

    /// The barcode branch's frames (when asked for in [`Options`]).
    pub fn codes(&self) -> Option<codes::Codes> {
        self.codes.clone()
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if let Some((ring, sink)) = &self.clips {
            // A file read to its end: the encoder's last frames are let through first
            // (a few frames of latency), so the last cycle's clip has them.
            if self.ended && !self.clips_failed {
                let until = std::time::Instant::now() + Duration::from_secs(3);
                while !sink.is_eos() && std::time::Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            clip::end(ring);
        }
        // A recording under way ends here, with what it has.
        if let Some(src) = self.recording.lock().expect("recording lock").take() {
            self.valve.set_property("drop", true);
            let _ = src.end_of_stream();
        }
        let _ = self.pipeline.set_state(gst::State::Null);
    }
}

fn file_uri(p: &Path) -> anyhow::Result<String> {
    let abs = std::fs::canonicalize(p).with_context(|| format!("{}", p.display()))?;
    gst::glib::filename_to_uri(&abs, None)
        .map(|u| u.to_string())
        .map_err(|e| anyhow!("{}: {e}", p.display()))
}

#[cfg(test)]
mod footage;
#[cfg(test)]
pub(crate) use footage::{make_pattern, make_video, test_video};

#[cfg(test)]
mod blur_tests;
#[cfg(test)]
mod fault_tests;
#[cfg(test)]
mod passthrough_tests;
/// A real RTSP camera for the tests (the agent's integration tests' own).
#[cfg(test)]
#[path = "../../tests/common/rtsp.rs"]
mod rtsp_camera;

#[cfg(test)]
mod tests;
