//! Unit tests of the task's wire types.

use std::collections::BTreeMap;

use serde_json::Value;

use super::*;

#[test]
fn defaults_are_the_specs() {
    let s = TaskSettings::new("T".into(), "T\n".into());
    let v = serde_json::to_value(&s).unwrap();
    let t = &v["taskParameters"]["telemetryParams"];
    assert_eq!(t["maximum_cycle_time"], 9_007_199_254_740_991_i64);
    assert_eq!(t["min_percentage_of_steps_required_to_end_cycle"], 0.75);
    assert_eq!(
        t["required_steps_for_start"],
        serde_json::json!({"0": [0, 1]})
    );
    assert_eq!(t["required_steps_for_end"], serde_json::json!({"0": []}));
    assert_eq!(v["taskParameters"]["trainingParams"]["verify_threshold"], 6);
    assert_eq!(v["sub_step_times"]["background"], 50);
    // A partial parameter object takes the defaults for the rest.
    let p: TaskParameters =
        serde_json::from_value(serde_json::json!({"telemetryParams": {"strict_step_order": true}}))
            .unwrap();
    assert!(p.telemetry_params.strict_step_order);
    assert_eq!(p.telemetry_params.maximum_cycle_time, MAX_SAFE_INTEGER);
    assert_eq!(p.training_params.verify_threshold, 6);
}

#[test]
fn colours_are_checked_and_generated() {
    for ok in ["#abc", "abc", "#A1b2C3", "00ff00"] {
        assert!(is_hex_color(ok), "{ok}");
    }
    for bad in ["", "#", "#abcd", "#ggg", "red", "#12345", "＃abc", "#abc "] {
        assert!(!is_hex_color(bad), "{bad}");
    }
    let colours: Vec<String> = (0..20).map(generated_color).collect();
    assert!(
        colours.iter().all(|c| is_hex_color(c) && c.len() == 7),
        "{colours:?}"
    );
    let distinct: std::collections::BTreeSet<_> = colours.iter().collect();
    assert_eq!(distinct.len(), 20);
}

#[test]
fn the_revert_message_names_three_fields() {
    let f = |n: &[&str]| revert_message(&n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(f(&[]), REVERT_NO_CHANGE_MESSAGE);
    assert_eq!(
        f(&["taskName"]),
        "Task successfully reverted! 1 field(s) updated: taskName"
    );
    assert_eq!(
        f(&["a", "b", "c", "d"]),
        "Task successfully reverted! 4 field(s) updated: a, b, c..."
    );
}

#[test]
fn a_task_derives_its_steps_from_the_text() {
    let s = TaskSettings::new("T".into(), "T\nA:\na;\nb;\nP~\nB:\nc;\n".into());
    let t = Task::new(
        1,
        s,
        TaskOrganization {
            id: 1,
            org_name_to_display: "O".into(),
        },
        false,
        TrainStatus::NewTask,
        0,
        None,
    );
    assert_eq!(t.steps, ["A", "B"]);
    assert_eq!(t.substeps, [vec!["a", "b"], vec!["c"]]);
    assert_eq!(t.steps_count, 2);
    assert_eq!(t.processes.len(), 2);
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(v["taskName"], "T");
    assert_eq!(v["stepsCount"], 2);
    assert_eq!(v["Organization"]["id"], 1);
    assert_eq!(v["taskJson"]["training_params"]["verify_threshold"], 6);
}

/// A task with every `StepsByProcess` off its default.
fn a_task() -> Task {
    let mut s = TaskSettings::new("T".into(), "T\nA:\na;\nb;\nP~\nB:\nc;\n".into());
    let t = &mut s.task_parameters.telemetry_params;
    t.required_steps_for_start = BTreeMap::from([(0, vec![0]), (1, vec![1]), (10, vec![])]);
    t.required_steps_for_end = BTreeMap::from([(1, vec![1]), (4_294_967_295, vec![0])]);
    let org = TaskOrganization {
        id: 1,
        org_name_to_display: "O".into(),
    };
    Task::new(7, s, org, true, TrainStatus::Trained, 5, Some(6))
}

#[test]
fn a_task_reads_back_from_its_own_json() {
    let t = a_task();
    let text = serde_json::to_string(&t).unwrap();
    // The keys are written as text, as before.
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["taskParameters"]["telemetryParams"]["required_steps_for_end"],
        serde_json::json!({"1": [1], "4294967295": [0]})
    );
    assert_eq!(v["required_steps_for_start"]["10"], serde_json::json!([]));
    assert_eq!(serde_json::from_str::<Task>(&text).unwrap(), t);
    assert_eq!(serde_json::from_value::<Task>(v).unwrap(), t);
    // And inside another answer.
    let r = RevertResult {
        msg: "m".into(),
        reverted_fields: vec![],
        reverted_fields_count: 0,
        task: t.clone(),
    };
    let back: RevertResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}

#[test]
fn a_process_index_is_a_whole_number() {
    let mut v = serde_json::to_value(a_task()).unwrap();
    for bad in ["x", "", "-1", "1.5", " 1", "+1", "4294967296"] {
        v["taskParameters"]["telemetryParams"]["required_steps_for_start"] =
            serde_json::json!({ bad: [0] });
        let e = serde_json::from_value::<Task>(v.clone()).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("invalid value: string {bad:?}"))
                && e.to_string().contains("a process index"),
            "{bad:?}: {e}"
        );
    }
    // Outside a flattened struct too, and in a patch.
    let e = serde_json::from_str::<TelemetryParams>(r#"{"required_steps_for_end": {"x": []}}"#)
        .unwrap_err();
    assert!(e.to_string().contains("string \"x\""), "{e}");
    let e = serde_json::from_str::<TaskPatch>(r#"{"required_steps_for_start": {"x": []}}"#)
        .unwrap_err();
    assert!(e.to_string().contains("string \"x\""), "{e}");
    // Integer keys (another format's map) read as well.
    let ints = serde::de::value::MapDeserializer::<_, serde::de::value::Error>::new(
        [(3u32, vec![1u32]), (0, vec![])].into_iter(),
    );
    let m = steps_by_process::deserialize(ints).unwrap();
    assert_eq!(m, BTreeMap::from([(0, vec![]), (3, vec![1])]));
    let p: TaskPatch = serde_json::from_str(
        r#"{"required_steps_for_start": {"2": [1, 0]}, "required_steps_for_end": null}"#,
    )
    .unwrap();
    assert_eq!(
        p.required_steps_for_start,
        Some(BTreeMap::from([(2, vec![1, 0])]))
    );
    assert_eq!(p.required_steps_for_end, None);
    let p: TaskPatch = serde_json::from_str("{}").unwrap();
    assert_eq!(p.required_steps_for_start, None);
    // Missing: the defaults, as before.
    let t: TelemetryParams = serde_json::from_str("{}").unwrap();
    assert_eq!(t, TelemetryParams::default());
}
