//! What live view of a network camera costs the device (bench/live_rtsp.sh), side by
//! side in one run, in alternating passes: a camera (GStreamer's RTSP server in a process
//! of its own, `examples/rtsp_camera.rs`, sending 640 × 480 constrained baseline H.264 at
//! 15 fps) read as a task reads it, with nobody watching, with one viewer of its own
//! H.264 passed through, and with one viewer while a blur region makes the device
//! encode. The figure is this process's CPU time over each pass's wall time (100% is
//! one core), from /proc/self/stat.
//!
//!     cargo run --release -p gemba-agent --example live_bench -- [--seconds 20] [--passes 3]

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gemba_agent::capture::blur::{Rect, Regions};
use gemba_agent::capture::live::Feed;
use gemba_agent::capture::{self, Capture, Source};

#[derive(clap::Parser)]
struct Args {
    /// Seconds a pass.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    #[arg(long, default_value_t = 3)]
    passes: usize,
}

/// This process's CPU time so far (user and system), in seconds.
fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command's closing parenthesis: utime is the 12th, stime the 13th.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    Nobody,
    PassedThrough,
    Encoded,
}

/// One pass of `phase` on camera `url`: the share of a core it took.
fn pass(url: &str, phase: Phase, seconds: u64) -> anyhow::Result<f64> {
    let feed = Arc::new(Feed::default());
    let blur = Regions::default();
    if matches!(phase, Phase::Encoded) {
        blur.set(vec![Rect {
            x: 0.0,
            y: 0.0,
            width: 0.25,
            height: 0.25,
        }]);
    }
    let mut cap = Capture::open(
        &Source::Uri(url.into()),
        capture::Options {
            live: Some(feed.clone()),
            blur,
            ..capture::Options::at_real_time(64, 48, 15)
        },
    )?;
    let viewer = (!matches!(phase, Phase::Nobody)).then(|| feed.watch());
    // Settled first (connected, the viewer's first key frame), then measured.
    let warm = Instant::now() + Duration::from_secs(3);
    while Instant::now() < warm {
        cap.next_frame()?;
    }
    let (t0, c0) = (Instant::now(), cpu());
    let (mut frames, mut sent) = (0u64, 0u64);
    let mut rx = viewer.as_ref().map(|v| v.frames.resubscribe());
    while t0.elapsed() < Duration::from_secs(seconds) {
        if cap.next_frame()?.is_some() {
            frames += 1;
        }
        if let Some(rx) = &mut rx {
            while rx.try_recv().is_ok() {
                sent += 1;
            }
        }
    }
    let share = (cpu() - c0) / t0.elapsed().as_secs_f64();
    let through = feed.passed_through();
    eprintln!(
        "{phase:?}: {:.1}% of a core, {frames} task frames, {sent} frames to the viewer, \
         passed through: {through}",
        share * 100.0
    );
    Ok(share)
}

fn main() -> anyhow::Result<()> {
    let args: Args = clap::Parser::parse();
    capture::init()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let server = std::env::current_exe()?.with_file_name("rtsp_camera");
    let mut camera = Command::new(&server)
        .arg(port.to_string())
        .arg("bench")
        .arg("640x480")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| {
            anyhow::anyhow!("{}: {e} (build the rtsp_camera example)", server.display())
        })?;
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(camera.stdout.take().unwrap()),
        &mut line,
    )?;
    let url = line.trim().to_string();
    let phases = [Phase::Nobody, Phase::PassedThrough, Phase::Encoded];
    let mut sums = [0.0; 3];
    for _ in 0..args.passes {
        for (i, p) in phases.iter().enumerate() {
            sums[i] += pass(&url, *p, args.seconds)?;
        }
    }
    let n = args.passes as f64;
    println!(
        "{{\"seconds\": {}, \"passes\": {}, \"nobody\": {:.3}, \"passed_through\": {:.3}, \"encoded\": {:.3}}}",
        args.seconds,
        args.passes,
        sums[0] / n,
        sums[1] / n,
        sums[2] / n
    );
    let _ = camera.kill();
    let _ = camera.wait();
    Ok(())
}
