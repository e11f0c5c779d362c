//! Groups, videos and records on both backends: copies, checks, refusals, deletes.

use super::*;

both!(
    groups_hold_copies_of_labelled_videos_and_checked_records_from_traces,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let dir = tempfile::tempdir().unwrap();

        // A group of the task; names are unique per organisation.
        let g: ValidationGroup = app
            .create_as(GROUPS, &group(" Line 1 set ", w.task), &w.eng)
            .await;
        assert_eq!(
            (g.name.as_str(), g.task, g.videos),
            ("Line 1 set", w.task, 0)
        );
        let (s, v) = app
            .send_refused(Method::POST, GROUPS, &group("Line 1 set", w.task), &w.boss)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["name"].is_array(), "{v}");
        for (tok, body, field) in [
            (&w.boss_b, group("Theirs", w.task), "task"),
            (&w.eng, group("  ", w.task), "name"),
            (&w.eng, group(&"x".repeat(101), w.task), "name"),
        ] {
            let (s, v) = app.send_refused(Method::POST, GROUPS, &body, tok).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field].is_array(), "{v}");
        }
        // The analytics user reads groups but changes none.
        let _: Vec<ValidationGroup> = app.get_as(GROUPS, &w.analyst).await;
        let (s, _) = app
            .send_refused(Method::POST, GROUPS, &group("Mine", w.task), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);

        // A task video joins once it has labels: a copy of its footage and labels.
        let bytes = clip(dir.path(), 4);
        let video = upload_video(&app, &w.eng, w.task, "bench.mp4", &bytes, 1 << 20).await;
        let add = AddVideosToGroup {
            group_id: g.id,
            videos: vec![video.id],
        };
        let (s, v) = app.send_refused(Method::PUT, ADD, &add, &w.eng).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["videos"][0].as_str().unwrap().contains("no labels"),
            "{v}"
        );
        let labels = vec![Segment::new(0, 500, 1_500), Segment::new(1, 1_500, 3_000)];
        label(&app, &w.eng, video.id, labels.clone()).await;
        let m: Msg = app.send_as(Method::PUT, ADD, &add, &w.eng).await;
        assert_eq!(m.msg, GROUP_UPDATED);
        let in_group: Vec<ValidationVideo> = app
            .get_as(
                &format!("organization/validation-videos/retrieve/?group_id={}", g.id),
                &w.eng,
            )
            .await;
        assert_eq!(in_group.len(), 1);
        let copy = &in_group[0];
        assert_eq!(
            (
                copy.video,
                copy.group,
                copy.reviewed,
                &copy.segments,
                copy.name.as_str()
            ),
            (Some(video.id), Some(g.id), true, &labels, "bench.mp4")
        );
        assert_eq!(validation_files(&app, w.a), 1);
        // Relabelling the task video leaves the copy as it was.
        label(&app, &w.eng, video.id, vec![Segment::new(0, 0, 100)]).await;
        let again: Vec<ValidationVideo> = app
            .get_as("organization/validation-videos/retrieve", &w.eng)
            .await;
        assert_eq!(again[0].segments, labels);

        // A cycle's clip becomes a record labelled with the recognised steps, unchecked.
        let at = 1_793_606_400_000;
        cycle_with_clip(&app, w.a, w.task, "cyc-1", at, clip(dir.path(), 4), 4_000).await;
        let from = RecordsFromTrace {
            group_id: g.id,
            cycles: vec!["cyc-1".into()],
        };
        let made: Vec<ValidationVideo> = app.create_as(FROM_TRACE, &from, &w.eng).await;
        assert_eq!(made.len(), 1);
        let rec = &made[0];
        assert_eq!(rec.cycle.as_deref(), Some("cyc-1"));
        assert!(!rec.reviewed);
        assert_eq!(
            rec.segments,
            [Segment::new(0, 1_000, 3_000), Segment::new(1, 3_000, 4_000)]
        );
        for cycles in [vec!["nope".to_string()], vec![]] {
            let bad = RecordsFromTrace {
                group_id: g.id,
                cycles,
            };
            let (s, v) = app
                .send_refused(Method::POST, FROM_TRACE, &bad, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v["cycles"].is_array(), "{v}");
        }
        assert_eq!(validation_files(&app, w.a), 2);

        // A person checks the record's labels: within the clip, of the task's steps.
        let check = format!("websocket_inference/validation_record/{}/", rec.id);
        for segments in [
            vec![Segment::new(7, 0, 1_000)],
            vec![Segment::new(0, 3_000, 9_000)],
        ] {
            let (s, v) = app
                .send_refused(Method::POST, &check, &RecordLabels { segments }, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v["segments"].is_array(), "{v}");
        }
        let fixed = vec![Segment::new(0, 800, 3_000), Segment::new(1, 3_000, 4_000)];
        let checked: ValidationVideo = app
            .send_as(
                Method::POST,
                &check,
                &RecordLabels {
                    segments: fixed.clone(),
                },
                &w.eng,
            )
            .await;
        assert!(checked.reviewed);
        assert_eq!(checked.segments, fixed);
        let records: Vec<ValidationVideo> = app
            .get_as(
                &format!("websocket_inference/validation_record/group/{}/", g.id),
                &w.eng,
            )
            .await;
        assert_eq!(records.len(), 2);
        let listed: Vec<ValidationGroup> = app.get_as(GROUPS, &w.eng).await;
        assert_eq!((listed[0].videos, listed[0].checked_videos), (2, 2));

        // Renamed, and moved into another group of the task (not another task's).
        let other: ValidationGroup = app
            .create_as(GROUPS, &group("Night shift", w.task), &w.eng)
            .await;
        let patched: ValidationVideo = app
            .send_as(
                Method::PATCH,
                &format!("organization/validation-videos/{}/", rec.id),
                &ValidationVideoPatch {
                    name: Some("Dropped screw".into()),
                    group_id: Some(other.id),
                },
                &w.eng,
            )
            .await;
        assert_eq!(
            (patched.name.as_str(), patched.group),
            ("Dropped screw", Some(other.id))
        );

        // Runs: a model version of the group's task, over checked videos.
        let model = model_version(&app, w.a, w.task, "pump-1", b"not run".to_vec()).await;
        let empty: ValidationGroup = app.create_as(GROUPS, &group("Empty", w.task), &w.eng).await;
        for (body, field) in [
            (
                ValidationRunCreate {
                    group_id: empty.id,
                    model_version: model,
                },
                "group_id",
            ),
            (
                ValidationRunCreate {
                    group_id: g.id,
                    model_version: 999_999,
                },
                "model_version",
            ),
        ] {
            let (s, v) = app.send_refused(Method::POST, RUNS, &body, &w.eng).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert!(v[field].is_array(), "{v}");
        }

        // Another organisation sees none of it.
        for path in [
            format!("websocket_inference/validation_record/group/{}/", g.id),
            format!("organization/validation-videos/retrieve/?group_id={}", g.id),
        ] {
            let (s, _) = app.get(&path, &w.boss_b).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
        }
        let theirs: Vec<ValidationVideo> = app
            .get_as("organization/validation-videos/retrieve", &w.boss_b)
            .await;
        assert!(theirs.is_empty());
        let (s, _) = app.delete(&check, &w.boss_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // Deleting a record takes its footage; deleting a group leaves its videos.
        let (s, v) = app.delete(&check, &w.eng).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(validation_files(&app, w.a), 1);
        let (s, v) = app.delete(&format!("{GROUPS}{}/", g.id), &w.eng).await;
        assert_eq!(
            (s, v["msg"].as_str()),
            (StatusCode::OK, Some(GROUP_DELETED))
        );
        let left: Vec<ValidationVideo> = app
            .get_as("organization/validation-videos/retrieve", &w.eng)
            .await;
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].group, None);
        let (s, _) = app.delete(&format!("{GROUPS}{}/", g.id), &w.eng).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
    }
);
