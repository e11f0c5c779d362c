//! Live view of a network camera's own H.264, untouched (issue 29): when an RTSP or HTTP
//! camera sends H.264 that every browser decodes (baseline or constrained baseline) and
//! no blur region covers it, its access units go to the live feed as they came, and the
//! device encodes nothing for its viewers. Otherwise the live branch re-encodes
//! (`live.rs`), and the switch happens at the next key frame either way.
//!
//! The stream is read where the source's decoder takes it: a probe on the `h264parse`
//! that `uridecodebin` puts before the decoder. What it gives (length-prefixed `avc`
//! or Annex B `byte-stream`) is written as Annex B, each key frame led by the stream's
//! SPS and PPS, so a viewer can start at any key frame.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use gstreamer as gst;
use gstreamer::prelude::*;

use super::live::{Encoded, Feed};

const START: [u8; 4] = [0, 0, 0, 1];

/// The H.264 profiles passed through (those every browser's WebRTC decodes).
const PROFILES: [&str; 2] = ["constrained-baseline", "baseline"];

/// How the stream's access units come: `avc` (`length` bytes before each NAL unit, the
/// parameter sets in the caps) or Annex B (`None`).
#[derive(Debug, Default, Clone, PartialEq)]
struct Format {
    length: Option<usize>,
    /// The SPS and PPS, in Annex B, put before each key frame.
    headers: Vec<u8>,
}

/// A camera's pass-through: whether its stream may go as it is, whether it goes now.
#[derive(Default)]
pub struct Passthrough {
    /// The camera's stream is H.264 of a profile browsers take.
    eligible: AtomicBool,
    /// Its access units go to the feed now…
    active: AtomicBool,
    /// …from the next key frame.
    waiting_key: AtomicBool,
    format: Mutex<Format>,
    last_pts: Mutex<Option<gst::ClockTime>>,
}

impl Passthrough {
    pub fn eligible(&self) -> bool {
        self.eligible.load(Ordering::SeqCst)
    }

    /// Starts (from the next key frame) or stops sending the camera's own stream.
    pub fn set_active(&self, on: bool) {
        if on && !self.active.load(Ordering::SeqCst) {
            self.waiting_key.store(true, Ordering::SeqCst);
        }
        self.active.store(on, Ordering::SeqCst);
    }

    /// The stream's caps: whether it may pass, and how to write it out.
    fn caps(&self, caps: &gst::CapsRef) {
        let Some(s) = caps.structure(0) else { return };
        let h264 = s.name() == "video/x-h264";
        let profile_ok = s
            .get::<&str>("profile")
            .is_ok_and(|p| PROFILES.contains(&p));
        self.eligible.store(h264 && profile_ok, Ordering::SeqCst);
        let mut f = self.format.lock().expect("format lock");
        if s.get::<&str>("stream-format") == Ok("avc")
            && let Ok(data) = s.get::<gst::Buffer>("codec_data")
            && let Ok(map) = data.map_readable()
            && let Some(avc) = parse_avcc(map.as_slice())
        {
            *f = avc;
        } else if s.get::<&str>("stream-format") != Ok("avc") {
            f.length = None;
        }
    }

    /// One access unit of the stream: to the feed, when active.
    fn buffer(&self, b: &gst::BufferRef, feed: &Feed) {
        if !self.active.load(Ordering::SeqCst) {
            return;
        }
        let key = !b.flags().contains(gst::BufferFlags::DELTA_UNIT);
        if !key && self.waiting_key.load(Ordering::SeqCst) {
            return;
        }
        let Ok(map) = b.map_readable() else { return };
        let data = {
            let mut f = self.format.lock().expect("format lock");
            annex_b(&mut f, map.as_slice(), key)
        };
        let Some(data) = data else { return };
        self.waiting_key.store(false, Ordering::SeqCst);
        let mut last = self.last_pts.lock().expect("pts lock");
        let duration = b
            .duration()
            .map(Duration::from)
            .or_else(|| match (b.pts(), *last) {
                (Some(p), Some(l)) if p > l => Some(Duration::from(p - l)),
                _ => None,
            })
            .unwrap_or(Duration::from_millis(33));
        *last = b.pts();
        feed.send(Encoded {
            data: Bytes::from(data),
            duration,
            key,
        });
    }
}

/// Watches the source's `h264parse` (when the source is H.264) of `pipeline` for
/// `feed`.
pub fn install(pipeline: &gst::Pipeline, feed: Arc<Feed>) -> Arc<Passthrough> {
    let pass = Arc::new(Passthrough::default());
    let p = pass.clone();
    pipeline.connect_deep_element_added(move |_, _, element| {
        let is_parser = element.factory().is_some_and(|f| f.name() == "h264parse");
        if !is_parser {
            return;
        }
        let Some(pad) = element.static_pad("src") else {
            return;
        };
        let (p, feed) = (p.clone(), feed.clone());
        pad.add_probe(
            gst::PadProbeType::BUFFER | gst::PadProbeType::EVENT_DOWNSTREAM,
            move |_, info| {
                match &info.data {
                    Some(gst::PadProbeData::Buffer(b)) => p.buffer(b, &feed),
                    Some(gst::PadProbeData::Event(e)) => {
                        if let gst::EventView::Caps(c) = e.view() {
                            p.caps(c.caps());
                        }
                    }
                    _ => {}
                }
                gst::PadProbeReturn::Ok
            },
        );
    });
    pass
}

/// The SPS and PPS of an `avcC` record, and its NAL units' length size.
fn parse_avcc(c: &[u8]) -> Option<Format> {
    let length = usize::from(*c.get(4)? & 3) + 1;
    let mut headers = vec![];
    let mut at = 5;
    for count_mask in [0x1f, 0xff] {
        let n = usize::from(*c.get(at)? & count_mask);
        at += 1;
        for _ in 0..n {
            let len = usize::from(u16::from_be_bytes([*c.get(at)?, *c.get(at + 1)?]));
            headers.extend_from_slice(&START);
            headers.extend_from_slice(c.get(at + 2..at + 2 + len)?);
            at += 2 + len;
        }
    }
    Some(Format {
        length: Some(length),
        headers,
    })
}

/// The NAL units of Annex B `data` (without their start codes).
fn nal_units(data: &[u8]) -> Vec<&[u8]> {
    let mut starts = vec![];
    let mut i = 0;
    while i + 3 <= data.len() {
        if data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1 {
            starts.push((i, i + 3));
            i += 3;
        } else {
            i += 1;
        }
    }
    let mut out = vec![];
    for (k, &(_, begin)) in starts.iter().enumerate() {
        let mut end = starts.get(k + 1).map_or(data.len(), |&(s, _)| s);
        // A four-byte start code's leading zero belongs to it, not to this unit.
        while end > begin && data[end - 1] == 0 && k + 1 < starts.len() {
            end -= 1;
        }
        out.push(&data[begin..end]);
    }
    out
}

/// An access unit as Annex B, a key frame led by the parameter sets (those of `f`, or
/// the latest the stream carried, kept in `f`); `None` when it cannot be read.
fn annex_b(f: &mut Format, data: &[u8], key: bool) -> Option<Vec<u8>> {
    let units: Vec<&[u8]> = match f.length {
        Some(len) => {
            let mut units = vec![];
            let mut at = 0;
            while at < data.len() {
                let size = data
                    .get(at..at + len)?
                    .iter()
                    .fold(0usize, |n, &b| (n << 8) | usize::from(b));
                units.push(data.get(at + len..at + len + size)?);
                at += len + size;
            }
            units
        }
        None => nal_units(data),
    };
    let kind = |u: &[u8]| u.first().map(|b| b & 0x1f);
    let has_headers = units.iter().any(|u| kind(u) == Some(7));
    if f.length.is_none() && has_headers {
        // Annex B carries its own: kept for the key frames that do not.
        f.headers.clear();
        for u in units.iter().filter(|u| matches!(kind(u), Some(7 | 8))) {
            f.headers.extend_from_slice(&START);
            f.headers.extend_from_slice(u);
        }
    }
    let mut out = Vec::with_capacity(data.len() + f.headers.len() + 16);
    if key && !has_headers {
        if f.headers.is_empty() {
            return None;
        }
        out.extend_from_slice(&f.headers);
    }
    for u in units {
        out.extend_from_slice(&START);
        out.extend_from_slice(u);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPS: &[u8] = &[0x67, 0x42, 0xc0, 0x1e, 0xda];
    const PPS: &[u8] = &[0x68, 0xce, 0x3c, 0x80];
    const IDR: &[u8] = &[0x65, 0x88, 0x84, 0x00];
    const SLICE: &[u8] = &[0x41, 0x9a, 0x00, 0x02];

    fn avcc() -> Vec<u8> {
        let mut c = vec![1, 0x42, 0xc0, 0x1e, 0xff, 0xe1];
        c.extend_from_slice(&(SPS.len() as u16).to_be_bytes());
        c.extend_from_slice(SPS);
        c.push(1);
        c.extend_from_slice(&(PPS.len() as u16).to_be_bytes());
        c.extend_from_slice(PPS);
        c
    }

    fn annex(units: &[&[u8]]) -> Vec<u8> {
        units
            .iter()
            .flat_map(|u| [&START[..], u].concat())
            .collect()
    }

    #[test]
    fn avc_units_become_annex_b_and_key_frames_carry_the_parameter_sets() {
        let mut f = parse_avcc(&avcc()).unwrap();
        assert_eq!(f.length, Some(4));
        assert_eq!(f.headers, annex(&[SPS, PPS]));
        let au = [&(IDR.len() as u32).to_be_bytes()[..], IDR].concat();
        assert_eq!(annex_b(&mut f, &au, true).unwrap(), annex(&[SPS, PPS, IDR]));
        let au = [&(SLICE.len() as u32).to_be_bytes()[..], SLICE].concat();
        assert_eq!(annex_b(&mut f, &au, false).unwrap(), annex(&[SLICE]));
        // A length past the end is not read.
        assert!(annex_b(&mut f, &[0, 0, 0, 9, 0x65], false).is_none());
        assert!(parse_avcc(&[1, 2]).is_none());
    }

    #[test]
    fn only_h264_of_a_profile_browsers_take_may_pass() {
        gst::init().unwrap();
        let p = Passthrough::default();
        let caps = |s: &str| s.parse::<gst::Caps>().unwrap();
        p.caps(&caps(
            "video/x-h264,stream-format=byte-stream,profile=constrained-baseline",
        ));
        assert!(p.eligible());
        p.caps(&caps("video/x-h264,stream-format=avc,profile=high"));
        assert!(!p.eligible());
        p.caps(&caps(
            "video/x-h264,stream-format=byte-stream,profile=baseline",
        ));
        assert!(p.eligible());
        p.caps(&caps("video/x-h265,stream-format=byte-stream,profile=main"));
        assert!(!p.eligible());
    }

    #[test]
    fn annex_b_keeps_the_latest_parameter_sets_for_key_frames_without_them() {
        let mut f = Format::default();
        // A key frame before any parameter set cannot start a viewer.
        assert!(annex_b(&mut f, &annex(&[IDR]), true).is_none());
        let first = annex(&[SPS, PPS, IDR]);
        assert_eq!(annex_b(&mut f, &first, true).unwrap(), first);
        // Three-byte start codes, then a key frame alone: led by the kept sets.
        let short: Vec<u8> = [&[0, 0, 1][..], SLICE].concat();
        assert_eq!(annex_b(&mut f, &short, false).unwrap(), annex(&[SLICE]));
        assert_eq!(
            annex_b(&mut f, &annex(&[IDR]), true).unwrap(),
            annex(&[SPS, PPS, IDR])
        );
    }
}
