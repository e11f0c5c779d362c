//! Footage from the field, made here: a small H.264 file with non-square pixels, a
//! clip encoder that fails, files that are not video, files cut short. Each must keep
//! the camera's frames going or say, in a technician's words, what is wrong.

use std::sync::mpsc::channel;

use super::*;
use crate::capture::clip::{self, ClipOptions};

fn opts(fast: bool, clips: bool) -> Options {
    Options {
        width: 32,
        height: 24,
        fps: 15,
        looped: false,
        fast,
        clips: clips.then(|| ClipOptions {
            seconds: 20,
            max_bytes: 16 * 1024 * 1024,
            webm: !clip::has_x264(),
        }),
        live: None,
        blur: Default::default(),
        barcodes: false,
    }
}

/// H.264 (x264, 4:2:0) in `mux`, for footage as cameras and phones write it.
fn h264(mux: &str) -> String {
    format!("videoconvert ! video/x-raw,format=I420 ! x264enc key-int-max=15 ! h264parse ! {mux}")
}

/// Reads `cap` to its end: its frames, or the error that ended it.
fn read_all(cap: &mut Capture) -> (u64, anyhow::Result<()>) {
    let mut n = 0;
    loop {
        match cap.next_frame() {
            Ok(Some(_)) => n += 1,
            Ok(None) => return (n, Ok(())),
            Err(e) => return (n, Err(e)),
        }
    }
}

/// A 176 × 144 H.264 file with 128:117 pixels (QCIF as MPEG-4 defines it): its clip
/// branch would scale it to 193 × 144, which x264 refuses. It runs, and makes clips.
#[test]
fn a_small_file_with_non_square_pixels_gives_frames_and_clips() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("qcif.mp4");
    make_video(
        &file,
        60,
        "video/x-raw,width=176,height=144,pixel-aspect-ratio=128/117,framerate=15/1",
        &h264("mp4mux"),
    );
    let mut cap = Capture::open(&Source::File(file), opts(true, true)).unwrap();
    let ring = cap.clips().unwrap();
    let (n, end) = read_all(&mut cap);
    end.unwrap();
    assert_eq!(n, 60, "every frame of the four seconds");
    assert_eq!(cap.warning(), None);
    // A cycle of its second and third second: its clip, cut from the frames kept.
    let (tx, rx) = clip::jobs();
    let (done_tx, done) = channel();
    let writer = clip::writer(ring.clone(), dir.path().join("clips"), rx, move |w| {
        done_tx.send(w).unwrap()
    })
    .unwrap();
    tx.send(clip::Job {
        cycle: "c".into(),
        start_ms: 1000,
        end_ms: 2000,
    })
    .unwrap();
    let c = done.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(c.duration_ms >= 2000, "{c:?}");
    drop(tx);
    writer.join().unwrap();
    // Encoded at even sides, square pixels, the picture's shape kept.
    let caps = ring.0.lock().unwrap().caps().unwrap();
    let s = caps.structure(0).unwrap();
    let (w, h) = (
        s.get::<i32>("width").unwrap(),
        s.get::<i32>("height").unwrap(),
    );
    assert!(w % 2 == 0 && h % 2 == 0, "{w}x{h}");
    let shape = f64::from(w) / f64::from(h);
    assert!(
        (shape - 176.0 * 128.0 / (144.0 * 117.0)).abs() < 0.02,
        "{w}x{h}"
    );
}

/// A clip encoder that refuses the video (x264 and an odd width): the clips stop, said
/// once; the camera's frames go on.
#[test]
fn a_failing_clip_branch_stops_the_clips_not_the_camera() {
    let failing = "queue name=clip-queue ! videoconvert name=clip-convert \
                   ! videoscale name=clip-scale \
                   ! capsfilter name=clip-size caps=video/x-raw,format=I420,width=193,height=145 \
                   ! x264enc name=clip-enc ! appsink name=clipsink sync=false async=false";
    let mut cap = Capture::build(&Source::Test, opts(false, true), Some(failing.into())).unwrap();
    let ring = cap.clips().unwrap();
    for _ in 0..30 {
        assert!(cap.next_frame().unwrap().is_some());
    }
    let warning = cap.warning().unwrap();
    assert!(
        warning.starts_with("cycle clips stopped: GStreamer could not encode this camera's video"),
        "{warning}"
    );
    assert!(clip::failed(&ring));
}

/// Files that are not video: a text file (long enough for GStreamer to call it text)
/// and random bytes. The camera stops with one sentence, named.
#[test]
fn a_file_that_is_not_video_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    let words = "Station 4: torque the two M6 bolts, then fit the cover.\n";
    std::fs::write(&text, words.repeat(100)).unwrap();
    let random = dir.path().join("random.mp4");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(&random, bytes).unwrap();
    for file in [text, random] {
        let source = Source::File(file.clone());
        let mut cap = Capture::open(&source, opts(false, true)).unwrap();
        let (n, end) = read_all(&mut cap);
        let e = end.unwrap_err();
        assert_eq!(n, 0);
        assert_eq!(
            crate::cameras::fault("cam0", &source, &e),
            format!(
                "camera cam0 (file {}): not a video file GStreamer can read",
                file.display()
            )
        );
    }
}

/// Files cut short (an MP4 with its index first, a Matroska file, each cut in half as
/// a copy interrupted would leave them; an AVI cut short gives no length to compare): their frames up to the cut, and a
/// warning that says where it is.
#[test]
fn a_file_cut_short_warns_where_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    for (name, mux) in [
        ("cut.mp4", "mp4mux faststart=true"),
        ("cut.mkv", "matroskamux"),
    ] {
        let file = dir.path().join(name);
        make_video(
            &file,
            90,
            "video/x-raw,width=160,height=120,framerate=15/1",
            &h264(mux),
        );
        // Whole, it says nothing.
        let mut cap = Capture::open(&Source::File(file.clone()), opts(true, false)).unwrap();
        let whole = read_all(&mut cap).0;
        assert!((88..=90).contains(&whole), "{name}: {whole} frames");
        assert_eq!(cap.warning(), None, "{name}");
        drop(cap);
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
        let mut cap = Capture::open(&Source::File(file.clone()), opts(true, false)).unwrap();
        let (n, end) = read_all(&mut cap);
        end.unwrap();
        assert!((20..80).contains(&n), "{name}: {n} frames");
        let warning = cap
            .warning()
            .unwrap_or_else(|| panic!("{name}: no warning"));
        let at: f64 = warning
            .strip_prefix("the file ends early, at ")
            .and_then(|w| w.split_once(" s of the 6.0 s it should last: it is damaged or"))
            .and_then(|(at, _)| at.parse().ok())
            .unwrap_or_else(|| panic!("{name}: {warning}"));
        // Where its frames stop, to within a few frames (a decoder may hold the last).
        assert!(
            (at - n as f64 / 15.0).abs() < 0.5,
            "{name}: {warning} ({n} frames)"
        );
    }
}
