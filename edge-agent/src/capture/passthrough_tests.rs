//! A network camera's own H.264 to its viewers (`passthrough.rs`), with a real RTSP
//! server (GStreamer's) sending constrained baseline: passed through while watched, its
//! first frame a key frame that decodes to the camera's size; encoded on the device
//! while a blur region covers the camera, and passed through again once it is gone.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::blur::{Rect, Regions};
use super::clip::has_x264;
use super::rtsp_camera::RtspCamera;
use super::*;

/// Pulls `cap`'s frames until `feed` says it passes through `through` and `viewer`
/// got `n` frames since, the first a key frame: those frames. A viewer that falls
/// behind asks for a key frame, as live view's do.
fn frames(
    cap: &mut Capture,
    feed: &live::Feed,
    viewer: &mut live::Viewer,
    through: bool,
    n: usize,
) -> Vec<live::Encoded> {
    use tokio::sync::broadcast::error::TryRecvError;
    let until = Instant::now() + Duration::from_secs(20);
    let mut got = vec![];
    // What came, for the failure's message: frames while settled (key, delta), lags.
    let (mut keys, mut deltas, mut lags) = (0, 0, 0);
    while got.len() < n {
        assert!(
            Instant::now() < until,
            "{} frames, through {through} (now {}); settled frames seen: {keys} key, \
             {deltas} delta; {lags} lags; the feed failed: {:?}",
            got.len(),
            feed.passed_through(),
            feed.failed()
        );
        cap.next_frame().unwrap();
        loop {
            let e = match viewer.frames.try_recv() {
                Ok(e) => e,
                Err(TryRecvError::Lagged(_)) => {
                    lags += 1;
                    viewer.want_key();
                    got.clear();
                    continue;
                }
                Err(_) => break,
            };
            let settled = feed.passed_through() == through;
            if settled {
                if e.key {
                    keys += 1;
                } else {
                    deltas += 1;
                }
            }
            if settled && (e.key || !got.is_empty()) {
                got.push(e);
            } else if !settled {
                got.clear();
            }
        }
    }
    got
}

#[test]
fn an_rtsp_cameras_own_h264_goes_to_viewers_unless_a_blur_region_needs_encoding() {
    if !has_x264() {
        eprintln!("skipped: no x264 here");
        return;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = RtspCamera::start(port, "cam");
    let feed = Arc::new(live::Feed::default());
    let regions = Regions::default();
    let mut cap = Capture::open(
        &Source::Uri(server.url.clone()),
        Options {
            live: Some(feed.clone()),
            blur: regions.clone(),
            ..Options::at_real_time(64, 48, 15)
        },
    )
    .unwrap();
    for _ in 0..5 {
        cap.next_frame().unwrap().unwrap();
    }
    assert!(!feed.passed_through(), "nobody watches: nothing goes");
    let mut viewer = feed.watch();
    let own = frames(&mut cap, &feed, &mut viewer, true, 20);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("own.h264");
    std::fs::write(
        &path,
        own.iter()
            .flat_map(|e| e.data.to_vec())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    // The camera's 320 × 240, from the first frame a viewer gets.
    assert_eq!(first_frame(&path, 320, 240).unwrap().len(), 320 * 240 * 3);

    // A region to blur: the device encodes, from a key frame.
    regions.set(vec![Rect {
        x: 0.0,
        y: 0.0,
        width: 0.5,
        height: 0.5,
    }]);
    let encoded = frames(&mut cap, &feed, &mut viewer, false, 10);
    assert!(encoded[0].key);
    // Gone: the camera's own again.
    regions.set(vec![]);
    frames(&mut cap, &feed, &mut viewer, true, 10);
    drop(viewer);
    for _ in 0..5 {
        cap.next_frame().unwrap().unwrap();
    }
    assert!(!feed.passed_through(), "the last viewer gone: nothing goes");
    drop(cap);
    drop(server);
}

/// The mean brightness (0–255) of an RGB frame.
fn brightness(rgb: &[u8]) -> f64 {
    rgb.iter().map(|&v| f64::from(v)).sum::<f64>() / rgb.len() as f64
}

/// A network camera joined between two key frames: its first frames are whole, never a
/// decoder's grey smear of frames without their references. The camera is a white ball
/// on black, so a whole frame is dark and a smear is mid-grey.
#[test]
fn a_network_cameras_first_frame_is_whole() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = RtspCamera::start(port, "cam");
    let dir = tempfile::tempdir().unwrap();
    let open = || {
        Capture::open(
            &Source::Uri(server.url.clone()),
            Options::at_real_time(64, 48, 15),
        )
        .unwrap()
    };
    // Another viewer keeps the camera's stream going (alone, each join would start it
    // anew, from a key frame)…
    let mut keeper = open();
    keeper.next_frame().unwrap().unwrap();
    // …and with a key frame a second, one of several joins lands between two.
    for i in 0..4 {
        std::thread::sleep(Duration::from_millis(230));
        let mut cap = open();
        let done = cap.snapshot().unwrap();
        let first = cap.next_frame().unwrap().unwrap().rgb.to_vec();
        let until = Instant::now() + Duration::from_secs(10);
        let shot = loop {
            if let Ok(r) = done.try_recv() {
                break r.unwrap();
            }
            assert!(Instant::now() < until, "no screenshot");
            cap.next_frame().unwrap();
        };
        let path = dir.path().join(format!("{i}.jpg"));
        std::fs::write(&path, shot).unwrap();
        let shot = first_frame(&path, 320, 240).unwrap();
        assert!(
            brightness(&first) < 40.0,
            "join {i}: the task's first frame is grey: {:.0}",
            brightness(&first)
        );
        assert!(
            brightness(&shot) < 40.0,
            "join {i}: the screenshot is grey: {:.0}",
            brightness(&shot)
        );
    }
}
