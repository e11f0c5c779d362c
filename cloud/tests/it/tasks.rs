//! Tasks (operations), issue 4: define, list, change, clone, star, history and revert,
//! the training block, translations and the 'Task Update' e-mail, on both backends.

use std::collections::BTreeMap;

use gemba_shared::api::v1::task::{
    BulkDelete, CloneTask, DetectionRule, DetectionRuleWrite, LastUpdate, ModelChoice, PlaneObject,
    PlaneObjectWrite, RegionJson, RevertResult, RevertTask, StepRelation, StepRule, StopTraining,
    Task, TaskCreate, TaskHistoryEntry, TaskObject, TaskObjectCreate, TaskObjectPatch, TaskPatch,
    TrainStatus,
};
use gemba_shared::api::v1::{Msg, Page};
use gemba_shared::operation::{Process, Step};
use reqwest::{Method, StatusCode};
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

async fn create(app: &TestApp, tok: &str, body: &TaskCreate) -> Task {
    app.create_as("organization/task/", body, tok).await
}

/// A new task from its text alone.
fn text(task_detail: &str) -> TaskCreate {
    TaskCreate {
        task_detail: Some(task_detail.into()),
        ..TaskCreate::default()
    }
}

async fn patch(app: &TestApp, tok: &str, url: &str, body: &TaskPatch) -> Task {
    app.send_as(Method::PATCH, url, body, tok).await
}

/// Reverts the task of `url` to `history_id`: the answer.
async fn revert_to(app: &TestApp, tok: &str, url: &str, history_id: i64) -> RevertResult {
    app.send_as(Method::PATCH, url, &RevertTask { history_id }, tok)
        .await
}

async fn history(app: &TestApp, tok: &str, task: i64) -> Vec<TaskHistoryEntry> {
    app.get_as(&format!("organization/task/{task}/history/"), tok)
        .await
}

async fn count(app: &TestApp, tok: &str) -> usize {
    app.get_as::<Vec<Task>>("organization/task/", tok)
        .await
        .len()
}

/// Names and their translations.
fn names(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
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
        let t = create(&app, &w.eng, &text(PUMP)).await;
        assert_eq!(t.settings.task_name, "Assemble pump");
        assert_eq!(t.settings.task_detail, PUMP_STORED);
        assert_eq!(t.steps_count, 3);
        assert_eq!(t.steps, ["Fit housing", "Check seal", "Pack"]);
        assert_eq!(t.substeps[0], ["Place housing", "Tighten screws"]);
        assert_eq!(t.processes[1].name, "Process 2");
        assert_eq!(t.train_status, TrainStatus::NewTask);
        assert!(!t.settings.is_deleted);
        assert!(!t.starred);
        assert_eq!(t.organization.id, w.a);
        assert_eq!(t.organization.org_name_to_display, "Plant A");
        let p = &t.settings.task_parameters.telemetry_params;
        assert_eq!(p.maximum_cycle_time, 9_007_199_254_740_991_i64);
        assert_eq!(p.min_percentage_of_steps_required_to_end_cycle, 0.75);
        assert_eq!(
            p.required_steps_for_start,
            BTreeMap::from([(0, vec![0, 1])])
        );
        assert_eq!(p.required_steps_for_end, BTreeMap::from([(0, vec![])]));
        assert_eq!(
            t.settings.task_parameters.training_params.verify_threshold,
            6
        );
        assert_eq!(t.settings.sub_step_times["background"], 50);
        assert_eq!(t.maximum_cycle_time, p.maximum_cycle_time);
        assert_eq!(t.task_json.cycle_calculation_params, *p);
        // Read back alone, in the list, on its page.
        let one: Task = app
            .get_as(&format!("organization/task/{}/", t.id), &w.eng)
            .await;
        assert_eq!(one, t);
        let list: Vec<Task> = app
            .get_as("organization/task/?search=PUMP", &w.analyst)
            .await;
        assert_eq!(list.len(), 1);
        let list: Vec<Task> = app.get_as("organization/task/?search=drill", &w.eng).await;
        assert!(list.is_empty(), "{list:?}");
        let page: Page<Task> = app
            .get_as("organization/task/taskpage?page=1", &w.eng)
            .await;
        assert_eq!((page.count, page.results[0].id), (1, t.id));
        // From processes, with a name given; one step keeps only step 0 as a start step.
        let drill = Process {
            name: "Main".into(),
            steps: vec![Step {
                name: "Drill hole".into(),
                substeps: vec!["Set bit".into()],
            }],
        };
        let t2 = create(
            &app,
            &w.eng,
            &TaskCreate {
                task_name: Some("Drill".into()),
                processes: Some(vec![drill]),
                ..TaskCreate::default()
            },
        )
        .await;
        assert_eq!(
            t2.settings.task_detail,
            "Drill\nDrill hole:\nSet bit;\nMain~\n"
        );
        assert_eq!(t2.required_steps_for_start, BTreeMap::from([(0, vec![0])]));
        // The super admin's All Operations list sees both, and filters by organisation.
        let all: Page<Task> = app
            .get_as("organization/tasks/admin?page=1", &w.admin)
            .await;
        assert_eq!(all.count, 2);
        let none: Page<Task> = app
            .get_as(
                &format!("organization/tasks/admin?organization={}", w.b),
                &w.admin,
            )
            .await;
        assert_eq!(none.count, 0);
    }
);

both!(
    a_bad_task_gets_its_message_and_nothing_is_written,
    |app: TestApp| async move {
        let w = world(&app).await;
        create(&app, &w.eng, &text(PUMP)).await;
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
        let h: Vec<Task> = app.get_as("organization/task/", &w.eng).await;
        let hist = history(&app, &w.eng, h[0].id).await;
        assert_eq!(hist.len(), 1, "only the creation: {hist:?}");
    }
);

both!(
    changes_are_kept_in_the_history_and_revert_restores_them,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, &text(PUMP)).await;
        let url = format!("organization/task/{}/", t.id);
        let v = patch(
            &app,
            &w.eng,
            &url,
            &TaskPatch {
                task_name: Some("Pump v2".into()),
                negative_steps: Some(vec![2]),
                strict_step_order: Some(true),
                ..TaskPatch::default()
            },
        )
        .await;
        assert_eq!(v.settings.task_name, "Pump v2");
        assert!(v.settings.task_detail.starts_with("Pump v2\n"));
        assert!(
            v.settings
                .task_parameters
                .telemetry_params
                .strict_step_order
        );
        // New steps: the text changes, indexes past the new end are dropped.
        let v = patch(
            &app,
            &w.eng,
            &url,
            &TaskPatch {
                task_detail: Some("ignored\nFit:\nPlace;\n".into()),
                ..TaskPatch::default()
            },
        )
        .await;
        assert_eq!(
            v.settings.task_detail,
            "Pump v2\nFit:\nPlace;\nProcess 1~\n"
        );
        assert!(v.settings.negative_steps.is_empty());
        let hist = history(&app, &w.eng, t.id).await;
        let actions: Vec<&str> = hist.iter().map(|h| h.action.as_str()).collect();
        assert_eq!(actions, ["updated", "updated", "created"]);
        assert_eq!(
            hist[1].changed_fields,
            ["negativeSteps", "taskName", "taskParameters", "task_detail"]
        );
        assert_eq!(hist[0].user_name, "Eng");
        // One entry alone.
        let first = hist[2].id;
        let one: Vec<TaskHistoryEntry> = app
            .get_as(
                &format!("organization/task_history/{}/?history_id={first}", t.id),
                &w.eng,
            )
            .await;
        assert_eq!(one.len(), 1);
        // Back to the first version.
        let revert = format!("organization/task/{}/revert/", t.id);
        let r = revert_to(&app, &w.eng, &revert, first).await;
        assert_eq!(
            r.reverted_fields,
            ["taskName", "taskParameters", "task_detail"]
        );
        assert_eq!(r.reverted_fields_count, 3);
        assert_eq!(
            r.msg,
            "Task successfully reverted! 3 field(s) updated: taskName, taskParameters, task_detail"
        );
        assert_eq!(r.task.settings.task_detail, PUMP_STORED);
        assert_eq!(r.task.settings.task_name, "Assemble pump");
        // Again: nothing to do.
        let r = revert_to(&app, &w.eng, &revert, first).await;
        assert_eq!(
            r.msg,
            "Task reverted - no changes detected (task was already in the target state)"
        );
        assert_eq!(r.reverted_fields_count, 0);
        let hist = history(&app, &w.eng, t.id).await;
        assert_eq!(hist[0].action, "reverted");
        assert_eq!(hist.len(), 4);
        // An entry of another task, or none: refused.
        let other = create(&app, &w.eng, &text("Other\nA:\na;\n")).await;
        let oh = history(&app, &w.eng, other.id).await;
        for h in [oh[0].id, 999_999] {
            let (s, v) = app
                .send_refused(
                    Method::PATCH,
                    &revert,
                    &RevertTask { history_id: h },
                    &w.eng,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert_eq!(
                message(&v, "history_id"),
                "No such history entry of this task."
            );
        }
        let (s, _) = app
            .get(
                &format!("organization/task_history/{}/?history_id=999999", t.id),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // A bad change is refused whole.
        let half = TaskPatch {
            task_name: Some("Half".into()),
            optional_steps: Some(vec![7]),
            ..TaskPatch::default()
        };
        let (s, v) = app.send_refused(Method::PATCH, &url, &half, &w.eng).await;
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
        let now: Task = app.get_as(&url, &w.eng).await;
        assert_eq!(now.settings.task_name, "Assemble pump");
        assert_eq!(history(&app, &w.eng, t.id).await.len(), 4);
    }
);

both!(
    a_deleted_task_leaves_the_lists_and_frees_its_name,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, &text(PUMP)).await;
        let url = format!("organization/task/{}/", t.id);
        let deleted = |is_deleted| TaskPatch {
            is_deleted: Some(is_deleted),
            ..TaskPatch::default()
        };
        let v = patch(&app, &w.eng, &url, &deleted(true)).await;
        assert!(v.settings.is_deleted, "{v:?}");
        assert_eq!(count(&app, &w.eng).await, 0);
        let again = create(&app, &w.eng, &text(PUMP)).await;
        // Restoring the first would take a live name.
        let (s, v) = app
            .send_refused(Method::PATCH, &url, &deleted(false), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "taskName"),
            "A task with this name already exists."
        );
        patch(
            &app,
            &w.eng,
            &url,
            &TaskPatch {
                task_name: Some("Old pump".into()),
                ..deleted(false)
            },
        )
        .await;
        assert_eq!(count(&app, &w.eng).await, 2);
        let hist = history(&app, &w.eng, t.id).await;
        let actions: Vec<&str> = hist.iter().map(|h| h.action.as_str()).collect();
        assert_eq!(actions, ["restored", "deleted", "created"]);
        // Renaming onto a live name is refused too.
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/task/{}/", again.id),
                &TaskPatch {
                    task_name: Some("OLD PUMP".into()),
                    ..TaskPatch::default()
                },
                &w.eng,
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
        let t = create(&app, &w.eng, &text(PUMP)).await;
        let url = format!("organization/task/{}/", t.id);
        let first = history(&app, &w.eng, t.id).await[0].id;
        // Training is started by the learning loop (issue 6); here, by the database.
        sqlx::query("UPDATE tasks SET train_status = 'training' WHERE id = $1")
            .bind(t.id)
            .execute(&app.state.db.pool)
            .await
            .unwrap();
        let msg =
            "Assemble pump is being trained, You cannot update the task when it is being trained.";
        let rename = TaskPatch {
            task_name: Some("X".into()),
            ..TaskPatch::default()
        };
        let (s, v) = app.send_refused(Method::PATCH, &url, &rename, &w.eng).await;
        assert_eq!(
            (s, message(&v, "non_field_errors")),
            (StatusCode::BAD_REQUEST, msg.into())
        );
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("{url}revert/"),
                &RevertTask { history_id: first },
                &w.eng,
            )
            .await;
        assert_eq!(
            (s, message(&v, "non_field_errors")),
            (StatusCode::BAD_REQUEST, msg.into())
        );
        // A star is the caller's own, not a change of the task.
        let star = TaskPatch {
            starred: Some(true),
            ..TaskPatch::default()
        };
        let v = patch(&app, &w.eng, &url, &star).await;
        assert!(v.starred, "{v:?}");
        let training: Vec<Task> = app
            .get_as(
                "organization/task/get_all_trained_tasks_of_organization?train_status=training",
                &w.eng,
            )
            .await;
        assert_eq!(training.len(), 1);
        let trained: Vec<Task> = app
            .get_as(
                "organization/task/get_all_trained_tasks_of_organization",
                &w.eng,
            )
            .await;
        assert!(trained.is_empty(), "{trained:?}");
        let (s, v) = app
            .get(
                "organization/task/get_all_trained_tasks_of_organization?train_status=done",
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        // Stop: back to in_annotation, and changes are possible again.
        let stop = StopTraining { task: t.id };
        let v: Task = app
            .send_as(Method::PUT, "organization/train/stop/", &stop, &w.eng)
            .await;
        assert_eq!(v.train_status, TrainStatus::InAnnotation);
        let (s, v) = app
            .send_refused(Method::PUT, "organization/train/stop/", &stop, &w.eng)
            .await;
        assert_eq!(
            (s, message(&v, "task")),
            (
                StatusCode::BAD_REQUEST,
                "This task is not being trained.".into()
            )
        );
        patch(&app, &w.eng, &url, &rename).await;
    }
);

both!(
    clones_stars_model_choices_and_last_update,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, &text(PUMP)).await;
        let url = format!("organization/task/{}/", t.id);
        patch(
            &app,
            &w.eng,
            &url,
            &TaskPatch {
                optional_steps: Some(vec![1]),
                ..TaskPatch::default()
            },
        )
        .await;
        let c: Task = app
            .create_as(
                "generic/clone_task/",
                &CloneTask {
                    task: t.id,
                    task_name: "Pump copy".into(),
                },
                &w.eng,
            )
            .await;
        assert_eq!(c.settings.task_name, "Pump copy");
        assert!(
            c.settings
                .task_detail
                .starts_with("Pump copy\nFit housing:\n")
        );
        assert_eq!(c.settings.optional_steps, [1]);
        assert_ne!(c.id, t.id);
        assert_eq!(history(&app, &w.eng, c.id).await[0].action, "cloned");
        for (body, field, msg) in [
            (
                json!({"task": t.id, "taskName": "assemble pump"}),
                "taskName",
                "A task with this name already exists.",
            ),
            (
                json!({"task": t.id, "taskName": ""}),
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
        let v = patch(
            &app,
            &w.eng,
            &url,
            &TaskPatch {
                starred: Some(true),
                ..TaskPatch::default()
            },
        )
        .await;
        assert!(v.starred);
        let mine: Vec<Task> = app.get_as("organization/task/", &w.eng).await;
        assert_eq!((mine[0].id, mine[0].starred), (t.id, true));
        let theirs: Vec<Task> = app.get_as("organization/task/", &w.analyst).await;
        assert_eq!((theirs[0].id, theirs[0].starred), (c.id, false));
        let hist = history(&app, &w.eng, t.id).await;
        assert_eq!(hist.len(), 2, "a star is no change: {hist:?}");
        // Each choice a value and a label: what reading them as `ModelChoice` checks.
        let _: Vec<ModelChoice> = app.get_as("organization/task/model_choices", &w.eng).await;
        let l: LastUpdate = app
            .send_as(
                Method::PATCH,
                &format!("organization/task/last_update/{}", t.id),
                &json!({}),
                &w.eng,
            )
            .await;
        let now: Task = app.get_as(&url, &w.eng).await;
        assert_eq!(now.last_update, Some(l.last_update));
    }
);

both!(
    translations_are_added_edited_and_deleted,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, &text(PUMP)).await;
        let url = format!("organization/task/{}/", t.id);
        let de = names(&[
            ("Fit housing", "Gehäuse einsetzen"),
            ("Place housing", "Gehäuse auflegen"),
        ]);
        let v = patch(
            &app,
            &w.eng,
            &url,
            &TaskPatch {
                translation: Some(de.clone()),
                translation_name: Some("Deutsch".into()),
                ..TaskPatch::default()
            },
        )
        .await;
        assert_eq!(
            (
                &v.settings.translation,
                v.settings.translation_name.as_deref()
            ),
            (&de, Some("Deutsch"))
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
        let translated = |t: BTreeMap<String, String>| TaskPatch {
            translation: Some(t),
            ..TaskPatch::default()
        };
        let de2 = names(&[
            ("Fit housing", "Gehäuse montieren"),
            ("Place housing", "Gehäuse auflegen"),
        ]);
        let v = patch(&app, &w.eng, &url, &translated(de2.clone())).await;
        assert_eq!(
            (
                &v.settings.translation,
                v.settings.translation_name.as_deref()
            ),
            (&de2, Some("Deutsch"))
        );
        // Renaming a step drops its translation; deleting the translation drops the language.
        let v = patch(
            &app,
            &w.eng,
            &url,
            &TaskPatch {
                task_detail: Some("x\nFit case:\nPlace housing;\n".into()),
                ..TaskPatch::default()
            },
        )
        .await;
        assert_eq!(
            v.settings.translation,
            names(&[("Place housing", "Gehäuse auflegen")])
        );
        let v = patch(&app, &w.eng, &url, &translated(BTreeMap::new())).await;
        assert_eq!(
            (&v.settings.translation, &v.settings.translation_name),
            (&BTreeMap::new(), &None)
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
        let t = create(&app, &w.eng, &text(PUMP)).await;
        assert!(
            app.last_mail("lead@a.test").await.is_none(),
            "a new task is no update"
        );
        let url = format!("organization/task/{}/", t.id);
        let negative = TaskPatch {
            negative_steps: Some(vec![0]),
            ..TaskPatch::default()
        };
        patch(&app, &w.eng, &url, &negative).await;
        assert!(
            app.last_mail("lead@a.test").await.is_none(),
            "the steps did not change"
        );
        let steps = "x\nFit housing:\nPlace housing;\nTighten screws;\nPre-assembly~\nPack:\nPut in box;\nSeal box:\nTape;\n";
        let new_steps = TaskPatch {
            task_detail: Some(steps.into()),
            ..TaskPatch::default()
        };
        patch(&app, &w.eng, &url, &new_steps).await;
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
        let t = create(&app, &w.eng, &text(PUMP)).await;
        let h = history(&app, &w.eng, t.id).await[0].id;
        let tid = t.id;
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
        let same: Task = app
            .get_as(&format!("organization/task/{tid}/"), &w.eng)
            .await;
        assert_eq!(same, t);
        let _ = w.b;
    }
);

both!(
    changing_tasks_needs_the_role_and_the_subscription,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, &text(PUMP)).await;
        // Analytics users read tasks but do not define them.
        let _: Task = app
            .get_as(&format!("organization/task/{}/", t.id), &w.analyst)
            .await;
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
                &format!("organization/task/{}/", t.id),
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
        let v: Vec<Task> = app.get_as("organization/task/", &eng_c).await;
        assert!(v.is_empty(), "{v:?}");
    }
);

both!(
    task_objects_planes_rules_and_regions,
    |app: TestApp| async move {
        let w = world(&app).await;
        let t = create(&app, &w.eng, &text(PUMP)).await;
        let tid = t.id;
        // Objects: a bad colour gets a generated one; a good one is kept with '#'.
        let jig: TaskObject = app
            .create_as(
                "organization/task/task_object/",
                &TaskObjectCreate {
                    task: tid,
                    name: "Jig".into(),
                    outline_color: Some("red".into()),
                    is_static: true,
                    step_id: None,
                },
                &w.eng,
            )
            .await;
        let c = &jig.outline_color;
        assert!(
            c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|x| x.is_ascii_hexdigit()),
            "{c}"
        );
        let screw: TaskObject = app
            .create_as(
                "organization/task/task_object/",
                &TaskObjectCreate {
                    task: tid,
                    name: "Screwdriver".into(),
                    outline_color: Some("0AF".into()),
                    is_static: false,
                    step_id: Some(0),
                },
                &w.eng,
            )
            .await;
        assert_eq!(
            (screw.outline_color.as_str(), screw.is_static),
            ("#0af", false)
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
        let statics: Vec<TaskObject> = app
            .get_as(
                &format!("organization/task/list_task_objects/{tid}/?is_static=true"),
                &w.analyst,
            )
            .await;
        assert_eq!(statics.len(), 1);
        let all: Vec<TaskObject> = app
            .get_as(
                &format!("organization/task/list_task_objects/{tid}/"),
                &w.eng,
            )
            .await;
        assert_eq!(all.len(), 2);
        let v: TaskObject = app
            .send_as(
                Method::PATCH,
                &format!("organization/task/task_object/{}/", screw.id),
                &TaskObjectPatch {
                    name: Some("Driver".into()),
                    outline_color: Some("#zzz".into()),
                    ..TaskObjectPatch::default()
                },
                &w.eng,
            )
            .await;
        assert_eq!(v.name, "Driver", "{v:?}");
        assert_ne!(
            v.outline_color, screw.outline_color,
            "an invalid colour is replaced"
        );
        // Rules: every step shows one, the default where none is stored.
        let rules_url = format!("organization/task/object_detection_rule/{tid}/");
        let rules: Vec<DetectionRule> = app.get_as(&rules_url, &w.eng).await;
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[0].id, None);
        assert!(rules[0].rule.detect_always);
        assert_eq!(
            rules[0].rule.step_relations.anchor,
            StepRelation {
                key_steps: vec![],
                before_anchor: vec![],
                after_anchor: vec![],
            }
        );
        let r0: DetectionRule = app
            .create_as(
                &rules_url,
                &DetectionRuleWrite {
                    step: Some(0),
                    static_object: Some(vec![jig.id]),
                    non_static_object: Some(vec![screw.id]),
                    verify: Some(true),
                    rule: Some(StepRule {
                        objects_present: vec![screw.id],
                        boolean_expr: "Driver".into(),
                        ..StepRule::default()
                    }),
                },
                &w.eng,
            )
            .await;
        let r0 = r0.id.expect("a stored rule");
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
                json!({"step": 1, "static_object": [screw.id]}),
                "static_object",
                format!("Object {} is not a static object.", screw.id),
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
        let r1: DetectionRule = app
            .create_as(
                &rules_url,
                &DetectionRuleWrite {
                    step: Some(1),
                    ..DetectionRuleWrite::default()
                },
                &w.eng,
            )
            .await;
        let r1 = r1.id.expect("a stored rule");
        let v: DetectionRule = app
            .send_as(
                Method::PATCH,
                &format!("organization/task/object_detection_rule/{r1}/"),
                &DetectionRuleWrite {
                    verify: Some(true),
                    ..DetectionRuleWrite::default()
                },
                &w.eng,
            )
            .await;
        assert!(v.verify, "{v:?}");
        // Deleting an object takes it out of the rules.
        let (s, _) = app
            .delete(
                &format!("organization/task/task_object/{}/", screw.id),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let rules: Vec<DetectionRule> = app.get_as(&rules_url, &w.eng).await;
        assert!(
            rules[0].non_static_object.is_empty() && rules[0].rule.objects_present.is_empty(),
            "{:?}",
            rules[0]
        );
        assert_eq!(rules[0].static_object, [jig.id]);
        // Bulk delete: all or nothing.
        let bulk_delete = "organization/task/object_detection_rule/bulk_delete";
        let (s, _) = app
            .send_refused(
                Method::PATCH,
                bulk_delete,
                &BulkDelete {
                    ids: vec![r0, 999_999],
                },
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let rules: Vec<DetectionRule> = app.get_as(&rules_url, &w.eng).await;
        assert!(rules[0].id.is_some() && rules[1].id.is_some());
        let _: Msg = app
            .send_as(
                Method::PATCH,
                bulk_delete,
                &BulkDelete { ids: vec![r0] },
                &w.eng,
            )
            .await;
        let (s, _) = app
            .delete(
                &format!("organization/task/object_detection_rule/delete/?id={r1}"),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let rules: Vec<DetectionRule> = app.get_as(&rules_url, &w.eng).await;
        assert!(rules.iter().all(|r| r.id.is_none()), "{rules:?}");
        // Planes.
        let square = vec![[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]];
        let p: PlaneObject = app
            .create_as(
                "organization/task/plane_objects/",
                &PlaneObjectWrite {
                    task: Some(tid),
                    name: "Bench".into(),
                    points: square.clone(),
                },
                &w.eng,
            )
            .await;
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
        let v: PlaneObject = app
            .send_as(
                Method::PUT,
                &format!("organization/task/plane_objects/{}/", p.id),
                &PlaneObjectWrite {
                    task: None,
                    name: "Bench 2".into(),
                    points: square,
                },
                &w.eng,
            )
            .await;
        assert_eq!(v.name, "Bench 2", "{v:?}");
        let planes: Vec<PlaneObject> = app
            .get_as(
                &format!("organization/task/list_plane_objects/{tid}/"),
                &w.eng,
            )
            .await;
        assert_eq!(planes.len(), 1);
        let (s, _) = app
            .delete(
                &format!("organization/task/plane_objects/{}/", p.id),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        // Regions.
        let url = format!("generic/list_region_json/{tid}/");
        let r: RegionJson = app.get_as(&url, &w.eng).await;
        assert!(r.region_json.is_empty(), "{r:?}");
        let regions = RegionJson {
            region_json: json!({"cam0": [[0, 0], [10, 10]]})
                .as_object()
                .unwrap()
                .clone(),
        };
        let _: RegionJson = app.send_as(Method::PATCH, &url, &regions, &w.eng).await;
        let r: RegionJson = app.get_as(&url, &w.analyst).await;
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
                &format!("organization/task/task_object/{}/", jig.id),
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
        let (s, v) = app
            .send_refused(Method::PATCH, &url, &regions, &w.eng)
            .await;
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
    create(&app, &w.eng, &text(whole)).await;
    gemba_cloud::seed::organization_with_task(&app.state, "seeded", whole, admin)
        .await
        .unwrap();
}
