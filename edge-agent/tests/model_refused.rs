//! A deploy of a model the agent cannot run (issue 25, item 5; issue 26, item 4),
//! through the real agent binary: a float NCHW classifier that declares no
//! preprocessing, a detector and a declared float NCHW model with a class too many
//! (`models/fixtures.py`) are refused before anything changes; the deployment shows
//! `failed` with the agent's reason, the camera keeps running the model it had, and
//! `deployed.json` never names them. A model that fits is then installed, and then a
//! model made elsewhere (float32 NCHW, normalised) as the cloud stores it once its
//! preprocessing is declared at upload. The cloud refuses such models at upload,
//! register and deploy, so the test sends the `deploy` commands as the cloud does, for
//! versions stored as one kept before those checks would be.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Cloud, cloud, demo, enroll, interrupt, run_cameras, wait_for};
use gemba_cloud::db::training;
use gemba_shared::api::v1::training::DeploymentStatus;
use gemba_shared::mqtt::v1::Command;
use sha2::{Digest, Sha256};

/// A `models/fixtures.py` model of `kind` with these labels and input size.
fn fixture(
    dir: &Path,
    kind: &str,
    labels: &[String],
    width: u32,
    height: u32,
    args: &[&str],
) -> Vec<u8> {
    let out = dir.join(format!("{kind}.onnx"));
    let python = std::env::var_os("GEMBA_MODELS_PYTHON").unwrap_or_else(|| "python3".into());
    let st = std::process::Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/fixtures.py"))
        .arg(kind)
        .args(["--labels", &serde_json::to_string(labels).unwrap()])
        .args(["--version", &format!("{kind}-1")])
        .args([
            "--width",
            &width.to_string(),
            "--height",
            &height.to_string(),
        ])
        .args(args)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("GEMBA_MODELS_PYTHON (scripts/lib.sh sets it up)");
    assert!(st.success(), "making a {kind} model");
    std::fs::read(out).unwrap()
}

/// What the device's latest status says `cam0` runs: (model version, fps).
async fn cam0(c: &Cloud) -> Option<(String, f64)> {
    let status: Option<String> = sqlx::query_scalar("SELECT status FROM devices WHERE id = $1")
        .bind(c.device)
        .fetch_one(&c.state.db.pool)
        .await
        .unwrap();
    let s: serde_json::Value = serde_json::from_str(&status?).ok()?;
    let cam = s["cameras"]
        .as_array()?
        .iter()
        .find(|c| c["camera"] == "cam0")?
        .clone();
    Some((
        cam["model_version"].as_str()?.to_string(),
        cam["fps"].as_f64()?,
    ))
}

/// Deploys `bytes` as model version `version` of the cloud's task to its device, as
/// `POST organization/model_version/{id}/deploy/` does; answers the deployment once the
/// device acknowledged it.
async fn deploy(
    c: &Cloud,
    version: &str,
    bytes: &[u8],
) -> gemba_shared::api::v1::training::Deployment {
    let db = &c.state.db;
    let org: i64 = sqlx::query_scalar("SELECT organization_id FROM devices WHERE id = $1")
        .bind(c.device)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    let by: i64 = sqlx::query_scalar("SELECT MIN(id) FROM users")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    let sha256 = gemba_shared::hex(&Sha256::digest(bytes));
    let name = format!("models/{version}/model.onnx");
    // Into the cloud's local object folder (`gemba_cloud::objects`), as a kept bundle.
    let file = c
        .state
        .settings
        .data
        .join("objects")
        .join(gemba_cloud::objects::key(org, &name).as_ref());
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, bytes).unwrap();
    let model = training::register(
        db,
        org,
        c.task,
        &training::NewModel {
            model_type_id: None,
            version,
            object_key: &name,
            sha256: &sha256,
            size_bytes: bytes.len() as i64,
            metrics: None,
        },
    )
    .await
    .unwrap();
    let exp = chrono::Utc::now().timestamp() + 3600;
    let url = format!(
        "{}/api/media/{}",
        c.url,
        c.state.keys.sign_media(org, &name, exp).unwrap()
    );
    let command = c
        .state
        .mqtt
        .command(
            db,
            org,
            c.device,
            Command::Deploy {
                task: c.task,
                version: version.into(),
                url,
                sha256,
                size_bytes: bytes.len() as i64,
            },
        )
        .await
        .unwrap();
    training::add_deployment(
        db,
        training::NewDeployment {
            org,
            model: model.id,
            task: c.task,
            device: c.device,
            command: &command,
            by,
        },
    )
    .await
    .unwrap();
    let mut answer = None;
    wait_for("the deploy's acknowledgement", 60, async || {
        answer = training::deployments(db, org, Some(model.id), None)
            .await
            .unwrap()
            .into_iter()
            .map(gemba_cloud::http::models::to_api)
            .find(|d| d.status != DeploymentStatus::Installing);
        answer.is_some()
    })
    .await;
    answer.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_the_agent_cannot_run_is_refused_at_deploy_and_the_camera_keeps_its_model() {
    let d = demo();
    let c = cloud(None, &d.truth.operation).await;
    let data = tempfile::tempdir().unwrap();
    enroll(data.path(), &c.url);
    let mut agent = run_cameras(
        data.path(),
        &d,
        &[format!("cam0={}", d.footage.display())],
        &["--loop", "--heartbeat", "1"],
    );
    wait_for("cam0 running the default model", 60, async || {
        cam0(&c)
            .await
            .is_some_and(|(v, fps)| v == "demo-1" && fps > 0.0)
    })
    .await;

    // Made to the default model's labels and frame size: only their graphs do not fit.
    let default =
        gemba_cloud::onnx::read(&std::fs::read(d.model.join("model.onnx")).unwrap()).unwrap();
    let (labels, w, h) = (&default.labels, default.input_width, default.input_height);
    let n = labels.len();
    let tmp = tempfile::tempdir().unwrap();
    for (kind, says) in [
        (
            "float-nchw",
            format!(
                "the model's input is float32 1×3×{h}×{w} (NCHW); gemba needs uint8 \
                 1×{h}×{w}×3 (RGB, NHWC) matching its gemba.input_height and \
                 gemba.input_width"
            ),
        ),
        (
            "detector",
            format!("; gemba needs float32 1×{n}: one value for each of its {n} gemba.labels"),
        ),
        (
            "wrong-classes",
            format!(
                "the model's output is float32 1×{}; gemba needs float32 1×{n}: one value \
                 for each of its {n} gemba.labels",
                n + 1
            ),
        ),
    ] {
        let bytes = fixture(tmp.path(), kind, labels, w, h, &[]);
        let version = format!("{kind}-1");
        let dep = deploy(&c, &version, &bytes).await;
        assert_eq!(dep.status, DeploymentStatus::Failed, "{dep:?}");
        assert!(dep.message.contains(&says), "{kind}: {}", dep.message);
        // Nothing changed: the agent runs on, cam0 on its model, and a restart would
        // not load the refused one.
        assert!(
            agent.0.try_wait().unwrap().is_none(),
            "the agent is running"
        );
        let deployed =
            std::fs::read_to_string(data.path().join("models/deployed.json")).unwrap_or_default();
        assert!(!deployed.contains(&version), "{deployed}");
    }
    // Two heartbeats on, cam0 still runs the default model.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (version, fps) = cam0(&c).await.unwrap();
    assert_eq!(version, "demo-1");
    assert!(fps > 0.0, "cam0 runs at {fps} fps");
    assert!(
        agent.0.try_wait().unwrap().is_none(),
        "the agent is running"
    );

    // A model that fits is installed and runs.
    let bytes = fixture(tmp.path(), "fits", labels, w, h, &[]);
    let dep = deploy(&c, "fits-1", &bytes).await;
    assert_eq!(dep.status, DeploymentStatus::Installed, "{dep:?}");
    assert!(dep.message.contains("running on cam0"), "{}", dep.message);
    wait_for("cam0 running the new model", 30, async || {
        cam0(&c).await.is_some_and(|(v, _)| v == "fits-1")
    })
    .await;

    // A model made elsewhere, as the cloud stores it once the upload declared what it
    // takes (`gemba_cloud::onnx::with_declared`): installed, and the camera runs it.
    let bare = fixture(tmp.path(), "fits-nchw", labels, w, h, &["--bare", "--bgr"]);
    let names = serde_json::to_string(labels).unwrap();
    let declared = [
        ("labels", names.as_str()),
        ("version", "torch-1"),
        ("input_layout", "NCHW"),
        ("input_type", "float32"),
        ("input_scale", "1/255"),
        ("input_mean", "0.485,0.456,0.406"),
        ("input_std", "0.229,0.224,0.225"),
        ("input_format", "BGR"),
    ];
    let stored = gemba_cloud::onnx::with_declared(&bare, &declared, (w, h)).unwrap();
    let dep = deploy(&c, "torch-1", &stored).await;
    assert_eq!(dep.status, DeploymentStatus::Installed, "{dep:?}");
    wait_for("cam0 running the model made elsewhere", 30, async || {
        cam0(&c)
            .await
            .is_some_and(|(v, fps)| v == "torch-1" && fps > 0.0)
    })
    .await;
    interrupt(agent);
}
