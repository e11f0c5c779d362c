//! The configuration reaches a device that was away: a change made while it is offline
//! is sent when it comes back (its status says it is behind); a status behind while a
//! configuration waits for its answer does not send it again, one behind after an
//! answer only after the back-off; a device up to date is sent nothing.

use std::time::Duration;

use gemba_shared::api::v1::cameras::{BlurRegionsWrite, DeviceBlurRegion, Rect};

use super::{bench, command_within, config_again, next_config, online, status, version};
use crate::both_with;
use crate::common::*;

both_with!(
    a_device_behind_is_sent_its_configuration_once_per_answer,
    |s: &mut gemba_cloud::config::Settings| s.reconcile_retry_ms = 3_000,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let blur = |x: f32| BlurRegionsWrite {
            device: id,
            camera: "cam0".into(),
            regions: vec![Rect {
                x,
                y: 0.0,
                width: 0.1,
                height: 0.1,
            }],
        };
        let _: Vec<DeviceBlurRegion> = app
            .create_as("device/blur_regions", &blur(0.0), &w.eng)
            .await;
        let (first, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.version, 1);
        // Heartbeats that predate it: it is waiting for its answer, not sent again.
        for _ in 0..3 {
            b.dev.send_status(&status(&["cam0", "cam1"], 0)).await;
        }
        assert!(
            command_within(&mut b.dev, Duration::from_millis(1_000))
                .await
                .is_none()
        );
        // Answered (this agent refuses it): a status still behind gets it again only
        // after the back-off.
        b.dev
            .ack(
                &first,
                false,
                "this agent does not apply device configurations yet",
            )
            .await;
        b.dev.send_status(&status(&["cam0", "cam1"], 0)).await;
        assert!(
            command_within(&mut b.dev, Duration::from_millis(700))
                .await
                .is_none()
        );
        tokio::time::sleep(Duration::from_millis(1_600)).await;
        b.dev.send_status(&status(&["cam0", "cam1"], 0)).await;
        let (again, config) = config_again(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.version, 1);
        b.dev.ack(&again, true, "").await;
        // Up to date: nothing.
        b.dev.send_status(&status(&["cam0", "cam1"], 1)).await;
        assert!(
            command_within(&mut b.dev, Duration::from_millis(1_000))
                .await
                .is_none()
        );

        // Changed while the device is away: nothing can be sent then…
        let mut away = status(&["cam0", "cam1"], 1);
        away.online = false;
        b.dev.send_status(&away).await;
        online(&app, id, &w.eng, false).await;
        let _: Vec<DeviceBlurRegion> = app
            .create_as("device/blur_regions", &blur(0.5), &w.eng)
            .await;
        assert_eq!(version(&app, id).await, 2);
        assert!(
            command_within(&mut b.dev, Duration::from_millis(500))
                .await
                .is_none()
        );
        // …and it goes as soon as the device is back and says it has version 1.
        b.dev.send_status(&status(&["cam0", "cam1"], 1)).await;
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.version, 2);
        assert_eq!(config.blur.len(), 2);
    }
);
