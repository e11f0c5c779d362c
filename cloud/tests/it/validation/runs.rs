//! Runs against `gemba-agent eval` of the same videos (SQLite, the real agent and the
//! default model), resumed runs, and a run with nothing to evaluate.

use super::*;

/// Footage of the demo operation (`models/demo.py`), `seconds` long: the video and its
/// ground truth.
fn footage(app: &TestApp, dir: &Path, seed: u32, seconds: u32) -> (std::path::PathBuf, Truth) {
    let out = dir.join(format!("seed{seed}"));
    let models = app.state.settings.trainer_script.parent().unwrap();
    let st = std::process::Command::new(&app.state.settings.models_python)
        .arg(models.join("demo.py"))
        .args(["--seed", &seed.to_string()])
        .args(["--seconds", &seconds.to_string()])
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "making footage");
    let truth =
        serde_json::from_slice(&std::fs::read(out.with_extension("truth.json")).unwrap()).unwrap();
    (out.with_extension("mp4"), truth)
}

/// `gemba-agent eval` of the default model on `video` against `truth`.
fn agent_eval(dir: &Path, video: &Path, truth: &Truth) -> VideoEval {
    let file = dir.join("truth.json");
    std::fs::write(&file, serde_json::to_vec(truth).unwrap()).unwrap();
    let out = std::process::Command::new(agent_bin())
        .arg("eval")
        .arg("--model")
        .arg(models_dir().join("default"))
        .arg("--video")
        .arg(video)
        .arg("--truth")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `got` and `want` alike, numbers to the last digits a JSON round trip keeps.
fn same_figures(got: &serde_json::Value, want: &serde_json::Value) {
    use serde_json::Value;
    match (got, want) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{a} vs {b}");
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len());
            a.iter().zip(b).for_each(|(x, y)| same_figures(x, y));
        }
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
            a.iter().for_each(|(k, x)| same_figures(x, &b[k]));
        }
        _ => assert_eq!(got, want),
    }
}

/// The figures of one evaluation, without its speed (which differs run to run).
fn figures(mut e: VideoEval) -> VideoEval {
    e.fps = 0.0;
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_figures_equal_those_gemba_agent_eval_computes_for_the_same_videos() {
    let app = TestApp::start(Backend::Sqlite).await;
    let w = subscribed_world(&app).await;
    let dir = tempfile::tempdir().unwrap();
    let detail = "Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\n\
                  Fasten screws:\nDrive;\nInspect:\nLook;\n";
    let t: Task = app
        .create_as(
            "organization/task/",
            &TaskCreate {
                task_detail: Some(detail.into()),
                ..TaskCreate::default()
            },
            &w.eng,
        )
        .await;
    let model = std::fs::read(models_dir().join("default/model.onnx")).unwrap();
    let version = model_version(&app, w.a, t.id, "demo-1", model).await;
    let g: ValidationGroup = app.create_as(GROUPS, &group("Bench", t.id), &w.eng).await;

    // Two videos of the operation, labelled with their ground truth (cut at their end).
    let mut expected = vec![];
    for seed in [11, 12] {
        let (file, truth) = footage(&app, dir.path(), seed, 24);
        let bytes = std::fs::read(&file).unwrap();
        let name = format!("seed{seed}.mp4");
        let v = upload_video(&app, &w.eng, t.id, &name, &bytes, 4 << 20).await;
        let end = v.duration_ms.unwrap();
        let segments: Vec<Segment> = truth
            .segments
            .iter()
            .filter(|s| s.start_ms < end)
            .map(|s| Segment::new(s.step, s.start_ms, s.end_ms.min(end)))
            .collect();
        label(&app, &w.eng, v.id, segments.clone()).await;
        let _: Msg = app
            .send_as(
                Method::PUT,
                ADD,
                &AddVideosToGroup {
                    group_id: g.id,
                    videos: vec![v.id],
                },
                &w.eng,
            )
            .await;
        // What the agent computes for the same footage and labels, and the task's
        // step order rule (not strict, the default).
        let same = Truth {
            operation: detail.into(),
            strict_step_order: false,
            steps: truth.steps.clone(),
            segments: segments
                .iter()
                .map(|s| TruthSegment {
                    step: s.step,
                    start_ms: s.start_ms,
                    end_ms: s.end_ms,
                })
                .collect(),
            cycles: truth.cycles.clone(),
        };
        expected.push((name, agent_eval(dir.path(), &file, &same)));
    }

    let run: ValidationRun = app
        .create_as(
            RUNS,
            &ValidationRunCreate {
                group_id: g.id,
                model_version: version,
            },
            &w.eng,
        )
        .await;
    assert_eq!((run.of, run.model_version_name.as_str()), (2, "demo-1"));
    let path = format!("organization/validation-runs/{}/", run.id);
    let mut done = None;
    until("the validation run", 600, async || {
        let r: ValidationRun = app.get_as(&path, &w.eng).await;
        let end = !matches!(
            r.status,
            ValidationStatus::Queued | ValidationStatus::Running
        );
        done = Some(r);
        end
    })
    .await;
    let done = done.unwrap();
    assert_eq!(done.status, ValidationStatus::Succeeded, "{done:?}");
    assert_eq!(done.done, 2);

    // Per video, the agent's own figures.
    let per_video: Vec<ValidationRunVideo> = app
        .get_as(
            &format!("organization/validation-runs-videos/{}/", run.id),
            &w.eng,
        )
        .await;
    assert_eq!(per_video.len(), 2);
    for (got, (name, want)) in per_video.iter().zip(&expected) {
        assert_eq!(&got.name, name);
        assert_eq!(got.error, None);
        let report = got.report.clone().unwrap();
        same_figures(
            &serde_json::to_value(figures(report)).unwrap(),
            &serde_json::to_value(figures(want.clone())).unwrap(),
        );
        assert!(want.frames > 300, "{want:?}");
        assert!(want.true_cycles > 0, "{want:?}");
    }
    // Over the group: the pooled figures of the same evaluations.
    let evals: Vec<VideoEval> = expected.into_iter().map(|(_, e)| e).collect();
    let pooled = aggregate(&evals).unwrap();
    let report = done.report.unwrap();
    same_figures(
        &serde_json::to_value(&report).unwrap(),
        &serde_json::to_value(&pooled).unwrap(),
    );
    assert_eq!(report.frames, evals.iter().map(|e| e.frames).sum::<u64>());
    assert_eq!(
        report.matched,
        evals.iter().map(|e| e.matched).sum::<usize>()
    );

    // The group lists the run, to compare it with others.
    let listed: Vec<ValidationGroup> = app.get_as(GROUPS, &w.eng).await;
    let bench = listed.iter().find(|x| x.id == g.id).unwrap();
    assert_eq!(bench.runs.len(), 1);
    assert_eq!(bench.runs[0].status, ValidationStatus::Succeeded);
    // The work folder is gone.
    until("the work folder to go", 10, async || {
        !app.state
            .settings
            .data
            .join(format!("validation/{}", run.id))
            .exists()
    })
    .await;

    // A run a stopped cloud left queued is taken up again at the next start
    // (`validation::resume`), to the same figures.
    let dbh = &app.state.db;
    let videos = gemba_cloud::db::validation::videos(dbh, w.a, Some(g.id))
        .await
        .unwrap();
    let pairs: Vec<(i64, String)> = videos.iter().map(|v| (v.id, v.name.clone())).collect();
    let left = gemba_cloud::db::validation::insert_run(dbh, w.a, g.id, version, &pairs)
        .await
        .unwrap();
    gemba_cloud::validation::resume(&app.state).await.unwrap();
    let path = format!("organization/validation-runs/{left}/");
    let mut resumed = None;
    until("the resumed run", 600, async || {
        let r: ValidationRun = app.get_as(&path, &w.eng).await;
        let end = !matches!(
            r.status,
            ValidationStatus::Queued | ValidationStatus::Running
        );
        resumed = Some(r);
        end
    })
    .await;
    let resumed = resumed.unwrap();
    assert_eq!(resumed.status, ValidationStatus::Succeeded, "{resumed:?}");
    same_figures(
        &serde_json::to_value(resumed.report.unwrap()).unwrap(),
        &serde_json::to_value(&report).unwrap(),
    );

    // A video whose footage is gone gets why; a run with no video evaluated fails.
    let lost: ValidationGroup = app.create_as(GROUPS, &group("Lost", t.id), &w.eng).await;
    let segments = [Segment::new(0, 0, 1_000)];
    gemba_cloud::db::validation::insert_videos(
        dbh,
        lost.id,
        &[gemba_cloud::db::validation::NewVideo {
            org: w.a,
            task: t.id,
            group: lost.id,
            name: "gone.mp4",
            video: None,
            cycle: None,
            object_key: "validation/gone.mp4",
            duration_ms: 2_000,
            segments: &segments,
            reviewed: true,
        }],
        10,
    )
    .await
    .unwrap()
    .unwrap();
    let failing: ValidationRun = app
        .create_as(
            RUNS,
            &ValidationRunCreate {
                group_id: lost.id,
                model_version: version,
            },
            &w.eng,
        )
        .await;
    let path = format!("organization/validation-runs/{}/", failing.id);
    let mut failed = None;
    until("the failing run", 120, async || {
        let r: ValidationRun = app.get_as(&path, &w.eng).await;
        let end = !matches!(
            r.status,
            ValidationStatus::Queued | ValidationStatus::Running
        );
        failed = Some(r);
        end
    })
    .await;
    let failed = failed.unwrap();
    assert_eq!(failed.status, ValidationStatus::Failed);
    assert_eq!(failed.report, None);
    let why = failed.error.unwrap();
    assert!(why.starts_with("No video could be evaluated: "), "{why}");
    assert!(why.contains("reading the video from storage"), "{why}");
    let per_video: Vec<ValidationRunVideo> = app
        .get_as(
            &format!("organization/validation-runs-videos/{}/", failing.id),
            &w.eng,
        )
        .await;
    assert_eq!(per_video.len(), 1);
    assert_eq!(per_video[0].report, None);
    assert!(per_video[0].error.is_some());
}
