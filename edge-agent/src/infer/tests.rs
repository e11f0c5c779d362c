//! The inference's tests: models refused at load, frames arranged as declared, windows
//! and carried values.

use super::*;

/// A model of `models/fixtures.py` (`fits`, `float-nchw`, `detector`, `fits-nchw`,
/// `wrong-classes`, `window`, `carrying`) made to 64×48 with three labels, in `dir`.
fn fixture(dir: &Path, kind: &str) -> PathBuf {
    fixture_with(dir, kind, &[])
}

fn fixture_with(dir: &Path, kind: &str, args: &[&str]) -> PathBuf {
    let out = dir.join(format!("{kind}{}.onnx", args.concat()));
    let python = std::env::var_os("GEMBA_MODELS_PYTHON").unwrap_or_else(|| "python3".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/fixtures.py");
    let st = std::process::Command::new(python)
        .arg(script)
        .arg(kind)
        .args(["--labels", r#"["Fit","Check","background"]"#])
        .args(["--width", "64", "--height", "48"])
        .args(args)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("GEMBA_MODELS_PYTHON (scripts/lib.sh sets it up)");
    assert!(st.success(), "making a {kind} model");
    out
}

#[test]
fn a_model_it_cannot_run_is_refused_at_load_with_what_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let mut m = Model::load(&fixture(dir.path(), "fits")).unwrap();
    assert_eq!((m.width, m.height, m.labels.len()), (64, 48, 3));
    assert_eq!(m.infer(&vec![0; m.frame_bytes()]).unwrap().len(), 3);
    for (kind, says) in [
        (
            "float-nchw",
            "the model's input is float32 1×3×48×64 (NCHW); gemba needs uint8 1×48×64×3 \
             (RGB, NHWC) matching its gemba.input_height and gemba.input_width",
        ),
        (
            "detector",
            "; gemba needs float32 1×3: one value for each of its 3 gemba.labels",
        ),
    ] {
        let file = fixture(dir.path(), kind);
        let err = format!("{:#}", Model::load(&file).unwrap_err());
        assert!(err.contains(says), "{kind}: {err}");
        assert!(err.starts_with(&file.display().to_string()), "{err}");
    }
}

/// `n` frames of 64×48 of made-up content, the same on every run.
fn frames(n: usize) -> Vec<Vec<u8>> {
    let mut x: u32 = 7;
    (0..n)
        .map(|_| {
            (0..64 * 48 * 3)
                .map(|_| {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (x >> 24) as u8
                })
                .collect()
        })
        .collect()
}

fn argmax(p: &[f32]) -> usize {
    (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])).unwrap()
}

#[test]
fn a_float_nchw_model_fed_as_it_declares_answers_as_the_equivalent_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let mut bundle = Model::load(&fixture(dir.path(), "fits")).unwrap();
    let mut rgb = Model::load(&fixture(dir.path(), "fits-nchw")).unwrap();
    let mut bgr = Model::load(&fixture_with(dir.path(), "fits-nchw", &["--bgr"])).unwrap();
    assert_eq!(rgb.pre.layout, Layout::Nchw);
    assert_eq!(bgr.pre.order, Order::Bgr);
    let mut labels = std::collections::BTreeSet::new();
    for f in frames(12) {
        let want = bundle.infer(&f).unwrap();
        for m in [&mut rgb, &mut bgr] {
            let got = m.infer(&f).unwrap();
            assert_eq!(argmax(&got), argmax(&want), "{got:?} vs {want:?}");
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-5, "{got:?} vs {want:?}");
            }
        }
        labels.insert(argmax(&want));
    }
    assert!(labels.len() > 1, "the frames tell labels apart: {labels:?}");
}

#[test]
fn the_frame_is_arranged_as_the_model_declares() {
    // Two pixels, (1, 2, 3) and (4, 5, 6).
    let rgb = [1u8, 2, 3, 4, 5, 6];
    let mut out = [0u8; 6];
    let mut pre = Preprocessing::default();
    arrange(&pre, 1, &rgb, &mut out, |_, b| b);
    assert_eq!(out, rgb);
    pre.order = Order::Bgr;
    arrange(&pre, 1, &rgb, &mut out, |_, b| b);
    assert_eq!(out, [3, 2, 1, 6, 5, 4]);
    pre.layout = Layout::Nchw;
    arrange(&pre, 1, &rgb, &mut out, |_, b| b);
    assert_eq!(out, [3, 6, 2, 5, 1, 4]);
    pre = Preprocessing {
        elem: ElemType::FLOAT32,
        scale: 0.5,
        mean: [1.0, 0.0, 0.0],
        std: [2.0, 1.0, 1.0],
        ..Preprocessing::default()
    };
    let t = table(&pre);
    let mut f = [0f32; 6];
    arrange(&pre, 1, &rgb, &mut f, |c, b| t[c * 256 + usize::from(b)]);
    assert_eq!(f, [-0.25, 1.0, 1.5, 0.5, 2.5, 3.0]);
}

#[test]
fn a_declared_model_that_cannot_fit_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture(dir.path(), "wrong-classes");
    let err = format!("{:#}", Model::load(&file).unwrap_err());
    assert!(
        err.ends_with(
            "the model's output is float32 1×4; gemba needs float32 1×3: one value for \
             each of its 3 gemba.labels"
        ),
        "{err}"
    );
    // A declaration the agent cannot apply: written as the cloud would append it.
    let bare = fixture_with(dir.path(), "fits-nchw", &["--bare"]);
    let mut bytes = std::fs::read(&bare).unwrap();
    for (k, v) in [
        ("gemba.input_width", "64"),
        ("gemba.input_height", "48"),
        ("gemba.labels", r#"["Fit","Check","background"]"#),
        ("gemba.version", "v1"),
        ("gemba.input_layout", "NCHW"),
        ("gemba.input_type", "float32"),
        ("gemba.input_std", "[0.2,0,0.2]"),
    ] {
        // ModelProto.metadata_props (14), a StringStringEntryProto of key (1), value (2).
        let entry = [
            &[10, k.len() as u8][..],
            k.as_bytes(),
            &[18, v.len() as u8],
            v.as_bytes(),
        ]
        .concat();
        bytes.extend([0x72, entry.len() as u8]);
        bytes.extend(entry);
    }
    let file = dir.path().join("bad-std.onnx");
    std::fs::write(&file, bytes).unwrap();
    let err = format!("{:#}", Model::load(&file).unwrap_err());
    assert!(
        err.ends_with(
            "the model's gemba.input_std must be three numbers greater than 0, one per \
             channel"
        ),
        "{err}"
    );
}

/// What a `window` or `carrying` fixture answers for frames of 30, 60, 90 and 120: the
/// means (× 255) of the frames it was given at each.
fn means_given(m: &mut Model) -> Vec<Vec<u8>> {
    [30u8, 60, 90, 120]
        .iter()
        .map(|&v| {
            let p = m.infer(&vec![v; m.frame_bytes()]).unwrap();
            p.iter().map(|x| (x * 255.0).round() as u8).collect()
        })
        .collect()
}

#[test]
fn a_temporal_model_sees_the_last_frames_oldest_first_from_the_first() {
    let dir = tempfile::tempdir().unwrap();
    // Three labels: a window of three frames, each answered as its mean byte / 255.
    let mut m = Model::load(&fixture(dir.path(), "window")).unwrap();
    assert_eq!(m.window(), 3);
    let seen = means_given(&mut m);
    // The load's blank frame is not in the window; the first frame fills it.
    assert_eq!(
        seen,
        [[30, 30, 30], [30, 30, 60], [30, 60, 90], [60, 90, 120]]
    );
    // A model without a window is given the one frame.
    assert_eq!(
        Model::load(&fixture(dir.path(), "fits")).unwrap().window(),
        1
    );
}

#[test]
fn a_carrying_model_gets_what_it_carried_of_the_last_frames_from_the_first() {
    let dir = tempfile::tempdir().unwrap();
    // As `window`, but given one frame and the means it answered of the two before.
    let mut m = Model::load(&fixture(dir.path(), "carrying")).unwrap();
    assert_eq!(
        (m.window(), m.pre.carry, m.pre.frames_per_call()),
        (3, 1, 1)
    );
    let seen = means_given(&mut m);
    // The load's blank frame is not carried; the first frame stands for those before.
    assert_eq!(
        seen,
        [[30, 30, 30], [30, 30, 60], [30, 60, 90], [60, 90, 120]]
    );
}

#[test]
fn a_temporal_model_given_one_frame_is_refused_with_the_window_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture(dir.path(), "window");
    // The same graph declaring no window: gemba would give it one frame.
    let py = std::env::var_os("GEMBA_MODELS_PYTHON").unwrap_or_else(|| "python3".into());
    let st = std::process::Command::new(py)
        .args([
            "-c",
            "import onnx, sys; m = onnx.load(sys.argv[1]); \
            kept = [p for p in m.metadata_props if p.key != 'gemba.window']; \
            del m.metadata_props[:]; m.metadata_props.extend(kept); onnx.save(m, sys.argv[1])",
        ])
        .arg(&file)
        .status()
        .unwrap();
    assert!(st.success());
    let err = format!("{:#}", Model::load(&file).unwrap_err());
    assert!(
        err.contains(
            "the model's input is uint8 3×48×64×3 (NHWC); gemba needs uint8 \
             1×48×64×3 (RGB, NHWC)"
        ),
        "{err}"
    );
}
