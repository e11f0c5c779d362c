//! The labeler area (issue 6): an organisation requests labeling of a task from a
//! labeler (a user of no organisation), who then lists exactly the tasks requested of
//! them, their ready videos, and reads and saves their labels; on both backends.

use gemba_shared::api::v1::labeler::{LabelRequest, LabelRequestCreate, RequestedTask};
use gemba_shared::api::v1::task::{Task, TrainStatus};
use gemba_shared::api::v1::video::{LabelState, LabelsPut, TaskVideos, Video, VideoLabels};
use gemba_shared::api::v1::{Msg, Page};
use gemba_shared::cycle::Segment;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::both;
use crate::common::*;
use crate::videos::{b_task, clip, subscribed_world, upload};

/// A ready 2 s video of `task`, uploaded by `tok`.
async fn video(app: &TestApp, tok: &str, task: i64) -> i64 {
    let tmp = tempfile::tempdir().unwrap();
    let (s, v) = upload(app, tok, task, "bench.mp4", &clip(tmp.path(), 2), 1 << 20).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    serde_json::from_value::<Video>(v).unwrap().id
}

/// The tasks requested of the labeler `lab`.
async fn requested(app: &TestApp, lab: &str) -> Vec<RequestedTask> {
    app.get_as("labeler/tasks/", lab).await
}

fn request(email: &str) -> LabelRequestCreate {
    LabelRequestCreate {
        email: email.into(),
    }
}

both!(
    a_labeler_reaches_exactly_the_tasks_requested_of_them,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let mine = video(&app, &w.eng, w.task).await;
        // B's task and video, never requested.
        let (eng_b, task_b) = b_task(&app, &w).await;
        let theirs = video(&app, &eng_b, task_b).await;
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        app.quick_user("notlab@a.test", "Eng", "org_user", &[w.a])
            .await;

        // Nothing requested yet.
        assert!(requested(&app, &lab).await.is_empty());
        let requests = format!("organization/task/{}/labelers/", w.task);
        assert!(
            app.get_as::<Vec<LabelRequest>>(&requests, &w.eng)
                .await
                .is_empty()
        );

        // Bad requests change nothing.
        for (body, says) in [
            (
                request("nobody@x.test"),
                "No labeler has this e-mail address.",
            ),
            (
                request("notlab@a.test"),
                "No labeler has this e-mail address.",
            ),
            (request("  "), "This field may not be blank."),
        ] {
            let (s, v) = app
                .send_refused(Method::POST, &requests, &body, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert_eq!(v["email"][0], says, "{body:?}");
        }
        for body in [
            json!({}),
            json!({"email": 5}),
            json!({"email": "lab@x.test", "x": 1}),
        ] {
            let (s, _) = app.post(&requests, body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
        }
        let (s, _) = app
            .send_refused(Method::POST, &requests, &request("lab@x.test"), &w.analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .send_refused(Method::POST, &requests, &request("lab@x.test"), &w.boss_b)
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert!(requested(&app, &lab).await.is_empty());

        // Requested: the labeler sees the task, its ready video, and labels it.
        let v: Vec<LabelRequest> = app
            .create_as(&requests, &request("LAB@x.test"), &w.eng)
            .await;
        assert_eq!(v[0].email, "lab@x.test");
        let (s, v) = app
            .send_refused(Method::POST, &requests, &request("lab@x.test"), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let tasks = requested(&app, &lab).await;
        assert_eq!(tasks.len(), 1);
        assert_eq!(tasks[0].id, w.task);
        assert_eq!(tasks[0].steps, ["Fit", "Check"]);
        assert_eq!(tasks[0].organization, w.a);
        assert_eq!(tasks[0].ready_videos, 1);
        assert_eq!(tasks[0].labelled_videos, 0);
        let page: Page<Video> = app
            .get_as(&format!("labeler/videos/{}", w.task), &lab)
            .await;
        assert_eq!(page.count, 1);
        assert_eq!(page.results[0].id, mine);
        assert!(
            page.results[0]
                .url
                .as_deref()
                .unwrap()
                .starts_with("/api/media/")
        );
        let labels = format!("labeler/task_record/{mine}/labels/");
        let segments = |segments: Vec<Segment>| LabelsPut {
            segments,
            reviewed: None,
        };
        let (s, v) = app
            .send_refused(
                Method::PUT,
                &labels,
                &segments(vec![Segment::new(0, 0, 900), Segment::new(1, 800, 1500)]),
                &lab,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["segments"][0].as_str().unwrap().contains("overlap"),
            "{v}"
        );
        let v: VideoLabels = app
            .send_as(
                Method::PUT,
                &labels,
                &segments(vec![Segment::new(0, 0, 900), Segment::new(1, 1000, 1500)]),
                &lab,
            )
            .await;
        let lab_id = gemba_cloud::db::users::by_email(&app.state.db, "lab@x.test")
            .await
            .unwrap()
            .unwrap()
            .id;
        assert_eq!(v.updated_by, Some(lab_id));
        // The organisation sees the labeler's labels; the task is in annotation.
        let l: VideoLabels = app
            .get_as(&format!("organization/task_record/{mine}/labels/"), &w.eng)
            .await;
        assert_eq!(l.segments.len(), 2);
        let t: Task = app
            .get_as(&format!("organization/task/{}/", w.task), &w.eng)
            .await;
        assert_eq!(t.train_status, TrainStatus::InAnnotation);
        assert_eq!(requested(&app, &lab).await[0].labelled_videos, 1);

        // What is not requested answers 404: B's task, its video, its labels.
        for p in [
            format!("labeler/videos/{task_b}"),
            format!("labeler/task_record/{theirs}/labels/"),
        ] {
            assert_eq!(app.get(&p, &lab).await.0, StatusCode::NOT_FOUND, "{p}");
        }
        let (s, _) = app
            .send_refused(
                Method::PUT,
                &format!("labeler/task_record/{theirs}/labels/"),
                &segments(vec![]),
                &lab,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // The labeler calls are the labeler's only; a labeler reaches no org's calls.
        assert_eq!(
            app.get("labeler/tasks/", &w.eng).await.0,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            app.get(&format!("organization/task_record/{mine}/labels/"), &lab)
                .await
                .0,
            StatusCode::FORBIDDEN
        );

        // Withdrawn: gone from the labeler's list and reach.
        let labeler = app.get_as::<Vec<LabelRequest>>(&requests, &w.eng).await[0].labeler;
        let gone = format!("organization/task/{}/labelers/{labeler}/", w.task);
        assert_eq!(app.delete(&gone, &w.analyst).await.0, StatusCode::FORBIDDEN);
        assert_eq!(app.delete(&gone, &w.eng).await.0, StatusCode::NO_CONTENT);
        assert_eq!(app.delete(&gone, &w.eng).await.0, StatusCode::NOT_FOUND);
        assert!(requested(&app, &lab).await.is_empty());
        assert_eq!(app.get(&labels, &lab).await.0, StatusCode::NOT_FOUND);
    }
);

both!(
    a_labeler_reviews_propagated_labels_of_a_requested_task,
    |app: TestApp| async move {
        let w = subscribed_world(&app).await;
        let mine = video(&app, &w.eng, w.task).await;
        let lab = token(&app.user_in(&w.admin, "lab@x.test", "labeler", None).await);
        // A model's guesses, as training saves them.
        let row = gemba_cloud::db::videos::by_id(&app.state.db, mine)
            .await
            .unwrap()
            .unwrap();
        let guessed = r#"[{"step":0,"start_ms":0,"end_ms":1200}]"#;
        assert!(
            gemba_cloud::db::videos::propagate(&app.state.db, &row, guessed, "t1-r1")
                .await
                .unwrap()
        );
        let mark = "labeler/task/mark_propagations_as_reviewed";
        let body = TaskVideos {
            task: w.task,
            videos: Some(vec![mine]),
        };

        // Not requested: refused, nothing marked.
        let (s, v) = app.send_refused(Method::PATCH, mark, &body, &lab).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v["task"][0], "Choose one of the tasks requested of you.");
        let (s, _) = app.send_refused(Method::PATCH, mark, &body, &w.eng).await;
        assert_eq!(
            s,
            StatusCode::FORBIDDEN,
            "the labeler area is the labeler's"
        );
        let _: Vec<LabelRequest> = app
            .create_as(
                &format!("organization/task/{}/labelers/", w.task),
                &request("lab@x.test"),
                &w.eng,
            )
            .await;
        let labels = format!("labeler/task_record/{mine}/labels/");
        let l: VideoLabels = app.get_as(&labels, &lab).await;
        assert_eq!(l.propagated_from.as_deref(), Some("t1-r1"));
        assert!(!l.reviewed);
        let page: Page<Video> = app
            .get_as(&format!("labeler/videos/{}", w.task), &lab)
            .await;
        assert_eq!(page.results[0].labels, LabelState::Propagated);
        assert_eq!(
            requested(&app, &lab).await[0].labelled_videos,
            0,
            "not counted until reviewed"
        );

        let _: Msg = app.send_as(Method::PATCH, mark, &body, &lab).await;
        let l: VideoLabels = app.get_as(&labels, &lab).await;
        assert!(l.reviewed);
        assert_eq!(l.segments[0].end_ms, 1200);
        assert_eq!(requested(&app, &lab).await[0].labelled_videos, 1);
        // Reviewed labels are a person's: a newer model's guesses do not replace them.
        assert!(
            !gemba_cloud::db::videos::propagate(&app.state.db, &row, "[]", "t1-r2")
                .await
                .unwrap()
        );
        let (s, v) = app.send_refused(Method::PATCH, mark, &body, &lab).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            v["videos"][0]
                .as_str()
                .unwrap()
                .contains("no propagated labels"),
            "{v}"
        );
    }
);
