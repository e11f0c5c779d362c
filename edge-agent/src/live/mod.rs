//! Live view on the device (issue 29). The cloud relays a viewer's offer on `rtc`; the
//! agent answers on `rtc/answer` with a peer connection of its own ([`peer`]) that
//! sends the camera's feed. Each camera is encoded once, however many watch it
//! (`crate::capture::live`): a camera running a task feeds live view from its task's
//! pipeline; one running nothing is opened just for its viewers ([`Idle`]) and closed
//! when the last one leaves, or when a task takes the camera.
//!
//! An offer is taken once and only while fresh on the cloud's clock ([`Taken`]: the
//! rule commands follow), so an offer a broker kept for a device that was away starts
//! nothing.

pub mod peer;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use gemba_shared::mqtt::v1::{RtcAnswer, RtcMessage, RtcRequest};
use tokio::sync::{mpsc, watch};

use crate::capture::blur::Regions;
use crate::capture::live::Feed;
use crate::capture::{self, Capture, Source};

/// What the agent says of a session, to send on `rtc/answer`.
pub type Reply = (String, RtcAnswer);

/// The offers taken: plain state. A session's offer is taken once; an offer that
/// expired before the newest one taken was sent is refused.
#[derive(Debug, Default)]
pub struct Taken {
    newest_sent_ms: i64,
    /// Sessions taken, until their offer expires.
    seen: HashMap<String, i64>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    New,
    Again,
    Expired,
}

impl Taken {
    pub fn take(&mut self, session: &str, sent_ms: i64, expires_ms: i64) -> Take {
        if self.seen.contains_key(session) {
            return Take::Again;
        }
        if expires_ms < self.newest_sent_ms {
            return Take::Expired;
        }
        self.newest_sent_ms = self.newest_sent_ms.max(sent_ms);
        self.seen.insert(session.into(), expires_ms);
        let newest = self.newest_sent_ms;
        self.seen.retain(|_, e| *e >= newest);
        Take::New
    }
}

/// A camera opened only for its viewers.
struct Idle {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Idle {
    fn start(
        camera: &str,
        (source, blur): (Source, Regions),
        fps: u32,
        looped: bool,
        feed: Arc<Feed>,
    ) -> Idle {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let name = camera.to_string();
        feed.set_failed(None);
        tracing::info!(camera, %source, "camera opened for live view");
        let thread = std::thread::Builder::new()
            .name(format!("live {camera}"))
            .spawn(move || {
                // Small frames for nobody: the source keeps going for the live branch.
                let opts = capture::Options {
                    looped,
                    live: Some(feed.clone()),
                    blur,
                    ..capture::Options::at_real_time(64, 64, fps)
                };
                let mut cap = match Capture::open(&source, opts) {
                    Ok(c) => c,
                    Err(e) => {
                        feed.set_failed(Some(format!("camera {name}: {e:#}")));
                        return;
                    }
                };
                while !stopping.load(Ordering::SeqCst) {
                    match cap.next_frame() {
                        Ok(Some(_)) => {}
                        Ok(None) => {
                            feed.set_failed(Some(format!("camera {name}: its video ended")));
                            return;
                        }
                        Err(e) => {
                            feed.set_failed(Some(format!("camera {name}: {e:#}")));
                            return;
                        }
                    }
                }
            })
            .expect("a thread starts");
        Idle { stop, thread }
    }

    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.thread.join();
    }
}

/// The device's live view: feeds, sessions and the cameras opened for viewers.
pub struct Live {
    feeds: BTreeMap<String, Arc<Feed>>,
    /// Each session's switch that ends it.
    sessions: HashMap<String, watch::Sender<bool>>,
    idle: BTreeMap<String, Idle>,
    taken: Taken,
    replies: mpsc::UnboundedSender<Reply>,
}

impl Live {
    pub fn new(replies: mpsc::UnboundedSender<Reply>) -> Live {
        Live {
            feeds: BTreeMap::new(),
            sessions: HashMap::new(),
            idle: BTreeMap::new(),
            taken: Taken::default(),
            replies,
        }
    }

    /// `camera`'s feed (made at its first use).
    pub fn feed(&mut self, camera: &str) -> Arc<Feed> {
        self.feeds.entry(camera.into()).or_default().clone()
    }

    /// Sessions under way.
    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Takes a message of the cloud's; `has_camera` says whether the device has a
    /// camera of that name, `busy` whether a task's pipeline feeds it.
    pub fn take(
        &mut self,
        m: RtcMessage,
        has_camera: impl Fn(&str) -> bool,
        busy: impl Fn(&str) -> bool,
    ) {
        let session = m.session;
        match m.request {
            RtcRequest::Close => {
                if let Some(s) = self.sessions.remove(&session) {
                    let _ = s.send(true);
                }
            }
            RtcRequest::Offer {
                camera,
                sdp,
                ice_servers,
            } => {
                match self.taken.take(&session, m.sent_ms, m.expires_ms) {
                    Take::New => {}
                    Take::Again => return,
                    Take::Expired => {
                        let message = "the offer expired before it reached the device".into();
                        let _ = self.replies.send((session, RtcAnswer::Refused { message }));
                        return;
                    }
                }
                if !has_camera(&camera) {
                    let message = format!("this device has no camera {camera}");
                    let _ = self.replies.send((session, RtcAnswer::Refused { message }));
                    return;
                }
                let feed = self.feed(&camera);
                if let Some(why) = feed.failed() {
                    if busy(&camera) {
                        // The task's pipeline cannot encode: said at once.
                        let _ = self
                            .replies
                            .send((session, RtcAnswer::Refused { message: why }));
                        return;
                    }
                    if !self.idle.contains_key(&camera) {
                        // Opened for viewers before, it failed: this viewer tries again
                        // (the next tend opens it).
                        feed.set_failed(None);
                    }
                }
                let (close, closed) = watch::channel(false);
                self.sessions.insert(session.clone(), close);
                let replies = self.replies.clone();
                tokio::spawn(async move {
                    // Counted from now, so the camera opens while the peer connects.
                    let viewer = feed.watch();
                    match peer::Peer::answer(&sdp, &ice_servers).await {
                        Ok((p, sdp)) => {
                            let _ = replies.send((session.clone(), RtcAnswer::Answer { sdp }));
                            tracing::info!(session, camera, "live view started");
                            let end = p.stream(viewer, closed).await;
                            tracing::info!(session, camera, ?end, "live view ended");
                            if let peer::End::Said(message) = end {
                                let _ = replies.send((session, RtcAnswer::Ended { message }));
                            }
                        }
                        Err(e) => {
                            let message = format!("{e:#}");
                            tracing::warn!(session, camera, message, "live view refused");
                            let _ = replies.send((session, RtcAnswer::Refused { message }));
                        }
                    }
                });
            }
        }
    }

    /// Once a second: forgets ended sessions, opens the cameras that viewers wait for
    /// and that run no task (`source` and blur of those the device has; `busy`: a task's
    /// pipeline feeds it), and closes those nobody watches any more.
    pub fn tend(
        &mut self,
        busy: impl Fn(&str) -> bool,
        source: impl Fn(&str) -> Option<(Source, Regions)>,
        fps: u32,
        looped: bool,
    ) {
        self.sessions.retain(|_, s| !s.is_closed());
        let done: Vec<String> = self
            .idle
            .iter()
            .filter(|(camera, i)| {
                i.thread.is_finished()
                    || busy(camera)
                    || self.feeds.get(*camera).is_none_or(|f| f.viewers() == 0)
            })
            .map(|(c, _)| c.clone())
            .collect();
        for camera in done {
            if let Some(i) = self.idle.remove(&camera) {
                i.stop();
            }
        }
        for (camera, feed) in &self.feeds {
            if feed.viewers() == 0 || busy(camera) || self.idle.contains_key(camera) {
                continue;
            }
            if feed.failed().is_some() {
                // Said to its viewers, who leave; the next viewer's offer clears it and
                // tries again ([`Live::take`]).
                continue;
            }
            if let Some(src) = source(camera) {
                let idle = Idle::start(camera, src, fps, looped, feed.clone());
                self.idle.insert(camera.clone(), idle);
            }
        }
    }

    /// Closes `camera` if it was opened for viewers (a task is about to open it).
    pub fn release(&mut self, camera: &str) {
        if let Some(i) = self.idle.remove(camera) {
            i.stop();
        }
    }

    /// Ends every session and closes the cameras opened for them.
    pub fn stop(&mut self) {
        for (_, s) in self.sessions.drain() {
            let _ = s.send(true);
        }
        for (_, i) in std::mem::take(&mut self.idle) {
            i.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offer_is_taken_once_and_only_while_fresh() {
        let mut t = Taken::default();
        assert_eq!(t.take("a", 1_000, 31_000), Take::New);
        assert_eq!(t.take("a", 1_000, 31_000), Take::Again);
        assert_eq!(t.take("b", 40_000, 70_000), Take::New);
        // Sent before b and expired before b was sent.
        assert_eq!(t.take("c", 500, 30_500), Take::Expired);
        // Sent before b but still valid then.
        assert_eq!(t.take("d", 20_000, 50_000), Take::New);
        // a is forgotten once it expired (nothing older is taken anyway).
        assert!(!t.seen.contains_key("a"));
        assert_eq!(t.take("a", 1_000, 31_000), Take::Expired);
    }
}
