//! Operations from documents (`POST organization/task/extract_task_from_doc/`, issue 31
//! item 4): a .docx made by python-docx and a .pdf made by reportlab
//! (`cloud/tests/sop_documents.py`) become the steps they list; the draft saves as a
//! task; bad files, roles and organisations without the subscription are refused and
//! nothing is stored. On both backends.

use gemba_shared::api::v1::task::{Task, TaskCreate, TaskFromDocument};
use reqwest::StatusCode;
use serde_json::Value;

use crate::both;
use crate::common::*;

const PATH: &str = "organization/task/extract_task_from_doc/";

/// The two documents, made afresh by the script.
pub(crate) fn documents() -> (Vec<u8>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(test_python(
        "the SOP tests need a Python with python-docx and reportlab",
    ))
    .arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/sop_documents.py"
    ))
    .arg(dir.path())
    .output()
    .expect("the test Python (scripts/test sets up target/venv with python-docx and reportlab)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        std::fs::read(dir.path().join("pump.docx")).unwrap(),
        std::fs::read(dir.path().join("packing.pdf")).unwrap(),
    )
}

async fn send(app: &TestApp, token: &str, name: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    let r = app
        .client
        .post(format!("{}/{PATH}", app.base))
        .query(&[("name", name)])
        .bearer_auth(token)
        .header("content-type", "application/octet-stream")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn steps(d: &TaskFromDocument) -> Vec<(String, Vec<String>)> {
    d.processes
        .iter()
        .flat_map(|p| p.steps.iter().map(|s| (s.name.clone(), s.substeps.clone())))
        .collect()
}

fn s(name: &str, subs: &[&str]) -> (String, Vec<String>) {
    (name.into(), subs.iter().map(|x| (*x).into()).collect())
}

both!(documents_become_their_steps, |app: TestApp| async move {
    let admin = app.admin_token().await;
    let org = app.create_org(&admin, "Plant A").await;
    app.subscribe(&admin, org, "Define Operation").await;
    let eng = app.signed_in("eng@a.test", "org_user", org).await;
    let (docx, pdf) = documents();

    let (st, v) = send(&app, &eng, "pump.docx", docx).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let d: TaskFromDocument = serde_json::from_value(v).unwrap();
    assert_eq!(
        (d.task_name.as_str(), d.source.as_str()),
        ("Water pump assembly", "docx")
    );
    let names: Vec<&str> = d.processes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Preparation", "Assembly"]);
    assert_eq!(
        steps(&d),
        vec![
            s(
                "Clean the bench",
                &["Wipe the mat with alcohol", "Remove loose parts"]
            ),
            s("Collect the parts", &["Pick the housing from tray A"]),
            s(
                "Fit the housing",
                &["Place the housing on the base", "Align the four pins"]
            ),
            s("Tighten the screws", &["Torque each screw to 5 Nm"]),
        ]
    );
    assert!(d.notes.is_empty(), "{:?}", d.notes);

    let (st, v) = send(&app, &eng, "packing.pdf", pdf).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let p: TaskFromDocument = serde_json::from_value(v).unwrap();
    assert_eq!(
        (p.task_name.as_str(), p.source.as_str()),
        ("Packing station SOP", "pdf")
    );
    assert_eq!(
        steps(&p),
        vec![
            s(
                "Inspect the unit",
                &[
                    "Look for scratches on the cover",
                    // Wrapped onto two lines in the PDF's narrow column: read as one.
                    "Check that the label is straight and can be read from one metre away",
                ]
            ),
            s(
                "Pack the unit",
                &["Fold the box", "Insert the unit with its foam"]
            ),
            s("Seal the box", &["Tape along the seam"]),
        ]
    );

    // Nothing was stored; the draft's text saves as a task, which reads back the same.
    let (_, list) = app.get("organization/task/", &eng).await;
    assert_eq!(list, serde_json::json!([]));
    let task: Task = app
        .create_as(
            "organization/task/",
            &TaskCreate {
                task_detail: Some(d.task_detail.clone()),
                ..TaskCreate::default()
            },
            &eng,
        )
        .await;
    assert_eq!(task.settings.task_name, "Water pump assembly");
    assert_eq!(task.settings.task_detail, d.task_detail);
});

both!(
    bad_files_and_callers_are_refused,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Plant A").await;
        let bare = app.create_org(&admin, "Plant B").await;
        app.subscribe(&admin, org, "Define Operation").await;
        let eng = app.signed_in("eng@a.test", "org_user", org).await;
        let analyst = app.signed_in("an@a.test", "analytics_user", org).await;
        let eng_bare = app.signed_in("eng@b.test", "org_user", bare).await;
        let (docx, _) = documents();

        let field = |v: &Value| v["file"][0].as_str().unwrap_or_default().to_owned();
        let (st, v) = send(&app, &eng, "x.bin", vec![0, 159, 146, 150, 7, 0]).await;
        assert_eq!(
            (st, field(&v)),
            (
                StatusCode::BAD_REQUEST,
                "The file is not a .docx, .pdf or .txt document.".into()
            )
        );
        let (st, v) = send(&app, &eng, "x.txt", Vec::new()).await;
        assert_eq!(
            (st, field(&v)),
            (StatusCode::BAD_REQUEST, "The file is empty.".into())
        );
        let (st, v) = send(&app, &eng, "x.txt", b"Only a title\n".to_vec()).await;
        assert_eq!(
            (st, field(&v)),
            (
                StatusCode::BAD_REQUEST,
                "No steps were found in the document.".into()
            )
        );
        // A .docx cut short, and a PDF that is only its header.
        let (st, v) = send(&app, &eng, "cut.docx", docx[..docx.len() / 2].to_vec()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
        assert!(field(&v).contains("damaged"), "{v}");
        let (st, v) = send(&app, &eng, "x.pdf", b"%PDF-1.7\n%%EOF".to_vec()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
        assert!(field(&v).contains("PDF"), "{v}");
        let (st, _) = send(&app, &eng, "big.txt", vec![b'a'; 10 * 1024 * 1024 + 1]).await;
        assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE);
        let (st, v) = send(&app, &eng, &"n".repeat(256), docx.clone()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");

        // Who may: those who define operations, in an organisation subscribed to it.
        let (st, _) = send(&app, &analyst, "pump.docx", docx.clone()).await;
        assert_eq!(st, StatusCode::FORBIDDEN);
        let (st, _) = send(&app, &eng_bare, "pump.docx", docx.clone()).await;
        assert_eq!(st, StatusCode::FORBIDDEN);
        let (st, _) = send(&app, "not-a-token", "pump.docx", docx).await;
        assert_eq!(st, StatusCode::UNAUTHORIZED);
        let (_, list) = app.get("organization/task/", &eng).await;
        assert_eq!(list, serde_json::json!([]));
    }
);
