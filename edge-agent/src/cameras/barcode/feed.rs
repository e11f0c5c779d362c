//! The reading thread of one camera: it takes the capture's barcode branch's frames
//! (`crate::capture::codes`, already sampled), reads each with a [`Reader`] and hands
//! the values read to the camera's worker, which never waits for it: inference goes on
//! while a frame is read (about 6 ms at 640 × 480), and the worker picks the values up
//! between two frames ([`Feed::reads`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::Reader;
use crate::capture::codes::Codes;

/// A value read, and when (the frame's time, see `crate::capture::codes::Gray`).
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub value: String,
    pub t_ms: i64,
}

pub struct Feed {
    reads: Receiver<Read>,
    stop: Arc<AtomicBool>,
    /// Frames read so far (with a barcode or not).
    frames: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl Feed {
    /// Starts reading `codes` for camera `camera`.
    pub fn start(codes: Codes, camera: &str) -> std::io::Result<Feed> {
        let (tx, reads) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let halt = stop.clone();
        let frames = Arc::new(AtomicU64::new(0));
        let counted = frames.clone();
        let span = tracing::info_span!("camera", camera = camera);
        let thread = std::thread::Builder::new()
            .name(format!("barcodes {camera}"))
            .spawn(move || {
                let _in = span.entered();
                let mut reader = Reader::default();
                let wait = Duration::from_millis(200);
                while !halt.load(Ordering::Relaxed) {
                    let asked = Instant::now();
                    let Some(g) = codes.next(wait) else {
                        // A sink at its end answers at once: not a busy loop.
                        if asked.elapsed() < wait / 2 {
                            std::thread::sleep(wait / 2);
                        }
                        continue;
                    };
                    let found = reader.read(&g.luma, g.width, g.height);
                    counted.fetch_add(1, Ordering::Relaxed);
                    if let Some((value, format)) = found {
                        tracing::debug!(value, ?format, "barcode read");
                        if tx
                            .send(Read {
                                value,
                                t_ms: g.t_ms,
                            })
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            })?;
        Ok(Feed {
            reads,
            stop,
            frames,
            thread: Some(thread),
        })
    }

    /// Frames read so far, with a barcode or not.
    pub fn frames(&self) -> u64 {
        self.frames.load(Ordering::Relaxed)
    }

    /// The values read since last asked, oldest first.
    pub fn reads(&self) -> Vec<Read> {
        self.reads.try_iter().collect()
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
