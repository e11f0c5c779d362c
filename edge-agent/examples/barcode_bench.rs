//! The barcode decoder's cost per frame read on the agent (bench/barcode.sh, issue 31):
//! a 640 × 480 grey frame with a QR code and one without, read as a camera reads them
//! (`cameras::barcode::Reader`: QR code, DataMatrix, Code 128 in that order), and the
//! grayscale copy of an RGB frame. Side by side in one run; results in
//! docs/benchmarks.md.
//!
//!     cargo run --release -p gemba-agent --example barcode_bench -- [--frames 200]

use std::hint::black_box;
use std::time::Instant;

use gemba_agent::cameras::barcode::{READS_PER_SECOND, Reader, luma_of_rgb};
use rxing::BarcodeFormat;

#[path = "../src/cameras/barcode/drawn.rs"]
mod drawn;
use drawn::frame_with;

#[derive(clap::Parser)]
struct Args {
    /// Reads of each frame.
    #[arg(long, default_value_t = 200)]
    frames: u32,
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
}
