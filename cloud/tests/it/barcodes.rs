//! Barcodes (spec section 7 "Barcodes"): values unique per organisation and checked,
//! nothing written on a refusal, only the super admin manages them; associations with a
//! task of the same organisation, one task per barcode, and every change that a camera
//! acts on sent to the organisation's devices in their configuration.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::barcode::{AssociatedBarcode, Barcode};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::both;
use crate::common::*;
use crate::device_config::{bench, next_config};

const CUSTOM: &str = "account/create_custom_barcode/";
const VALUE: &str = "account/update_barcode_value/";
const ASSOCIATE: &str = "account/associate_barcode/";

async fn custom(app: &TestApp, tok: &str, org: i64, value: &str) -> (StatusCode, Value) {
    app.put(
        CUSTOM,
        json!({"barcode_value": value, "organization": org}),
        tok,
    )
    .await
}

async fn list(app: &TestApp, tok: &str, org: i64) -> Vec<Barcode> {
    app.get_as(&format!("account/barcode/{org}"), tok).await
}

fn first(v: &Value, field: &str) -> String {
    v[field][0]
        .as_str()
        .unwrap_or_else(|| panic!("a message on {field}: {v}"))
        .to_string()
}

both!(
    barcodes_are_unique_per_organisation_checked_and_the_super_admins,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Barcode A").await;
        let b = app.create_org(&admin, "Barcode B").await;
        let boss = token(
            &app.user_in(&admin, "boss@bc.test", "org_admin", Some(a))
                .await,
        );

        let (s, v) = custom(&app, &admin, a, "  LOT-42 ").await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let lot: Barcode = serde_json::from_value(v).unwrap();
        assert_eq!(
            (lot.barcode_value.as_str(), lot.organization),
            ("LOT-42", a)
        );
        assert!(lot.tasks.is_empty());
        // The same value again in A is refused; in B it is B's own.
        let (s, v) = custom(&app, &admin, a, "LOT-42").await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(
            first(&v, "barcode_value"),
            "This organization already has a barcode with this value."
        );
        assert_eq!(
            custom(&app, &admin, b, "LOT-42").await.0,
            StatusCode::CREATED
        );
        // Blank, too long, a line break, an unknown organisation.
        for (value, says) in [
            ("   ", "A barcode value is required."),
            (
                &"x".repeat(101)[..],
                "Barcode value must be at most 100 characters.",
            ),
            (
                "LOT\n42",
                "A barcode value cannot contain control characters (line breaks, tabs).",
            ),
        ] {
            let (s, v) = custom(&app, &admin, a, value).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert_eq!(first(&v, "barcode_value"), says);
        }
        let (s, v) = custom(&app, &admin, 999_999_999, "LOT-1").await;
        assert_eq!(
            (s, first(&v, "organization").as_str()),
            (StatusCode::BAD_REQUEST, "Unknown organization.")
        );
        // A value made up by the server.
        let made: Barcode = app
            .create_as(&format!("account/barcode/{a}"), &json!({}), &admin)
            .await;
        assert!(
            made.barcode_value.starts_with("GB-") && made.barcode_value.len() == 11,
            "{}",
            made.barcode_value
        );
        assert_eq!(
            app.post("account/barcode/999999999", json!({}), Some(&admin))
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        let mine = list(&app, &admin, a).await;
        assert_eq!(
            mine.iter().map(|b| b.id).collect::<Vec<_>>(),
            [lot.id, made.id]
        );
        assert_eq!(list(&app, &admin, b).await.len(), 1);

        // A new value, not one A has.
        let (s, v) = app
            .patch(
                VALUE,
                json!({"id": lot.id, "barcode_value": made.barcode_value}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let renamed: Barcode = app
            .send_as(
                Method::PATCH,
                VALUE,
                &json!({"id": lot.id, "barcode_value": "LOT-43"}),
                &admin,
            )
            .await;
        assert_eq!(renamed.barcode_value, "LOT-43");
        let (s, _) = app
            .patch(
                VALUE,
                json!({"id": 999_999_999, "barcode_value": "LOT-44"}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);

        // An organisation admin may do none of it, and changes nothing.
        let before = list(&app, &admin, a).await;
        for (m, path, body) in [
            ("GET", format!("account/barcode/{a}"), None),
            ("POST", format!("account/barcode/{a}"), None),
            ("DELETE", format!("account/barcode/{}", lot.id), None),
            (
                "PUT",
                CUSTOM.into(),
                Some(json!({"barcode_value": "MINE", "organization": a})),
            ),
            (
                "PATCH",
                VALUE.into(),
                Some(json!({"id": lot.id, "barcode_value": "MINE"})),
            ),
        ] {
            let (s, v) = app
                .call(
                    Method::from_bytes(m.as_bytes()).unwrap(),
                    &path,
                    body,
                    Some(&boss),
                )
                .await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{m} {path}: {v}");
        }
        assert_eq!(list(&app, &admin, a).await, before);

        let m: Msg = answer(
            app.delete(&format!("account/barcode/{}", lot.id), &admin)
                .await,
        );
        assert_eq!(m.msg, "Barcode deleted successfully");
        assert_eq!(
            app.delete(&format!("account/barcode/{}", lot.id), &admin)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(list(&app, &admin, a).await.len(), 1);
    }
);

fn answer<T: serde::de::DeserializeOwned>((s, v): (StatusCode, Value)) -> T {
    assert!(s.is_success(), "{s} {v}");
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"))
}

both!(
    an_associated_barcode_goes_to_the_devices_and_follows_every_change,
    |app: TestApp| async move {
        let mut bench = bench(&app).await;
        let w = &bench.w;
        let admin = w.admin.clone();
        let (a, b, task) = (w.a, w.b, w.task);
        let barcode = |v: Value| -> Barcode { serde_json::from_value(v).unwrap() };
        let lot = barcode(custom(&app, &admin, a, "LOT-42").await.1);
        let kit = barcode(custom(&app, &admin, a, "KIT-7").await.1);
        let foreign = barcode(custom(&app, &admin, b, "LOT-42").await.1);

        let link: AssociatedBarcode = app
            .create_as(
                ASSOCIATE,
                &json!({"task": task, "barcode_id": lot.id}),
                &admin,
            )
            .await;
        assert_eq!(
            (link.task, link.barcode.as_str(), link.barcode_id),
            (task, "LOT-42", lot.id)
        );
        let (_, config) = next_config(&mut bench.dev, &mut bench.seen).await;
        assert_eq!(config.barcodes.len(), 1);
        let sent = &config.barcodes[0];
        assert_eq!((sent.value.as_str(), sent.task), ("LOT-42", task));
        assert_eq!(sent.engine.steps, 2);
        let listed: Vec<AssociatedBarcode> = app
            .get_as(&format!("{ASSOCIATE}?task={task}"), &admin)
            .await;
        assert_eq!(listed, std::slice::from_ref(&link));
        let tasks = &list(&app, &admin, a).await[0].tasks;
        assert_eq!((tasks[0].id, tasks[0].task), (link.id, task));

        // Refused, with nothing written: the barcode already starts a task, B's barcode
        // for A's task, an unknown task or barcode.
        for (body, field, says) in [
            (
                json!({"task": task, "barcode_id": lot.id}),
                "barcode_id",
                "This barcode already starts the operation Pump.",
            ),
            (
                json!({"task": task, "barcode_id": foreign.id}),
                "barcode_id",
                "The barcode belongs to another organization than the operation.",
            ),
            (
                json!({"task": 999_999_999, "barcode_id": kit.id}),
                "task",
                "Unknown operation.",
            ),
            (
                json!({"task": task, "barcode_id": 999_999_999}),
                "barcode_id",
                "Unknown barcode.",
            ),
        ] {
            let (s, v) = app.post(ASSOCIATE, body, Some(&admin)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
            assert_eq!(first(&v, field), says);
        }
        let listed: Vec<AssociatedBarcode> = app
            .get_as(&format!("{ASSOCIATE}?task={task}"), &admin)
            .await;
        assert_eq!(listed.len(), 1);
        for (q, s) in [
            ("", StatusCode::BAD_REQUEST),
            ("?task=abc", StatusCode::BAD_REQUEST),
            ("?task=999999999", StatusCode::NOT_FOUND),
        ] {
            assert_eq!(
                app.get(&format!("{ASSOCIATE}{q}"), &admin).await.0,
                s,
                "{q}"
            );
        }

        // A new value reaches the devices.
        let _: Barcode = app
            .send_as(
                Method::PATCH,
                VALUE,
                &json!({"id": lot.id, "barcode_value": "LOT-43"}),
                &admin,
            )
            .await;
        let (_, config) = next_config(&mut bench.dev, &mut bench.seen).await;
        assert_eq!(config.barcodes[0].value, "LOT-43");
        // Another barcode for the association.
        let moved: AssociatedBarcode = app
            .send_as(
                Method::PATCH,
                &format!("{ASSOCIATE}{}/", link.id),
                &json!({"barcode_id": kit.id}),
                &admin,
            )
            .await;
        assert_eq!((moved.id, moved.barcode.as_str()), (link.id, "KIT-7"));
        let (_, config) = next_config(&mut bench.dev, &mut bench.seen).await;
        assert_eq!(
            config
                .barcodes
                .iter()
                .map(|b| b.value.as_str())
                .collect::<Vec<_>>(),
            ["KIT-7"]
        );
        let (s, v) = app
            .patch(
                &format!("{ASSOCIATE}{}/", link.id),
                json!({"barcode_id": foreign.id}),
                Some(&admin),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        // Removed: the barcode stays and starts nothing.
        let m: Msg = answer(
            app.delete(&format!("{ASSOCIATE}{}/", link.id), &admin)
                .await,
        );
        assert_eq!(m.msg, "Barcode removed successfully");
        let (_, config) = next_config(&mut bench.dev, &mut bench.seen).await;
        assert!(config.barcodes.is_empty(), "{config:?}");
        assert_eq!(
            app.delete(&format!("{ASSOCIATE}{}/", link.id), &admin)
                .await
                .0,
            StatusCode::NOT_FOUND
        );
        assert_eq!(list(&app, &admin, a).await.len(), 2);

        // Deleting an associated barcode takes it off the devices too.
        let _: AssociatedBarcode = app
            .create_as(
                ASSOCIATE,
                &json!({"task": task, "barcode_id": kit.id}),
                &admin,
            )
            .await;
        let (_, config) = next_config(&mut bench.dev, &mut bench.seen).await;
        assert_eq!(config.barcodes.len(), 1);
        let _: Msg = answer(
            app.delete(&format!("account/barcode/{}", kit.id), &admin)
                .await,
        );
        let (_, config) = next_config(&mut bench.dev, &mut bench.seen).await;
        assert!(config.barcodes.is_empty(), "{config:?}");
    }
);
