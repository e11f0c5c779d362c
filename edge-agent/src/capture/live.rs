//! Live view's branch of a camera's pipeline: the decoded frames at the camera's own
//! size, encoded once to H.264 (x264 `zerolatency`, constrained baseline, which every
//! browser decodes) while anyone watches, into the camera's [`Feed`]; each viewer's
//! peer connection reads the feed (`crate::live`). Nobody watching: the branch's valve
//! drops the frames before the encoder, which costs nothing.
//!
//! A network camera's own H.264 is passed through instead while it may be
//! (`passthrough.rs`): then nothing is encoded here either.
//!
//! Its elements' names start with `live`, so its errors end live view only, never the
//! camera's task (as the clip branch's do).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;
use tokio::sync::broadcast;

use super::blur::Regions;
use super::passthrough::Passthrough;

/// Encoded frames a slow viewer may fall behind by before it skips to the next key
/// frame.
const BACKLOG: usize = 16;

/// One encoded frame: an H.264 access unit (Annex B), how long it shows, whether it
/// starts a group of pictures.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub data: Bytes,
    pub duration: Duration,
    pub key: bool,
}

/// A camera's live feed: what its pipeline encodes, to every viewer of it. It outlives
/// the pipelines that feed it (a task starting or stopping on the camera), so a viewer
/// keeps watching across them.
#[derive(Debug)]
pub struct Feed {
    tx: broadcast::Sender<Encoded>,
    viewers: AtomicUsize,
    /// A viewer joined or fell behind: the next frame should be a key frame.
    want_key: AtomicBool,
    /// The pipeline feeding it cannot encode, and why (said to new viewers).
    failed: std::sync::Mutex<Option<String>>,
    /// Its frames are the camera's own H.264, passed through (`passthrough.rs`).
    through: AtomicBool,
}

impl Default for Feed {
    fn default() -> Feed {
        Feed {
            tx: broadcast::channel(BACKLOG).0,
            viewers: AtomicUsize::new(0),
            want_key: AtomicBool::new(false),
            failed: Default::default(),
            through: AtomicBool::new(false),
        }
    }
}

/// A viewer's hold on a feed: counted while it lives.
pub struct Viewer {
    feed: Arc<Feed>,
    pub frames: broadcast::Receiver<Encoded>,
}

impl Drop for Viewer {
    fn drop(&mut self) {
        self.feed.viewers.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Viewer {
    /// Why the camera cannot be watched now, if it cannot.
    pub fn failed(&self) -> Option<String> {
        self.feed.failed()
    }

    /// Asks the encoder for a key frame (after falling behind).
    pub fn want_key(&self) {
        self.feed.want_key.store(true, Ordering::SeqCst);
    }
}

impl Feed {
    /// A new viewer: counted, and a key frame asked for so it can start.
    pub fn watch(self: &Arc<Feed>) -> Viewer {
        self.viewers.fetch_add(1, Ordering::SeqCst);
        self.want_key.store(true, Ordering::SeqCst);
        Viewer {
            feed: self.clone(),
            frames: self.tx.subscribe(),
        }
    }

    pub fn viewers(&self) -> usize {
        self.viewers.load(Ordering::SeqCst)
    }

    /// Why the camera cannot be watched now, if it cannot.
    pub fn failed(&self) -> Option<String> {
        self.failed.lock().expect("feed lock").clone()
    }

    pub fn set_failed(&self, why: Option<String>) {
        *self.failed.lock().expect("feed lock") = why;
    }

    /// Whether its frames are the camera's own H.264 now (else encoded on the device).
    pub fn passed_through(&self) -> bool {
        self.through.load(Ordering::SeqCst)
    }

    fn take_want_key(&self) -> bool {
        self.want_key.swap(false, Ordering::SeqCst)
    }

    /// What is encoded, without counting as a viewer.
    #[cfg(test)]
    pub(crate) fn peek(&self) -> broadcast::Receiver<Encoded> {
        self.tx.subscribe()
    }

    /// Hands an encoded frame to every viewer (none listening: dropped).
    pub fn send(&self, e: Encoded) {
        let _ = self.tx.send(e);
    }
}

/// The branch, from after the tee, ending in `appsink name=live-sink`. `key_every`:
/// frames between key frames at most (a viewer also gets one when it joins).
pub fn branch(key_every: u32) -> String {
    format!(
        "errorignore name=live-guard convert-to=ok \
         ! queue name=live-queue leaky=downstream max-size-buffers=2 max-size-bytes=0 \
         max-size-time=0 ! valve name=live-valve drop=true \
         ! videoconvert name=live-convert ! capsfilter name=live-raw \
         caps=\"video/x-raw,format=I420\" \
         ! x264enc name=live-enc tune=zerolatency speed-preset=ultrafast \
         key-int-max={key_every} bitrate=2500 \
         ! capsfilter name=live-h264 \
         caps=\"video/x-h264,profile=constrained-baseline,stream-format=byte-stream,alignment=au\" \
         ! appsink name=live-sink sync=false async=false max-buffers=4 drop=true"
    )
}

/// Whether an element named `name` belongs to the live branch.
pub fn in_branch(name: &str) -> bool {
    name.starts_with("live")
}

/// The branch's parts in a built pipeline.
pub struct Branch {
    pub feed: Arc<Feed>,
    valve: gst::Element,
    sink: gst_app::AppSink,
    open: bool,
    /// The camera's own H.264, when it may be passed through instead.
    pass: Option<Arc<Passthrough>>,
    /// The camera's blur: a region to blur means encoding here.
    blur: Regions,
}

impl Branch {
    /// Hooks the pipeline's live branch to `feed`; `pass`: the source's own H.264, sent
    /// instead while it may be and `blur` has no region.
    pub fn new(
        pipeline: &gst::Pipeline,
        feed: Arc<Feed>,
        pass: Option<Arc<Passthrough>>,
        blur: Regions,
    ) -> anyhow::Result<Branch> {
        let valve = pipeline
            .by_name("live-valve")
            .ok_or_else(|| anyhow::anyhow!("the live valve is named"))?;
        let sink = pipeline
            .by_name("live-sink")
            .and_then(|s| s.downcast::<gst_app::AppSink>().ok())
            .ok_or_else(|| anyhow::anyhow!("the live sink is an appsink"))?;
        let to = feed.clone();
        sink.set_callbacks(
            gst_app::AppSinkCallbacks::builder()
                .new_sample(move |sink| {
                    let sample = sink.pull_sample().map_err(|_| gst::FlowError::Eos)?;
                    if let Some(b) = sample.buffer() {
                        let map = b.map_readable().map_err(|_| gst::FlowError::Error)?;
                        to.send(Encoded {
                            data: Bytes::copy_from_slice(map.as_slice()),
                            duration: b.duration().map_or(Duration::from_millis(33), |d| d.into()),
                            key: !b.flags().contains(gst::BufferFlags::DELTA_UNIT),
                        });
                    }
                    Ok(gst::FlowSuccess::Ok)
                })
                .build(),
        );
        feed.set_failed(None);
        Ok(Branch {
            feed,
            valve,
            sink,
            open: false,
            pass,
            blur,
        })
    }

    /// While anyone watches: passes the camera's own H.264 through when it may (and no
    /// blur region covers the camera), else opens the encoder's valve and asks it for
    /// a key frame when a viewer wants one; nobody watching, neither. Called for every
    /// frame.
    pub fn tend(&mut self) {
        let watched = self.feed.viewers() > 0;
        let through =
            watched && self.blur.is_empty() && self.pass.as_ref().is_some_and(|p| p.eligible());
        if through != self.feed.passed_through() {
            if let Some(p) = &self.pass {
                p.set_active(through);
            }
            self.feed.through.store(through, Ordering::SeqCst);
            // The switch back: the encoder starts its viewers on a key frame.
            self.feed.want_key.store(true, Ordering::SeqCst);
        }
        if through {
            // The camera's own key frames come at its own pace.
            self.feed.take_want_key();
        }
        let open = watched && !through;
        if open != self.open {
            self.valve.set_property("drop", !open);
            self.open = open;
        }
        if open && self.feed.take_want_key() {
            let event = gstreamer_video::UpstreamForceKeyUnitEvent::builder()
                .all_headers(true)
                .build();
            self.sink.send_event(event);
        }
    }

    /// The branch failed (`said`): live view of this camera ends with why; the camera
    /// goes on.
    pub fn fail(&mut self, said: &str) {
        let why = format!("live view stopped: this camera's video could not be encoded ({said})");
        tracing::warn!("{why}");
        self.feed.set_failed(Some(why));
        self.valve.set_property("drop", true);
        self.open = false;
        if let Some(p) = &self.pass {
            p.set_active(false);
        }
        self.feed.through.store(false, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewers_are_counted_while_they_watch_and_ask_for_a_key_frame() {
        let feed = Arc::new(Feed::default());
        assert_eq!(feed.viewers(), 0);
        let a = feed.watch();
        assert!(feed.take_want_key());
        assert!(!feed.take_want_key());
        let mut b = feed.watch();
        assert_eq!(feed.viewers(), 2);
        feed.send(Encoded {
            data: Bytes::from_static(b"\0\0\0\x01e"),
            duration: Duration::from_millis(40),
            key: true,
        });
        assert!(b.frames.try_recv().unwrap().key);
        drop(a);
        assert_eq!(feed.viewers(), 1);
        b.want_key();
        assert!(feed.take_want_key());
        drop(b);
        assert_eq!(feed.viewers(), 0);
    }

    #[test]
    fn only_the_branchs_elements_are_in_it() {
        assert!(in_branch("live-enc"));
        assert!(!in_branch("clip-enc"));
        assert!(!in_branch("src"));
        for name in ["live-guard", "live-valve", "live-enc", "live-sink"] {
            assert!(branch(30).contains(&format!("name={name}")), "{name}");
        }
    }
}
