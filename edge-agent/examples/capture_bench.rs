//! What the capture's recording branch costs (bench/capture.sh), side by side in one
//! run on the demo footage decoded as fast as it goes, in alternating passes:
//! the capture chain without a recording branch (decode → convert → scale → appsink, the
//! capture's shape before recording existed), the capture as it is (a `tee` with the
//! recording branch closed by its `valve`), and the capture while it records (the valve
//! open: every frame also converted, copied and H.264-encoded at full size).
//!
//!     cargo run --release -p gemba-agent --example capture_bench -- \
//!         --footage target/models/demo.mp4 [--frames 3000] [--passes 3]

use std::path::PathBuf;
use std::time::Instant;

use anyhow::anyhow;
use gemba_agent::capture::{self, Capture, Source};
use gstreamer as gst;
use gstreamer::prelude::*;
use gstreamer_app as gst_app;

/// The bench's options.
#[derive(clap::Parser)]
struct Args {
    #[arg(long, default_value = "target/models/demo.mp4")]
    footage: PathBuf,
    /// Frames a pass.
    #[arg(long, default_value_t = 1500)]
    frames: u64,
    #[arg(long, default_value_t = 3)]
    passes: usize,
}

const W: u32 = 64;
const H: u32 = 48;

fn opts() -> capture::Options {
    capture::Options {
        width: W,
        height: H,
        fps: 1000,
        looped: true,
        fast: true,
        clips: None,
        live: None,
        blur: Default::default(),
        barcodes: false,
    }
}

/// Frames per second of the chain without a recording branch, `frames` frames (the
/// footage is longer than any pass here, so no loop is needed).
fn plain(footage: &std::path::Path, frames: u64) -> anyhow::Result<f64> {
    capture::init()?;
    let desc = format!(
        "uridecodebin name=src ! videoconvert ! videoscale \
         ! videorate drop-only=true max-rate=1000 \
         ! video/x-raw,format=RGB,width={W},height={H},pixel-aspect-ratio=1/1 \
         ! appsink name=sink sync=false max-buffers=8"
    );
    let p = gst::parse::launch(&desc)?
        .downcast::<gst::Pipeline>()
        .map_err(|_| anyhow!("not a pipeline"))?;
    let uri = gst::glib::filename_to_uri(std::fs::canonicalize(footage)?, None)?;
    p.by_name("src").unwrap().set_property("uri", uri.as_str());
    let sink = p
        .by_name("sink")
        .unwrap()
        .downcast::<gst_app::AppSink>()
        .map_err(|_| anyhow!("not an appsink"))?;
    p.set_state(gst::State::Playing)?;
    let t = Instant::now();
    for _ in 0..frames {
        let s = sink
            .pull_sample()
            .map_err(|_| anyhow!("the footage ended"))?;
        let b = s
            .buffer_owned()
            .unwrap()
            .into_mapped_buffer_readable()
            .unwrap();
        std::hint::black_box(b.len());
    }
    let fps = frames as f64 / t.elapsed().as_secs_f64();
    p.set_state(gst::State::Null)?;
    Ok(fps)
}

/// Frames per second of the agent's capture, `frames` frames, recording meanwhile
/// when `record` is set.
fn agent(footage: &std::path::Path, frames: u64, record: bool) -> anyhow::Result<f64> {
    let mut cap = Capture::open(&Source::File(footage.into()), opts())?;
    let dir = tempfile::tempdir()?;
    let done = if record {
        let path = dir
            .path()
            .join(format!("r.{}", capture::recording_format()));
        Some(cap.record(&path, 3600)?)
    } else {
        None
    };
    let t = Instant::now();
    for _ in 0..frames {
        let f = cap
            .next_frame()?
            .ok_or_else(|| anyhow!("the footage ended"))?;
        std::hint::black_box(f.rgb.len());
    }
    let fps = frames as f64 / t.elapsed().as_secs_f64();
    drop(cap);
    if let Some(done) = done {
        done.recv()??;
    }
    Ok(fps)
}

fn main() -> anyhow::Result<()> {
    let Args {
        footage,
        frames,
        passes,
    } = clap::Parser::parse();
    println!(
        "frames per second, demo footage (640x480 H.264) decoded as fast as it goes, {frames} frames a pass:"
    );
    println!("pass  without branch  branch closed  recording  closed/without  recording/without");
    let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
    for i in 1..=passes {
        let x = plain(&footage, frames)?;
        let y = agent(&footage, frames, false)?;
        let z = agent(&footage, frames, true)?;
        println!(
            "{i:4}  {x:14.0}  {y:13.0}  {z:9.0}  {:14.2}  {:17.2}",
            y / x,
            z / x
        );
        a.push(x);
        b.push(y);
        c.push(z);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|p, q| p.total_cmp(q));
        v[v.len() / 2]
    };
    let (x, y, z) = (median(&mut a), median(&mut b), median(&mut c));
    println!(
        "median{x:12.0}  {y:13.0}  {z:9.0}  {:14.2}  {:17.2}",
        y / x,
        z / x
    );
    Ok(())
}
