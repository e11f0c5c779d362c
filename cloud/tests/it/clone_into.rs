//! `PATCH generic/clone_task/`: a task copied into another organisation its user may
//! act in, under a new name with a fresh history; refused for an organisation the user
//! is not in (or none), one without Define Operation, a name taken there, and a role
//! that does not manage tasks.

use gemba_shared::api::v1::task::{NOT_YOUR_ORGANIZATION, Task, TaskCreate};
use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

const PATH: &str = "generic/clone_task/";

both!(
    a_task_is_copied_into_another_organization,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Copy A").await;
        let b = app.create_org(&admin, "Copy B").await;
        let bare = app.create_org(&admin, "Copy Bare").await;
        let other = app.create_org(&admin, "Copy Other").await;
        for o in [a, b, other] {
            app.subscribe(&admin, o, "Define Operation").await;
        }
        app.quick_user("eng@copy.test", "Eng", "org_user", &[a, b, bare])
            .await;
        let eng = token(&app.login("eng@copy.test", PASSWORD).await);
        let analyst = app
            .signed_in("analyst@copy-a.test", "analytics_user", a)
            .await;
        let task: Task = app
            .create_as(
                "organization/task/",
                &TaskCreate {
                    task_detail: Some("Pump\nFit:\nPlace;\n".into()),
                    ..TaskCreate::default()
                },
                &eng,
            )
            .await;
        assert_eq!(task.organization.id, a);

        let (s, v) = app
            .patch(
                PATH,
                json!({"task": task.id, "taskName": "Pump at B", "organization": b}),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let c: Task = serde_json::from_value(v).unwrap();
        assert_ne!(c.id, task.id);
        assert_eq!(c.organization.id, b);
        assert_eq!(c.settings.task_name, "Pump at B");
        assert!(
            c.settings.task_detail.starts_with("Pump at B\nFit:\n"),
            "{c:?}"
        );
        let (s, v) = app
            .get(&format!("organization/task/{}/history/", c.id), &admin)
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v[0]["action"], "cloned", "{v}");

        // The same name again in B is taken; refusals write nothing.
        for (body, status, field, msg) in [
            (
                json!({"task": task.id, "taskName": "Pump at B", "organization": b}),
                StatusCode::BAD_REQUEST,
                "taskName",
                "A task with this name already exists.",
            ),
            (
                json!({"task": task.id, "taskName": "Pump 2", "organization": other}),
                StatusCode::BAD_REQUEST,
                "organization",
                NOT_YOUR_ORGANIZATION,
            ),
            (
                json!({"task": task.id, "taskName": "Pump 3", "organization": 999_999_999}),
                StatusCode::BAD_REQUEST,
                "organization",
                NOT_YOUR_ORGANIZATION,
            ),
        ] {
            let (s, v) = app.patch(PATH, body, Some(&eng)).await;
            assert_eq!(s, status, "{v}");
            assert_eq!(v[field][0], msg, "{v}");
        }
        // An organisation without Define Operation, and a role that reads tasks only.
        let (s, v) = app
            .patch(
                PATH,
                json!({"task": task.id, "taskName": "Pump 4", "organization": bare}),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
        let (s, _) = app
            .patch(
                PATH,
                json!({"task": task.id, "taskName": "Pump 5", "organization": a}),
                Some(&analyst),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .patch(
                PATH,
                json!({"task": 999_999_999, "taskName": "Pump 6", "organization": b}),
                Some(&eng),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);
