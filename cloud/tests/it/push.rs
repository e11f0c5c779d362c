//! Push notifications to the portal (issue 31): browsers' Web Push subscriptions on an
//! organisation's topics (`firebase/topic_subscription/`, `firebase/unsubscribe/`),
//! and an event notification reaching its recipients' subscribed browsers, checked by
//! a real local push receiver (`cloud/tests/push_receiver.py`) that verifies the VAPID
//! JWT and decrypts the message with the subscription's private key (`http_ece`).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

use crate::both;
use crate::common::*;

const PUMP: &str = "Assemble pump\nFit housing:\nPlace housing;\nTighten screws;\nCheck seal:\nInspect seal;\nPre-assembly~\nPack:\nPut in box;\n";

/// The receiver: a browser's keys and a push service on a local port.
struct Receiver {
    port: u16,
    keys: Value,
    lines: Lines<BufReader<ChildStdout>>,
    _child: Child,
}

impl Receiver {
    async fn start() -> Receiver {
        let mut child =
            tokio::process::Command::new(test_python("the push tests need a Python with http_ece"))
                .arg(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/push_receiver.py"
                ))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .expect("starting the push receiver");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the push receiver started in time")
            .unwrap()
            .expect("the push receiver printed its subscription");
        let v: Value = serde_json::from_str(&first).unwrap();
        Receiver {
            port: v["port"].as_u64().unwrap() as u16,
            keys: v["keys"].clone(),
            lines,
            _child: child,
        }
    }

    /// The browser's subscription for endpoint path `path` (`/push/…` or `/gone/…`).
    fn token(&self, path: &str) -> Value {
        json!({"endpoint": self.endpoint(path), "keys": self.keys})
    }

    fn endpoint(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The next push the receiver got, waiting for it.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("a push arrived in time")
            .unwrap()
            .expect("the receiver is running");
        serde_json::from_str(&line).unwrap()
    }
}

async fn subscription(
    app: &TestApp,
    tok: &str,
    topic: &str,
    tokens: Vec<Value>,
    action: &str,
) -> (StatusCode, Value) {
    app.post(
        "firebase/topic_subscription/",
        json!({"topic": topic, "tokens": tokens, "action": action}),
        Some(tok),
    )
    .await
}

fn topics_of(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["topic"].as_str().unwrap().to_string(),
                s["endpoint"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

both!(
    a_task_update_reaches_the_recipients_subscribed_browser_encrypted_and_signed,
    |app: TestApp| async move {
        let mut rx = Receiver::start().await;
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Plant A").await;
        app.subscribe(&admin, org, "Define Operation").await;
        let lead = app.signed_in("lead@a.test", "org_user", org).await;
        let other = app.signed_in("other@a.test", "org_user", org).await;

        let (s, key) = app.get("firebase/vapid_public_key/", &lead).await;
        assert_eq!(s, StatusCode::OK, "{key}");
        let key = key["public_key"].as_str().unwrap().to_string();

        // The lead's browser on Task Update; another user's browser too, who is not a
        // recipient of the notification.
        let (s, v) = subscription(
            &app,
            &lead,
            "Task Update",
            vec![rx.token("/push/lead")],
            "subscribe",
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["msg"], "Subscribed successfully!");
        assert_eq!(
            topics_of(&v["subscriptions"]),
            vec![("Task Update".to_string(), rx.endpoint("/push/lead"))]
        );
        let (s, v) = subscription(
            &app,
            &other,
            "Task Update",
            vec![rx.token("/push/other")],
            "subscribe",
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        // Subscribing again changes nothing.
        let (_, v) = subscription(
            &app,
            &lead,
            "Task Update",
            vec![rx.token("/push/lead")],
            "subscribe",
        )
        .await;
        assert_eq!(v["subscriptions"].as_array().unwrap().len(), 1, "{v}");

        let (s, v) = app
            .call_with(
                Method::POST,
                "feature_control/event_notifications",
                Some(json!({"event_type": "Task Update", "recipients": ["lead@a.test"], "Organization": org})),
                Some(&admin),
                &[],
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");
        let (s, t) = app
            .post(
                "organization/task/",
                json!({"task_detail": PUMP}),
                Some(&lead),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{t}");
        let url = format!("organization/task/{}/", t["id"]);
        let steps = "x\nFit housing:\nPlace housing;\nTighten screws;\nPack:\nPut in box;\n";
        let (s, v) = app
            .patch(&url, json!({"task_detail": steps}), Some(&lead))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");

        let got = rx.next().await;
        assert_eq!(got["ok"], true, "{got}");
        assert_eq!(
            got["path"], "/push/lead",
            "only the recipient's browser: {got}"
        );
        assert_eq!(
            got["vapid_key"],
            key.as_str(),
            "signed with the key browsers got"
        );
        assert_eq!(got["claims"]["aud"], rx.endpoint(""));
        assert_eq!(got["ttl"], 24 * 3600);
        let m = &got["message"];
        assert_eq!(m["topic"], "Task Update");
        assert_eq!(m["title"], "Task Update: Assemble pump");
        assert_eq!(m["organization"], org);
        assert!(
            m["body"]
                .as_str()
                .unwrap()
                .contains("1: Check seal (Inspect seal)"),
            "the mail's text: {m}"
        );
        let (mail_subject, _) = app.last_mail("lead@a.test").await.expect("mailed too");
        assert_eq!(mail_subject, "Task Update: Assemble pump");

        // Unsubscribed, the lead's browser gets nothing more; a browser whose push
        // service says it is gone loses its subscription on the next send.
        let (s, v) = subscription(
            &app,
            &lead,
            "Task Update",
            vec![rx.token("/push/lead")],
            "unsubscribe",
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["msg"], "Unsubscribed successfully!");
        assert_eq!(v["subscriptions"], json!([]));
        let (s, v) = subscription(
            &app,
            &lead,
            "Task Update",
            vec![rx.token("/gone/lead")],
            "subscribe",
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (s, v) = app
            .patch(&url, json!({"task_detail": PUMP}), Some(&lead))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let got = rx.next().await;
        assert_eq!(got["path"], "/gone/lead", "{got}");
        assert_eq!(got["ok"], true, "{got}");
        let mut left = json!(null);
        for _ in 0..100 {
            let (_, v) = app.get("firebase/topic_subscription/", &lead).await;
            left = v;
            if left == json!([]) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(
            left,
            json!([]),
            "the gone endpoint's subscription was removed"
        );
        // The other user's subscription stays.
        let (_, v) = app.get("firebase/topic_subscription/", &other).await;
        assert_eq!(
            topics_of(&v),
            vec![("Task Update".to_string(), rx.endpoint("/push/other"))]
        );
    }
);

both!(
    bad_subscriptions_are_refused_naming_the_field_and_nothing_is_stored,
    |app: TestApp| async move {
        let rx = Receiver::start().await;
        let admin = app.admin_token().await;
        let org = app.create_org(&admin, "Plant A").await;
        let me = app.signed_in("me@a.test", "org_user", org).await;
        let good = rx.token("/push/me");
        let mut off_curve = good.clone();
        off_curve["keys"]["p256dh"] = json!("BAAA");
        let mut short_auth = good.clone();
        short_auth["keys"]["auth"] = json!("AAAA");
        let mut far = good.clone();
        far["endpoint"] = json!("http://push.example/p");
        let cases = [
            (
                json!({"topic": "Cycle Alert", "tokens": [good], "action": "subscribe"}),
                "topic",
                "\"Cycle Alert\" is not a valid choice.",
            ),
            (
                json!({"topic": "Task Update", "tokens": [good], "action": "join"}),
                "action",
                "\"join\" is not a valid choice.",
            ),
            (
                json!({"topic": "Task Update", "tokens": [], "action": "subscribe"}),
                "tokens",
                "This field is required.",
            ),
            (
                json!({"topic": "Task Update", "tokens": vec![good.clone(); 11], "action": "subscribe"}),
                "tokens",
                "Ensure this field has no more than 10 elements.",
            ),
            (
                json!({"topic": "Task Update", "tokens": [good, off_curve], "action": "subscribe"}),
                "tokens",
                "keys.p256dh is not a P-256 public key (base64url, uncompressed).",
            ),
            (
                json!({"topic": "Task Update", "tokens": [short_auth], "action": "subscribe"}),
                "tokens",
                "keys.auth is not a 16-byte secret (base64url).",
            ),
            (
                json!({"topic": "Task Update", "tokens": [far], "action": "subscribe"}),
                "tokens",
                "Enter a valid push endpoint (an https:// URL).",
            ),
        ];
        for (body, field, msg) in cases {
            let (s, v) = app
                .post("firebase/topic_subscription/", body.clone(), Some(&me))
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
            assert_eq!(v[field], json!([msg]), "{body}: {v}");
        }
        let (_, v) = app.get("firebase/topic_subscription/", &me).await;
        assert_eq!(v, json!([]), "nothing half-written");

        // The super admin acts in no organisation: it has none to subscribe in.
        let (s, v) = subscription(
            &app,
            &admin,
            "Task Update",
            vec![rx.token("/push/a")],
            "subscribe",
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

        // A user keeps at most 50 subscriptions.
        let tokens: Vec<Value> = (0..10).map(|i| rx.token(&format!("/push/{i}"))).collect();
        for topic in ["Task Update", "Device Health"] {
            let (s, v) = subscription(&app, &me, topic, tokens.clone(), "subscribe").await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
        let more: Vec<Value> = (10..20).map(|i| rx.token(&format!("/push/{i}"))).collect();
        let (s, _) = subscription(&app, &me, "Task Update", more.clone(), "subscribe").await;
        assert_eq!(s, StatusCode::OK);
        let (s, _) = subscription(&app, &me, "Device Health", more, "subscribe").await;
        assert_eq!(s, StatusCode::OK);
        let last: Vec<Value> = (20..30).map(|i| rx.token(&format!("/push/{i}"))).collect();
        let (s, _) = subscription(&app, &me, "Task Update", last.clone(), "subscribe").await;
        assert_eq!(s, StatusCode::OK, "50 is the most");
        // Those again are no more; one other is.
        let (s, _) = subscription(&app, &me, "Task Update", last, "subscribe").await;
        assert_eq!(s, StatusCode::OK);
        let (s, v) = subscription(
            &app,
            &me,
            "Task Update",
            vec![rx.token("/push/50")],
            "subscribe",
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert_eq!(
            v["tokens"],
            json!(["A user keeps at most 50 push subscriptions."])
        );
        let (_, v) = app.get("firebase/topic_subscription/", &me).await;
        assert_eq!(v.as_array().unwrap().len(), 50);

        // The browser leaves its push service: the unsubscribe takes every topic.
        let (_, v) = app
            .get(
                &format!(
                    "firebase/topic_subscription/?endpoint={}",
                    rx.endpoint("/push/3")
                ),
                &me,
            )
            .await;
        assert_eq!(v.as_array().unwrap().len(), 2, "{v}");
        let del = format!("firebase/unsubscribe/?endpoint={}", rx.endpoint("/push/3"));
        let (s, v) = app.delete(&del, &me).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["msg"], "Data deleted successfully!");
        let (s, _) = app.delete(&del, &me).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "nothing left of it");
        let (_, v) = app.get("firebase/topic_subscription/", &me).await;
        assert_eq!(v.as_array().unwrap().len(), 48);
        let (s, v) = app.delete("firebase/unsubscribe/", &me).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        assert_eq!(v["endpoint"], json!(["This field is required."]));
    }
);

both!(
    one_users_subscriptions_are_theirs_alone,
    |app: TestApp| async move {
        let rx = Receiver::start().await;
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Plant A").await;
        let b = app.create_org(&admin, "Plant B").await;
        let me = app.signed_in("me@a.test", "org_user", a).await;
        let them = app.signed_in("them@b.test", "org_user", b).await;
        let (s, _) = subscription(
            &app,
            &them,
            "Device Health",
            vec![rx.token("/push/b")],
            "subscribe",
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        let (_, v) = app.get("firebase/topic_subscription/", &me).await;
        assert_eq!(v, json!([]), "B's subscription is not listed to A's user");
        let (s, _) = app
            .delete(
                &format!("firebase/unsubscribe/?endpoint={}", rx.endpoint("/push/b")),
                &me,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = subscription(
            &app,
            &me,
            "Device Health",
            vec![rx.token("/push/b")],
            "unsubscribe",
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        let (_, v) = app.get("firebase/topic_subscription/", &them).await;
        assert_eq!(
            v.as_array().unwrap().len(),
            1,
            "B's subscription stands: {v}"
        );
        // Both see the same VAPID key: one per deployment.
        let (_, k1) = app.get("firebase/vapid_public_key/", &me).await;
        let (_, k2) = app.get("firebase/vapid_public_key/", &them).await;
        assert_eq!(k1, k2);
        assert_eq!(
            k1["public_key"].as_str().unwrap().len(),
            87,
            "65 bytes in base64url"
        );
    }
);

both!(
    a_device_health_event_reaches_the_recipients_subscribed_browser,
    |app: TestApp| async move {
        use gemba_shared::api::v1::device::CameraEventKind;
        use gemba_shared::mqtt::v1;

        let mut rx = Receiver::start().await;
        let w = crate::devices::world(&app).await;
        let creds = crate::devices::enrolled(&app, &w.boss, "Bench").await;
        let (s, v) = subscription(
            &app,
            &w.boss,
            "Device Health",
            vec![rx.token("/push/boss")],
            "subscribe",
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (s, v) = app
            .post(
                "feature_control/event_notifications",
                json!({"event_type": "Device Health", "recipients": ["boss@a.test"]}),
                Some(&w.boss),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{v}");

        let dev = crate::devices::TestDevice::of(&creds).await;
        let status = v1::StatusMessage {
            v: 1,
            online: true,
            ts_ms: 1_000,
            agent_version: "test".into(),
            cameras: vec![],
            outbox: 0,
            disk_free_mb: Some(10),
            temperature_c: None,
            config_version: 0,
            target: String::new(),
            updatable: false,
            update: None,
            faults: vec![v1::Fault {
                kind: CameraEventKind::DiskLow,
                since_ms: 900,
                detail: Some("10 MB free".into()),
            }],
        };
        dev.send_status(&status).await;

        let got = rx.next().await;
        assert_eq!(got["ok"], true, "{got}");
        assert_eq!(got["path"], "/push/boss");
        let m = &got["message"];
        assert_eq!(m["topic"], "Device Health");
        assert_eq!(m["title"], "Device Health: disk low on Bench");
        assert_eq!(m["organization"], w.a);
        assert!(
            m["body"]
                .as_str()
                .unwrap()
                .contains("The device says: 10 MB free"),
            "{m}"
        );
    }
);
