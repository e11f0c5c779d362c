//! The capture's tests: frames, recordings, looped files.

use super::*;

fn opts(fast: bool) -> Options {
    Options {
        width: 32,
        height: 24,
        fps: 15,
        looped: false,
        fast,
        clips: None,
        live: None,
        blur: Default::default(),
        barcodes: false,
    }
}

/// Frames of a video file, read as fast as possible to its end, every one (a rate above
/// any file's).
fn frames_in(path: &Path) -> u64 {
    let every = Options {
        fps: 1000,
        ..opts(true)
    };
    let mut cap = Capture::open(&Source::File(path.into()), every).unwrap();
    let mut n = 0;
    while cap.next_frame().unwrap().is_some() {
        n += 1;
    }
    n
}

#[test]
fn a_running_camera_records_without_stopping_its_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("a.{}", recording_format()));
    let mut cap = Capture::open(&Source::Test, opts(false)).unwrap();
    assert!(cap.next_frame().unwrap().is_some());
    let done = cap.record(&path, 2).unwrap();
    // One recording at a time.
    let again = cap.record(&dir.path().join("b.mp4"), 2).err().unwrap();
    assert_eq!(again.to_string(), "this camera is already recording");
    let mut during = 0;
    let r = loop {
        if let Ok(r) = done.try_recv() {
            break r.unwrap();
        }
        assert!(cap.next_frame().unwrap().is_some());
        during += 1;
        assert!(during < 15 * 30, "the recording did not end");
    };
    // The task's frames went on at its rate (15 fps) meanwhile.
    assert!(during >= 20, "{during} frames while recording");
    // Two seconds of the source's frames (15 or 30 a second), every one in the file.
    assert!((1800..=2100).contains(&r.duration_ms), "{r:?}");
    assert!((28..=62).contains(&r.frames), "{r:?}");
    assert_eq!(r.path, path);
    assert_eq!(frames_in(&path), r.frames);
    // Once done, the camera records again.
    let next = cap.record(&dir.path().join(format!("c.{}", recording_format())), 1);
    assert!(next.is_ok());
}

/// A one-second video file made in `dir`, read looped (`fast` or at real time).
fn one_second_looped(dir: &Path, fast: bool) -> Capture {
    let file = test_video(dir, "one-second", 1);
    let looped = Options {
        looped: true,
        ..opts(fast)
    };
    Capture::open(&Source::File(file), looped).unwrap()
}

#[test]
fn a_source_of_odd_size_records_at_even_size() {
    let dir = tempfile::tempdir().unwrap();
    // VP8 takes odd sizes; x264 does not.
    let file = dir.path().join("odd.webm");
    make_video(
        &file,
        75,
        "video/x-raw,width=175,height=143,framerate=15/1",
        "vp8enc deadline=1 ! webmmux",
    );
    let mut cap = Capture::open(&Source::File(file), opts(false)).unwrap();
    assert!(cap.next_frame().unwrap().is_some());
    let path = dir.path().join(format!("r.{}", recording_format()));
    let done = cap.record(&path, 1).unwrap();
    let r = loop {
        if let Ok(r) = done.try_recv() {
            break r.unwrap();
        }
        assert!(cap.next_frame().unwrap().is_some(), "the file ended first");
    };
    assert!(r.frames >= 10, "{r:?}");
    assert_eq!(frames_in(&path), r.frames);
}

#[test]
fn a_looped_file_records_on_across_its_loops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("r.{}", recording_format()));
    let mut cap = one_second_looped(dir.path(), false);
    // Three seconds of a one-second file: its time stamps start again twice.
    let done = cap.record(&path, 3).unwrap();
    let r = loop {
        if let Ok(r) = done.try_recv() {
            break r.unwrap();
        }
        assert!(cap.next_frame().unwrap().is_some());
    };
    assert!((2800..=3000).contains(&r.duration_ms), "{r:?}");
    assert!((42..=46).contains(&r.frames), "{r:?}");
    assert_eq!(frames_in(&path), r.frames);
}

#[test]
fn a_looped_file_read_fast_keeps_its_time_going_a_frame_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut cap = one_second_looped(dir.path(), true);
    // 40 frames of a 15-frame file: from 0, a frame (66 ms) apart across its loops.
    let times: Vec<i64> = (0..40)
        .map(|_| cap.next_frame().unwrap().unwrap().t_ms)
        .collect();
    assert_eq!(times[0], 0);
    assert!(
        times.windows(2).all(|w| (66..=67).contains(&(w[1] - w[0]))),
        "{times:?}"
    );
}

#[test]
fn a_camera_stopped_mid_recording_keeps_what_it_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("a.{}", recording_format()));
    let mut cap = Capture::open(&Source::Test, opts(false)).unwrap();
    let done = cap.record(&path, 60).unwrap();
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_millis(1500) {
        cap.next_frame().unwrap();
    }
    drop(cap);
    let r = done.recv_timeout(Duration::from_secs(30)).unwrap().unwrap();
    assert!(r.duration_ms > 500 && r.duration_ms < 3000, "{r:?}");
    assert!(frames_in(&path) >= 15);
}

#[test]
fn a_camera_that_gives_nothing_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let not_video = dir.path().join("x.mp4");
    std::fs::write(&not_video, b"not a video").unwrap();
    // A file that is not video fails once read (on the bus); a recording asked
    // meanwhile ends without a frame, and says so.
    let cap = Capture::open(&Source::File(not_video), opts(false)).unwrap();
    let done = cap.record(&dir.path().join("r.mp4"), 1).unwrap();
    drop(cap);
    let r = done.recv_timeout(Duration::from_secs(30)).unwrap();
    assert_eq!(
        r.unwrap_err().to_string(),
        "the camera gave no frame to record"
    );
}

/// Live view's branch: nothing encoded while nobody watches; a viewer gets H.264 (Annex
/// B, a key frame first when it asks), the camera's frames going on meanwhile.
#[test]
fn a_watched_camera_encodes_for_its_viewers_only() {
    if !clip::has_x264() {
        eprintln!("skipped: no x264 here");
        return;
    }
    let feed = Arc::new(live::Feed::default());
    let mut cap = Capture::open(
        &Source::Test,
        Options {
            live: Some(feed.clone()),
            blur: Default::default(),
            ..opts(false)
        },
    )
    .unwrap();
    // Nobody watches: frames come, nothing is encoded.
    let mut peek = feed.peek();
    for _ in 0..10 {
        assert!(cap.next_frame().unwrap().is_some());
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(peek.try_recv().is_err(), "encoded with nobody watching");
    let mut v = feed.watch();
    let mut got = vec![];
    for _ in 0..60 {
        assert!(cap.next_frame().unwrap().is_some());
        while let Ok(e) = v.frames.try_recv() {
            got.push(e);
        }
        if got.len() >= 5 {
            break;
        }
    }
    assert!(got.len() >= 5, "{} frames encoded", got.len());
    assert!(got[0].key, "the first frame a viewer gets is a key frame");
    assert!(got[0].data.starts_with(&[0, 0, 0, 1]) || got[0].data.starts_with(&[0, 0, 1]));
    assert!(got.iter().all(|e| !e.duration.is_zero()));
}
