//! The clips' tests: the ring, a running camera's clips (MP4 and WebM), a looped file.

use super::*;

fn buf(n: usize) -> gst::Buffer {
    gst::Buffer::with_size(n).unwrap()
}

fn sample(t_ms: i64, key: bool) -> Sample {
    Sample {
        t_ms,
        key,
        buffer: buf(100),
    }
}

#[test]
fn the_ring_keeps_whole_groups_of_its_last_seconds_and_starts_at_a_key_frame() {
    gst::init().unwrap();
    let mut r = Ring {
        max_ms: 2000,
        max_bytes: 1_000_000,
        ..Ring::default()
    };
    // Frames before any key frame cannot be decoded: not kept.
    r.push(sample(0, false), 100);
    assert!(r.samples.is_empty());
    // 10 fps, a key frame every second, for 5 s.
    for i in 0..50 {
        r.push(sample(100 + i * 100, i % 10 == 0), 100);
    }
    let first = r.samples.front().unwrap();
    assert!(first.key);
    assert_eq!(first.t_ms, 3100, "the last 2 s, from a key frame");
    assert_eq!(r.bytes, r.samples.len() * 100);
    // A cycle from 3.5 s to 4.2 s: from the key frame before 3.5 s to 4.2 s.
    let got = r.take(3500, 4200);
    assert_eq!(got.first().unwrap().0, 3100);
    assert_eq!(got.last().unwrap().0, 4200);
    // One before the ring: from what is kept.
    assert_eq!(r.take(0, 3300).first().unwrap().0, 3100);
    // Bytes bound it too.
    r.max_bytes = 1000;
    r.push(sample(5100, true), 100);
    assert!(r.bytes <= 1000 && r.samples.front().unwrap().key);
    // Time going back by a little keeps the order; by more than a second (a loop:
    // the source's running time starts again), the ring's time goes on a frame
    // after its last, and what came before the loop stays.
    r.max_bytes = 1_000_000;
    let last = r.samples.back().unwrap().t_ms;
    r.push(sample(last - 30, false), 100);
    assert_eq!(r.samples.back().unwrap().t_ms, last + 1);
    let kept = r.samples.len();
    r.push(sample(50, true), 100);
    r.push(sample(150, false), 100);
    assert_eq!(r.samples.len(), kept + 2);
    let times: Vec<i64> = r.samples.iter().rev().take(3).map(|s| s.t_ms).collect();
    assert_eq!(times, [last + 201, last + 101, last + 1]);
    // A cycle across the loop: from before it to after it.
    let across: Vec<i64> = r.take(last, last + 300).iter().map(|f| f.0).collect();
    assert_eq!(across, [last, last + 1, last + 101, last + 201]);
}

/// Frames of the video file at `path`, and its length in ms.
fn read_back(path: &Path) -> u64 {
    use crate::capture::{Capture, Options, Source};
    let mut cap = Capture::open(
        &Source::File(path.into()),
        Options {
            width: 32,
            height: 24,
            fps: 15,
            looped: false,
            fast: true,
            clips: None,
            live: None,
            blur: Default::default(),
            barcodes: false,
        },
    )
    .unwrap();
    let mut n = 0;
    while cap.next_frame().unwrap().is_some() {
        n += 1;
    }
    n
}

#[test]
fn a_running_camera_writes_each_cycles_clip_from_a_key_frame_to_after_its_end() {
    if has_x264() {
        camera_clips(false);
    }
}

#[test]
fn clips_are_webm_when_asked() {
    camera_clips(true);
}

/// A live camera's cycle clips, in MP4 or (`webm`) WebM.
fn camera_clips(webm: bool) {
    use crate::capture::{Capture, Options, Source};
    let dir = tempfile::tempdir().unwrap();
    let mut cap = Capture::open(
        &Source::Test,
        Options {
            width: 32,
            height: 24,
            fps: 15,
            looped: false,
            fast: false,
            clips: Some(ClipOptions {
                seconds: 20,
                max_bytes: 16 * 1024 * 1024,
                webm,
            }),
            live: None,
            blur: Default::default(),
            barcodes: false,
        },
    )
    .unwrap();
    let ring = cap.clips().unwrap();
    let (tx, rx) = jobs();
    let (done_tx, done) = channel();
    let writer = writer(ring, dir.path().to_path_buf(), rx, move |w| {
        done_tx.send(w).unwrap()
    })
    .unwrap();
    let mut pull = |ms: u64| {
        let until = Instant::now() + Duration::from_millis(ms);
        let mut last = 0;
        while Instant::now() < until {
            last = cap.next_frame().unwrap().unwrap().t_ms;
        }
        last
    };
    let t0 = pull(6000);
    // A cycle of the last seconds: written at once, from the key frame before its
    // start (less a second) to a second after its end.
    let (s, e) = (t0 - 2500, t0 - 1500);
    tx.send(Job {
        cycle: "a".into(),
        start_ms: s,
        end_ms: e,
    })
    .unwrap();
    let a = done.recv_timeout(Duration::from_secs(30)).unwrap();
    let ext = if webm { "webm" } else { "mp4" };
    assert_eq!(a.path, dir.path().join(format!("a.{ext}")));
    let head = std::fs::read(&a.path).unwrap();
    if webm {
        assert_eq!(head[..4], [0x1a, 0x45, 0xdf, 0xa3], "a WebM file");
    } else {
        assert_eq!(&head[4..8], b"ftyp", "an MP4 file");
    }
    assert!(a.start_ms <= s - PRE_MS, "{a:?} from {s}");
    assert!(
        a.start_ms > s - PRE_MS - 2200,
        "at most a key interval early: {a:?}"
    );
    assert!(a.start_ms + a.duration_ms >= e + POST_MS, "{a:?} to {e}");
    // Every frame in the file, at 15 a second.
    let frames = read_back(&a.path) as i64;
    assert!(
        (frames - a.duration_ms * 15 / 1000).abs() <= 2,
        "{frames} frames: {a:?}"
    );
    assert_eq!(a.bytes, std::fs::metadata(&a.path).unwrap().len());
    // A cycle that ends after the frames so far: written once its end is encoded. The
    // camera went on meanwhile (clip a's writing and reading back take their time on a
    // busy machine), so "so far" is now, not t0.
    let t1 = pull(50);
    let e2 = t1 + 1000;
    tx.send(Job {
        cycle: "b".into(),
        start_ms: t1 - 1000,
        end_ms: e2,
    })
    .unwrap();
    assert!(
        done.recv_timeout(Duration::from_millis(300)).is_err(),
        "it waits"
    );
    pull(3000);
    let b = done.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(b.start_ms + b.duration_ms >= e2 + POST_MS, "{b:?} to {e2}");
    // The camera stops: a cycle past its last frame gets what there is, at once.
    drop(cap);
    tx.send(Job {
        cycle: "c".into(),
        start_ms: e2,
        end_ms: e2 + 60_000,
    })
    .unwrap();
    let c = done.recv_timeout(Duration::from_secs(3)).unwrap();
    assert!(c.start_ms + c.duration_ms < e2 + 60_000);
    drop(tx);
    writer.join().unwrap();
}

#[test]
fn a_cycle_across_a_loop_of_its_file_gets_its_whole_clip() {
    use crate::capture::{Capture, Options, Source};
    let dir = tempfile::tempdir().unwrap();
    let file = crate::capture::test_video(dir.path(), "three-seconds", 3);
    let mut cap = Capture::open(
        &Source::File(file),
        Options {
            width: 32,
            height: 24,
            fps: 15,
            looped: true,
            fast: false,
            clips: Some(ClipOptions {
                seconds: 20,
                max_bytes: 16 * 1024 * 1024,
                webm: !has_x264(),
            }),
            live: None,
            blur: Default::default(),
            barcodes: false,
        },
    )
    .unwrap();
    let (tx, rx) = jobs();
    let (done_tx, done) = channel();
    let writer = writer(cap.clips().unwrap(), dir.path().into(), rx, move |w| {
        done_tx.send(w).unwrap()
    })
    .unwrap();
    // Five and a half seconds of frames: the file starts again at 3 s.
    let t0 = cap.next_frame().unwrap().unwrap().t_ms;
    let until = Instant::now() + Duration::from_millis(5500);
    while Instant::now() < until {
        cap.next_frame().unwrap().unwrap();
    }
    let (s, e) = (t0 + 2000, t0 + 3500);
    tx.send(Job {
        cycle: "across".into(),
        start_ms: s,
        end_ms: e,
    })
    .unwrap();
    let a = done.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(a.start_ms <= s - PRE_MS, "{a:?} from {s}");
    assert!(a.start_ms + a.duration_ms >= e + POST_MS, "{a:?} to {e}");
    // Every frame in the file, at 15 a second, across the loop.
    let frames = read_back(&a.path) as i64;
    assert!(
        (frames - a.duration_ms * 15 / 1000).abs() <= 2,
        "{frames} frames: {a:?}"
    );
    drop(tx);
    writer.join().unwrap();
}

#[test]
fn the_clock_is_unknown_until_a_frame_sets_it() {
    let c = Clock::new();
    assert_eq!(c.at(10), None);
    c.set(1000, 51_000);
    assert_eq!(c.at(1500), Some(51_500));
    // A frame taken later than it was seen does not move it; one taken sooner does.
    c.set(2000, 52_080);
    assert_eq!(c.at(1500), Some(51_500));
    c.set(3000, 52_990);
    assert_eq!(c.at(1500), Some(51_490));
    // A jump of more than a second (the source held up) moves it.
    c.set(4000, 60_000);
    assert_eq!(c.at(4100), Some(60_100));
}
