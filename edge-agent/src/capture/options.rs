//! How a camera is read ([`Options`]), and the two ways most readers want it.

use std::sync::Arc;

use super::{blur, clip, live};

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
    /// Keep the last minutes encoded for cycle clips ([`crate::capture::clip`]).
    pub clips: Option<clip::ClipOptions>,
    /// Encode for live view into this feed while anyone watches ([`live`]).
    pub live: Option<Arc<live::Feed>>,
    /// The camera's privacy blur, applied before any branch ([`blur`]).
    pub blur: blur::Regions,
    /// Read barcodes too: a grayscale branch of full-size frames, a few a second
    /// ([`crate::capture::codes`]).
    pub barcodes: bool,
}

impl Options {
    /// A camera at real time (`fps` at most, a slow reader getting the newest frame),
    /// read once, without clips, live view, blur or barcodes.
    pub fn at_real_time(width: u32, height: u32, fps: u32) -> Options {
        Options {
            width,
            height,
            fps,
            looped: false,
            fast: false,
            clips: None,
            live: None,
            blur: blur::Regions::default(),
            barcodes: false,
        }
    }

    /// Every frame of a file, as fast as it decodes, once: how a file is judged or read
    /// back.
    pub fn every_frame(width: u32, height: u32) -> Options {
        Options {
            fps: 1000,
            fast: true,
            ..Options::at_real_time(width, height, 1000)
        }
    }
}
