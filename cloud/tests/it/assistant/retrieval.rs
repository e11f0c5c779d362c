//! Retrieval over the organisation's documents.

use gemba_shared::api::v1::assistant::AssistantDocument;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{DOCS, ask};
use crate::both;
use crate::common::*;
use crate::devices::world;
use crate::videos::b_task;

async fn upload(app: &TestApp, tok: &str, name: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    let r = app
        .client
        .post(format!("{}/{DOCS}", app.base))
        .query(&[("name", name)])
        .bearer_auth(tok)
        .header("content-type", "application/octet-stream")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = r.status();
    (status, r.json().await.unwrap_or(Value::Null))
}

const TORQUE: &str = "Fastening standard\n\nTorque\nTighten the four M6 housing screws crosswise to \
    12 Nm with the blue torque wrench. A screw that turns past 12 Nm is replaced, never re-used.\n\n\
    Storage\nKeep the wrench in the shadow board after each shift.\n";
const PAINT: &str = "Painting line manual\n\nCuring\nThe oven cures the coat at 180 degrees for 20 \
    minutes. Open the door only after the fan stops.\n";

both!(
    retrieval_finds_the_right_passage,
    |app: TestApp| async move {
        let w = world(&app).await;
        let (docx, _) = crate::sop::documents();
        for (name, bytes) in [
            ("fastening.txt", TORQUE.as_bytes().to_vec()),
            ("painting.txt", PAINT.as_bytes().to_vec()),
            ("pump.docx", docx),
        ] {
            let (s, v) = upload(&app, &w.eng, name, bytes).await;
            assert_eq!(s, StatusCode::CREATED, "{name}: {v}");
        }
        // Organisation B's own torque rule: never A's answer.
        let (eng_b, _) = b_task(&app, &w).await;
        let (s, v) = upload(
            &app,
            &eng_b,
            "b.txt",
            b"Torque the M6 screws to 99 Nm.\n".to_vec(),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let docs: Vec<AssistantDocument> = app.get_as(DOCS, &w.analyst).await;
        assert_eq!(docs.len(), 3);
        let pump = docs.iter().find(|d| d.name == "pump.docx").unwrap();
        assert_eq!(pump.source, "docx");

        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "What torque for the M6 screws?"}),
        )
        .await;
        let p: Vec<_> = a
            .messages
            .iter()
            .filter_map(|m| m.passage.as_ref())
            .collect();
        assert_eq!(p[0].document_name, "fastening.txt", "{p:?}");
        assert!(p[0].text.contains("12 Nm"), "{p:?}");
        assert!(p.iter().all(|x| !x.text.contains("99 Nm")), "{p:?}");
        // The summary is the sentences that answer.
        let summary = p[0].summary.as_deref().unwrap();
        assert!(
            summary.contains(
                "Tighten the four M6 housing screws crosswise to 12 Nm with the blue torque wrench."
            ),
            "{summary}"
        );
        assert!(!summary.contains("shadow board"), "{summary}");
        // The .docx's text is searched as well.
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "alcohol for the mat",
        "use_query_contextual_summaries": false}),
        )
        .await;
        let p: Vec<_> = a
            .messages
            .iter()
            .filter_map(|m| m.passage.as_ref())
            .collect();
        assert_eq!(p[0].document, pump.id, "{p:?}");
        assert!(p[0].summary.is_none());
        // Nothing matching: said so.
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "welding"}),
        )
        .await;
        assert!(
            a.messages.iter().any(|m| m.kind == "note"
                && m.caption == "No passage of the organisation's documents matches the question."),
            "{:?}",
            a.messages
        );

        // Bad files and names, nothing stored; the analytics user cannot add; deleted, gone
        // from the answers; B cannot delete A's.
        for (name, bytes, field) in [
            ("", b"text".to_vec(), "name"),
            ("x.bin", vec![0, 159, 146, 150, 0], "file"),
            ("x.txt", vec![], "file"),
        ] {
            let (s, v) = upload(&app, &w.eng, name, bytes).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{name}: {v}");
            assert!(v[field][0].is_string(), "{v}");
        }
        let (s, _) = upload(&app, &w.analyst, "x.txt", b"text".to_vec()).await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let fastening = docs.iter().find(|d| d.name == "fastening.txt").unwrap().id;
        let (s, _) = app.delete(&format!("{DOCS}{fastening}/"), &eng_b).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app.delete(&format!("{DOCS}{fastening}/"), &w.eng).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        let a = ask(
            &app,
            &w.analyst,
            json!({"mode": "rag", "message": "M6 torque"}),
        )
        .await;
        assert!(
            a.messages
                .iter()
                .filter_map(|m| m.passage.as_ref())
                .all(|p| p.document != fastening)
        );
        let docs: Vec<AssistantDocument> = app.get_as(DOCS, &w.analyst).await;
        assert_eq!(docs.len(), 2);
    }
);
