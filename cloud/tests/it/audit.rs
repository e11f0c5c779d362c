//! The audit log of administrators' changes (issue 28), from the outside: an
//! organisation admin's changes are recorded with who, from where, in which
//! organisation, the call, its target and its answer (refusals too), never a password
//! or a code from the body; an organisation user's are not; an organisation admin reads
//! its own organisation's entries only, the super admin every one's.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::device::EnrolmentCode;
use gemba_shared::api::v1::organization::AuditEntry;
use gemba_shared::api::v1::task::{Task, TaskCreate};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::both;
use crate::common::*;
use crate::devices::{added, world};

async fn log(app: &TestApp, tok: &str, query: &str) -> Page<AuditEntry> {
    app.get_as(
        &format!("organization/audit_log/?page_size=100{query}"),
        tok,
    )
    .await
}

both!(
    an_org_admins_changes_are_recorded_without_their_secrets,
    |app: TestApp| async move {
        let w = world(&app).await;
        // Changes of organisation A's admin: a device, a new enrolment code for it, a
        // workstation user's password.
        let dev = added(&app, &w.boss, "Press 1").await;
        let again: EnrolmentCode = app
            .send_as(
                Method::POST,
                &format!("device/{}/enrolment_code/", dev.device.id),
                &json!({}),
                &w.boss,
            )
            .await;
        let station = app
            .quick_user("station@a.test", "Station", "workstation_user", &[w.a])
            .await;
        let secret = "Station-Secret-93!";
        let (s, v) = app
            .patch(
                "account/reset_workstation_user_password/",
                json!({"user": station, "password": secret}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // Refused ones: not the super admin's call (403), a malformed body (400).
        let (s, _) = app
            .post(
                "organization/",
                json!({"org_name_to_display": "Mine"}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .post("device/", json!({"display_name": 5}), Some(&w.boss))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        // An organisation user's change is not an administrator's.
        let _: Task = app
            .create_as(
                "organization/task/",
                &TaskCreate {
                    task_detail: Some("Weld\nA:\na;\n".into()),
                    ..TaskCreate::default()
                },
                &w.eng,
            )
            .await;

        let mine = log(&app, &w.boss, "").await;
        let boss: Vec<&AuditEntry> = mine
            .results
            .iter()
            .filter(|e| e.email == "boss@a.test")
            .collect();
        let calls: Vec<(&str, &str, &str, i64)> = boss
            .iter()
            .map(|e| {
                (
                    e.method.as_str(),
                    e.route.as_str(),
                    e.target.as_str(),
                    e.status,
                )
            })
            .collect();
        let id = format!("id={}", dev.device.id);
        // Newest first.
        assert_eq!(
            calls,
            [
                ("POST", "/api/device/", "", 400),
                ("POST", "/api/organization/", "", 403),
                (
                    "PATCH",
                    "/api/account/reset_workstation_user_password/",
                    "",
                    200
                ),
                ("POST", "/api/device/{id}/enrolment_code/", id.as_str(), 200),
                ("POST", "/api/device/", "", 201),
            ]
        );
        let boss_id = app.user_row("boss@a.test").await.id;
        for e in &boss {
            assert_eq!(e.user_id, boss_id);
            assert_eq!(e.role, "org_admin");
            assert_eq!(e.organization_id, Some(w.a));
            assert_eq!(e.client_ip, "127.0.0.1");
        }
        assert!(
            mine.results.iter().all(|e| e.email != "eng@a.test"),
            "{:?}",
            mine.results
        );
        // The whole log, as the super admin reads it, holds neither the codes shown
        // nor the password set.
        let all = serde_json::to_string(&log(&app, &w.admin, "").await).unwrap();
        for s in [dev.code.as_str(), again.code.as_str(), secret, PASSWORD] {
            assert!(!all.contains(s), "{s} in {all}");
        }
    }
);

both!(
    each_admin_reads_only_the_log_it_may,
    |app: TestApp| async move {
        let w = world(&app).await;
        added(&app, &w.boss, "Press A").await;
        added(&app, &w.boss_b, "Press B").await;
        // Organisation B's admin: B's entries only, never A's.
        let b = log(&app, &w.boss_b, "").await;
        assert!(!b.results.is_empty());
        assert!(b.results.iter().all(|e| e.organization_id == Some(w.b)));
        let (s, _) = app
            .get(
                &format!("organization/audit_log/?organization={}", w.a),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Those who do not administer: 403.
        for tok in [&w.eng, &w.analyst] {
            let (s, _) = app.get("organization/audit_log/", tok).await;
            assert_eq!(s, StatusCode::FORBIDDEN);
        }
        // The super admin: everyone's (its own organisation-less changes too), or one
        // organisation's.
        let all = log(&app, &w.admin, "").await;
        assert!(all.results.iter().any(|e| e.organization_id == Some(w.a)));
        assert!(all.results.iter().any(|e| e.organization_id == Some(w.b)));
        assert!(all.results.iter().any(|e| e.email == ADMIN_EMAIL
            && e.method == "POST"
            && e.route == "/api/organization/"
            && e.organization_id.is_none()
            && e.status == 201));
        let (s, _) = app
            .get("organization/audit_log/?organization=999999", &w.admin)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let a = log(&app, &w.admin, &format!("&organization={}", w.a)).await;
        assert!(!a.results.is_empty());
        assert!(a.results.iter().all(|e| e.organization_id == Some(w.a)));
        // Pages of it.
        let p1: Page<AuditEntry> = app
            .get_as("organization/audit_log/?page=1&page_size=2", &w.admin)
            .await;
        let p2: Page<AuditEntry> = app
            .get_as("organization/audit_log/?page=2&page_size=2", &w.admin)
            .await;
        assert_eq!((p1.results.len(), p2.results.len()), (2, 2));
        assert_eq!(p1.count, all.count);
        assert!(p1.results[1].id > p2.results[0].id);
        for q in ["page_size=0", "page_size=101", "page=0"] {
            let (s, v) = app
                .call(
                    Method::GET,
                    &format!("organization/audit_log/?{q}"),
                    None,
                    Some(&w.admin),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{q}: {v}");
        }
    }
);
