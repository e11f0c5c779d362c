//! People's changes to cycles (issue 7), on both backends: a verdict (good or bad, with
//! why, kept in history), archiving, restoring and deleting. After each, every figure of
//! `telemetry/cycle_stats` equals the same figure computed here from the raw cycles (the
//! roll-ups follow), and the lists agree; with ingestion of the same hours going on at
//! the same time too. Bad bodies, other organisations' cycles and forbidden roles are
//! refused with nothing changed.

use std::collections::HashSet;

use gemba_cloud::db::cycles::{Stored, insert_cycles};
use gemba_shared::api::v1::Page;
use gemba_shared::api::v1::telemetry::{
    ArchiveCycles, Archived, ArchivedCycle, CycleDetails, CycleStats, CycleVerdict,
};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::analytics::{Demo, Raw, as_sent, check, demo_cycles, rfc3339, same};
use crate::both;
use crate::common::*;
use crate::devices::{World, world};
use crate::telemetry::ids;
use crate::videos::b_task;

/// The five days of [`demo_cycles`], whole, and a range cutting hours at both ends.
const DAYS: &str = "datetime_start=2026-10-13&datetime_end=2026-10-17";

/// The raw cycles still counted: all but `gone`.
fn live(raw: &[Raw], gone: &HashSet<usize>) -> Vec<Raw> {
    raw.iter()
        .enumerate()
        .filter(|(i, _)| !gone.contains(i))
        .map(|(_, r)| Raw {
            device: r.device,
            c: r.c.clone(),
        })
        .collect()
}

/// A person's verdict on a cycle, and why.
fn verdict(good: bool, reason: &str) -> CycleVerdict {
    CycleVerdict {
        good: Some(good),
        reason: Some(reason.into()),
    }
}

/// Cycles `ids` to archive, and why.
fn archiving(ids: &[String], reason: &str) -> ArchiveCycles {
    ArchiveCycles {
        ids: Some(ids.to_vec()),
        reason: Some(reason.into()),
    }
}

/// The cycle details of `id` as `tok` reads them.
async fn details(app: &TestApp, tok: &str, id: &str) -> CycleDetails {
    app.get_as(
        &format!("telemetry/trace/trace_single_cycle_details/?cycle_id={id}"),
        tok,
    )
    .await
}

/// The archived cycles as `tok` reads them (`query`: `?organization=…` or nothing).
async fn archived(app: &TestApp, tok: &str, query: &str) -> Page<ArchivedCycle> {
    app.get_as(&format!("telemetry/archive_cycle/{query}"), tok)
        .await
}

/// Checks the whole days, an hourly range with cut edges, and the bad cycles alone.
async fn check_all(app: &TestApp, w: &World, raw: &[Raw], odd: &str) -> CycleStats {
    let whole = check(app, w, raw, DAYS, &|_| true).await;
    check(app, w, raw, &format!("{odd}&bucket=hour"), &|_| true).await;
    check(
        app,
        w,
        raw,
        &format!("{DAYS}&cycle_filter=bad_cycles"),
        &|r| !r.c.good,
    )
    .await;
    whole
}

both!(
    verdicts_archives_and_deletions_keep_the_figures_true,
    |app: TestApp| async move {
        let w = world(&app).await;
        let Demo {
            mut raw,
            received,
            per_station,
            truth: d_truth,
            ..
        } = demo_cycles(&app, &w, 5).await;
        let id = |i: usize| received[i].cycle.id.clone();
        let per_day = 2 * per_station;
        let odd = format!(
            "datetime_start={}&datetime_end={}",
            rfc3339(raw[per_day + 2].c.start_ms - 1),
            rfc3339(raw[3 * per_day + per_station + 1].c.start_ms + 1)
        );
        let mut gone = HashSet::new();
        let before = check_all(&app, &w, &live(&raw, &gone), &odd).await;

        // A good cycle marked bad, then good again: each kept in its history.
        let g = raw.iter().position(|r| r.c.good).unwrap() + per_day;
        assert!(raw[g].c.good);
        let cycle = |i: usize| format!("telemetry/cycle/{}", id(i));
        let v: CycleDetails = app
            .send_as(
                Method::PATCH,
                &cycle(g),
                &verdict(false, "  Skipped the torque check  "),
                &w.eng,
            )
            .await;
        assert!(!v.cycle.good);
        assert_eq!(v.history[0].change, "bad");
        assert_eq!(v.history[0].reason, "Skipped the torque check");
        assert_eq!(v.history[0].by.as_deref(), Some("eng@a.test"));
        raw[g].c.good = false;
        let marked = check_all(&app, &w, &live(&raw, &gone), &odd).await;
        assert_eq!(marked.total.good, before.total.good - 1);
        // The same verdict again is refused; the other way is taken.
        let (s, v) = app
            .send_refused(Method::PATCH, &cycle(g), &verdict(false, "again"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["good"][0].as_str().unwrap().contains("bad already"),
            "{v}"
        );
        let _: CycleDetails = app
            .send_as(
                Method::PATCH,
                &cycle(g),
                &verdict(true, "The check was done off camera"),
                &w.boss,
            )
            .await;
        raw[g].c.good = true;
        let back = check_all(&app, &w, &live(&raw, &gone), &odd).await;
        same(&back.total, &before.total);
        // Its details, as any reader of cycles sees them.
        let v = details(&app, &w.analyst, &id(g)).await;
        let history: Vec<(&str, &str)> = v
            .history
            .iter()
            .map(|h| (h.change.as_str(), h.by.as_deref().unwrap()))
            .collect();
        assert_eq!(history, [("bad", "eng@a.test"), ("good", "boss@a.test")]);
        assert!(v.archived_at_ms.is_none());
        // Its names, and its station's cycles just before and after it.
        assert_eq!(v.task_name, Some(d_truth.task_settings().task_name));
        assert_eq!(v.steps, d_truth.steps);
        assert!(v.device_name.is_some());
        let mut station: Vec<usize> = (0..raw.len())
            .filter(|&i| raw[i].device == raw[g].device)
            .collect();
        station.sort_by_key(|&i| (raw[i].c.start_ms, received[i].cycle.id.clone()));
        let at = station.iter().position(|&i| i == g).unwrap();
        let near = |k: Option<usize>| k.map(|k| id(station[k]));
        assert_eq!(v.previous, near(at.checked_sub(1)), "{v:?}");
        assert_eq!(
            v.next,
            near(Some(at + 1).filter(|&k| k < station.len())),
            "{v:?}"
        );

        // Two cycles archived (one named twice): out of the lists and the figures.
        let (a1, a2) = (per_day + per_station, 3 * per_day + 1);
        let v: Archived = app
            .send_as(
                Method::POST,
                "telemetry/archive_cycle/",
                &archiving(&[id(a1), id(a2), id(a1)], "A trial run"),
                &w.eng,
            )
            .await;
        assert_eq!(v.archived, 2);
        gone.extend([a1, a2]);
        check_all(&app, &w, &live(&raw, &gone), &odd).await;
        let (listed, count) = ids(&app, &w, "page_size=100").await;
        assert_eq!(count, (raw.len() - 2) as i64);
        assert!(!listed.contains(&id(a1)) && !listed.contains(&id(a2)));
        // Sent again by its device (a replay): recognised, not counted again.
        let again = insert_cycles(&app.state.db, &received[a1..=a1])
            .await
            .unwrap();
        assert_eq!(again, [Stored::Again]);
        assert_eq!(ids(&app, &w, "page_size=100").await.1, count);
        // The archive lists them, newest first, with who and why.
        let v = archived(&app, &w.boss, "").await;
        assert_eq!(v.count, 2);
        let first = &v.results[0];
        assert!([id(a1), id(a2)].contains(&first.id));
        assert_eq!(first.organization, w.a);
        assert_eq!(first.organization_name.as_deref(), Some("Plant A"));
        assert_eq!(first.reason, "A trial run");
        assert_eq!(first.archived_by.as_deref(), Some("eng@a.test"));
        assert!(first.task_name.is_some() && first.device_name.is_some());
        assert!(first.start_datetime.ends_with('Z'));
        // The super admin's Archived Cycles: every organisation's, or one's.
        for (query, n) in [
            (String::new(), 2),
            (format!("?organization={}", w.a), 2),
            (format!("?organization={}", w.b), 0),
        ] {
            let v = archived(&app, &w.admin, &query).await;
            assert_eq!(v.count, n, "{query}");
        }
        // An archived cycle takes no verdict, and is not archived twice; all or none.
        let fresh = 2;
        let (s, v) = app
            .send_refused(Method::PATCH, &cycle(a1), &verdict(false, "x"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["non_field_errors"][0]
                .as_str()
                .unwrap()
                .contains("archived")
        );
        let (s, v) = app
            .send_refused(
                Method::POST,
                "telemetry/archive_cycle/",
                &archiving(&[id(fresh), id(a2)], "again"),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["ids"][0].as_str().unwrap().contains(&id(a2)), "{v}");

        // Organisation B reaches none of A's cycles; A none of B's.
        let (_, task_b) = b_task(&app, &w).await;
        let b_cycle = as_sent(w.b, 0, task_b, &raw[0].c);
        insert_cycles(&app.state.db, std::slice::from_ref(&b_cycle))
            .await
            .unwrap();
        for (s, v) in [
            app.send_refused(
                Method::PATCH,
                &cycle(fresh),
                &verdict(false, "x"),
                &w.boss_b,
            )
            .await,
            app.delete(&format!("telemetry/cycle/{}/", id(fresh)), &w.boss_b)
                .await,
            app.delete(&format!("telemetry/archived_cycle/{}", id(a1)), &w.boss_b)
                .await,
            app.get(
                &format!(
                    "telemetry/trace/trace_single_cycle_details/?cycle_id={}",
                    id(fresh)
                ),
                &w.boss_b,
            )
            .await,
        ] {
            assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
        }
        let (s, v) = app
            .send_refused(
                Method::POST,
                "telemetry/archive_cycle/",
                &archiving(&[id(fresh), b_cycle.cycle.id.clone()], "theirs"),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["ids"][0].as_str().unwrap().contains("not one of"), "{v}");
        let v = archived(&app, &w.boss_b, "").await;
        assert_eq!(v.count, 0, "{v:?}");
        let (s, v) = app
            .get(
                &format!("telemetry/archive_cycle/?organization={}", w.a),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        // Nothing of all that changed anything.
        check_all(&app, &w, &live(&raw, &gone), &odd).await;
        assert_eq!(ids(&app, &w, "page_size=100").await.1, count);

        // The analytics user reads, and changes nothing; a labeler reads nothing.
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        for tok in [&w.analyst, &lab] {
            for (s, v) in [
                app.send_refused(Method::PATCH, &cycle(fresh), &verdict(false, "x"), tok)
                    .await,
                app.delete(&format!("telemetry/cycle/{}/", id(fresh)), tok)
                    .await,
                app.send_refused(
                    Method::POST,
                    "telemetry/archive_cycle/",
                    &archiving(&[id(fresh)], "x"),
                    tok,
                )
                .await,
                app.get("telemetry/archive_cycle/", tok).await,
                app.delete(&format!("telemetry/archived_cycle/{}", id(a1)), tok)
                    .await,
            ] {
                assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
            }
        }
        let (s, _) = app
            .get(
                &format!(
                    "telemetry/trace/trace_single_cycle_details/?cycle_id={}",
                    id(fresh)
                ),
                &lab,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // Restored: counted again; restoring twice finds nothing to restore.
        let (s, v) = app
            .delete(&format!("telemetry/archived_cycle/{}", id(a1)), &w.boss)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        gone.remove(&a1);
        check_all(&app, &w, &live(&raw, &gone), &odd).await;
        let (s, _) = app
            .delete(&format!("telemetry/archived_cycle/{}", id(a1)), &w.boss)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let v = details(&app, &w.eng, &id(a1)).await;
        let changes: Vec<&str> = v.history.iter().map(|h| h.change.as_str()).collect();
        assert_eq!(changes, ["archived", "restored"]);

        // Deleted for good: an archived one (the figures do not move) and a live one.
        let (s, v) = app
            .delete(&format!("telemetry/cycle/{}/", id(a2)), &w.boss)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        let (s, v) = app
            .delete(&format!("telemetry/cycle/{}/", id(g)), &w.admin)
            .await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
        gone.insert(g);
        check_all(&app, &w, &live(&raw, &gone), &odd).await;
        let (s, _) = app
            .get(
                &format!(
                    "telemetry/trace/trace_single_cycle_details/?cycle_id={}",
                    id(g)
                ),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let v = archived(&app, &w.boss, "").await;
        assert_eq!(v.count, 0, "{v:?}");
        let history: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM cycle_changes WHERE cycle_id = $1")
                .bind(id(g))
                .fetch_one(&app.state.db.pool)
                .await
                .unwrap();
        assert_eq!(history, 0);
        assert_eq!(
            ids(&app, &w, "page_size=100").await.1,
            (raw.len() - 2) as i64
        );
    }
);

both!(
    bad_cycle_changes_are_named_and_change_nothing,
    |app: TestApp| async move {
        let w = world(&app).await;
        let Demo { raw, received, .. } = demo_cycles(&app, &w, 1).await;
        let one = received[0].cycle.id.clone();
        let before = check(&app, &w, &raw, DAYS, &|_| true).await;
        let long = "x".repeat(501);
        for (body, field) in [
            (CycleVerdict::default(), "good"),
            (
                CycleVerdict {
                    reason: Some("why".into()),
                    ..CycleVerdict::default()
                },
                "good",
            ),
            (
                CycleVerdict {
                    good: Some(true),
                    ..CycleVerdict::default()
                },
                "reason",
            ),
            (verdict(false, "   "), "reason"),
            (verdict(false, &long), "reason"),
        ] {
            let (s, v) = app
                .send_refused(
                    Method::PATCH,
                    &format!("telemetry/cycle/{one}"),
                    &body,
                    &w.eng,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert!(v[field][0].is_string(), "{body:?}: {v}");
        }
        for body in [
            json!({"good": "no", "reason": "why"}),
            json!({"good": false, "reason": 5}),
            json!({"good": false, "reason": "why", "by": "me"}),
            json!([]),
        ] {
            let (s, v) = app
                .patch(
                    &format!("telemetry/cycle/{one}"),
                    body.clone(),
                    Some(&w.eng),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let (s, _) = app
            .send_refused(
                Method::PATCH,
                "telemetry/cycle/no-such-cycle",
                &verdict(false, "why"),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let many: Vec<String> = (0..101).map(|i| format!("c{i}")).collect();
        let huge = "y".repeat(10_000);
        for (body, field) in [
            (
                ArchiveCycles {
                    reason: Some("why".into()),
                    ..ArchiveCycles::default()
                },
                "ids",
            ),
            (archiving(&[], "why"), "ids"),
            (archiving(&many, "why"), "ids"),
            (
                ArchiveCycles {
                    ids: Some(vec![one.clone()]),
                    ..ArchiveCycles::default()
                },
                "reason",
            ),
            (archiving(&["no-such-cycle".into()], "why"), "ids"),
            (archiving(&[one.clone(), huge.clone()], "why"), "ids"),
        ] {
            let (s, v) = app
                .send_refused(Method::POST, "telemetry/archive_cycle/", &body, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field][0].is_string(), "{v}");
            // A long id is cut where it is named.
            assert!(v.to_string().len() < 1000, "{v}");
        }
        for (s, v) in [
            app.post(
                "telemetry/archive_cycle/",
                json!({"ids": one, "reason": "why"}),
                Some(&w.eng),
            )
            .await,
            app.get("telemetry/archive_cycle/?page_size=101", &w.eng)
                .await,
            app.get("telemetry/archive_cycle/?page=0", &w.eng).await,
            app.get("telemetry/archive_cycle/?organization=x", &w.eng)
                .await,
            app.get("telemetry/trace/trace_single_cycle_details/", &w.eng)
                .await,
        ] {
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        }
        let (s, _) = app
            .delete("telemetry/archived_cycle/no-such-cycle", &w.eng)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app.delete("telemetry/cycle/no-such-cycle/", &w.eng).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Not archived: nothing to restore.
        let (s, _) = app
            .delete(&format!("telemetry/archived_cycle/{one}"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Nothing changed.
        let after = check(&app, &w, &raw, DAYS, &|_| true).await;
        same(&after.total, &before.total);
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM cycle_changes")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
        assert_eq!(n, 0);
    }
);

both!(
    changes_during_ingestion_of_the_same_hours_keep_the_figures_true,
    |app: TestApp| async move {
        let w = world(&app).await;
        let Demo {
            mut raw, received, ..
        } = demo_cycles(&app, &w, 3).await;
        // The same cycles sent again by the same stations under new ids: the same hours
        // and days, ingested while people mark, archive and restore cycles there.
        let task = received[0].cycle.task;
        let copies = live(&raw, &HashSet::new());
        let batches: Vec<Vec<_>> = copies
            .chunks(11)
            .map(|b| {
                b.iter()
                    .map(|r| as_sent(w.a, r.device, task, &r.c))
                    .collect()
            })
            .collect();
        let db = app.state.db.clone();
        let ingest = tokio::spawn(async move {
            for batch in batches {
                insert_cycles(&db, &batch).await.unwrap();
            }
        });
        let mut gone = HashSet::new();
        for i in (0..raw.len()).step_by(3) {
            let id = &received[i].cycle.id;
            let good = !raw[i].c.good;
            let _: CycleDetails = app
                .send_as(
                    Method::PATCH,
                    &format!("telemetry/cycle/{id}"),
                    &verdict(good, "checked"),
                    &w.eng,
                )
                .await;
            raw[i].c.good = good;
            if i % 2 == 0 {
                let _: Archived = app
                    .send_as(
                        Method::POST,
                        "telemetry/archive_cycle/",
                        &archiving(std::slice::from_ref(id), "trial"),
                        &w.eng,
                    )
                    .await;
                gone.insert(i);
            }
            if i % 4 == 0 {
                let (s, v) = app
                    .delete(&format!("telemetry/archived_cycle/{id}"), &w.eng)
                    .await;
                assert_eq!(s, StatusCode::NO_CONTENT, "{v}");
                gone.remove(&i);
            }
        }
        ingest.await.unwrap();
        // The originals as changed, and the copies as sent.
        let mut expect = live(&raw, &gone);
        expect.extend(copies);
        check(&app, &w, &expect, DAYS, &|_| true).await;
        check(
            &app,
            &w,
            &expect,
            "datetime_start=2026-10-14&datetime_end=2026-10-14&bucket=hour",
            &|_| true,
        )
        .await;
    }
);

both!(
    a_change_holds_back_ingestions_rollups_until_it_commits,
    |app: TestApp| async move {
        let w = world(&app).await;
        let Demo { raw, received, .. } = demo_cycles(&app, &w, 1).await;
        // A change's transaction, as a verdict or an archive opens it.
        let tx = gemba_cloud::db::rollups::begin_change(&app.state.db)
            .await
            .unwrap();
        // A device sends a cycle of the same hour meanwhile.
        let task = received[0].cycle.task;
        let copy = as_sent(w.a, raw[0].device, task, &raw[0].c);
        let db = app.state.db.clone();
        let ingest = tokio::spawn(async move { insert_cycles(&db, &[copy]).await.unwrap() });
        tokio::time::sleep(std::time::Duration::from_millis(700)).await;
        assert!(
            !ingest.is_finished(),
            "a batch's roll-ups wait for the change to commit"
        );
        tx.commit().await.unwrap();
        assert_eq!(ingest.await.unwrap(), [Stored::New]);
        // Counted once, with the rest.
        let mut expect = live(&raw, &HashSet::new());
        expect.push(Raw {
            device: raw[0].device,
            c: raw[0].c.clone(),
        });
        check(&app, &w, &expect, DAYS, &|_| true).await;
    }
);
