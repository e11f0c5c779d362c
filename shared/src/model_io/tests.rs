//! The model I/O rules' tests: each sentence as the technician reads it.

use super::*;

const F32: ElemType = ElemType::FLOAT32;
const U8: ElemType = ElemType::UINT8;

/// A tensor of `elem` shaped `shape` ("n×48×64×3": a number is a size, "?" any,
/// else a name; "" a scalar; "*" any shape).
fn t(name: &str, elem: ElemType, shape: &str) -> Value {
    let dims = match shape {
        "*" => None,
        "" => Some(vec![]),
        s => Some(
            s.split('×')
                .map(|d| match d.parse::<i64>() {
                    Ok(n) => Dim::Size(n),
                    Err(_) if d == "?" => Dim::Any,
                    Err(_) => Dim::Named(d.into()),
                })
                .collect(),
        ),
    };
    Value {
        name: name.into(),
        tensor: Some(Tensor { elem, dims }),
    }
}

/// For 64×48 frames and three labels.
fn check3(inputs: &[Value], outputs: &[Value]) -> Result<(), String> {
    check(inputs, outputs, 64, 48, 3, &Preprocessing::default())
}

fn frames() -> Value {
    t("frames", U8, "n×48×64×3")
}
fn probs() -> Value {
    t("probs", F32, "n×3")
}
fn untyped() -> Value {
    Value {
        name: "x".into(),
        tensor: None,
    }
}

#[test]
fn names_element_types_by_their_onnx_number() {
    assert_eq!(F32.name(), "float32");
    assert_eq!(U8.name(), "uint8");
    assert_eq!(ElemType(11).name(), "float64");
    assert_eq!(ElemType(14).name(), "type 14");
}

#[test]
fn says_what_gemba_gives_and_needs() {
    let frame = "uint8 1×48×64×3 (RGB, NHWC) matching its gemba.input_height and \
                 gemba.input_width.";
    assert_eq!(
        check3(&[t("image", F32, "1×3×48×64")], &[probs()]).unwrap_err(),
        format!("The model's input is float32 1×3×48×64 (NCHW); gemba needs {frame}")
    );
    assert_eq!(
        check3(&[frames(), untyped()], &[probs()]).unwrap_err(),
        format!(
            "The model takes 2 inputs (frames, x); gemba gives a model one, the frame: {frame}"
        )
    );
    let per_label = "gemba needs float32 1×3: one value for each of its 3 gemba.labels.";
    assert_eq!(
        check3(&[frames()], &[]).unwrap_err(),
        format!("The model has no output; {per_label}")
    );
    assert_eq!(
        check3(&[frames()], &[t("label", ElemType(7), "n"), probs()]).unwrap_err(),
        format!("The model's first output (label) is int64 n; {per_label}")
    );
}

#[test]
fn an_input_is_one_uint8_rgb_frame_of_the_models_size() {
    for (input, shown) in [
        (t("i", F32, "?×48×64×3"), "float32 ?×48×64×3 (NHWC)"),
        (t("i", F32, "*"), "float32 of any shape"),
        (t("i", U8, "2×48×64×3"), "uint8 2×48×64×3 (NHWC)"),
        (t("i", U8, "1×64×48×3"), "uint8 1×64×48×3 (NHWC)"),
        (t("i", U8, "48×64×3"), "uint8 48×64×3"),
        (t("i", U8, ""), "uint8 scalar"),
        (untyped(), "not a tensor"),
    ] {
        let says = check3(&[input], &[probs()]).unwrap_err();
        assert!(
            says.starts_with(&format!("The model's input is {shown}; gemba needs uint8")),
            "{says}"
        );
    }
    for fits in ["1×48×64×3", "n×h×?×c", "*"] {
        assert_eq!(check3(&[t("i", U8, fits)], &[probs()]), Ok(()), "{fits}");
    }
}

#[test]
fn an_output_is_float32_with_one_value_per_label() {
    for (output, shown) in [
        (t("o", F32, "1×boxes×6"), "float32 1×boxes×6"),
        (t("o", F32, "3×3"), "float32 3×3"),
        (t("o", F32, "n×2×3"), "float32 n×2×3"),
        (t("o", F32, ""), "float32 scalar"),
        (t("o", ElemType(11), "n×3"), "float64 n×3"),
        (untyped(), "not a tensor"),
    ] {
        let says = check3(&[frames()], &[output]).unwrap_err();
        assert!(
            says.starts_with(&format!(
                "The model's output is {shown}; gemba needs float32"
            )),
            "{says}"
        );
    }
    for fits in ["3", "?", "n×3", "1×1×3", "n×1×?", "*"] {
        assert_eq!(check3(&[frames()], &[t("o", F32, fits)]), Ok(()), "{fits}");
    }
    // Only the first output counts.
    assert_eq!(check3(&[frames()], &[probs(), untyped()]), Ok(()));
}

/// The preprocessing of a PyTorch export: float32 NCHW, ImageNet's mean and std.
fn torch(order: &str) -> Preprocessing {
    let meta = [
        (LAYOUT, "nchw"),
        (TYPE, "float32"),
        (SCALE, "1/255"),
        (MEAN, "[0.485, 0.456, 0.406]"),
        (STD, "0.229,0.224,0.225"),
        (FORMAT, order),
    ];
    Preprocessing::from_metadata(|k| meta.iter().find(|(x, _)| *x == k).map(|(_, v)| *v)).unwrap()
}

#[test]
fn reads_the_declared_preprocessing_and_defaults_to_the_frame_as_captured() {
    let none = Preprocessing::from_metadata(|_| None::<&str>).unwrap();
    assert!(none.is_default());
    assert_eq!(none.frame(64, 48), "uint8 1×48×64×3 (RGB, NHWC)");
    let p = torch("BGR");
    assert_eq!(
        p,
        Preprocessing {
            layout: Layout::Nchw,
            elem: F32,
            scale: 1.0 / 255.0,
            mean: [0.485, 0.456, 0.406],
            std: [0.229, 0.224, 0.225],
            order: Order::Bgr,
            window: 1,
            carry: 0,
        }
    );
    assert_eq!(p.frame(224, 200), "float32 1×3×200×224 (BGR, NCHW)");
    // What the metadata keeps reads back the same.
    let mut q = Preprocessing::default();
    for (k, v, kept) in [
        (LAYOUT, " nchw", "NCHW"),
        (TYPE, "Float32", "float32"),
        (SCALE, "1/255", "0.003921569"),
        (MEAN, "0.485, 0.456,0.406", "[0.485,0.456,0.406]"),
        (STD, "[1, 2, 0.5]", "[1,2,0.5]"),
        (FORMAT, "bgr", "BGR"),
        (WINDOW, " 4", "4"),
        (CARRY, "12 ", "12"),
    ] {
        assert_eq!(q.set(k, v).unwrap(), kept, "{k}");
        let mut again = q;
        again.set(k, kept).unwrap();
        assert_eq!(again, q, "{k}");
    }
}

#[test]
fn a_declaration_that_cannot_be_says_which_key_and_what_it_must_be() {
    for (k, v, says) in [
        (
            LAYOUT,
            "NWHC",
            "The model's gemba.input_layout must be NHWC or NCHW.",
        ),
        (
            TYPE,
            "float16",
            "The model's gemba.input_type must be uint8 or float32.",
        ),
        (
            SCALE,
            "0",
            "The model's gemba.input_scale must be a number greater than 0",
        ),
        (SCALE, "-1", "must be a number greater than 0"),
        (SCALE, "1/0", "must be a number greater than 0"),
        (SCALE, "a", "must be a number greater than 0"),
        (
            MEAN,
            "0.5,0.5",
            "The model's gemba.input_mean must be three numbers, one per",
        ),
        (MEAN, "[0.5,0.5,0.5,0.5]", "must be three numbers"),
        (
            WINDOW,
            "0",
            "The model's gemba.window must be a whole number of frames from 1 to 64.",
        ),
        (WINDOW, "65", "from 1 to 64"),
        (WINDOW, "2.5", "from 1 to 64"),
        (
            CARRY,
            "0",
            "The model's gemba.carry must be a whole number of values from 1 to 4096.",
        ),
        (CARRY, "4097", "from 1 to 4096"),
        (MEAN, "0.5,x,0.5", "must be three numbers"),
        (
            STD,
            "0.2,0,0.2",
            "The model's gemba.input_std must be three numbers greater than 0",
        ),
        (STD, "0.2,-0.2,0.2", "must be three numbers greater than 0"),
        (
            FORMAT,
            "YUV",
            "The model's gemba.input_format must be RGB or BGR.",
        ),
    ] {
        let base = [(TYPE, "float32"), (k, v)];
        let err = Preprocessing::from_metadata(|key| {
            base.iter().rev().find(|(x, _)| *x == key).map(|(_, v)| *v)
        })
        .unwrap_err();
        assert_eq!(err.key, k);
        assert!(err.to_string().contains(says), "{k}={v}: {err}");
    }
    // A uint8 input takes the bytes as they are.
    let err = Preprocessing::from_metadata(|k| (k == MEAN).then_some("0.5,0.5,0.5")).unwrap_err();
    assert_eq!(err.key, TYPE);
    assert!(
        err.to_string()
            .starts_with("The model's gemba.input_type must be float32")
    );
}

#[test]
fn a_declared_input_is_the_frame_as_declared() {
    let frame = "float32 1×3×48×64 (BGR, NCHW) matching its gemba.input_height, \
                 gemba.input_width, gemba.input_type and gemba.input_layout.";
    let p = torch("BGR");
    let check_p = |input: Value, output: Value| check(&[input], &[output], 64, 48, 3, &p);
    for fits in ["1×3×48×64", "n×3×h×w", "*"] {
        assert_eq!(check_p(t("image", F32, fits), probs()), Ok(()), "{fits}");
    }
    for (input, shown) in [
        (t("i", F32, "1×48×64×3"), "float32 1×48×64×3 (NHWC)"),
        (frames(), "uint8 n×48×64×3 (NHWC)"),
        (t("i", F32, "1×3×224×224"), "float32 1×3×224×224 (NCHW)"),
        (t("i", F32, "1×1×48×64"), "float32 1×1×48×64"),
    ] {
        assert_eq!(
            check_p(input, probs()).unwrap_err(),
            format!("The model's input is {shown}; gemba needs {frame}")
        );
    }
    // Its output is checked as any model's: a detector, a wrong count of labels.
    let per_label = "gemba needs float32 1×3: one value for each of its 3 gemba.labels.";
    for (output, shown) in [
        (t("o", F32, "1×boxes×6"), "float32 1×boxes×6"),
        (t("o", F32, "1×4"), "float32 1×4"),
    ] {
        assert_eq!(
            check_p(t("image", F32, "1×3×48×64"), output).unwrap_err(),
            format!("The model's output is {shown}; {per_label}")
        );
    }
}

#[test]
fn a_temporal_model_takes_its_window_of_frames_and_answers_once() {
    let p = Preprocessing {
        window: 4,
        ..Preprocessing::default()
    };
    let check_p = |input: Value, output: Value| check(&[input], &[output], 64, 48, 3, &p);
    for fits in ["4×48×64×3", "n×48×64×3", "*"] {
        assert_eq!(
            check_p(t("frames", U8, fits), t("o", F32, "1×3")),
            Ok(()),
            "{fits}"
        );
    }
    assert_eq!(
        check_p(t("frames", U8, "1×48×64×3"), probs()).unwrap_err(),
        "The model's input is uint8 1×48×64×3 (NHWC); gemba needs uint8 4×48×64×3 (RGB, \
         NHWC) matching its gemba.input_height, gemba.input_width and gemba.window."
    );
    // One answer for the window, not one per frame.
    assert!(
        check_p(t("frames", U8, "4×48×64×3"), t("o", F32, "4×3"))
            .unwrap_err()
            .starts_with("The model's output is float32 4×3; gemba needs float32 1×3")
    );
}

#[test]
fn a_carrying_model_takes_one_frame_and_what_it_carried_and_answers_both() {
    let p = Preprocessing {
        window: 8,
        carry: 5,
        ..Preprocessing::default()
    };
    assert_eq!(p.frames_per_call(), 1);
    assert!(p.takes_frames_as_captured());
    let carried = || t("carried", F32, "7×5");
    let carry = || t("carry", F32, "1×5");
    let check_p = |inputs: &[Value], outputs: &[Value]| check(inputs, outputs, 64, 48, 3, &p);
    for (frame, c) in [("1×48×64×3", "7×5"), ("n×48×64×3", "k×5"), ("*", "*")] {
        assert_eq!(
            check_p(
                &[t("frames", U8, frame), t("carried", F32, c)],
                &[t("probs", F32, "1×3"), carry()]
            ),
            Ok(()),
            "{frame} {c}"
        );
    }
    let gives = "uint8 1×48×64×3 (RGB, NHWC) matching its gemba.input_height and \
                 gemba.input_width, then what it carried of the frames before: float32 7×5 \
                 matching its gemba.window and gemba.carry.";
    assert_eq!(
        check_p(&[frames()], &[probs(), carry()]).unwrap_err(),
        format!(
            "The model takes one input (frames); gemba gives a model that declares gemba.carry \
             two, the frame: {gives}"
        )
    );
    // The window of frames is not what it takes: one frame.
    assert!(
        check_p(
            &[t("frames", U8, "8×48×64×3"), carried()],
            &[probs(), carry()]
        )
        .unwrap_err()
        .starts_with(
            "The model's first input (frames) is uint8 8×48×64×3 (NHWC); gemba \
                          needs uint8 1×48×64×3"
        )
    );
    for (c, shown) in [
        (t("c", F32, "8×5"), "float32 8×5"),
        (t("c", F32, "7×6"), "float32 7×6"),
        (t("c", U8, "7×5"), "uint8 7×5"),
        (t("c", F32, "1×7×5"), "float32 1×7×5"),
    ] {
        assert_eq!(
            check_p(&[frames(), c], &[probs(), carry()]).unwrap_err(),
            format!(
                "The model's second input (c) is {shown}; gemba gives float32 7×5 matching \
                 its gemba.window and gemba.carry."
            )
        );
    }
    let needs = "gemba needs float32 1×5: what it carries of the frame, its gemba.carry.";
    assert_eq!(
        check_p(&[frames(), carried()], &[probs()]).unwrap_err(),
        format!("The model has no second output; {needs}")
    );
    assert_eq!(
        check_p(&[frames(), carried()], &[probs(), t("carry", F32, "1×4")]).unwrap_err(),
        format!("The model's second output (carry) is float32 1×4; {needs}")
    );
    // Without gemba.carry, a second input is refused as before.
    let window = Preprocessing { carry: 0, ..p };
    assert!(
        check(&[frames(), carried()], &[probs()], 64, 48, 3, &window)
            .unwrap_err()
            .starts_with("The model takes 2 inputs (frames, carried); gemba gives a model one")
    );
    // A model carries only to the frames of its window.
    let err = Preprocessing::from_metadata(|k| (k == CARRY).then_some("5")).unwrap_err();
    assert_eq!(err.key, CARRY);
    assert_eq!(
        err.to_string(),
        "The model's gemba.carry must be declared only with a gemba.window of 2 frames or more."
    );
}
