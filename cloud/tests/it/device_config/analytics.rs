//! `POST device/set_fetch_analytics/{id}/`: a device switched to keep its analytics is
//! sent a configuration saying so, and one saying to send them when switched on again;
//! the device shows the switch; the same setting again sends nothing; bad bodies and
//! another organisation's device change nothing.

use std::time::Duration;

use gemba_shared::api::v1::device::{Device, DeviceDetails};
use reqwest::StatusCode;
use serde_json::json;

use super::{bench, command_within, next_config, version};
use crate::both;
use crate::common::*;

fn url(id: i64) -> String {
    format!("device/set_fetch_analytics/{id}/")
}

both!(
    analytics_switched_off_and_on_reach_the_device_in_its_configuration,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let before: DeviceDetails = app
            .get_as(&format!("device/{id}/device_details/"), &w.eng)
            .await;
        assert!(before.device.fetch_analytics, "on until switched off");

        let (s, v) = app
            .post(&url(id), json!({"fetch_analytics": false}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let d: Device = serde_json::from_value(v).unwrap();
        assert!(!d.fetch_analytics);
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.version, 1);
        assert!(!config.fetch_analytics);

        // The same again changes nothing and sends nothing.
        let (s, _) = app
            .post(&url(id), json!({"fetch_analytics": false}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(version(&app, id).await, 1);
        // Bad bodies and another organisation's device: refused, nothing changes.
        for body in [
            json!({}),
            json!({"fetch_analytics": "yes"}),
            json!({"fetch_analytics": true, "x": 1}),
        ] {
            let (s, v) = app.post(&url(id), body.clone(), Some(&w.eng)).await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        }
        let (s, _) = app
            .post(&url(id), json!({"fetch_analytics": true}), Some(&w.boss_b))
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(version(&app, id).await, 1);
        assert!(
            command_within(&mut b.dev, Duration::from_millis(500))
                .await
                .is_none()
        );

        // On again: the device is told to send what it kept.
        let (s, v) = app
            .post(&url(id), json!({"fetch_analytics": true}), Some(&w.eng))
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.version, 2);
        assert!(config.fetch_analytics);
        let after: DeviceDetails = app
            .get_as(&format!("device/{id}/device_details/"), &w.eng)
            .await;
        assert!(after.device.fetch_analytics);
    }
);
