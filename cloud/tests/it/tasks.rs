//! Tasks (operations), issue 4: define, list, change, clone, star, history and revert,
//! the training block, translations and the 'Task Update' e-mail, on both backends.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

const PUMP: &str = "Assemble pump\nFit housing:\nPlace housing;\nTighten screws;\nCheck seal:\nInspect seal;\nPre-assembly~\nPack:\nPut in box;\n";
/// [`PUMP`] as stored: the canonical text names the default process.
const PUMP_STORED: &str = "Assemble pump\nFit housing:\nPlace housing;\nTighten screws;\nCheck seal:\nInspect seal;\nPre-assembly~\nPack:\nPut in box;\nProcess 2~\n";

/// Organisation A (subscribed to Define Operation) with an engineer (org_user) and an
/// analytics user, and organisation B with its own engineer.
struct World {
    admin: String,
    a: i64,
    b: i64,
    eng: String,
    analyst: String,
    eng_b: String,
}

async fn world(app: &TestApp) -> World {
    let admin = app.admin_token().await;
    let a = app.create_org(&admin, "Plant A").await;
    let b = app.create_org(&admin, "Plant B").await;
    app.subscribe(&admin, a, "Define Operation").await;
    app.subscribe(&admin, b, "Define Operation").await;
    World {
        eng: app.signed_in("eng@a.test", "org_user", a).await,
        analyst: app.signed_in("analyst@a.test", "analytics_user", a).await,
        eng_b: app.signed_in("eng@b.test", "org_user", b).await,
        admin,
        a,
        b,
    }
}

async fn create(app: &TestApp, tok: &str, body: Value) -> Value {
    let (s, v) = app.post("organization/task/", body, Some(tok)).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v
}

fn id(v: &Value) -> i64 {
    v["id"].as_i64().unwrap()
}

async fn count(app: &TestApp, tok: &str) -> usize {
    let (s, v) = app.get("organization/task/", tok).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v.as_array().unwrap().len()
}

/// The first message of a 400 on `field`.
fn message(v: &Value, field: &str) -> String {
    v[field][0]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} error in {v}"))
        .to_string()
}

both!(
    a_task_is_defined_from_its_text_with_the_specs_defaults,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        assert_eq!(t["taskName"], "Assemble pump");
        assert_eq!(t["task_detail"], PUMP_STORED);
        assert_eq!(t["stepsCount"], 3);
        assert_eq!(t["steps"], json!(["Fit housing", "Check seal", "Pack"]));
        assert_eq!(t["substeps"][0], json!(["Place housing", "Tighten screws"]));
        assert_eq!(t["processes"][1]["name"], "Process 2");
        assert_eq!(t["train_status"], "new_task");
        assert_eq!(t["is_deleted"], false);
        assert_eq!(t["starred"], false);
        assert_eq!(t["Organization"]["id"], w.a);
        assert_eq!(t["Organization"]["org_name_to_display"], "Plant A");
        let p = &t["taskParameters"]["telemetryParams"];
        assert_eq!(p["maximum_cycle_time"], json!(9_007_199_254_740_991_i64));
        assert_eq!(p["min_percentage_of_steps_required_to_end_cycle"], 0.75);
        assert_eq!(p["required_steps_for_start"], json!({"0": [0, 1]}));
        assert_eq!(p["required_steps_for_end"], json!({"0": []}));
        assert_eq!(t["taskParameters"]["trainingParams"]["verify_threshold"], 6);
        assert_eq!(t["sub_step_times"]["background"], 50);
        assert_eq!(t["maximum_cycle_time"], p["maximum_cycle_time"]);
        assert_eq!(t["taskJson"]["cycle_calculation_params"], *p);
        // Read back alone, in the list, on its page.
        let (s, one) = app
            .get(&format!("organization/task/{}/", id(&t)), &w.eng)
            .await;
        assert_eq!((s, &one), (StatusCode::OK, &t));
        let (_, list) = app.get("organization/task/?search=PUMP", &w.analyst).await;
        assert_eq!(list.as_array().unwrap().len(), 1);
        let (_, list) = app.get("organization/task/?search=drill", &w.eng).await;
        assert_eq!(list, json!([]));
        let (_, page) = app.get("organization/task/taskpage?page=1", &w.eng).await;
        assert_eq!(
            (page["count"].as_i64(), page["results"][0]["id"].as_i64()),
            (Some(1), Some(id(&t)))
        );
        // From processes, with a name given; one step keeps only step 0 as a start step.
        let t2 = create(
            &app,
            &w.eng,
            json!({"taskName": "Drill", "processes": [{"name": "Main", "steps": [{"name": "Drill hole", "substeps": ["Set bit"]}]}]}),
        )
        .await;
        assert_eq!(t2["task_detail"], "Drill\nDrill hole:\nSet bit;\nMain~\n");
        assert_eq!(t2["required_steps_for_start"], json!({"0": [0]}));
        // The super admin's All Operations list sees both, and filters by organisation.
        let (s, all) = app.get("organization/tasks/admin?page=1", &w.admin).await;
        assert_eq!(s, StatusCode::OK, "{all}");
        assert_eq!(all["count"], 2);
        let (_, none) = app
            .get(
                &format!("organization/tasks/admin?organization={}", w.b),
                &w.admin,
            )
            .await;
        assert_eq!(none["count"], 0);
    }
);

both!(
    a_bad_task_gets_its_message_and_nothing_is_written,
    |app: TestApp| async move {
        let w = world(&app).await;
        create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let step = |name: &str, subs: &[&str]| json!({"name": name, "substeps": subs});
        let procs = |p: Value| json!({"taskName": "New", "processes": p});
        let cases: Vec<(Value, &str, String)> = vec![
            (json!({"taskName": "  "}), "taskName", "Task name is required!".into()),
            (json!({}), "taskName", "Task name is required!".into()),
            (json!({"taskName": "\u{feff} ", "task_detail": "x\nA:\na;\n"}), "taskName", "Task name is required!".into()),
            (json!({"taskName": "x".repeat(101), "task_detail": "x\nA:\na;\n"}), "taskName", "Task name must be at most 100 characters.".into()),
            (json!({"taskName": "Two\nlines", "task_detail": "x\nA:\na;\n"}), "taskName", "Task name cannot contain line breaks or control characters.".into()),
            // The same name, in other case: taken.
            (json!({"task_detail": "assemble PUMP\nA:\na;\n"}), "taskName", "A task with this name already exists.".into()),
            (json!({"task_detail": "New\nA:\na;\nnot a step\n"}), "task_detail", "Line 4: \"not a step\" ends in none of ':' (a step), ';' (a sub-step) or '~' (a process)".into()),
            (json!({"taskName": "New"}), "task_detail", "An operation must contain atleast one process!".into()),
            (json!({"task_detail": "New\nA:\n"}), "task_detail", "Each step must have atleast one sub-step!".into()),
            (procs(json!([{"name": "P", "steps": [step("", &["a"])]}])), "processes", "Please fill the empty steps!".into()),
            (procs(json!([{"name": "P", "steps": [step("A", &[" "])]}])), "processes", "Please fill the empty steps!".into()),
            (procs(json!([{"name": "P", "steps": [step("A~", &["a"])]}])), "processes", "Step name \"A~\" contains invalid characters (~).".into()),
            (procs(json!([{"name": "P", "steps": [step("A", &["a`"])]}])), "processes", "Substep name \"a`\" contains invalid characters (~).".into()),
            (procs(json!([{"name": "P", "steps": [step("A", &["a"])]}, {"name": "P", "steps": [step("B", &["b"])]}])), "processes", "Processes name cannot be same!".into()),
            (procs(json!([{"name": "P", "steps": [step("A", &["a"])]}, {"name": "Q", "steps": [step("A", &["b"])]}])), "processes", "Steps name cannot be same!".into()),
            (procs(json!([{"name": "P", "steps": [step("A", &["a b", "ab"])]}])), "processes", "Substeps cannot be same!".into()),
            (procs(json!([{"name": "P", "steps": [step("A", &["A"])]}])), "processes", "Step and Substep name cannot be same!".into()),
            (procs(json!([])), "processes", "An operation must contain atleast one process!".into()),
            (procs(json!([{"name": "P", "steps": []}])), "processes", "A process must contain atleast one step!".into()),
            (procs(json!([{"name": "P", "steps": [step("A", &["a"])]}, {"name": "Q", "steps": [step("B", &["b"])]}, {"name": "R", "steps": [step("C", &["c"])]}])), "processes", "An operation can contain at most 2 process!".into()),
            (json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"telemetryParams": {"minimum_cycle_time": 10, "maximum_cycle_time": 5}}}), "maximum_cycle_time", "The maximum cycle time cannot be below the minimum cycle time.".into()),
            (json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"telemetryParams": {"required_steps_for_start": {"0": [0, 3]}}}}), "required_steps_for_start", "Step index 3 is out of range: the task has 1 step(s).".into()),
            (json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"telemetryParams": {"required_steps_for_end": {"1": []}}}}), "required_steps_for_end", "Process index 1 is out of range: the task has 1 process(es).".into()),
            (json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"telemetryParams": {"min_percentage_of_steps_required_to_end_cycle": 1.5}}}), "taskParameters", "The share of steps required to end a cycle must be between 0 and 1.".into()),
            (json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"telemetryParams": {"minimum_cycle_time": -1}}}), "taskParameters", "The minimum cycle time cannot be negative.".into()),
            (json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"telemetryParams": {"temporal_smoothness": 0}}}), "taskParameters", "The temporal smoothness must be at least 1 frame.".into()),
            (json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"trainingParams": {"verify_threshold": 0}}}), "taskParameters", "The verify threshold must be at least 1 frame.".into()),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app
                .post("organization/task/", body.clone(), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            assert_eq!(message(&v, field), msg, "{body}");
        }
        // Wrong types and unknown parameters are refused in the API's shape.
        for body in [
            json!({"taskName": 5, "task_detail": "x\nA:\na;\n"}),
            json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"telemetryParams": {"speed": 1}}}),
            json!({"task_detail": "New\nA:\na;\n", "taskParameters": {"trainingParams": {"verify_threshold": -1}}}),
        ] {
            let (s, v) = app
                .post("organization/task/", body.clone(), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        assert_eq!(count(&app, &w.eng).await, 1);
        let (_, h) = app.get("organization/task/", &w.eng).await;
        let (_, hist) = app
            .get(
                &format!("organization/task/{}/history/", h[0]["id"]),
                &w.eng,
            )
            .await;
        assert_eq!(
            hist.as_array().unwrap().len(),
            1,
            "only the creation: {hist}"
        );
    }
);

both!(
    changes_are_kept_in_the_history_and_revert_restores_them,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let url = format!("organization/task/{}/", id(&t));
        let (s, v) = app
            .patch(
                &url,
                json!({"taskName": "Pump v2", "negativeSteps": [2], "strict_step_order": true}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["taskName"], "Pump v2");
        assert!(v["task_detail"].as_str().unwrap().starts_with("Pump v2\n"));
        assert_eq!(
            v["taskParameters"]["telemetryParams"]["strict_step_order"],
            true
        );
        // New steps: the text changes, indexes past the new end are dropped.
        let (s, v) = app
            .patch(
                &url,
                json!({"task_detail": "ignored\nFit:\nPlace;\n"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["task_detail"], "Pump v2\nFit:\nPlace;\nProcess 1~\n");
        assert_eq!(v["negativeSteps"], json!([]));
        let (_, hist) = app
            .get(&format!("organization/task/{}/history/", id(&t)), &w.eng)
            .await;
        let hist = hist.as_array().unwrap().clone();
        let actions: Vec<&str> = hist.iter().map(|h| h["action"].as_str().unwrap()).collect();
        assert_eq!(actions, ["updated", "updated", "created"]);
        assert_eq!(
            hist[1]["changed_fields"],
            json!(["negativeSteps", "taskName", "taskParameters", "task_detail"])
        );
        assert_eq!(hist[0]["user_name"], "Eng");
        // One entry alone.
        let first = hist[2]["id"].as_i64().unwrap();
        let (s, one) = app
            .get(
                &format!("organization/task_history/{}/?history_id={first}", id(&t)),
                &w.eng,
            )
            .await;
        assert_eq!((s, one.as_array().unwrap().len()), (StatusCode::OK, 1));
        // Back to the first version.
        let revert = format!("organization/task/{}/revert/", id(&t));
        let (s, r) = app
            .patch(&revert, json!({"history_id": first}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(
            r["reverted_fields"],
            json!(["taskName", "taskParameters", "task_detail"])
        );
        assert_eq!(r["reverted_fields_count"], 3);
        assert_eq!(
            r["msg"],
            "Task successfully reverted! 3 field(s) updated: taskName, taskParameters, task_detail"
        );
        assert_eq!(r["task"]["task_detail"], PUMP_STORED);
        assert_eq!(r["task"]["taskName"], "Assemble pump");
        // Again: nothing to do.
        let (s, r) = app
            .patch(&revert, json!({"history_id": first}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(
            r["msg"],
            "Task reverted - no changes detected (task was already in the target state)"
        );
        assert_eq!(r["reverted_fields_count"], 0);
        let (_, hist) = app
            .get(&format!("organization/task/{}/history/", id(&t)), &w.eng)
            .await;
        assert_eq!(hist[0]["action"], "reverted");
        assert_eq!(hist.as_array().unwrap().len(), 4);
        // An entry of another task, or none: refused.
        let other = create(&app, &w.eng, json!({"task_detail": "Other\nA:\na;\n"})).await;
        let (_, oh) = app
            .get(
                &format!("organization/task/{}/history/", id(&other)),
                &w.eng,
            )
            .await;
        for h in [oh[0]["id"].clone(), json!(999_999)] {
            let (s, v) = app
                .patch(&revert, json!({"history_id": h}), Some(&w.eng))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert_eq!(
                message(&v, "history_id"),
                "No such history entry of this task."
            );
        }
        let (s, _) = app
            .get(
                &format!("organization/task_history/{}/?history_id=999999", id(&t)),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // A bad change is refused whole.
        let (s, v) = app
            .patch(
                &url,
                json!({"taskName": "Half", "optional_steps": [7]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "optional_steps"),
            "Step index 7 is out of range: the task has 3 step(s)."
        );
        for body in [
            json!({"stepsAvgTime": [1]}),
            json!({"nope": 1}),
            json!({"is_deleted": "yes"}),
            json!([]),
        ] {
            let (s, v) = app.patch(&url, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let (_, now) = app.get(&url, &w.eng).await;
        assert_eq!(now["taskName"], "Assemble pump");
        let (_, hist) = app
            .get(&format!("organization/task/{}/history/", id(&t)), &w.eng)
            .await;
        assert_eq!(hist.as_array().unwrap().len(), 4);
    }
);

both!(
    a_deleted_task_leaves_the_lists_and_frees_its_name,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let url = format!("organization/task/{}/", id(&t));
        let (s, v) = app
            .patch(&url, json!({"is_deleted": true}), Some(&w.eng))
            .await;
        assert_eq!((s, &v["is_deleted"]), (StatusCode::OK, &json!(true)), "{v}");
        assert_eq!(count(&app, &w.eng).await, 0);
        let again = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        // Restoring the first would take a live name.
        let (s, v) = app
            .patch(&url, json!({"is_deleted": false}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "taskName"),
            "A task with this name already exists."
        );
        let (s, v) = app
            .patch(
                &url,
                json!({"is_deleted": false, "taskName": "Old pump"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(count(&app, &w.eng).await, 2);
        let (_, hist) = app.get(&format!("{url}history/"), &w.eng).await;
        let actions: Vec<&str> = hist
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["action"].as_str().unwrap())
            .collect();
        assert_eq!(actions, ["restored", "deleted", "created"]);
        // Renaming onto a live name is refused too.
        let (s, v) = app
            .patch(
                &format!("organization/task/{}/", id(&again)),
                json!({"taskName": "OLD PUMP"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (s, message(&v, "taskName")),
            (
                StatusCode::BAD_REQUEST,
                "A task with this name already exists.".into()
            )
        );
    }
);

both!(
    a_task_in_training_cannot_be_changed_until_training_stops,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let url = format!("organization/task/{}/", id(&t));
        let (_, hist) = app.get(&format!("{url}history/"), &w.eng).await;
        let first = hist[0]["id"].clone();
        // Training is started by the learning loop (issue 6); here, by the database.
        sqlx::query("UPDATE tasks SET train_status = 'training' WHERE id = $1")
            .bind(id(&t))
            .execute(&app.state.db.pool)
            .await
            .unwrap();
        let msg =
            "Assemble pump is being trained, You cannot update the task when it is being trained.";
        let (s, v) = app
            .patch(&url, json!({"taskName": "X"}), Some(&w.eng))
            .await;
        assert_eq!(
            (s, message(&v, "non_field_errors")),
            (StatusCode::BAD_REQUEST, msg.into())
        );
        let (s, v) = app
            .patch(
                &format!("{url}revert/"),
                json!({"history_id": first}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (s, message(&v, "non_field_errors")),
            (StatusCode::BAD_REQUEST, msg.into())
        );
        // A star is the caller's own, not a change of the task.
        let (s, v) = app
            .patch(&url, json!({"starred": true}), Some(&w.eng))
            .await;
        assert_eq!((s, &v["starred"]), (StatusCode::OK, &json!(true)), "{v}");
        let (_, training) = app
            .get(
                "organization/task/get_all_trained_tasks_of_organization?train_status=training",
                &w.eng,
            )
            .await;
        assert_eq!(training.as_array().unwrap().len(), 1);
        let (_, trained) = app
            .get(
                "organization/task/get_all_trained_tasks_of_organization",
                &w.eng,
            )
            .await;
        assert_eq!(trained, json!([]));
        let (s, v) = app
            .get(
                "organization/task/get_all_trained_tasks_of_organization?train_status=done",
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        // Stop: back to in_annotation, and changes are possible again.
        let (s, v) = app
            .put("organization/train/stop/", json!({"task": id(&t)}), &w.eng)
            .await;
        assert_eq!(
            (s, &v["train_status"]),
            (StatusCode::OK, &json!("in_annotation")),
            "{v}"
        );
        let (s, v) = app
            .put("organization/train/stop/", json!({"task": id(&t)}), &w.eng)
            .await;
        assert_eq!(
            (s, message(&v, "task")),
            (
                StatusCode::BAD_REQUEST,
                "This task is not being trained.".into()
            )
        );
        let (s, v) = app
            .patch(&url, json!({"taskName": "X"}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
);

both!(
    clones_stars_model_choices_and_last_update,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let (s, v) = app
            .patch(
                &format!("organization/task/{}/", id(&t)),
                json!({"optional_steps": [1]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (s, c) = app
            .post(
                "generic/clone_task/",
                json!({"task": id(&t), "taskName": "Pump copy"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{c}");
        assert_eq!(c["taskName"], "Pump copy");
        assert!(
            c["task_detail"]
                .as_str()
                .unwrap()
                .starts_with("Pump copy\nFit housing:\n")
        );
        assert_eq!(c["optional_steps"], json!([1]));
        assert_ne!(id(&c), id(&t));
        let (_, hist) = app
            .get(&format!("organization/task/{}/history/", id(&c)), &w.eng)
            .await;
        assert_eq!(hist[0]["action"], "cloned");
        for (body, field, msg) in [
            (
                json!({"task": id(&t), "taskName": "assemble pump"}),
                "taskName",
                "A task with this name already exists.",
            ),
            (
                json!({"task": id(&t), "taskName": ""}),
                "taskName",
                "Task name is required!",
            ),
        ] {
            let (s, v) = app.post("generic/clone_task/", body, Some(&w.eng)).await;
            assert_eq!(
                (s, message(&v, field)),
                (StatusCode::BAD_REQUEST, msg.into())
            );
        }
        let (s, _) = app
            .post(
                "generic/clone_task/",
                json!({"task": 999_999, "taskName": "Z"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Stars are per user and come first in lists.
        let (s, v) = app
            .patch(
                &format!("organization/task/{}/", id(&t)),
                json!({"starred": true}),
                Some(&w.eng),
            )
            .await;
        assert_eq!((s, &v["starred"]), (StatusCode::OK, &json!(true)));
        let (_, mine) = app.get("organization/task/", &w.eng).await;
        assert_eq!(
            (mine[0]["id"].as_i64(), &mine[0]["starred"]),
            (Some(id(&t)), &json!(true))
        );
        let (_, theirs) = app.get("organization/task/", &w.analyst).await;
        assert_eq!(
            (theirs[0]["id"].as_i64(), &theirs[0]["starred"]),
            (Some(id(&c)), &json!(false))
        );
        let (_, hist) = app
            .get(&format!("organization/task/{}/history/", id(&t)), &w.eng)
            .await;
        assert_eq!(
            hist.as_array().unwrap().len(),
            2,
            "a star is no change: {hist}"
        );
        let (s, m) = app.get("organization/task/model_choices", &w.eng).await;
        assert_eq!(s, StatusCode::OK);
        assert!(
            m.as_array()
                .unwrap()
                .iter()
                .all(|c| c["value"].is_string() && c["label"].is_string())
        );
        let (s, l) = app
            .patch(
                &format!("organization/task/last_update/{}", id(&t)),
                json!({}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{l}");
        let (_, now) = app
            .get(&format!("organization/task/{}/", id(&t)), &w.eng)
            .await;
        assert_eq!(now["last_update"], l["last_update"]);
    }
);

both!(
    translations_are_added_edited_and_deleted,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let url = format!("organization/task/{}/", id(&t));
        let de = json!({"Fit housing": "Gehäuse einsetzen", "Place housing": "Gehäuse auflegen"});
        let (s, v) = app
            .patch(
                &url,
                json!({"translation": de, "translation_name": "Deutsch"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(
            (&v["translation"], &v["translation_name"]),
            (&de, &json!("Deutsch"))
        );
        for (body, msg) in [
            (
                json!({"translation": {"Fit housing": "X"}, "translation_name": " "}),
                ("translation_name", "The language is required!"),
            ),
            (
                json!({"translation": {"Nope": "X"}}),
                (
                    "translation",
                    "\"Nope\" is not a step or sub-step of this task.",
                ),
            ),
            (
                json!({"translation": {"Pack": "  "}}),
                ("translation", "Please fill the empty steps!"),
            ),
            (
                json!({"translation": {"Pack": "Pa~ck"}}),
                (
                    "translation",
                    "Translation \"Pa~ck\" contains invalid characters (~).",
                ),
            ),
        ] {
            let (s, v) = app.patch(&url, body.clone(), Some(&w.eng)).await;
            assert_eq!(
                (s, message(&v, msg.0)),
                (StatusCode::BAD_REQUEST, msg.1.into()),
                "{body}"
            );
        }
        // Edit one; the language stays.
        let de2 = json!({"Fit housing": "Gehäuse montieren", "Place housing": "Gehäuse auflegen"});
        let (_, v) = app
            .patch(&url, json!({"translation": de2}), Some(&w.eng))
            .await;
        assert_eq!(
            (&v["translation"], &v["translation_name"]),
            (&de2, &json!("Deutsch"))
        );
        // Renaming a step drops its translation; deleting the translation drops the language.
        let (_, v) = app
            .patch(
                &url,
                json!({"task_detail": "x\nFit case:\nPlace housing;\n"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            v["translation"],
            json!({"Place housing": "Gehäuse auflegen"})
        );
        let (_, v) = app
            .patch(&url, json!({"translation": {}}), Some(&w.eng))
            .await;
        assert_eq!(
            (&v["translation"], &v["translation_name"]),
            (&json!({}), &Value::Null)
        );
    }
);

both!(
    task_update_recipients_hear_of_removed_and_added_steps,
    |app: TestApp| async move {
        let w = world(&app).await;
        let (s, v) = app
            .post(
                "feature_control/event_notifications",
                json!({"event_type": "Task Update", "recipients": ["lead@a.test"]}),
                Some(&w.eng.clone()),
            )
            .await;
        // An org_user may not manage notifications: the super admin sets it up for A.
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        let (s, v) = app
            .call_with(
                reqwest::Method::POST,
                "feature_control/event_notifications",
                Some(json!({"event_type": "Task Update", "recipients": ["lead@a.test"], "Organization": w.a})),
                Some(&w.admin),
                &[],
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        assert!(
            app.last_mail("lead@a.test").await.is_none(),
            "a new task is no update"
        );
        let url = format!("organization/task/{}/", id(&t));
        app.patch(&url, json!({"negativeSteps": [0]}), Some(&w.eng))
            .await;
        assert!(
            app.last_mail("lead@a.test").await.is_none(),
            "the steps did not change"
        );
        let (s, v) = app
            .patch(
                &url,
                json!({"task_detail": "x\nFit housing:\nPlace housing;\nTighten screws;\nPre-assembly~\nPack:\nPut in box;\nSeal box:\nTape;\n"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (subject, body) = app.last_mail("lead@a.test").await.expect("mailed");
        assert_eq!(subject, "Task Update: Assemble pump");
        let removed = body.split("Added steps").next().unwrap();
        assert!(removed.contains("1: Check seal (Inspect seal)"), "{body}");
        assert!(removed.contains("2: Pack (Put in box)"), "{body}");
        let added = body.split("Added steps").nth(1).unwrap();
        assert!(added.contains("1: Pack (Put in box)"), "{body}");
        assert!(added.contains("2: Seal box (Tape)"), "{body}");
        assert!(
            !body.contains("Fit housing"),
            "unchanged steps are not listed: {body}"
        );
    }
);

both!(
    another_organisations_tasks_are_hidden_and_unchanged,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let (_, hist) = app
            .get(&format!("organization/task/{}/history/", id(&t)), &w.eng)
            .await;
        let h = hist[0]["id"].clone();
        let tid = id(&t);
        for (method, path, body) in [
            ("GET", format!("organization/task/{tid}/"), None),
            (
                "PATCH",
                format!("organization/task/{tid}/"),
                Some(json!({"taskName": "Mine"})),
            ),
            (
                "PATCH",
                format!("organization/task/{tid}/"),
                Some(json!({"starred": true})),
            ),
            ("GET", format!("organization/task/{tid}/history/"), None),
            ("GET", format!("organization/task_history/{tid}/"), None),
            (
                "PATCH",
                format!("organization/task/{tid}/revert/"),
                Some(json!({"history_id": h})),
            ),
            (
                "POST",
                "generic/clone_task/".to_string(),
                Some(json!({"task": tid, "taskName": "Stolen"})),
            ),
            (
                "PUT",
                "organization/train/stop/".to_string(),
                Some(json!({"task": tid})),
            ),
            (
                "PATCH",
                format!("organization/task/last_update/{tid}"),
                Some(json!({})),
            ),
        ] {
            let (s, v) = app
                .call(method.parse().unwrap(), &path, body, Some(&w.eng_b))
                .await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{method} {path}: {v}");
        }
        assert_eq!(count(&app, &w.eng_b).await, 0);
        // B's Organization header does not reach A either.
        let (s, _) = app
            .call_with(
                reqwest::Method::GET,
                &format!("organization/task/{tid}/"),
                None,
                Some(&w.eng_b),
                &[("Organization", &w.a.to_string())],
            )
            .await;
        assert!(
            s == StatusCode::NOT_FOUND || s == StatusCode::FORBIDDEN,
            "{s}"
        );
        let (_, same) = app.get(&format!("organization/task/{tid}/"), &w.eng).await;
        assert_eq!(same, t);
        let _ = w.b;
    }
);

both!(
    changing_tasks_needs_the_role_and_the_subscription,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        // Analytics users read tasks but do not define them.
        let (s, _) = app
            .get(&format!("organization/task/{}/", id(&t)), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = app
            .post(
                "organization/task/",
                json!({"task_detail": "N\nA:\na;\n"}),
                Some(&w.analyst),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .patch(
                &format!("organization/task/{}/", id(&t)),
                json!({"taskName": "N"}),
                Some(&w.analyst),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        // Without the Define Operation subscription, tasks are read but not changed.
        let c = app.create_org(&w.admin, "Plant C").await;
        let eng_c = app.signed_in("eng@c.test", "org_user", c).await;
        let (s, v) = app
            .post(
                "organization/task/",
                json!({"task_detail": "N\nA:\na;\n"}),
                Some(&eng_c),
            )
            .await;
        assert_eq!(
            (s, &v["detail"]),
            (
                StatusCode::FORBIDDEN,
                &json!("Define Operation is not enabled for this organization.")
            )
        );
        let (s, v) = app.get("organization/task/", &eng_c).await;
        assert_eq!((s, v), (StatusCode::OK, json!([])));
    }
);

both!(
    task_objects_planes_rules_and_regions,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, json!({"task_detail": PUMP})).await;
        let tid = id(&t);
        // Objects: a bad colour gets a generated one; a good one is kept with '#'.
        let (s, jig) = app
            .post(
                "organization/task/task_object/",
                json!({"task": tid, "name": "Jig", "is_static": true, "outline_color": "red"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{jig}");
        let c = jig["outline_color"].as_str().unwrap();
        assert!(
            c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|x| x.is_ascii_hexdigit()),
            "{c}"
        );
        let (_, screw) = app
            .post(
                "organization/task/task_object/",
                json!({"task": tid, "name": "Screwdriver", "outline_color": "0AF", "step_id": 0}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(
            (&screw["outline_color"], &screw["is_static"]),
            (&json!("#0af"), &json!(false))
        );
        for (body, field, msg) in [
            (
                json!({"task": tid, "name": " "}),
                "name",
                "The object name is required!",
            ),
            (
                json!({"task": tid, "name": "X", "step_id": 3}),
                "step_id",
                "Step index 3 is out of range: the task has 3 step(s).",
            ),
        ] {
            let (s, v) = app
                .post("organization/task/task_object/", body, Some(&w.eng))
                .await;
            assert_eq!(
                (s, message(&v, field)),
                (StatusCode::BAD_REQUEST, msg.into())
            );
        }
        let (_, statics) = app
            .get(
                &format!("organization/task/list_task_objects/{tid}/?is_static=true"),
                &w.analyst,
            )
            .await;
        assert_eq!(statics.as_array().unwrap().len(), 1);
        let (_, all) = app
            .get(
                &format!("organization/task/list_task_objects/{tid}/"),
                &w.eng,
            )
            .await;
        assert_eq!(all.as_array().unwrap().len(), 2);
        let (s, v) = app
            .patch(
                &format!("organization/task/task_object/{}/", id(&screw)),
                json!({"name": "Driver", "outline_color": "#zzz"}),
                Some(&w.eng),
            )
            .await;
        assert_eq!((s, &v["name"]), (StatusCode::OK, &json!("Driver")), "{v}");
        assert_ne!(
            v["outline_color"], screw["outline_color"],
            "an invalid colour is replaced"
        );
        // Rules: every step shows one, the default where none is stored.
        let rules_url = format!("organization/task/object_detection_rule/{tid}/");
        let (_, rules) = app.get(&rules_url, &w.eng).await;
        assert_eq!(rules.as_array().unwrap().len(), 3);
        assert_eq!(rules[0]["id"], Value::Null);
        assert_eq!(rules[0]["rule"]["detect_always"], true);
        assert_eq!(
            rules[0]["rule"]["step_relations"]["anchor"],
            json!({"key_steps": [], "before_anchor": [], "after_anchor": []})
        );
        let (s, r0) = app
            .post(&rules_url, json!({"step": 0, "static_object": [id(&jig)], "non_static_object": [id(&screw)], "verify": true, "rule": {"objects_present": [id(&screw)], "boolean_expr": "Driver"}}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{r0}");
        for (body, field, msg) in [
            (
                json!({"step": 0}),
                "step",
                "This step already has a rule.".to_string(),
            ),
            (
                json!({"step": 9}),
                "step",
                "Step index 9 is out of range: the task has 3 step(s).".to_string(),
            ),
            (
                json!({"step": 1, "static_object": [id(&screw)]}),
                "static_object",
                format!("Object {} is not a static object.", id(&screw)),
            ),
            (
                json!({"step": 1, "non_static_object": [999_999]}),
                "non_static_object",
                "Object 999999 is not an object of this task.".to_string(),
            ),
            (
                json!({"step": 1, "rule": {"step_relations": {"anchor": {"key_steps": [5]}}}}),
                "rule",
                "Step index 5 is out of range: the task has 3 step(s).".to_string(),
            ),
            (json!({}), "step", "This field is required.".to_string()),
        ] {
            let (s, v) = app.post(&rules_url, body.clone(), Some(&w.eng)).await;
            assert_eq!(
                (s, message(&v, field)),
                (StatusCode::BAD_REQUEST, msg),
                "{body}"
            );
        }
        let (_, r1) = app.post(&rules_url, json!({"step": 1}), Some(&w.eng)).await;
        let (s, v) = app
            .patch(
                &format!("organization/task/object_detection_rule/{}/", id(&r1)),
                json!({"verify": true}),
                Some(&w.eng),
            )
            .await;
        assert_eq!((s, &v["verify"]), (StatusCode::OK, &json!(true)), "{v}");
        // Deleting an object takes it out of the rules.
        let (s, _) = app
            .delete(
                &format!("organization/task/task_object/{}/", id(&screw)),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (_, rules) = app.get(&rules_url, &w.eng).await;
        assert_eq!(
            (
                &rules[0]["non_static_object"],
                &rules[0]["rule"]["objects_present"]
            ),
            (&json!([]), &json!([]))
        );
        assert_eq!(rules[0]["static_object"], json!([id(&jig)]));
        // Bulk delete: all or nothing.
        let (s, _) = app
            .patch(
                "organization/task/object_detection_rule/bulk_delete",
                json!({"ids": [id(&r0), 999_999]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (_, rules) = app.get(&rules_url, &w.eng).await;
        assert!(rules[0]["id"].is_i64() && rules[1]["id"].is_i64());
        let (s, _) = app
            .patch(
                "organization/task/object_detection_rule/bulk_delete",
                json!({"ids": [id(&r0)]}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = app
            .delete(
                &format!(
                    "organization/task/object_detection_rule/delete/?id={}",
                    id(&r1)
                ),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let (_, rules) = app.get(&rules_url, &w.eng).await;
        assert!(
            rules.as_array().unwrap().iter().all(|r| r["id"].is_null()),
            "{rules}"
        );
        // Planes.
        let square = json!([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]]);
        let (s, p) = app
            .post(
                "organization/task/plane_objects/",
                json!({"task": tid, "name": "Bench", "points": square}),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{p}");
        for (body, field, msg) in [
            (
                json!({"task": tid, "name": "B", "points": [[0.1, 0.1], [0.2, 0.2]]}),
                "points",
                "A plane needs 3 to 1000 points.",
            ),
            (
                json!({"task": tid, "name": "B", "points": [[0.1, 0.1], [0.2, 0.2], [1.5, 0.2]]}),
                "points",
                "Points are image coordinates scaled to 0..1.",
            ),
            (
                json!({"name": "B", "points": square}),
                "task",
                "This field is required.",
            ),
        ] {
            let (s, v) = app
                .post("organization/task/plane_objects/", body, Some(&w.eng))
                .await;
            assert_eq!(
                (s, message(&v, field)),
                (StatusCode::BAD_REQUEST, msg.into())
            );
        }
        let (s, v) = app
            .put(
                &format!("organization/task/plane_objects/{}/", id(&p)),
                json!({"name": "Bench 2", "points": square}),
                &w.eng,
            )
            .await;
        assert_eq!((s, &v["name"]), (StatusCode::OK, &json!("Bench 2")), "{v}");
        let (_, planes) = app
            .get(
                &format!("organization/task/list_plane_objects/{tid}/"),
                &w.eng,
            )
            .await;
        assert_eq!(planes.as_array().unwrap().len(), 1);
        let (s, _) = app
            .delete(
                &format!("organization/task/plane_objects/{}/", id(&p)),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        // Regions.
        let url = format!("generic/list_region_json/{tid}/");
        let (_, r) = app.get(&url, &w.eng).await;
        assert_eq!(r, json!({"region_json": {}}));
        let regions = json!({"region_json": {"cam0": [[0, 0], [10, 10]]}});
        let (s, _) = app.patch(&url, regions.clone(), Some(&w.eng)).await;
        assert_eq!(s, StatusCode::OK);
        let (_, r) = app.get(&url, &w.analyst).await;
        assert_eq!(r, regions);
        let (s, _) = app
            .patch(&url, json!({"region_json": [1]}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // B sees none of it; the analyst changes none of it; training blocks changes.
        for path in [
            format!("organization/task/list_task_objects/{tid}/"),
            format!("organization/task/list_plane_objects/{tid}/"),
            rules_url.clone(),
            url.clone(),
        ] {
            assert_eq!(
                app.get(&path, &w.eng_b).await.0,
                StatusCode::NOT_FOUND,
                "{path}"
            );
        }
        let (s, _) = app
            .patch(
                &format!("organization/task/task_object/{}/", id(&jig)),
                json!({"name": "Mine"}),
                Some(&w.eng_b),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .post(
                "organization/task/task_object/",
                json!({"task": tid, "name": "X"}),
                Some(&w.analyst),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        sqlx::query("UPDATE tasks SET train_status = 'training' WHERE id = $1")
            .bind(tid)
            .execute(&app.state.db.pool)
            .await
            .unwrap();
        let (s, v) = app.patch(&url, regions, Some(&w.eng)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(message(&v, "non_field_errors").contains("is being trained"));
    }
);

/// Issue 25, 9: one rule for the API and the seeds (the demo, the agent's tests). An
/// operation whose steps have no sub-step is refused by both with the message of portal
/// spec 5; with a sub-step each, both take it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seeds_keep_the_apis_save_rules() {
    let app = TestApp::start(Backend::Sqlite).await;
    let w = world(&app).await;
    let bare = "Assemble sensor\nPick base:\nPick cover:\n";
    let (s, v) = app
        .post(
            "organization/task/",
            json!({"task_detail": bare}),
            Some(&w.eng),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(
        message(&v, "task_detail"),
        "Each step must have atleast one sub-step!"
    );
    let admin = app.user_row(ADMIN_EMAIL).await.id;
    let e = gemba_cloud::seed::organization_with_task(&app.state, "seeded", bare, admin)
        .await
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("Each step must have atleast one sub-step!"),
        "{e}"
    );
    let whole = "Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n";
    create(&app, &w.eng, json!({"task_detail": whole})).await;
    gemba_cloud::seed::organization_with_task(&app.state, "seeded", whole, admin)
        .await
        .unwrap();
}
