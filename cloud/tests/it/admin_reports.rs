//! The super admin's reports (issue 31, item 1): User Report (activity sessions and
//! sign-ins made through the real calls), Labelers and Annotations (labels saved through
//! the real calls); their filters, bad input and refusals; on both backends. Two long
//! tests, each a story of its screen's figures, rather than many small set-ups.

use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::account::{ActivitySession, SessionCreate};
use gemba_shared::api::v1::admin_report::{AdminLabeler, AnnotationProgress, UserReport};
use gemba_shared::api::v1::labeler::{LabelRequest, LabelRequestCreate};
use gemba_shared::api::v1::video::{LabelsPut, Video, VideoLabels};
use gemba_shared::cycle::Segment;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::videos::{b_task, clip, subscribed_world, upload};

const MIN: i64 = 60_000;

/// Unix ms of an RFC 3339 date-time.
fn at(s: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(s)
        .unwrap()
        .timestamp_millis()
}

/// The id of the user with this address.
async fn user_id(app: &TestApp, email: &str) -> i64 {
    app.user_row(email).await.id
}

/// Starts an activity session through the portal's call, then extends it.
async fn session(app: &TestApp, tok: &str, user: i64, browser: &str, version: &str) -> i64 {
    let s: ActivitySession = app
        .create_as(
            "account/session/create/",
            &SessionCreate {
                user,
                browser: browser.into(),
                browser_version: version.into(),
            },
            tok,
        )
        .await;
    let (st, v) = app
        .patch(
            &format!("account/session/update/{}/", s.id),
            json!({}),
            Some(tok),
        )
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    s.id
}

/// Places an activity session (made through the calls) at a known time, so the
/// report's figures are exact.
async fn place(app: &TestApp, id: i64, start: i64, end: i64) {
    sqlx::query("UPDATE activity_sessions SET created_at = $1, end_time = $2 WHERE id = $3")
        .bind(start)
        .bind(end)
        .bind(id)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
}

/// The report's row of `email`.
fn row<'a>(
    r: &'a UserReport,
    email: &str,
) -> &'a gemba_shared::api::v1::admin_report::UserReportRow {
    r.results
        .iter()
        .find(|u| u.email == email)
        .unwrap_or_else(|| panic!("{email} in {r:?}"))
}

fn emails(r: &UserReport) -> Vec<&str> {
    r.results.iter().map(|u| u.email.as_str()).collect()
}

both!(
    the_user_report_counts_each_users_sessions_sign_ins_and_time,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Report A").await;
        let b = app.create_org(&admin, "Report B").await;
        let ann_tok = app.signed_in("ann@a.test", "org_admin", a).await;
        app.quick_user("bob@ab.test", "Bob", "org_user", &[a, b])
            .await;
        let bob_tok = token(&app.login("bob@ab.test", PASSWORD).await);
        app.quick_user("cat@x.test", "Cat", "labeler", &[]).await;
        let (ann, bob) = (
            user_id(&app, "ann@a.test").await,
            user_id(&app, "bob@ab.test").await,
        );

        // Sessions through the portal's calls.
        let s1 = session(&app, &ann_tok, ann, "Chrome", "131").await;
        let s2 = session(&app, &ann_tok, ann, "Firefox", "133").await;
        let s3 = session(&app, &bob_tok, bob, "Chrome", "131").await;

        // Over the default period (the last 30 days) the figures are the rows' own.
        let r: UserReport = app
            .get_as(&format!("admin/user-report/?organization={a}"), &admin)
            .await;
        assert_eq!(r.to - r.from, 30 * 24 * 60 * MIN);
        assert_eq!(r.count, 2, "{r:?}");
        let rows: Vec<(i64, i64, i64)> = sqlx::query_as(
            "SELECT user_id, created_at, end_time FROM activity_sessions ORDER BY id",
        )
        .fetch_all(&app.state.db.pool)
        .await
        .unwrap();
        let spent = |u: i64| -> i64 {
            rows.iter()
                .filter(|(who, ..)| *who == u)
                .map(|(_, s, e)| e - s)
                .sum()
        };
        let last = |u: i64| rows.iter().filter(|(who, ..)| *who == u).map(|r| r.2).max();
        let ann_row = row(&r, "ann@a.test");
        assert_eq!(ann_row.sessions, 2);
        assert_eq!(ann_row.time_ms, spent(ann));
        assert_eq!(ann_row.last_active, last(ann));
        assert_eq!(ann_row.sign_ins, 1);
        assert_eq!(ann_row.browsers, ["Chrome 131", "Firefox 133"]);
        assert_eq!(ann_row.organizations, ["Report A"]);
        assert_eq!(ann_row.role.as_deref(), Some("org_admin"));
        let bob_row = row(&r, "bob@ab.test");
        assert_eq!(bob_row.sessions, 1);
        assert_eq!(bob_row.organizations, ["Report A", "Report B"]);

        // Placed in June 2026: one session straddles the period's start (20 min of
        // it inside), one inside (90 min), Bob's after it.
        place(
            &app,
            s1,
            at("2026-05-31T23:50:00Z"),
            at("2026-06-01T00:20:00Z"),
        )
        .await;
        place(
            &app,
            s2,
            at("2026-06-10T08:00:00Z"),
            at("2026-06-10T09:30:00Z"),
        )
        .await;
        place(
            &app,
            s3,
            at("2026-07-05T10:00:00Z"),
            at("2026-07-05T10:05:00Z"),
        )
        .await;
        // One of Ann's sign-ins in June.
        sqlx::query(
            "UPDATE auth_sessions SET created_at = $1 WHERE user_id = $2 AND otp_verified = 1",
        )
        .bind(at("2026-06-03T07:00:00Z"))
        .bind(ann)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
        let june = "from=2026-06-01&to=2026-06-30";
        let r: UserReport = app
            .get_as(
                &format!("admin/user-report/?{june}&organization={a}&ordering=-time"),
                &admin,
            )
            .await;
        assert_eq!(r.from, at("2026-06-01T00:00:00Z"));
        assert_eq!(r.to, at("2026-07-01T00:00:00Z"), "the whole last day");
        assert_eq!(emails(&r), ["ann@a.test", "bob@ab.test"]);
        let ann_row = row(&r, "ann@a.test");
        assert_eq!(ann_row.sessions, 2);
        assert_eq!(ann_row.time_ms, 110 * MIN);
        assert_eq!(ann_row.sign_ins, 1);
        assert_eq!(ann_row.last_active, Some(at("2026-06-10T09:30:00Z")));
        let bob_row = row(&r, "bob@ab.test");
        assert_eq!(
            (bob_row.sessions, bob_row.time_ms, bob_row.sign_ins),
            (0, 0, 0)
        );
        assert!(bob_row.browsers.is_empty());
        assert_eq!(
            bob_row.last_active,
            Some(at("2026-07-05T10:05:00Z")),
            "last active is the latest session, in the period or not"
        );
        // July only: Bob's 5 minutes.
        let r: UserReport = app
            .get_as(
                &format!("admin/user-report/?from=2026-07-01T00:00:00Z&to=2026-08-01&organization={a}&ordering=-time"),
                &admin,
            )
            .await;
        assert_eq!(emails(&r), ["bob@ab.test", "ann@a.test"]);
        assert_eq!(row(&r, "bob@ab.test").time_ms, 5 * MIN);
        assert_eq!(row(&r, "bob@ab.test").browsers, ["Chrome 131"]);

        // Filters: organisation, role, search; sorting; pages.
        let r: UserReport = app
            .get_as(&format!("admin/user-report/?organization={b}"), &admin)
            .await;
        assert_eq!(emails(&r), ["bob@ab.test"]);
        let r: UserReport = app
            .get_as("admin/user-report/?role=labeler&search=CAT", &admin)
            .await;
        assert_eq!(emails(&r), ["cat@x.test"]);
        assert_eq!(
            (
                row(&r, "cat@x.test").sessions,
                row(&r, "cat@x.test").last_active
            ),
            (0, None)
        );
        let r: UserReport = app
            .get_as(
                &format!("admin/user-report/?organization={a}&ordering=email&page_size=1&page=2"),
                &admin,
            )
            .await;
        assert_eq!((emails(&r), r.count), (vec!["bob@ab.test"], 2));
        let r: UserReport = app
            .get_as(
                &format!("admin/user-report/?organization={a}&ordering=-email&page=3&page_size=1"),
                &admin,
            )
            .await;
        assert_eq!((r.results.len(), r.count), (0, 2), "past the end");

        // The CSV: the same rows, every page.
        let resp = app
            .raw(
                Method::GET,
                &format!(
                    "admin/user-report/csv/?{june}&organization={a}&ordering=-time&page_size=1"
                ),
                Some(&admin),
                &[],
            )
            .await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert!(
            resp.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/csv")
        );
        assert_eq!(
            resp.headers()["content-disposition"],
            "attachment; filename=\"user-report-2026-06-01-2026-06-30.csv\""
        );
        let csv = resp.text().await.unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3, "{csv}");
        assert!(lines[0].starts_with("Name,E-mail,Organizations,Role,Active,Sessions,Sign-ins,"));
        assert_eq!(
            lines[1],
            "Eng User,ann@a.test,Report A,Organization Admin,yes,2,1,1:50:00,\
             2026-06-10T09:30:00Z,Chrome 131; Firefox 133"
        );
        assert!(
            lines[2].starts_with("Bob User,bob@ab.test,Report A; Report B,"),
            "{csv}"
        );

        // Bad input: a clear 400 on the field; an unknown organisation 404.
        for (q, field, paged) in [
            ("role=boss", "role", false),
            ("ordering=password_hash", "ordering", false),
            ("from=yesterday", "from", false),
            ("from=2026-06-02&to=2026-06-01", "to", false),
            ("page=0", "page", true),
            ("page_size=101", "page_size", true),
        ] {
            // The CSV has every page: it reads no page.
            let paths: &[&str] = if paged {
                &["admin/user-report/"]
            } else {
                &["admin/user-report/", "admin/user-report/csv/"]
            };
            for path in paths {
                let (s, v) = app.get(&format!("{path}?{q}"), &admin).await;
                assert_eq!(s, StatusCode::BAD_REQUEST, "{path}?{q}: {v}");
                assert!(v[field][0].is_string(), "{path}?{q}: {v}");
            }
        }
        let (s, v) = app.get("admin/user-report/?role=boss", &admin).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(v["role"][0], "\"boss\" is not a valid choice.");
        let (s, _) = app.get("admin/user-report/?organization=x", &admin).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let (s, _) = app
            .get("admin/user-report/?organization=999999", &admin)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // The super admin's only.
        for path in [
            "admin/user-report/",
            "admin/user-report/csv/",
            "admin/labelers/",
            "admin/annotations/",
        ] {
            for tok in [&ann_tok, &bob_tok] {
                assert_eq!(app.get(path, tok).await.0, StatusCode::FORBIDDEN, "{path}");
            }
        }
    }
);

/// A ready 2 s video of `task`, uploaded by `tok`.
async fn video(app: &TestApp, tok: &str, task: i64) -> i64 {
    let tmp = tempfile::tempdir().unwrap();
    let (s, v) = upload(app, tok, task, "bench.mp4", &clip(tmp.path(), 2), 1 << 20).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    serde_json::from_value::<Video>(v).unwrap().id
}

fn labels(segments: Vec<Segment>, reviewed: Option<bool>) -> LabelsPut {
    LabelsPut { segments, reviewed }
}

/// The labeler of `email` in the labelers report.
fn labeler<'a>(p: &'a Page<AdminLabeler>, email: &str) -> &'a AdminLabeler {
    p.results
        .iter()
        .find(|l| l.email == email)
        .unwrap_or_else(|| panic!("{email} in {p:?}"))
}

both!(
    labelers_and_annotations_show_the_progress_of_real_labels,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let (_eng_b, task_b) = b_task(&app, &w).await;
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        app.quick_user("idle@x.test", "Idle", "labeler", &[]).await;
        let lab_id = user_id(&app, "lab@x.test").await;
        let v1 = video(&app, &w.eng, w.task).await;
        let v2 = video(&app, &w.eng, w.task).await;
        let v3 = video(&app, &w.eng, w.task).await;

        // Nothing yet: the labelers exist with nothing requested; no progress.
        let p: Page<AdminLabeler> = app.get_as("admin/labelers/", &w.admin).await;
        assert_eq!(p.count, 2);
        assert_eq!(
            p.results
                .iter()
                .map(|l| l.email.as_str())
                .collect::<Vec<_>>(),
            ["idle@x.test", "lab@x.test"],
            "by name"
        );
        assert!(labeler(&p, "lab@x.test").assignments.is_empty());
        let p: Page<AnnotationProgress> = app
            .get_as(
                &format!("admin/annotations/?organization={}", w.a),
                &w.admin,
            )
            .await;
        assert_eq!(p.count, 1);
        let t = &p.results[0];
        assert_eq!(
            (
                t.task,
                t.videos,
                t.labelled_videos,
                t.segments,
                t.labelers,
                t.last_change
            ),
            (w.task, 3, 0, 0, 0, None)
        );

        // The super admin asks the labeler, in the task's organisation.
        let org = w.a.to_string();
        let requests = format!("organization/task/{}/labelers/", w.task);
        let (s, v) = app
            .call_with(
                Method::POST,
                &requests,
                Some(
                    serde_json::to_value(LabelRequestCreate {
                        email: "lab@x.test".into(),
                    })
                    .unwrap(),
                ),
                Some(&w.admin),
                &[("Organization", &org)],
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let _: Vec<LabelRequest> = serde_json::from_value(v).unwrap();

        // Labels through the real calls: the labeler's two segments on v1, the
        // organisation's reviewed one on v2 (verification mode), a model's guess on v3.
        let mine: VideoLabels = app
            .send_as(
                Method::PUT,
                &format!("labeler/task_record/{v1}/labels/"),
                &labels(
                    vec![Segment::new(0, 0, 900), Segment::new(1, 1000, 1500)],
                    None,
                ),
                &lab,
            )
            .await;
        let theirs: VideoLabels = app
            .send_as(
                Method::PUT,
                &format!("organization/task_record/{v2}/labels/"),
                &labels(vec![Segment::new(0, 0, 1200)], Some(true)),
                &w.eng,
            )
            .await;
        let row = gemba_cloud::db::videos::by_id(&app.state.db, v3)
            .await
            .unwrap()
            .unwrap();
        assert!(
            gemba_cloud::db::videos::propagate(
                &app.state.db,
                &row,
                r#"[{"step":0,"start_ms":0,"end_ms":700},{"step":1,"start_ms":800,"end_ms":1600}]"#,
                "t1-r1"
            )
            .await
            .unwrap()
        );
        let (s, v) = app
            .get(&format!("organization/task_record/{v3}/labels/"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let guessed: VideoLabels = serde_json::from_value(v).unwrap();

        let p: Page<AdminLabeler> = app.get_as("admin/labelers/?search=LAB@", &w.admin).await;
        assert_eq!(p.count, 1);
        let l = labeler(&p, "lab@x.test");
        assert_eq!(l.id, lab_id);
        assert!(mine.updated_at.is_some());
        assert_eq!(l.last_label_at, mine.updated_at);
        assert_eq!(l.assignments.len(), 1);
        let a = &l.assignments[0];
        assert_eq!((a.task, a.organization), (w.task, w.a));
        assert_eq!(a.task_name, "Pump");
        assert_eq!(a.org_name_to_display, "Plant A");
        assert_eq!(
            (a.ready_videos, a.labelled_videos, a.labelled_by_labeler),
            (3, 2, 1),
            "the guess is not labelled until reviewed"
        );
        let p: Page<AdminLabeler> = app.get_as("admin/labelers/", &w.admin).await;
        assert_eq!(labeler(&p, "idle@x.test").last_label_at, None);

        let p: Page<AnnotationProgress> = app.get_as("admin/annotations/", &w.admin).await;
        assert_eq!(p.count, 2);
        assert_eq!(
            p.results.iter().map(|t| t.task).collect::<Vec<_>>(),
            [w.task, task_b],
            "the latest change first"
        );
        let t = &p.results[0];
        assert_eq!(t.org_name_to_display, "Plant A");
        assert_eq!(
            (t.videos, t.labelled_videos, t.reviewed_videos, t.to_review),
            (3, 2, 1, 1)
        );
        assert_eq!(t.segments, 5, "2 + 1 + the guess's 2");
        assert_eq!(t.labelers, 1);
        let latest = [mine.updated_at, theirs.updated_at, guessed.updated_at];
        assert_eq!(t.last_change, latest.into_iter().flatten().max());
        let b = &p.results[1];
        assert_eq!(
            (b.organization, b.videos, b.segments, b.last_change),
            (w.b, 0, 0, None)
        );
        let p: Page<AnnotationProgress> = app
            .get_as(
                &format!("admin/annotations/?organization={}", w.b),
                &w.admin,
            )
            .await;
        assert_eq!(
            p.results.iter().map(|t| t.task).collect::<Vec<_>>(),
            [task_b]
        );
        let p: Page<AnnotationProgress> = app
            .get_as("admin/annotations/?search=pum&page_size=1", &w.admin)
            .await;
        assert_eq!((p.count, p.results[0].task), (1, w.task));

        // Withdrawn by the super admin.
        let (s, v) = app
            .call_with(
                Method::DELETE,
                &format!("{requests}{lab_id}/"),
                None,
                Some(&w.admin),
                &[("Organization", &org)],
            )
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        let p: Page<AdminLabeler> = app.get_as("admin/labelers/", &w.admin).await;
        assert!(labeler(&p, "lab@x.test").assignments.is_empty());
        let p: Page<AnnotationProgress> = app
            .get_as(
                &format!("admin/annotations/?organization={}", w.a),
                &w.admin,
            )
            .await;
        assert_eq!(p.results[0].labelers, 0);

        // Bad input and refusals.
        for q in ["page=0", "page_size=0", "page_size=500"] {
            for path in ["admin/labelers/", "admin/annotations/"] {
                let (s, v): (StatusCode, Value) = app.get(&format!("{path}?{q}"), &w.admin).await;
                assert_eq!(s, StatusCode::BAD_REQUEST, "{path}?{q}: {v}");
            }
        }
        let (s, _) = app
            .get("admin/annotations/?organization=999999", &w.admin)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        for tok in [&w.boss, &w.eng, &lab] {
            for path in ["admin/labelers/", "admin/annotations/"] {
                assert_eq!(app.get(path, tok).await.0, StatusCode::FORBIDDEN, "{path}");
            }
        }
    }
);
