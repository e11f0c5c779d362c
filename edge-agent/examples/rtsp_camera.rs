//! A network camera for the portal's end-to-end tests (and to try a device by hand):
//! GStreamer's RTSP server serving its test source as H.264 (the tests' own
//! `tests/common/rtsp.rs`). `cargo run -p gemba-agent --example rtsp_camera -- PORT
//! [PATH [WIDTHxHEIGHT]]` serves `rtsp://127.0.0.1:PORT/PATH` (default `cam`, 320x240),
//! prints the URL once it listens, and serves until killed or its standard input
//! closes.

// The tests' own camera; they also use what this does not.
#[allow(dead_code)]
#[path = "../tests/common/rtsp.rs"]
mod rtsp;

fn main() {
    let mut args = std::env::args().skip(1);
    let port: u16 = args
        .next()
        .and_then(|p| p.parse().ok())
        .expect("usage: rtsp_camera PORT [PATH]");
    let path = args.next().unwrap_or_else(|| "cam".into());
    let (w, h) = args
        .next()
        .and_then(|s| {
            let (w, h) = s.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .unwrap_or((320, 240));
    let camera = rtsp::RtspCamera::start_sized(port, &path, w, h);
    println!("{}", camera.url);
    // Until standard input closes (the test that started it ended) or a signal.
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
}
