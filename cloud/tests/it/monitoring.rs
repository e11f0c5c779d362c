//! Device monitoring (issue 31; spec section 7 "Devices": two GETs for device status
//! and monitoring, keyed by organisation): `monitoring/{org}/device_status/` and
//! `monitoring/{org}/device_monitoring/` read the devices' statuses and open health
//! events; another organisation's answers 404.

use gemba_cloud::db::devices::{self, NewDevice};
use reqwest::StatusCode;
use serde_json::json;

use crate::both;
use crate::common::*;

async fn device(app: &TestApp, org: i64, name: &str, online: Option<i64>) -> i64 {
    let id = devices::insert(
        &app.state.db,
        &NewDevice {
            org,
            department: None,
            display_name: name,
            serial_number: name,
            device_type: "gemba-agent",
            code_hash: &format!("code-{name}"),
            code_expires_at: 0,
        },
    )
    .await
    .unwrap();
    if let Some(at) = online {
        sqlx::query("UPDATE devices SET online = 1, last_seen = $1 WHERE id = $2")
            .bind(at)
            .bind(id)
            .execute(&app.state.db.pool)
            .await
            .unwrap();
    }
    id
}

async fn open_event(app: &TestApp, device: i64, camera: &str, kind: &str, at: i64) {
    sqlx::query(
        "INSERT INTO device_camera_events (device_id, camera, kind, device_since, started_at) \
         VALUES ($1, $2, $3, $4, $4)",
    )
    .bind(device)
    .bind(camera)
    .bind(kind)
    .bind(at)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
}

both!(
    monitoring_reads_the_organisations_devices_and_their_open_events,
    |app: TestApp| async move {
        let admin = app.admin_token().await;
        let a = app.create_org(&admin, "Plant A").await;
        let b = app.create_org(&admin, "Plant B").await;
        let up = device(&app, a, "Up", Some(1_000)).await;
        let troubled = device(&app, a, "Troubled", Some(2_000)).await;
        let down = device(&app, a, "Down", None).await;
        device(&app, b, "Elsewhere", Some(3_000)).await;
        open_event(&app, troubled, "cam0", "offline", 10).await;
        open_event(&app, troubled, "", "disk_low", 20).await;
        // An event that ended is history, not health.
        open_event(&app, up, "cam0", "offline", 5).await;
        sqlx::query("UPDATE device_camera_events SET ended_at = 6 WHERE device_id = $1")
            .bind(up)
            .execute(&app.state.db.pool)
            .await
            .unwrap();

        let me = app.signed_in("me@a.test", "org_user", a).await;
        let (s, v) = app
            .get(&format!("monitoring/{a}/device_status/"), &me)
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(
            (&v["organization"], &v["total"], &v["online"], &v["offline"]),
            (&json!(a), &json!(3), &json!(2), &json!(1)),
            "{v}"
        );
        let names: Vec<&str> = v["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["display_name"].as_str().unwrap())
            .collect();
        assert_eq!(names, vec!["Down", "Troubled", "Up"], "by name");
        assert_eq!(v["devices"][2]["last_seen"], 1_000);

        let (s, v) = app
            .get(&format!("monitoring/{a}/device_monitoring/"), &me)
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["unhealthy"], 2, "{v}");
        let ds = v["devices"].as_array().unwrap();
        let order: Vec<i64> = ds.iter().map(|d| d["id"].as_i64().unwrap()).collect();
        assert_eq!(order, vec![down, troubled, up]);
        assert_eq!(ds[0]["online"], false);
        assert_eq!(ds[0]["healthy"], false);
        let kinds: Vec<&str> = ds[1]["open_events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, vec!["disk_low", "offline"], "newest first");
        assert_eq!(ds[2]["healthy"], true);
        assert_eq!(ds[2]["open_events"], json!([]));

        // Keyed by organisation: B's, or one that does not exist, is not found; the
        // super admin reads any.
        for path in ["device_status", "device_monitoring"] {
            let (s, _) = app.get(&format!("monitoring/{b}/{path}/"), &me).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
            let (s, _) = app.get(&format!("monitoring/999999/{path}/"), &admin).await;
            assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
            let (s, v) = app.get(&format!("monitoring/{b}/{path}/"), &admin).await;
            assert_eq!(s, StatusCode::OK, "{path}");
            assert_eq!(v["devices"].as_array().unwrap().len(), 1, "{path}: {v}");
        }
        // The analytics user does not see devices.
        let analyst = app.signed_in("analyst@a.test", "analytics_user", a).await;
        let (s, _) = app
            .get(&format!("monitoring/{a}/device_status/"), &analyst)
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
);
