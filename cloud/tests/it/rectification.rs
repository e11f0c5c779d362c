//! Rectification steps (`organization/rectification_steps/`): a task's corrective steps
//! come by step, each step's in the order added, naming their step as the operation
//! names it now; bad ones are refused on their field with nothing written; reading is
//! every task reader's, changing needs `ManageTasks`; another organisation's task and
//! steps are unknown.

use gemba_shared::api::v1::rectification::{
    DESCRIPTION_REQUIRED, MAX_PER_STEP, RectificationStep, UNKNOWN_STEP, too_many_message,
};
use gemba_shared::api::v1::task::{Task, TaskCreate, TaskPatch};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::both;
use crate::common::*;

const PATH: &str = "organization/rectification_steps/";
const PUMP: &str = "Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\nPre-assembly~\nPack:\nPut in box;\nPacking~\n";

struct World {
    eng: String,
    analyst: String,
    eng_b: String,
    task: i64,
}

async fn world(app: &TestApp) -> World {
    let admin = app.admin_token().await;
    let a = app.create_org(&admin, "Rect A").await;
    let b = app.create_org(&admin, "Rect B").await;
    app.subscribe(&admin, a, "Define Operation").await;
    app.subscribe(&admin, b, "Define Operation").await;
    let eng = app.signed_in("eng@rect-a.test", "org_user", a).await;
    let task: Task = app
        .create_as(
            "organization/task/",
            &TaskCreate {
                task_detail: Some(PUMP.into()),
                ..TaskCreate::default()
            },
            &eng,
        )
        .await;
    World {
        analyst: app
            .signed_in("analyst@rect-a.test", "analytics_user", a)
            .await,
        eng_b: app.signed_in("eng@rect-b.test", "org_user", b).await,
        eng,
        task: task.id,
    }
}

async fn add(app: &TestApp, tok: &str, task: i64, step: u32, text: &str) -> (StatusCode, Value) {
    app.post(
        PATH,
        json!({"task": task, "step": step, "description": text}),
        Some(tok),
    )
    .await
}

async fn list(app: &TestApp, tok: &str, task: i64) -> Vec<RectificationStep> {
    app.get_as(&format!("{PATH}?task={task}"), tok).await
}

fn summary(v: &[RectificationStep]) -> Vec<(u32, Option<&str>, u32, &str)> {
    v.iter()
        .map(|r| {
            (
                r.step,
                r.step_name.as_deref(),
                r.order,
                r.description.as_str(),
            )
        })
        .collect()
}

fn first(v: &Value, field: &str) -> String {
    v[field][0]
        .as_str()
        .unwrap_or_else(|| panic!("a message on {field}: {v}"))
        .to_string()
}

both!(
    rectification_steps_come_by_step_in_the_order_added,
    |app: TestApp| async move {
        let w = world(&app).await;
        for (step, text) in [
            (1, "  Reseat the seal "),
            (0, "Take the housing off"),
            (1, "Check the seal again"),
        ] {
            let (s, v) = add(&app, &w.eng, w.task, step, text).await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
        }
        let all = list(&app, &w.analyst, w.task).await;
        assert_eq!(
            summary(&all),
            [
                (0, Some("Fit housing"), 1, "Take the housing off"),
                (1, Some("Check seal"), 1, "Reseat the seal"),
                (1, Some("Check seal"), 2, "Check the seal again"),
            ]
        );
        assert!(all.iter().all(|r| r.task == w.task && r.created_at > 0));

        // Deleting the step's first moves the next up.
        let (s, v) = app
            .delete(&format!("{PATH}?id={}", all[1].id), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        let after = list(&app, &w.eng, w.task).await;
        assert_eq!(
            summary(&after)[1..],
            [(1, Some("Check seal"), 1, "Check the seal again")]
        );
        let (s, _) = app
            .delete(&format!("{PATH}?id={}", all[1].id), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // The operation loses its last step: the rectification step stays, unnamed.
        let (s, v) = app
            .patch(
                &format!("organization/task/{}/", w.task),
                serde_json::to_value(TaskPatch {
                    task_detail: Some(
                        "Assemble pump\nFit housing:\nPlace housing;\nPre-assembly~\n".into(),
                    ),
                    ..TaskPatch::default()
                })
                .unwrap(),
                Some(&w.eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let after = list(&app, &w.eng, w.task).await;
        assert_eq!(after[1].step_name, None);
        assert_eq!(after[0].step_name.as_deref(), Some("Fit housing"));
    }
);

both!(
    bad_rectification_steps_are_refused_and_nothing_is_written,
    |app: TestApp| async move {
        let w = world(&app).await;
        let refused = [
            (
                1,
                "   ".to_string(),
                "description",
                DESCRIPTION_REQUIRED.to_string(),
            ),
            (3, "Redo".to_string(), "step", UNKNOWN_STEP.to_string()),
            (
                0,
                "x".repeat(1001),
                "description",
                "Description must be at most 1000 characters.".to_string(),
            ),
        ];
        for (step, text, field, says) in refused {
            let (s, v) = add(&app, &w.eng, w.task, step, &text).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert_eq!(first(&v, field), says);
        }
        assert!(list(&app, &w.eng, w.task).await.is_empty());

        // A step holds at most MAX_PER_STEP.
        for i in 0..MAX_PER_STEP {
            let (s, v) = add(&app, &w.eng, w.task, 0, &format!("Do {i}")).await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
        }
        let (s, v) = add(&app, &w.eng, w.task, 0, "One more").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(first(&v, "step"), too_many_message());
        assert_eq!(
            add(&app, &w.eng, w.task, 1, "Other step").await.0,
            StatusCode::CREATED
        );
        let all = list(&app, &w.eng, w.task).await;
        assert_eq!(all.len(), MAX_PER_STEP + 1);

        // Reading is the analyst's too; changing is not.
        assert_eq!(
            add(&app, &w.analyst, w.task, 1, "Mine").await.0,
            StatusCode::FORBIDDEN
        );
        let (s, _) = app
            .delete(&format!("{PATH}?id={}", all[0].id), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // Another organisation's task and steps are unknown to B.
        assert_eq!(
            add(&app, &w.eng_b, w.task, 0, "Intrude").await.0,
            StatusCode::NOT_FOUND
        );
        let (s, _) = app.get(&format!("{PATH}?task={}", w.task), &w.eng_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .delete(&format!("{PATH}?id={}", all[0].id), &w.eng_b)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(list(&app, &w.eng, w.task).await.len(), MAX_PER_STEP + 1);
    }
);
