//! A network camera for the portal's end-to-end tests (and to try a device by hand):
//! GStreamer's RTSP server serving its test source as H.264 (the tests' own
//! `tests/common/rtsp.rs`). `cargo run -p gemba-agent --example rtsp_camera -- PORT
//! [PATH]` serves `rtsp://127.0.0.1:PORT/PATH` (default `cam`), prints the URL once it
//! listens, and serves until killed or its standard input closes.

#[path = "../tests/common/rtsp.rs"]
mod rtsp;

fn main() {
    let mut args = std::env::args().skip(1);
    let port: u16 = args
        .next()
        .and_then(|p| p.parse().ok())
        .expect("usage: rtsp_camera PORT [PATH]");
    let path = args.next().unwrap_or_else(|| "cam".into());
    let camera = rtsp::RtspCamera::start(port, &path);
    println!("{}", camera.url);
    // Until standard input closes (the test that started it ended) or a signal.
    let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut Vec::new());
}
