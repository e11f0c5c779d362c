//! The service itself: health, the OpenAPI document, the embedded broker, the outbox.

use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

/// Every call of the spec's "Account" and organisation sections this service answers,
/// exactly as the spec writes it.
const SPEC_PATHS: &[(&str, &str)] = &[
    ("post", "/account/login_v2"),
    ("post", "/account/register"),
    ("get", "/account/resend_otp/"),
    ("post", "/account/resend-verification-email"),
    ("post", "/account/admin-verification-email"),
    ("patch", "/account/verify-email/{token}"),
    ("patch", "/account/set_mfa_method_email/"),
    ("patch", "/account/set_mfa_method_authenticator_app/"),
    ("patch", "/account/set_mfa_method_sms/"),
    ("post", "/account/set_mfa_method_sms/"),
    ("get", "/account/send_otp_code/"),
    ("patch", "/account/get_qr_code/"),
    ("post", "/account/verify_otp_code/"),
    ("get", "/account/get-permissions/"),
    ("patch", "/account/update-delete/{id}/"),
    ("delete", "/account/update-delete/{id}/"),
    ("post", "/account/azure-signin/"),
    ("post", "/account/azure-signup/"),
    ("post", "/account/google-sso/"),
    ("post", "/account/admin-login/"),
    ("post", "/account/refresh-azure-token/"),
    ("post", "/account/token/refresh/"),
    ("patch", "/account/logout/"),
    ("patch", "/account/forgot_password/"),
    ("patch", "/account/reset_password/"),
    ("patch", "/account/request_change_password/"),
    ("patch", "/account/reset_workstation_user_password/"),
    ("post", "/account/request_change_email/"),
    ("patch", "/account/verify-email-change/"),
    ("post", "/account/register_for_aws_subscription"),
    ("get", "/account/linked_organizations/"),
    ("post", "/account/linked_organizations"),
    ("delete", "/account/delete_linked_organizations"),
    ("patch", "/account/switch_user_organization"),
    ("get", "/account/fetch_local_storage_data"),
    ("get", "/account/linked_users_list/"),
    ("get", "/account/users_list/v2"),
    ("get", "/account/users_list"),
    ("get", "/account/roles/"),
    ("post", "/account/roles/"),
    ("patch", "/account/admin-verification-email/{id}/"),
    ("get", "/account/lockout_list-delete/"),
    ("delete", "/account/lockout_list-delete/"),
    ("put", "/account/approve_user"),
    ("put", "/account/assign_user_org"),
    ("get", "/account/retrieve-session/"),
    ("post", "/account/session/create/"),
    ("patch", "/account/session/update/{id}/"),
    ("get", "/organization/"),
    ("get", "/organization/get_organizations"),
    ("post", "/organization/"),
    ("patch", "/organization/{id}/"),
    ("delete", "/organization/{id}/"),
    ("get", "/organization/{id}/department/"),
    ("post", "/organization/{id}/department/"),
    ("get", "/organization/task/"),
    ("get", "/organization/task/taskpage"),
    ("get", "/organization/tasks/admin"),
    ("post", "/generic/clone_task/"),
    (
        "get",
        "/organization/task/get_all_trained_tasks_of_organization",
    ),
    ("get", "/organization/task_history/{id}/"),
    ("get", "/organization/task/{id}/"),
    ("patch", "/organization/task/{id}/"),
    ("post", "/organization/task/"),
    ("put", "/organization/train/stop/"),
    ("get", "/organization/trained_task/{id}"),
    ("get", "/organization/model_version"),
    ("get", "/organization/model_version/{id}"),
    ("patch", "/organization/model_version/{id}"),
    ("patch", "/organization/trained_task/{id}"),
    ("patch", "/organization/task/last_update/{id}"),
    ("get", "/organization/task/{id}/history/"),
    ("patch", "/organization/task/{id}/revert/"),
    ("get", "/organization/task/model_choices"),
    ("get", "/organization/task/list_task_objects/{id}/"),
    ("get", "/organization/task/list_plane_objects/{id}/"),
    ("post", "/organization/task/task_object/"),
    ("patch", "/organization/task/task_object/{id}/"),
    ("delete", "/organization/task/task_object/{id}/"),
    ("post", "/organization/task/plane_objects/"),
    ("put", "/organization/task/plane_objects/{id}/"),
    ("delete", "/organization/task/plane_objects/{id}/"),
    ("get", "/organization/task/object_detection_rule/{id}/"),
    ("post", "/organization/task/object_detection_rule/{id}/"),
    ("patch", "/organization/task/object_detection_rule/{id}/"),
    ("delete", "/organization/task/object_detection_rule/delete/"),
    (
        "patch",
        "/organization/task/object_detection_rule/bulk_delete",
    ),
    ("get", "/generic/list_region_json/{id}/"),
    ("patch", "/generic/list_region_json/{id}/"),
    ("patch", "/organization/organization-switch"),
    ("patch", "/organization/organization-switch/{id}/"),
];

both!(
    health_answers_and_openapi_documents_every_spec_call,
    |app: TestApp| async move {
        let r = app
            .client
            .get(format!("{}/health", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let doc = app.openapi().await;
        let paths = doc["paths"].as_object().unwrap();
        let mut missing = vec![];
        for (method, path) in SPEC_PATHS {
            if paths.get(*path).and_then(|p| p.get(*method)).is_none() {
                missing.push(format!("{method} {path}"));
            }
        }
        assert!(missing.is_empty(), "not in /api/openapi.json: {missing:?}");
        // Unknown paths answer the API's 404 shape.
        let (s, v) = app
            .call(reqwest::Method::GET, "no/such/call", None, None)
            .await;
        assert_eq!(
            (s, v["detail"].as_str()),
            (StatusCode::NOT_FOUND, Some("Not found."))
        );
    }
);

both!(embedded_broker_relays_mqtt, |app: TestApp| async move {
    // A device reads back what it published on its own topic.
    let w = crate::devices::world(&app).await;
    let creds = crate::devices::enrolled(&app, &w.boss, "Relay").await;
    let mut dev = crate::devices::TestDevice::of(&creds).await;
    let topic = dev.topic(gemba_shared::mqtt::v1::Channel::Cmd);
    dev.client
        .publish(
            &topic,
            rumqttc::QoS::AtLeastOnce,
            false,
            b"{\"v\":1}".to_vec(),
        )
        .await
        .unwrap();
    let (got, payload) = tokio::time::timeout(std::time::Duration::from_secs(10), dev.rx.recv())
        .await
        .expect("the broker relayed the message")
        .unwrap();
    assert_eq!((got, payload), (topic, b"{\"v\":1}".to_vec()));
});

both!(
    every_mail_is_kept_as_an_eml_file_and_readable_by_the_admin,
    |app: TestApp| async move {
        app.post(
            "account/register",
            json!({"name": "Eve", "email": "eve@example.com", "password": PASSWORD}),
            None,
        )
        .await;
        let admin = app.admin_token().await;
        let (s, v) = app
            .get("admin/outbox/?recipient=eve@example.com", &admin)
            .await;
        assert_eq!(s, StatusCode::OK);
        let file = v[0]["file_name"].as_str().unwrap().to_string();
        let eml = std::fs::read_to_string(app.data_dir().join("outbox").join(&file)).unwrap();
        assert!(
            eml.contains("To: eve@example.com")
                && eml.contains("Subject: Verify your e-mail address"),
            "{eml}"
        );
        // Nobody else reads the outbox.
        let org = app.create_org(&admin, "Gamma").await;
        let u = token(
            &app.user_in(&admin, "g@gamma.test", "org_admin", Some(org))
                .await,
        );
        assert_eq!(app.get("admin/outbox/", &u).await.0, StatusCode::FORBIDDEN);
    }
);

/// The external broker the tests use (Mosquitto on these machines).
fn external_broker() -> String {
    std::env::var("GEMBA_TEST_MQTT_URL").unwrap_or_else(|_| "mqtt://127.0.0.1:1883".into())
}

async fn health_mqtt(app: &TestApp, want: &str) -> bool {
    for _ in 0..100 {
        let (_, v) = app.call(reqwest::Method::GET, "health", None, None).await;
        if v["mqtt"] == want {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

both!(
    the_cloud_links_to_the_embedded_broker,
    |app: TestApp| async move {
        assert!(
            health_mqtt(&app, "connected").await,
            "the cloud never connected to its embedded broker"
        );
    }
);

both!(
    an_external_broker_url_replaces_the_embedded_one,
    |_app: TestApp| async move {
        let backend = if _app.pg_url().is_some() {
            Backend::Postgres
        } else {
            Backend::Sqlite
        };
        let app = TestApp::start_with(backend, |s| s.mqtt = external_broker()).await;
        assert!(
            health_mqtt(&app, "connected").await,
            "no link to the external broker {}",
            external_broker()
        );
        // No broker was embedded on the test's own port.
        assert!(tokio::net::TcpStream::connect(app.mqtt).await.is_err());
    }
);

both!(
    an_unreachable_broker_leaves_the_api_serving,
    |_app: TestApp| async move {
        let backend = if _app.pg_url().is_some() {
            Backend::Postgres
        } else {
            Backend::Sqlite
        };
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let app =
            TestApp::start_with(backend, |s| s.mqtt = format!("mqtt://127.0.0.1:{closed}")).await;
        assert!(health_mqtt(&app, "disconnected").await);
        let admin = app.admin_token().await;
        assert_eq!(app.get("organization/", &admin).await.0, StatusCode::OK);
    }
);

both!(
    mail_links_stay_whole_in_the_eml_files,
    |app: TestApp| async move {
        for (name, email) in [
            ("Alice", "alice@example.com"),
            ("Jürgen", "juergen@example.com"),
        ] {
            let (s, v) = app
                .post(
                    "account/register",
                    json!({"name": name, "email": email, "password": PASSWORD}),
                    None,
                )
                .await;
            assert_eq!(s, StatusCode::CREATED, "{v}");
            let token = app.last_link_token(email, "/verify-email/").await;
            let row = gemba_cloud::db::outbox::list(&app.state.db, Some(email), 1)
                .await
                .unwrap()
                .remove(0);
            let file = app.data_dir().join("outbox").join(row.file_name.unwrap());
            let eml = std::fs::read_to_string(file).unwrap();
            // A person (or grep) reading the file finds the whole link on one line.
            // Without `public_url`, the base domain on the server's own port.
            let port = app.state.settings.http.port();
            let link = format!("http://localhost:{port}/verify-email/{token}");
            assert!(eml.lines().any(|l| l == link), "{eml}");
            assert!(eml.contains(&format!("Hello {name},")), "{eml}");
            let (s, v) = app
                .patch(&format!("account/verify-email/{token}"), json!({}), None)
                .await;
            assert_eq!(s, StatusCode::OK, "{v}");
        }
    }
);

both!(
    the_data_folder_holds_the_object_store,
    |app: TestApp| async move {
        use object_store::{ObjectStoreExt, PutPayload};
        let k = gemba_cloud::objects::key(1, "probe.txt");
        app.state
            .objects
            .put(&k, PutPayload::from_static(b"ok"))
            .await
            .unwrap();
        assert!(app.data_dir().join("objects/org/1/probe.txt").exists());
    }
);
