//! Virtual tasks (`GET organization/task/virtual_tasks/{id}/`): a task's processes,
//! each with its steps as the whole operation counts them and the task's rules that
//! concern it; they follow the task's changes; another organisation's task is unknown.

use gemba_shared::api::v1::task::{Task, TaskCreate, TaskPatch};
use gemba_shared::api::v1::virtual_task::VirtualTask;
use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

const PUMP: &str = "Assemble pump\nFit housing:\nPlace housing;\nCheck seal:\nInspect seal;\nPre-assembly~\nPack:\nPut in box;\nLabel:\nStick label;\nPacking~\n";

fn steps(v: &VirtualTask) -> Vec<(u32, &str)> {
    v.steps.iter().map(|s| (s.index, s.name.as_str())).collect()
}

both!(
    each_process_of_a_task_is_a_virtual_task_with_its_rules,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Virtual A").await;
        let b = app.create_org(&admin, "Virtual B").await;
        app.subscribe(&admin, a, "Define Operation").await;
        let eng = app.signed_in("eng@virtual-a.test", "org_user", a).await;
        let analyst = app
            .signed_in("analyst@virtual-a.test", "analytics_user", a)
            .await;
        let eng_b = app.signed_in("eng@virtual-b.test", "org_user", b).await;
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
        let path = format!("organization/task/virtual_tasks/{}/", task.id);

        let (s, v) = app
            .patch(
                &format!("organization/task/{}/", task.id),
                json!({
                    "negativeSteps": [3],
                    "required_steps_for_start": {"0": [0], "1": [2]},
                    "required_steps_for_end": {"0": [1], "1": [3]},
                }),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let v: Vec<VirtualTask> = app.get_as(&path, &analyst).await;
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].task_name, "Assemble pump / Pre-assembly");
        assert_eq!(steps(&v[0]), [(0, "Fit housing"), (1, "Check seal")]);
        assert_eq!(steps(&v[1]), [(2, "Pack"), (3, "Label")]);
        assert_eq!(
            (
                &v[0].required_steps_for_start[..],
                &v[0].required_steps_for_end[..]
            ),
            (&[0][..], &[1][..])
        );
        assert_eq!(
            (
                &v[1].required_steps_for_start[..],
                &v[1].required_steps_for_end[..]
            ),
            (&[2][..], &[3][..])
        );
        assert!(v[0].negative_steps.is_empty());
        assert_eq!(v[1].negative_steps, [3]);
        assert!(v.iter().all(|t| t.task == task.id));

        // One process now: one virtual task.
        let (s, body) = app
            .patch(
                &format!("organization/task/{}/", task.id),
                serde_json::to_value(TaskPatch {
                    task_detail: Some(
                        "Assemble pump\nFit housing:\nPlace housing;\nPre-assembly~\n".into(),
                    ),
                    ..TaskPatch::default()
                })
                .unwrap(),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{body}");
        let v: Vec<VirtualTask> = app.get_as(&path, &eng).await;
        assert_eq!(v.len(), 1);
        assert_eq!(steps(&v[0]), [(0, "Fit housing")]);

        // Another organisation's task, and none.
        assert_eq!(app.get(&path, &eng_b).await.0, StatusCode::NOT_FOUND);
        assert_eq!(
            app.get("organization/task/virtual_tasks/999999999/", &eng)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
    }
);
