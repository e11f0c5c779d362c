//! Barcodes drawn here with rxing's writers, in a camera-sized frame, read back.

use rxing::BarcodeFormat;

use super::drawn::frame_with;
use super::*;

const VGA: (u32, u32) = (640, 480);

#[test]
fn a_qr_code_a_code_128_and_a_datamatrix_are_read_where_they_are_in_the_frame() {
    let mut r = Reader::default();
    for (format, value, at, scale) in [
        (BarcodeFormat::QR_CODE, "LOT-42", (40, 60), 4),
        (BarcodeFormat::CODE_128, "KIT-7 0012", (300, 200), 2),
        (
            BarcodeFormat::DATA_MATRIX,
            "SN 2026-11-29/0042",
            (200, 150),
            6,
        ),
    ] {
        let f = frame_with(format, value, VGA, at, scale);
        assert_eq!(
            r.read(&f, VGA.0, VGA.1),
            Some((value.to_string(), format)),
            "{format:?}"
        );
    }
}

#[test]
fn a_frame_without_a_barcode_reads_nothing() {
    let mut r = Reader::default();
    let f: Vec<u8> = (0..VGA.0 * VGA.1).map(|i| (i % 251) as u8).collect();
    assert_eq!(r.read(&f, VGA.0, VGA.1), None);
    // A buffer of the wrong size is no frame.
    assert_eq!(r.read(&f[1..], VGA.0, VGA.1), None);
}

#[test]
fn the_luma_of_rgb_weighs_green_most() {
    assert_eq!(
        luma_of_rgb(&[255, 255, 255, 0, 0, 0, 0, 255, 0, 255, 0, 0]),
        [255, 0, 149, 76]
    );
}

#[test]
fn four_frames_a_second_are_read_and_a_source_starting_again_starts_over() {
    let mut s = Sampler::default();
    let read: Vec<i64> = (0..30).map(|i| i * 66).filter(|&t| s.due(t)).collect();
    assert_eq!(read, [0, 264, 528, 792, 1056, 1320, 1584, 1848]);
    // Back to 0 (a looped file): read at once.
    assert!(s.due(0));
    assert!(!s.due(66));
}

fn engine() -> EngineConfig {
    EngineConfig::from_task(&gemba_shared::api::v1::task::TaskSettings::new(
        "T".into(),
        "T\nA:\na;\nB:\nb;\n".into(),
    ))
}

#[test]
fn a_read_goes_on_the_next_cycle_and_a_tasks_barcode_starts_its_task_once() {
    let tb = |value: &str, task| TaskBarcode {
        value: value.into(),
        task,
        engine: engine(),
    };
    let mut st = Station::new(vec![tb("PUMP", 7), tb("VALVE", 8)], Some(7));
    // A part's label: on the cycle.
    assert_eq!(st.read("SN-1", 0), [Action::Attach("SN-1".into())]);
    // Still in view: nothing new; a new part: its value.
    assert_eq!(st.read("SN-1", 250), []);
    assert_eq!(st.read("SN-2", 500), [Action::Attach("SN-2".into())]);
    // The same label again later: a new part with the same value.
    assert_eq!(
        st.read("SN-2", 500 + REPEAT_MS),
        [Action::Attach("SN-2".into())]
    );
    // The task already running: attached only.
    assert_eq!(st.read("PUMP", 20_000), [Action::Attach("PUMP".into())]);
    // Another task's barcode: it starts, then attaches.
    assert_eq!(
        st.read("VALVE", 30_000),
        [
            Action::Start {
                task: 8,
                engine: engine()
            },
            Action::Attach("VALVE".into())
        ]
    );
    assert_eq!(st.read("VALVE", 40_000), [Action::Attach("VALVE".into())]);
    // The association removed: attached only.
    st.set_barcodes(vec![]);
    st.set_task(None);
    assert_eq!(st.read("PUMP", 60_000), [Action::Attach("PUMP".into())]);
}

#[test]
fn a_label_in_view_when_its_association_arrives_starts_its_task() {
    let tb = TaskBarcode {
        value: "PUMP".into(),
        task: 7,
        engine: engine(),
    };
    let mut st = Station::new(vec![], Some(3));
    assert_eq!(st.read("PUMP", 0), [Action::Attach("PUMP".into())]);
    assert_eq!(st.read("PUMP", 250), []);
    // The same list again changes nothing; a new one looks at the label again.
    st.set_barcodes(vec![]);
    assert_eq!(st.read("PUMP", 500), []);
    st.set_barcodes(vec![tb]);
    assert_eq!(
        st.read("PUMP", 750),
        [
            Action::Start {
                task: 7,
                engine: engine()
            },
            Action::Attach("PUMP".into())
        ]
    );
    assert_eq!(st.read("PUMP", 1000), []);
}
