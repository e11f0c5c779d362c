//! Model types and model files (issue 6, "Model management"), on both backends: the
//! platform's catalogue (the super admin changes it, everyone reads it), model files
//! checked as ONNX models made by the real export code (`models/train.py`), a model file
//! registered as a task's model version, and training following the task's model type.

use futures_util::StreamExt;
use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::device::DeviceDetails;
use gemba_shared::api::v1::task::{ModelChoice, Task, TaskPatch};
use gemba_shared::api::v1::training::{
    DeployRequest, Deployment, ModelFile, ModelFilesPatch, ModelType, ModelTypeCreate,
    ModelTypePatch, ModelVersion, ModelVersionCreate,
};
use object_store::ObjectStoreExt;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::both;
use crate::common::*;
use crate::devices::World;
use crate::learning_loop::until;
use crate::videos::subscribed_world;
use gemba_cloud::http::model_types::MADE_ELSEWHERE;

/// An ONNX step model as `models/train.py` exports one (random weights), with these
/// labels, version and input size.
fn onnx_model(app: &TestApp, labels: &[&str], version: &str, width: u32, height: u32) -> Vec<u8> {
    fixture(app, "fits", labels, version, width, height)
}

/// A model of `models/fixtures.py`: `fits` (as `train.py` exports one), or one the agent
/// cannot run (`float-nchw`, `detector`), with the agent's metadata.
pub(crate) fn fixture(
    app: &TestApp,
    kind: &str,
    labels: &[&str],
    version: &str,
    width: u32,
    height: u32,
) -> Vec<u8> {
    fixture_with(app, kind, labels, version, width, height, &[])
}

/// [`fixture`] with further arguments (`--bare`: no gemba metadata, `--bgr`).
pub(crate) fn fixture_with(
    app: &TestApp,
    kind: &str,
    labels: &[&str],
    version: &str,
    width: u32,
    height: u32,
    args: &[&str],
) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("model.onnx");
    let models = app.state.settings.trainer_script.parent().unwrap();
    let st = std::process::Command::new(&app.state.settings.models_python)
        .arg(models.join("fixtures.py"))
        .arg(kind)
        .args(["--labels", &serde_json::to_string(labels).unwrap()])
        .args(["--version", version])
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
        .unwrap();
    assert!(st.success(), "making a {kind} model");
    std::fs::read(out).unwrap()
}

/// Uploads `bytes` as a model file of `model_type` named `name`, as `tok`.
async fn upload_file(
    app: &TestApp,
    tok: &str,
    model_type: i64,
    name: &str,
    bytes: Vec<u8>,
) -> (StatusCode, Value) {
    let r = app
        .client
        .post(format!(
            "{}/organization/model_files?model_type={model_type}&name={name}",
            app.base
        ))
        .bearer_auth(tok)
        .header("content-type", "application/octet-stream")
        // A refusal answered before the body is read ends the connection; kept in the
        // pool it failed the next call once (IncompleteMessage) in a loaded full run.
        .header("connection", "close")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

async fn types(app: &TestApp, tok: &str) -> Vec<ModelType> {
    app.get_as("organization/model_types", tok).await
}

async fn model_type(app: &TestApp, tok: &str, id: i64) -> ModelType {
    app.get_as(&format!("organization/model_types/{id}"), tok)
        .await
}

/// The number of model files of every type.
async fn file_count(app: &TestApp, tok: &str) -> usize {
    types(app, tok)
        .await
        .iter()
        .map(|t| t.model_files.len())
        .sum()
}

/// A model type of this recipe, without a description.
fn recipe(name: &str, w: u32, h: u32, hidden: u32) -> ModelTypeCreate {
    ModelTypeCreate {
        name: name.into(),
        description: String::new(),
        input_width: w,
        input_height: h,
        hidden,
    }
}

async fn new_type(app: &TestApp, admin: &str, name: &str, w: u32, h: u32, hidden: u32) -> i64 {
    let t: ModelType = app
        .create_as(
            "organization/model_types",
            &recipe(name, w, h, hidden),
            admin,
        )
        .await;
    t.id
}

/// The model file an upload kept (`upload_file`'s or `upload_declared`'s answer).
fn created_file((s, v): (StatusCode, Value)) -> ModelFile {
    assert_eq!(s, StatusCode::CREATED, "{v}");
    serde_json::from_value(v).unwrap()
}

/// Registers `model_file` as a model version of `task`.
fn register(task: i64, model_file: i64) -> ModelVersionCreate {
    ModelVersionCreate { task, model_file }
}

/// A task's change of model type.
fn choose(model_choice: String) -> TaskPatch {
    TaskPatch {
        model_choice: Some(model_choice),
        ..TaskPatch::default()
    }
}

fn message(v: &Value, field: &str) -> String {
    v[field][0].as_str().unwrap_or_default().to_string()
}

both!(
    model_types_are_the_platforms_and_only_the_super_admin_changes_them,
    |app: TestApp| async move {
        let w: World = subscribed_world(&app).await;
        // Every role of the user area reads the catalogue: the default type is there.
        let list = types(&app, &w.analyst).await;
        let default = &list[0];
        assert_eq!(default.name, "Step classifier 64×48", "{list:?}");
        assert_eq!(
            (default.input_width, default.input_height, default.hidden),
            (64, 48, 48)
        );
        assert!(default.model_files.is_empty(), "{default:?}");
        let default_id = default.id;
        // A task's model choices are the types.
        let choices: Vec<ModelChoice> = app.get_as("organization/task/model_choices", &w.eng).await;
        assert_eq!(
            choices[0],
            ModelChoice {
                value: default_id.to_string(),
                label: "Step classifier 64×48".into()
            }
        );

        // The super admin adds one; bad values are refused and add nothing.
        let wide = new_type(&app, &w.admin, "Wide 96×72", 96, 72, 32).await;
        let t = model_type(&app, &w.eng, wide).await;
        assert_eq!(t.name, "Wide 96×72");
        assert_eq!(t.description, "");
        let good = recipe("Narrow", 32, 24, 8);
        let named = |name: &str| ModelTypeCreate {
            name: name.into(),
            ..good.clone()
        };
        for (body, field, says) in [
            (named(""), "name", "The name is required!"),
            (named("  "), "name", "The name is required!"),
            (named("a\nb"), "name", "control characters"),
            (
                named("Wide 96×72"),
                "name",
                "A model type with this name already exists.",
            ),
            (
                ModelTypeCreate {
                    input_width: 15,
                    ..good.clone()
                },
                "input_width",
                "between 16 and 640 pixels",
            ),
            (
                ModelTypeCreate {
                    input_height: 641,
                    ..good.clone()
                },
                "input_height",
                "between 16 and 640 pixels",
            ),
            (
                ModelTypeCreate {
                    hidden: 3,
                    ..good.clone()
                },
                "hidden",
                "between 4 and 1024 units",
            ),
            (
                ModelTypeCreate {
                    hidden: 1025,
                    ..good.clone()
                },
                "hidden",
                "between 4 and 1024 units",
            ),
            (
                ModelTypeCreate {
                    description: "d".repeat(1001),
                    ..good.clone()
                },
                "description",
                "at most 1000",
            ),
        ] {
            let (s, v) = app
                .send_refused(Method::POST, "organization/model_types", &body, &w.admin)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert!(message(&v, field).contains(says), "{body:?}: {v}");
        }
        for bad in [
            json!({"name": "Narrow", "input_width": -1, "input_height": 24, "hidden": 8}),
            json!({"name": "Narrow", "input_width": 32, "input_height": 24}),
            json!({"name": "Narrow", "input_width": 32, "input_height": 24, "hidden": 8, "x": 1}),
        ] {
            let (s, v) = app
                .post("organization/model_types", bad.clone(), Some(&w.admin))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {v}");
        }
        assert_eq!(types(&app, &w.eng).await.len(), 2);

        // Nobody else changes it: an organisation's admin neither.
        let rename = |name: &str| ModelTypePatch {
            name: Some(name.into()),
            ..ModelTypePatch::default()
        };
        for tok in [&w.boss, &w.eng, &w.analyst, &w.boss_b] {
            let (s, _) = app
                .send_refused(Method::POST, "organization/model_types", &good, tok)
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
            let (s, _) = app
                .send_refused(
                    Method::PATCH,
                    &format!("organization/model_type/{wide}"),
                    &rename("Mine"),
                    tok,
                )
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN);
        }

        // Renamed, described, and (nothing made to it yet) a new recipe.
        let change = ModelTypePatch {
            name: Some("Wide 80×60".into()),
            description: Some("More detail".into()),
            input_width: Some(80),
            input_height: Some(60),
            hidden: None,
        };
        let t: ModelType = app
            .send_as(
                Method::PATCH,
                &format!("organization/model_type/{wide}"),
                &change,
                &w.admin,
            )
            .await;
        assert_eq!(
            (&*t.name, &*t.description, t.input_width, t.hidden),
            ("Wide 80×60", "More detail", 80, 32)
        );
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/model_type/{wide}"),
                &rename("Step classifier 64×48"),
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let no_units = ModelTypePatch {
            hidden: Some(0),
            ..ModelTypePatch::default()
        };
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/model_type/{wide}"),
                &no_units,
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let t = model_type(&app, &w.eng, wide).await;
        assert_eq!((&*t.name, t.hidden), ("Wide 80×60", 32));
        for path in [
            "organization/model_types/999999",
            "organization/model_types/x",
        ] {
            assert_eq!(app.get(path, &w.eng).await.0, StatusCode::NOT_FOUND);
        }
        let (s, _) = app
            .send_refused(
                Method::PATCH,
                "organization/model_type/999999",
                &rename("Ghost"),
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // A task chooses a type by its id; anything else is refused.
        let task = format!("organization/task/{}/", w.task);
        for bad in ["step_classifier", "999999", "1.5"] {
            let (s, v) = app
                .send_refused(Method::PATCH, &task, &choose(bad.into()), &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {v}");
            assert_eq!(
                message(&v, "model_choice"),
                "Choose one of the model types."
            );
        }
        let t: Task = app
            .send_as(Method::PATCH, &task, &choose(wide.to_string()), &w.eng)
            .await;
        assert_eq!(t.settings.model_choice, Some(wide.to_string()));
    }
);

both!(
    a_model_file_is_checked_kept_and_registered_as_a_task_version,
    |app: TestApp| async move {
        let w: World = subscribed_world(&app).await;
        let default = types(&app, &w.eng).await[0].id;
        let wide = new_type(&app, &w.admin, "Wide 96×72", 96, 72, 32).await;
        let twin = new_type(&app, &w.admin, "Twin 64×48", 64, 48, 16).await;
        let good = onnx_model(&app, &["Fit", "Check", "background"], "pump-ext-1", 64, 48);
        // Refused: not a model, the wrong frame size, an unknown type, a bad name, too
        // big, and anyone but the super admin. Nothing is kept.
        let big = vec![0u8; gemba_shared::api::v1::training::MAX_MODEL_FILE_BYTES + 1];
        let not_onnx = crate::videos::clip(tempfile::tempdir().unwrap().path(), 1);
        for (tok, ty, name, bytes, status, field, says) in [
            (
                &w.admin,
                default,
                "a.onnx",
                not_onnx,
                400,
                "file",
                "This file is not an ONNX model.",
            ),
            (
                &w.admin,
                default,
                "a.onnx",
                b"{}".to_vec(),
                400,
                "file",
                "not an ONNX model",
            ),
            (
                &w.admin,
                default,
                "a.onnx",
                vec![],
                400,
                "file",
                "not an ONNX model",
            ),
            (
                &w.admin,
                wide,
                "a.onnx",
                good.clone(),
                400,
                "file",
                "The model takes 64×48 frames; the type Wide 96×72 takes 96×72.",
            ),
            (
                &w.admin,
                999999,
                "a.onnx",
                good.clone(),
                400,
                "model_type",
                "Choose one of the model types.",
            ),
            (
                &w.admin,
                default,
                "a%2Fb.onnx",
                good.clone(),
                400,
                "name",
                "cannot contain a slash",
            ),
            (&w.admin, default, "a.onnx", big, 413, "", ""),
            // Refused before the body is read: a small one, so the refusal is not a
            // broken pipe for the client.
            (&w.boss, default, "a.onnx", good[..64].to_vec(), 403, "", ""),
            (&w.eng, default, "a.onnx", good[..64].to_vec(), 403, "", ""),
        ] {
            let (s, v) = upload_file(&app, tok, ty, name, bytes).await;
            assert_eq!(s.as_u16(), status, "{name} to {ty}: {v}");
            if !field.is_empty() {
                assert!(message(&v, field).contains(says), "{v}");
            }
        }
        assert_eq!(file_count(&app, &w.admin).await, 0);
        let model_without_labels = {
            let m = onnx_model(&app, &["Fit", "background"], "x", 64, 48);
            // The same model with its metadata key renamed: the agent could not read it.
            let at = m.windows(12).position(|s| s == b"gemba.labels").unwrap();
            let mut m = m;
            m[at..at + 12].copy_from_slice(b"gemba.labelz");
            m
        };
        let (s, v) = upload_file(&app, &w.admin, default, "a.onnx", model_without_labels).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(message(&v, "file").contains("has no gemba.labels"), "{v}");

        // Kept: what its metadata says, and its bytes.
        let f = created_file(upload_file(&app, &w.admin, default, "pump.onnx", good.clone()).await);
        assert_eq!(f.name, "pump.onnx");
        assert_eq!(f.model_type, default);
        assert_eq!(f.version, "pump-ext-1");
        assert_eq!(f.labels, ["Fit", "Check", "background"]);
        assert_eq!(f.size_bytes, i64::try_from(good.len()).unwrap());
        let sha = gemba_shared::hex(&Sha256::digest(&good));
        assert_eq!(f.sha256, sha);
        let file = f.id;
        // The same bytes again in the same type are refused.
        let (s, v) = upload_file(&app, &w.admin, default, "again.onnx", good.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "file"),
            "This model is already a file of Step classifier 64×48: pump.onnx."
        );
        assert_eq!(file_count(&app, &w.admin).await, 1);
        let t = model_type(&app, &w.eng, default).await;
        assert_eq!(t.model_files[0].id, file);
        // Its recipe is fixed now.
        let wider = ModelTypePatch {
            hidden: Some(64),
            ..ModelTypePatch::default()
        };
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/model_type/{default}"),
                &wider,
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            message(&v, "non_field_errors").contains("make a new type"),
            "{v}"
        );

        // A file whose labels are not the task's steps is refused for it.
        let other = onnx_model(&app, &["Pick", "Place", "background"], "other-1", 64, 48);
        let o = created_file(upload_file(&app, &w.admin, default, "other.onnx", other).await);
        let (s, v) = app
            .send_refused(
                Method::POST,
                "organization/model_version",
                &register(w.task, o.id),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "model_file"),
            "The model's labels (Pick, Place, background) are not this task's steps then \
             background (Fit, Check, background)."
        );
        // Another organisation's task, an unknown file, a role that may not: refused.
        for (tok, body, status, field) in [
            (&w.boss_b, register(w.task, file), 400, "task"),
            (&w.eng, register(w.task, 999999), 400, "model_file"),
            (&w.eng, register(999999, file), 400, "task"),
            (&w.analyst, register(w.task, file), 403, ""),
        ] {
            let (s, v) = app
                .send_refused(Method::POST, "organization/model_version", &body, tok)
                .await;
            assert_eq!(s.as_u16(), status, "{body:?}: {v}");
            if !field.is_empty() {
                assert!(v.get(field).is_some(), "{v}");
            }
        }
        let versions: Vec<ModelVersion> = app.get_as("organization/model_version", &w.eng).await;
        assert!(versions.is_empty(), "{versions:?}");

        // Registered: a model version of the task, of the file's type, with its own
        // copy of the bundle.
        let m: ModelVersion = app
            .create_as(
                "organization/model_version",
                &register(w.task, file),
                &w.eng,
            )
            .await;
        assert_eq!(m.version, "pump-ext-1");
        assert_eq!(m.task, Some(w.task));
        assert_eq!(m.model_type, Some(default));
        assert_eq!(m.metrics, None);
        assert_eq!(m.training_run, None);
        assert_eq!(m.sha256, sha);
        let copy =
            object_store::path::Path::from(format!("org/{}/models/sha-{sha}/model.onnx", w.a));
        let bytes = app
            .state
            .objects
            .get(&copy)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(&bytes[..], &good[..]);
        // Once: the version name is taken.
        let (s, v) = app
            .send_refused(
                Method::POST,
                "organization/model_version",
                &register(w.task, file),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "model_file"),
            "This organisation already has a model version named pump-ext-1."
        );
        let versions: Vec<ModelVersion> = app.get_as("organization/model_version", &w.eng).await;
        assert_eq!(versions.len(), 1);
        // Another organisation does not see it.
        let theirs: Vec<ModelVersion> = app.get_as("organization/model_version", &w.boss_b).await;
        assert!(theirs.is_empty(), "{theirs:?}");

        // Moving files: only to a type of the same frame size, all or none.
        let ids = format!("{file},{}", o.id);
        let to = |model_type: i64| ModelFilesPatch { model_type };
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/model_files?ids={ids}"),
                &to(wide),
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            message(&v, "model_type").contains("takes 64×48 frames"),
            "{v}"
        );
        for (q, body) in [
            ("ids=x", to(twin)),
            ("ids=", to(twin)),
            (&format!("ids={file},999999") as &str, to(twin)),
            (&format!("ids={file}") as &str, to(999999)),
        ] {
            let (s, v) = app
                .send_refused(
                    Method::PATCH,
                    &format!("organization/model_files?{q}"),
                    &body,
                    &w.admin,
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{q}: {v}");
        }
        let (s, _) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/model_files?ids={file}"),
                &to(twin),
                &w.boss,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let t = model_type(&app, &w.eng, default).await;
        assert_eq!(t.model_files.len(), 2, "{t:?}");
        // Not into a type that holds the same bytes.
        let twin_copy =
            created_file(upload_file(&app, &w.admin, twin, "copy.onnx", good.clone()).await);
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/model_files?ids={ids}"),
                &to(twin),
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "model_type"),
            "Twin 64×48 already has a file of the same bytes; nothing was moved."
        );
        let (s, _) = app
            .delete(
                &format!("organization/model_files?ids={}", twin_copy.id),
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        let moved: Vec<ModelFile> = app
            .send_as(
                Method::PATCH,
                &format!("organization/model_files?ids={ids}"),
                &to(twin),
                &w.admin,
            )
            .await;
        assert!(moved.iter().all(|f| f.model_type == twin), "{moved:?}");

        // Deleting: all or none; the registered version keeps its copy.
        for q in [format!("ids={file},999999"), "ids=".into()] {
            let (s, v) = app
                .call(
                    Method::DELETE,
                    &format!("organization/model_files?{q}"),
                    None,
                    Some(&w.admin),
                )
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{q}: {v}");
        }
        let (s, _) = app
            .delete(&format!("organization/model_files?ids={file}"), &w.boss)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(file_count(&app, &w.admin).await, 2);
        let (s, v) = app
            .delete(&format!("organization/model_files?ids={ids}"), &w.admin)
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let v: Msg = serde_json::from_value(v).unwrap();
        assert_eq!(v.msg, "2 model files deleted.");
        assert_eq!(file_count(&app, &w.admin).await, 0);
        let kept = object_store::path::Path::from(format!("platform/model_files/{sha}.onnx"));
        assert!(
            app.state.objects.head(&kept).await.is_err(),
            "the file's object went"
        );
        assert!(
            app.state.objects.head(&copy).await.is_ok(),
            "the version's copy stays"
        );
    }
);

both!(
    training_follows_the_tasks_model_type,
    |app: TestApp| async move {
        let w: World = subscribed_world(&app).await;
        crate::training::labelled_video(&app, &w, 3).await;
        let small = new_type(&app, &w.admin, "Small 32×24", 32, 24, 12).await;
        let _: Task = app
            .send_as(
                Method::PATCH,
                &format!("organization/task/{}/", w.task),
                &choose(small.to_string()),
                &w.eng,
            )
            .await;
        let t = crate::training::trained(&app, &w, 1).await;
        let m = t.model_version.as_ref().unwrap();
        assert_eq!(m.model_type, Some(small), "{t:?}");
        // The bundle is made to the recipe: the agent will feed it 32×24 frames.
        let key =
            object_store::path::Path::from(format!("org/{}/models/{}/model.onnx", w.a, m.version));
        let bytes = app
            .state
            .objects
            .get(&key)
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let b = gemba_cloud::onnx::read(&bytes).unwrap();
        assert_eq!((b.input_width, b.input_height), (32, 24));
        assert_eq!(b.labels, ["Fit", "Check", "background"]);
        // The recipe of a type that made a model version is fixed.
        let narrower = ModelTypePatch {
            input_width: Some(48),
            ..ModelTypePatch::default()
        };
        let (s, v) = app
            .send_refused(
                Method::PATCH,
                &format!("organization/model_type/{small}"),
                &narrower,
                &w.admin,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    }
);

/// What the cloud says of a float NCHW classifier and of a detector made to 64×48 with
/// three labels (issue 25, item 5): the agent could never run them.
pub(crate) const FLOAT_NCHW_REFUSED: &str = "The model's input is float32 1×3×48×64 (NCHW); \
    gemba needs uint8 1×48×64×3 (RGB, NHWC) matching its gemba.input_height and \
    gemba.input_width.";
pub(crate) const DETECTOR_REFUSED: &str = "The model's output is float32 1×boxes×6; gemba \
    needs float32 1×3: one value for each of its 3 gemba.labels.";

both!(
    a_model_the_agent_cannot_run_is_refused_at_upload_and_never_registered_or_deployed,
    |app: TestApp| async move {
        let w: World = subscribed_world(&app).await;
        let default = types(&app, &w.eng).await[0].id;
        let labels = ["Fit", "Check", "background"];
        let float_nchw = fixture(&app, "float-nchw", &labels, "nchw-1", 64, 48);
        let detector = fixture(&app, "detector", &labels, "boxes-1", 64, 48);

        // Refused at upload, saying what does not fit; nothing is kept.
        for (bytes, says) in [
            (
                float_nchw.clone(),
                format!("{FLOAT_NCHW_REFUSED} {MADE_ELSEWHERE}"),
            ),
            (detector.clone(), DETECTOR_REFUSED.into()),
        ] {
            let (s, v) = upload_file(&app, &w.admin, default, "m.onnx", bytes).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert_eq!(message(&v, "file"), says, "{v}");
        }
        assert_eq!(file_count(&app, &w.admin).await, 0);
        let kept: Vec<_> = app
            .state
            .objects
            .list(Some(&object_store::path::Path::from("platform")))
            .collect()
            .await;
        assert!(kept.is_empty(), "{kept:?}");
        // A model that fits still passes.
        let good = fixture(&app, "fits", &labels, "fits-1", 64, 48);
        created_file(upload_file(&app, &w.admin, default, "good.onnx", good).await);

        // A file kept before the check (written straight to the store) is not registered.
        let sha = gemba_shared::hex(&Sha256::digest(&detector));
        let object_key = format!("model_files/{sha}.onnx");
        app.state
            .objects
            .put(
                &gemba_cloud::http::model_types::file_key(&object_key),
                detector.clone().into(),
            )
            .await
            .unwrap();
        let old = gemba_cloud::db::model_types::insert_file(
            &app.state.db,
            &gemba_cloud::db::model_types::NewFile {
                model_type_id: default,
                name: "old.onnx",
                object_key: &object_key,
                version: "boxes-1",
                labels: &labels.map(String::from),
                sha256: &sha,
                size_bytes: detector.len() as i64,
            },
        )
        .await
        .unwrap();
        let (s, v) = app
            .send_refused(
                Method::POST,
                "organization/model_version",
                &register(w.task, old.id),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(message(&v, "model_file"), DETECTOR_REFUSED, "{v}");
        let versions: Vec<ModelVersion> = app.get_as("organization/model_version", &w.eng).await;
        assert!(versions.is_empty(), "{versions:?}");

        // A version registered before the check is not deployed: nothing is sent.
        let name = format!("models/sha-{sha}/model.onnx");
        app.state
            .objects
            .put(
                &gemba_cloud::objects::key(w.a, &name),
                detector.clone().into(),
            )
            .await
            .unwrap();
        let version = gemba_cloud::db::training::register(
            &app.state.db,
            w.a,
            w.task,
            &gemba_cloud::db::training::NewModel {
                model_type_id: Some(default),
                version: "boxes-1",
                object_key: &name,
                sha256: &sha,
                size_bytes: detector.len() as i64,
                metrics: None,
            },
        )
        .await
        .unwrap();
        app.subscribe(&w.admin, w.a, "Deploy Model").await;
        let creds = crate::devices::added_and_enrolled(&app, &w.boss, "Bench").await;
        let dev = crate::devices::TestDevice::connect(&creds).await;
        let bench = dev.id;
        let status = json!({"v": 1, "online": true, "ts_ms": 5, "cameras": []});
        dev.publish(
            dev.topic(gemba_shared::mqtt::v1::Channel::Status),
            gemba_shared::mqtt::v1::sign(&dev.key, &dev.kid, &status),
        )
        .await;
        until("the device online", 10, async || {
            app.get_as::<DeviceDetails>(&format!("device/{bench}/device_details/"), &w.eng)
                .await
                .device
                .online
        })
        .await;
        let (s, v) = app
            .send_refused(
                Method::POST,
                &format!("organization/model_version/{}/deploy/", version.id),
                &DeployRequest {
                    devices: vec![bench],
                },
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            v["non_field_errors"][0],
            format!("This model version cannot run on a device: {DETECTOR_REFUSED}"),
            "{v}"
        );
        let d: Vec<Deployment> = app.get_as("organization/deployments/", &w.eng).await;
        assert!(d.is_empty(), "{d:?}");
        let details: DeviceDetails = app
            .get_as(&format!("device/{bench}/device_details/"), &w.boss)
            .await;
        assert!(details.commands.is_empty(), "{details:?}");
    }
);

/// Uploads `bytes` as a model file of `model_type` named `name`, declaring `declared`
/// (query parameters), as `tok`.
async fn upload_declared(
    app: &TestApp,
    tok: &str,
    model_type: i64,
    name: &str,
    bytes: Vec<u8>,
    declared: &[(&str, &str)],
) -> (StatusCode, Value) {
    let id = model_type.to_string();
    let r = app
        .client
        .post(format!("{}/organization/model_files", app.base))
        .query(&[("model_type", id.as_str()), ("name", name)])
        .query(declared)
        .bearer_auth(tok)
        .header("content-type", "application/octet-stream")
        // A refusal answered before the body is read ends the connection; kept in the
        // pool it failed the next call once (IncompleteMessage) in a loaded full run.
        .header("connection", "close")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// What a PyTorch export of the default type's model would be declared with.
const TORCH: [(&str, &str); 8] = [
    ("labels", r#"["Fit","Check","background"]"#),
    ("version", "torch-1"),
    ("input_layout", "NCHW"),
    ("input_type", "float32"),
    ("input_scale", "1/255"),
    ("input_mean", "0.485,0.456,0.406"),
    ("input_std", "[0.229, 0.224, 0.225]"),
    ("input_format", "RGB"),
];

both!(
    a_model_made_elsewhere_is_registered_with_its_preprocessing_declared,
    |app: TestApp| async move {
        let w: World = subscribed_world(&app).await;
        let default = types(&app, &w.eng).await[0].id;
        let labels = ["Fit", "Check", "background"];
        // As PyTorch exports it: float32 NCHW, normalised, no gemba metadata at all.
        let bare = fixture_with(&app, "fits-nchw", &labels, "x", 64, 48, &["--bare"]);
        assert!(gemba_cloud::onnx::metadata(&bare).unwrap().is_empty());

        // Uploaded as it is, it is refused with how to declare it.
        let (s, v) = upload_file(&app, &w.admin, default, "torch.onnx", bare.clone()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let m = message(&v, "file");
        assert!(
            m.starts_with("The model's metadata has no gemba.input_width"),
            "{m}"
        );
        assert!(m.ends_with(MADE_ELSEWHERE), "{m}");
        // A declaration that cannot be: 400 on its parameter, nothing kept.
        let with = |field: &'static str, value: &'static str| {
            let mut d: Vec<(&str, &str)> =
                TORCH.iter().copied().filter(|(f, _)| *f != field).collect();
            d.push((field, value));
            d
        };
        for (field, value, says) in [
            ("input_layout", "CHW", "Ensure this value is NHWC or NCHW."),
            (
                "input_type",
                "float64",
                "Ensure this value is uint8 or float32.",
            ),
            (
                "input_scale",
                "0",
                "Ensure this value is a number greater than 0 (such as 1/255).",
            ),
            (
                "input_mean",
                "0.485,0.456",
                "Ensure this value is three numbers, one per channel.",
            ),
            (
                "input_std",
                "0.229,0,0.225",
                "Ensure this value is three numbers greater than 0, one per channel.",
            ),
            ("input_format", "YUV", "Ensure this value is RGB or BGR."),
            (
                "input_width",
                "641",
                "Ensure this value is between 16 and 640 pixels.",
            ),
            (
                "input_height",
                "8",
                "Ensure this value is between 16 and 640 pixels.",
            ),
            (
                "labels",
                r#"["Fit"]"#,
                "Give a JSON list of at least two names: the model's steps in order, then background.",
            ),
        ] {
            let (s, v) = upload_declared(
                &app,
                &w.admin,
                default,
                "torch.onnx",
                bare.clone(),
                &with(field, value),
            )
            .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{field}: {v}");
            assert_eq!(message(&v, field), says, "{field}: {v}");
        }
        // Normalising a uint8 input cannot be.
        let (s, v) = upload_declared(
            &app,
            &w.admin,
            default,
            "torch.onnx",
            bare.clone(),
            &with("input_type", "uint8"),
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert!(
            message(&v, "input_type")
                .starts_with("Ensure this value is float32 for a model that declares"),
            "{v}"
        );
        // Declared otherwise than the graph takes it: the graph's words.
        let (s, v) = upload_declared(
            &app,
            &w.admin,
            default,
            "torch.onnx",
            bare.clone(),
            &with("input_layout", "NHWC"),
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "file"),
            "The model's input is float32 1×3×48×64 (NCHW); gemba needs float32 1×48×64×3 \
             (RGB, NHWC) matching its gemba.input_height, gemba.input_width, \
             gemba.input_type and gemba.input_layout.",
            "{v}"
        );
        // Another frame size than its type's.
        let big = fixture_with(&app, "fits-nchw", &labels, "x", 96, 72, &["--bare"]);
        let (s, v) = upload_declared(&app, &w.admin, default, "big.onnx", big, &TORCH).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "file"),
            "The model's input is float32 1×3×72×96 (NCHW); gemba needs float32 1×3×48×64 \
             (RGB, NCHW) matching its gemba.input_height, gemba.input_width, \
             gemba.input_type and gemba.input_layout.",
            "{v}"
        );
        // Its class count.
        let wrong = fixture_with(&app, "wrong-classes", &labels, "x", 64, 48, &["--bare"]);
        let (s, v) = upload_declared(&app, &w.admin, default, "wrong.onnx", wrong, &TORCH).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "file"),
            "The model's output is float32 1×4; gemba needs float32 1×3: one value for each \
             of its 3 gemba.labels.",
            "{v}"
        );
        // Only the super admin uploads.
        let (s, _) =
            upload_declared(&app, &w.eng, default, "torch.onnx", bare.clone(), &TORCH).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        assert_eq!(file_count(&app, &w.admin).await, 0);
        let kept: Vec<_> = app
            .state
            .objects
            .list(Some(&object_store::path::Path::from("platform")))
            .collect()
            .await;
        assert!(kept.is_empty(), "{kept:?}");

        // Declared, it is registered: the stored file is the upload with the declared
        // metadata appended, its SHA-256 that of the stored bytes.
        let f = created_file(
            upload_declared(&app, &w.admin, default, "torch.onnx", bare.clone(), &TORCH).await,
        );
        assert_eq!(f.version, "torch-1");
        assert_eq!(f.labels, labels);
        let stored = app
            .state
            .objects
            .get(&gemba_cloud::http::model_types::file_key(&format!(
                "model_files/{}.onnx",
                f.sha256
            )))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(f.sha256, gemba_shared::hex(&Sha256::digest(&stored)));
        assert_eq!(f.size_bytes, i64::try_from(stored.len()).unwrap());
        assert_eq!(&stored[..bare.len()], &bare[..]);
        let b = gemba_cloud::onnx::read(&stored).unwrap();
        assert_eq!((b.input_width, b.input_height), (64, 48), "the type's size");
        let p = b.preprocessing;
        assert_eq!(
            (p.layout, p.elem, p.order),
            (
                gemba_shared::model_io::Layout::Nchw,
                gemba_shared::model_io::ElemType::FLOAT32,
                gemba_shared::model_io::Order::Rgb
            )
        );
        assert_eq!(
            (p.scale, p.mean, p.std),
            (1.0 / 255.0, [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        );
        // The same upload again is the same file.
        let (s, v) =
            upload_declared(&app, &w.admin, default, "again.onnx", bare.clone(), &TORCH).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "file"),
            "This model is already a file of Step classifier 64×48: torch.onnx."
        );
        // A file that says its own preprocessing keeps it: declaring another is refused.
        let declared = fixture_with(&app, "fits-nchw", &labels, "own-1", 64, 48, &["--bgr"]);
        let (s, v) = upload_declared(
            &app,
            &w.admin,
            default,
            "own.onnx",
            declared.clone(),
            &[("input_format", "RGB")],
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            message(&v, "input_format"),
            "The file already says gemba.input_format is BGR."
        );
        let f2 =
            created_file(upload_file(&app, &w.admin, default, "own.onnx", declared.clone()).await);
        assert_eq!(
            f2.sha256,
            gemba_shared::hex(&Sha256::digest(&declared)),
            "kept as it came"
        );

        // It registers as a task's model version like any file.
        let _: ModelVersion = app
            .create_as(
                "organization/model_version",
                &register(w.task, f.id),
                &w.eng,
            )
            .await;
    }
);
