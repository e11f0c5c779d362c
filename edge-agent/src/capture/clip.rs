//! Cycle clips: a camera running a task keeps its last minutes encoded in memory (a
//! third branch of the capture pipeline: H.264, or VP8 where x264 is missing, at most
//! 640 × 480, a key frame every two seconds), and each finished cycle's moments, from
//! a little before its start to a little after its end, are written to a file of their
//! own by copying those encoded frames into a container (MP4, or WebM): nothing is
//! encoded twice. The file then waits in the outbox's clip queue until the cloud has
//! acknowledged the cycle (cycles before media), and is uploaded to the URL that
//! acknowledgement carried.
//!
//! Times: the ring keeps each encoded frame's running time (the pipeline's time, the
//! same on every branch); a cycle's times (the cycle's clock: the wall clock at real
//! time, the video's time when read as fast as possible) are turned into running times
//! by the offset the task's frames had ([`Clock`]) when its clip is cut.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

/// Kept before a cycle's start and after its end, in milliseconds (the clip starts at
/// the key frame before `start - PRE_MS`).
pub const PRE_MS: i64 = 1000;
pub const POST_MS: i64 = 1000;
/// The longest wait for a cycle's last frames to be encoded, in real time.
const WAIT: Duration = Duration::from_secs(5);

/// How clips are kept: the last `seconds` (and at most `max_bytes`) in memory, as
/// H.264 for MP4 files or VP8 for WebM (`webm`: what browsers without H.264 play).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClipOptions {
    pub seconds: u32,
    pub max_bytes: usize,
    pub webm: bool,
}

impl Default for ClipOptions {
    /// Two minutes, MP4 where GStreamer has x264.
    fn default() -> ClipOptions {
        ClipOptions {
            seconds: 120,
            max_bytes: 48 * 1024 * 1024,
            webm: !has_x264(),
        }
    }
}

/// Whether GStreamer here has x264 (H.264 clips).
pub fn has_x264() -> bool {
    crate::capture::recording_format() == "mp4"
}

/// The running time of a sample's buffer (its timestamp within its segment), in ms: the
/// same moment has the same running time on every branch of a pipeline, whereas
/// timestamps differ (an encoder shifts its output's).
pub fn running_ms(sample: &gst::Sample) -> Option<i64> {
    let pts = sample.buffer()?.pts()?;
    let seg = sample.segment()?.downcast_ref::<gst::ClockTime>()?;
    seg.to_running_time(pts).map(|t| t.mseconds() as i64)
}

/// A source's times made to go on across its loops: a looped file's running times and
/// time stamps start again at 0 each time it starts again, and its branches see that
/// each at their own moment. Each branch places its times on an onward line of its
/// own; the lines agree to within a frame, so times compare across branches and loops.
#[derive(Debug, Default)]
pub struct Onward {
    /// Added to the source's times since it last started again.
    shift: i64,
    last: Option<i64>,
}

impl Onward {
    /// `t` on the onward line (`step`: a frame's length, in the same unit): never
    /// before the last time placed. Back by a frame or less stays in order just after
    /// it; further back is the source starting again, and its times go on a frame after
    /// the last.
    pub fn place(&mut self, t: i64, step: i64) -> i64 {
        let mut t = t + self.shift;
        if let Some(last) = self.last
            && t <= last
        {
            if last - t > step {
                self.shift += last + step - t;
                t = last + step;
            } else {
                t = last + 1;
            }
        }
        self.last = Some(t);
        t
    }
}

/// The offset from a buffer's running time to the cycle's clock, as the task's latest
/// frame had it (unknown before the first frame).
#[derive(Debug)]
pub struct Clock(AtomicI64);

impl Default for Clock {
    fn default() -> Clock {
        Clock::new()
    }
}

const UNKNOWN: i64 = i64::MIN;

impl Clock {
    pub fn new() -> Clock {
        Clock(AtomicI64::new(UNKNOWN))
    }

    /// The task's frame at (onward) running time `running_ms` has time `t_ms`. At real
    /// time a frame's time is when it was taken from the pipeline, a little after it
    /// was seen, by a varying lag: the smallest offset is the truest, and is kept,
    /// unless the offset jumps by more than a second (the source was held up).
    pub fn set(&self, running_ms: i64, t_ms: i64) {
        let d = t_ms - running_ms;
        let _ = self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                (old == UNKNOWN || d < old || d > old + 1000).then_some(d)
            });
    }

    fn offset(&self) -> Option<i64> {
        match self.0.load(Ordering::Relaxed) {
            UNKNOWN => None,
            d => Some(d),
        }
    }

    #[cfg(test)]
    fn at(&self, running_ms: i64) -> Option<i64> {
        self.offset().map(|d| running_ms + d)
    }
}

/// The container of clips encoded as `caps` say: `webm` for VP8, else `mp4`.
fn container(caps: &gst::Caps) -> &'static str {
    match caps.structure(0).map(|s| s.name().as_str()) {
        Some("video/x-vp8") => "webm",
        _ => "mp4",
    }
}

/// Whether an element named `name` belongs to the clip branch (all its elements' names
/// start with `clip`), whose errors end the clips, never the camera.
pub fn in_branch(name: &str) -> bool {
    name.starts_with("clip")
}

/// The encoding tail of the capture pipeline's clip branch, ending in `appsink
/// name=clipsink`. The frames are scaled to square pixels within 640 × 480 with even
/// sides (x264 and the browsers' decoders refuse odd ones: a 176 × 144 source with
/// 128:117 pixels would be 193 × 144), and at least 16 × 16.
pub fn branch(fps: u32, live: bool, webm: bool) -> String {
    let fps = fps.max(1);
    let key = fps * 2;
    let enc = if !webm {
        format!(
            "x264enc name=clip-enc speed-preset=ultrafast tune=zerolatency key-int-max={key} \
             bitrate=800 ! h264parse name=clip-parse \
             ! capsfilter name=clip-avc caps=video/x-h264,stream-format=avc,alignment=au"
        )
    } else {
        format!(
            "vp8enc name=clip-enc deadline=1 cpu-used=8 keyframe-max-dist={key} \
             target-bitrate=800000"
        )
    };
    // At real time a slow encoder loses frames, never holds the task's up; read as fast
    // as possible, every frame is encoded.
    let leaky = if live {
        "leaky=downstream max-size-buffers=30 max-size-bytes=0 max-size-time=0"
    } else {
        "max-size-buffers=8"
    };
    format!(
        "queue name=clip-queue {leaky} ! videoconvert name=clip-convert \
         ! videoscale name=clip-scale ! videorate name=clip-rate drop-only=true max-rate={fps} \
         ! capsfilter name=clip-size caps=\"video/x-raw,format=I420,width=(int)[16,640,2],\
         height=(int)[16,480,2],pixel-aspect-ratio=(fraction)1/1\" \
         ! {enc} ! appsink name=clipsink sync=false async=false"
    )
}

/// One encoded frame, at its running time.
struct Sample {
    t_ms: i64,
    key: bool,
    buffer: gst::Buffer,
}

/// The last encoded frames of a camera.
#[derive(Default)]
pub struct Ring {
    caps: Option<gst::Caps>,
    samples: VecDeque<Sample>,
    bytes: usize,
    max_ms: i64,
    max_bytes: usize,
    /// The camera stopped: no frame will come.
    ended: bool,
    /// The clip branch failed: no frame will come, and no clip is made.
    failed: bool,
    /// From running time to the cycle's clock.
    clock: Arc<Clock>,
    /// Frames encoded so far (for the camera's figures).
    pub encoded: u64,
    /// The frames' running times, onward across loops.
    onward: Onward,
}

/// A camera's ring, shared by its pipeline and its clip writer.
pub type Shared = Arc<(Mutex<Ring>, std::sync::Condvar)>;

pub fn ring(opts: ClipOptions, clock: Arc<Clock>) -> Shared {
    Arc::new((
        Mutex::new(Ring {
            max_ms: i64::from(opts.seconds) * 1000,
            max_bytes: opts.max_bytes,
            clock,
            ..Ring::default()
        }),
        std::sync::Condvar::new(),
    ))
}

impl Ring {
    /// Takes `s` at its running time (`step`: its length), onward across loops, so that
    /// a cycle across a loop keeps the frames before it.
    fn push(&mut self, mut s: Sample, step: i64) {
        s.t_ms = self.onward.place(s.t_ms, step);
        self.encoded += 1;
        if self.samples.is_empty() && !s.key {
            return;
        }
        self.bytes += s.buffer.size();
        self.samples.push_back(s);
        // Whole groups go, so that the ring always starts at a key frame.
        let last = self.samples.back().map(|s| s.t_ms).unwrap_or(0);
        while self.samples.len() > 1
            && (self.bytes > self.max_bytes
                || last - self.samples.front().map(|s| s.t_ms).unwrap_or(last) > self.max_ms)
        {
            let Some(next_key) = self.samples.iter().skip(1).position(|s| s.key) else {
                break;
            };
            for _ in 0..=next_key {
                if let Some(s) = self.samples.pop_front() {
                    self.bytes -= s.buffer.size();
                }
            }
        }
    }

    /// The frames from the last key frame at or before `from_ms` (or the first kept) to
    /// the last at or before `to_ms`.
    fn take(&self, from_ms: i64, to_ms: i64) -> Vec<(i64, gst::Buffer)> {
        let start = self
            .samples
            .iter()
            .rposition(|s| s.key && s.t_ms <= from_ms)
            .unwrap_or(0);
        self.samples
            .iter()
            .skip(start)
            .take_while(|s| s.t_ms <= to_ms)
            .map(|s| (s.t_ms, s.buffer.clone()))
            .collect()
    }

    /// The encoded frames' caps (once the first came).
    pub fn caps(&self) -> Option<gst::Caps> {
        self.caps.clone()
    }

    fn latest(&self) -> Option<i64> {
        self.samples.back().map(|s| s.t_ms)
    }
}

/// Feeds `sink`'s encoded frames into `ring`.
pub fn feed(sink: &gst_app::AppSink, ring: Shared) {
    sink.set_callbacks(
        gst_app::AppSinkCallbacks::builder()
            .new_sample(move |sink| {
                let sample = sink.pull_sample().map_err(|_| gst::FlowError::Eos)?;
                let Some(t_ms) = running_ms(&sample) else {
                    return Ok(gst::FlowSuccess::Ok);
                };
                let Some(buffer) = sample.buffer_owned() else {
                    return Ok(gst::FlowSuccess::Ok);
                };
                let key = !buffer.flags().contains(gst::BufferFlags::DELTA_UNIT);
                // A frame at 30 fps where the buffer does not say.
                let step = buffer.duration().map_or(33, |d| d.mseconds().max(1) as i64);
                let (lock, cv) = &*ring;
                let mut r = lock.lock().expect("clip ring lock");
                if r.caps.is_none() {
                    r.caps = sample.caps().map(|c| c.to_owned());
                }
                r.push(Sample { t_ms, key, buffer }, step);
                cv.notify_all();
                Ok(gst::FlowSuccess::Ok)
            })
            .build(),
    );
}

/// Marks the ring's camera stopped (its writer stops waiting for frames).
pub fn end(ring: &Shared) {
    let (lock, cv) = &**ring;
    lock.lock().expect("clip ring lock").ended = true;
    cv.notify_all();
}

/// Marks the ring's clip branch failed (the capture said why, once): its writer makes
/// no more clips, and says nothing more about them.
pub fn fail(ring: &Shared) {
    let (lock, cv) = &**ring;
    let mut r = lock.lock().expect("clip ring lock");
    r.ended = true;
    r.failed = true;
    cv.notify_all();
}

/// Whether the ring's clip branch failed.
pub fn failed(ring: &Shared) -> bool {
    ring.0.lock().expect("clip ring lock").failed
}

/// A clip written: the cycle's id, the file, its first frame's time and its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub cycle: String,
    pub path: PathBuf,
    pub start_ms: i64,
    pub duration_ms: i64,
    pub bytes: u64,
}

/// A cycle to write the clip of.
pub struct Job {
    pub cycle: String,
    pub start_ms: i64,
    pub end_ms: i64,
}

/// Writes the clips of a camera's cycles on a thread of its own, each into
/// `{dir}/{cycle}.{format}`, and hands each written clip to `done`. Ends when `jobs`
/// closes (after the ones queued).
pub fn writer(
    ring: Shared,
    dir: PathBuf,
    jobs: Receiver<Job>,
    done: impl Fn(Written) + Send + 'static,
) -> anyhow::Result<std::thread::JoinHandle<()>> {
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    // Its lines carry what the caller's carry (the camera).
    let span = tracing::Span::current();
    Ok(std::thread::Builder::new()
        .name("clips".into())
        .spawn(move || {
            let _span = span.entered();
            for job in jobs {
                if failed(&ring) {
                    continue;
                }
                match write(&ring, &dir, &job) {
                    Ok(Some(w)) => done(w),
                    Ok(None) => tracing::info!(cycle = job.cycle, "no video kept for a cycle"),
                    Err(e) => {
                        tracing::warn!(cycle = job.cycle, error = %format!("{e:#}"), "writing a cycle's clip")
                    }
                }
            }
        })?)
}

/// A channel for a writer's jobs.
pub fn jobs() -> (Sender<Job>, Receiver<Job>) {
    channel()
}

/// Writes `job`'s clip once its last frames are in the ring (or the wait is over);
/// `None` when the ring holds none of its frames.
fn write(ring: &Shared, dir: &Path, job: &Job) -> anyhow::Result<Option<Written>> {
    let (lock, cv) = &**ring;
    let deadline = Instant::now() + WAIT;
    let mut r = lock.lock().expect("clip ring lock");
    // The cycle's times as running times (the task's frames set the offset before the
    // engine made the cycle).
    let Some(offset) = r.clock.offset() else {
        return Ok(None);
    };
    let until = job.end_ms + POST_MS - offset;
    while !r.ended && r.latest().is_none_or(|t| t < until) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        r = cv.wait_timeout(r, left).expect("clip ring lock").0;
    }
    let frames = r.take(job.start_ms - PRE_MS - offset, until);
    let caps = r.caps.clone();
    drop(r);
    let (Some(caps), Some(first), Some(last)) = (caps, frames.first(), frames.last()) else {
        return Ok(None);
    };
    // Frames that end before the cycle begins make no clip of it.
    if last.0 + offset < job.start_ms {
        return Ok(None);
    }
    let start_ms = first.0 + offset;
    let frame_ms = frames
        .windows(2)
        .map(|w| w[1].0 - w[0].0)
        .filter(|d| *d > 0)
        .min()
        .unwrap_or(66);
    let path = dir.join(format!("{}.{}", job.cycle, container(&caps)));
    let part = dir.join(format!(".{}.part", job.cycle));
    let r = mux(&caps, &frames, &part).and_then(|()| {
        std::fs::rename(&part, &path)?;
        Ok(())
    });
    if let Err(e) = r {
        let _ = std::fs::remove_file(&part);
        return Err(e);
    }
    Ok(Some(Written {
        cycle: job.cycle.clone(),
        bytes: std::fs::metadata(&path)?.len(),
        path,
        start_ms,
        duration_ms: last.0 - first.0 + frame_ms,
    }))
}

/// Copies encoded `frames` (times in ms) into a container file at `path`.
fn mux(caps: &gst::Caps, frames: &[(i64, gst::Buffer)], path: &Path) -> anyhow::Result<()> {
    let muxer = if container(caps) == "mp4" {
        "mp4mux faststart=true"
    } else {
        "webmmux"
    };
    // The muxer's video pad by name: linked before the source has caps, a muxer would
    // give any pad (an audio one).
    let (pipeline, src) =
        crate::capture::to_file(&format!("mux.video_0 {muxer} name=mux"), path, "clip")?;
    src.set_caps(Some(caps));
    src.set_max_bytes(0);
    pipeline
        .set_state(gst::State::Playing)
        .map_err(|_| anyhow!("the clip pipeline could not start"))?;
    let first = frames[0].0;
    let r = (|| {
        for (i, (t, b)) in frames.iter().enumerate() {
            let mut out = b.copy();
            {
                let o = out.make_mut();
                let at = gst::ClockTime::from_mseconds((t - first).max(0) as u64);
                o.set_pts(at);
                o.set_dts(at);
                let next = frames.get(i + 1).map(|n| n.0).unwrap_or(t + 66);
                o.set_duration(gst::ClockTime::from_mseconds((next - t).max(1) as u64));
            }
            src.push_buffer(out)
                .map_err(|e| anyhow!("writing the clip: {e:?}"))?;
        }
        src.end_of_stream()
            .map_err(|e| anyhow!("ending the clip: {e:?}"))?;
        crate::capture::wait_encoded(&pipeline, Duration::from_secs(30))
    })();
    let _ = pipeline.set_state(gst::State::Null);
    r
}

#[cfg(test)]
mod tests;
