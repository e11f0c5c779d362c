//! The barcode decoder's cost per frame read on the agent (bench/barcode.sh, issue 31):
//! a 640 × 480 grey frame with a QR code and one without, read as a camera reads them
//! (`cameras::barcode::Reader`: QR code, DataMatrix, Code 128 in that order), and the
//! grayscale copy of an RGB frame. Side by side in one run; results in
//! docs/benchmarks.md.
//!
//! Then the whole barcode branch as a camera runs it: the demo footage decoded as fast as
//! it goes for a task of 64 × 48 frames, in alternating passes without and with the
//! branch (`capture::Options::barcodes`: GRAY8 at the camera's size, the sampled
//! frames converted and read on the camera's reading thread), the process's CPU time a
//! frame compared.
//!
//!     cargo run --release -p gemba-agent --example barcode_bench -- [--frames 200] \
//!         [--footage target/models/demo.mp4] [--pipeline-frames 1500] [--passes 3]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use gemba_agent::cameras::barcode::{READS_PER_SECOND, Reader, feed::Feed, luma_of_rgb};
use gemba_agent::capture::{self, Capture, Source};
use rxing::BarcodeFormat;

#[path = "../src/cameras/barcode/drawn.rs"]
mod drawn;
use drawn::frame_with;

#[derive(clap::Parser)]
struct Args {
    /// Reads of each frame.
    #[arg(long, default_value_t = 200)]
    frames: u32,
    /// The footage of the pipeline's passes (skipped when it is missing).
    #[arg(long, default_value = "target/models/demo.mp4")]
    footage: PathBuf,
    /// Frames a pipeline pass.
    #[arg(long, default_value_t = 1500)]
    pipeline_frames: u64,
    #[arg(long, default_value_t = 3)]
    passes: usize,
}

/// The process's CPU time so far (all its threads, GStreamer's too), in milliseconds.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("Linux's /proc");
    // The fields after the command's closing parenthesis; utime and stime are the
    // 14th and 15th of the line, in clock ticks (100 a second on Linux).
    let rest = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    ticks as f64 * 10.0
}

/// CPU milliseconds a frame of `frames` frames of `footage`, with or without the
/// barcode branch, and the frames its reading thread read meanwhile.
fn pass(footage: &std::path::Path, frames: u64, barcodes: bool) -> anyhow::Result<(f64, u64)> {
    let opts = capture::Options {
        looped: true,
        barcodes,
        ..capture::Options::every_frame(64, 48)
    };
    let mut cap = Capture::open(&Source::File(footage.into()), opts)?;
    // Started (and the first frames through) before the clock starts.
    for _ in 0..30 {
        cap.next_frame()?;
    }
    let feed = match cap.codes() {
        Some(c) => Some(Feed::start(c, "bench")?),
        None => None,
    };
    let start = cpu_ms();
    for _ in 0..frames {
        cap.next_frame()?
            .ok_or_else(|| anyhow::anyhow!("the footage ended"))?;
    }
    let used = cpu_ms() - start;
    let read = feed.as_ref().map_or(0, |f| f.frames());
    drop(feed);
    Ok((used / frames as f64, read))
}

const VGA: (u32, u32) = (640, 480);

fn main() {
    let args: Args = clap::Parser::parse();
    let n = args.frames.max(1);
    let mut r = Reader::default();
    let with = frame_with(BarcodeFormat::QR_CODE, "LOT-42", VGA, (200, 150), 4);
    assert_eq!(
        r.read(&with, VGA.0, VGA.1).map(|(v, _)| v).as_deref(),
        Some("LOT-42"),
        "the drawn QR code reads back"
    );
    let without: Vec<u8> = (0..VGA.0 * VGA.1)
        .map(|i| 120 + ((i * 7919) % 23) as u8)
        .collect();
    for (name, f) in [("with a QR code", &with), ("without a barcode", &without)] {
        let t = Instant::now();
        for _ in 0..n {
            black_box(r.read(f, VGA.0, VGA.1));
        }
        let per = t.elapsed().as_secs_f64() * 1000.0 / f64::from(n);
        println!(
            "barcode read, 640x480 {name}: {per:.2} ms a frame, {:.1}% of a core at {READS_PER_SECOND} reads/s",
            per * READS_PER_SECOND as f64 / 10.0
        );
    }
    let rgb: Vec<u8> = with.iter().flat_map(|&v| [v, v, v]).collect();
    let t = Instant::now();
    for _ in 0..n {
        black_box(luma_of_rgb(&rgb));
    }
    println!(
        "grayscale copy of a 640x480 RGB frame: {:.2} ms",
        t.elapsed().as_secs_f64() * 1000.0 / f64::from(n)
    );
    if !args.footage.is_file() {
        println!(
            "no footage at {}: pipeline passes skipped",
            args.footage.display()
        );
        return;
    }
    let (mut without, mut with) = (vec![], vec![]);
    for _ in 0..args.passes.max(1) {
        without.push(pass(&args.footage, args.pipeline_frames, false).unwrap().0);
        with.push(pass(&args.footage, args.pipeline_frames, true).unwrap());
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let reads: u64 = with.iter().map(|(_, r)| r).sum();
    let (a, b) = (
        median(without),
        median(with.into_iter().map(|(c, _)| c).collect()),
    );
    // The passes read fewer frames than a camera at real time would (the footage goes
    // faster than they are read): the branch's cost is given per frame it read.
    let per_read =
        (b - a) * (args.pipeline_frames * args.passes.max(1) as u64) as f64 / reads.max(1) as f64;
    println!(
        "capture of {} ({} frames a pass, median of {}): {a:.2} ms of CPU a frame without \
         the barcode branch, {b:.2} ms with it; {reads} frames read for barcodes: {per_read:.2} \
         ms a frame read (converted and read), {:.1}% of a core at {READS_PER_SECOND} reads/s",
        args.footage.display(),
        args.pipeline_frames,
        args.passes.max(1),
        per_read * READS_PER_SECOND as f64 / 10.0
    );
}
