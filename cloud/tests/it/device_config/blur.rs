//! Blur regions: added to and replaced on a camera, deleted by ids, each change sent to
//! the device; rectangles outside the frame or empty, unknown cameras and other
//! organisations' devices or regions refused with nothing written.

use gemba_shared::api::v1::Msg;
use gemba_shared::api::v1::cameras::{BlurRegionsWrite, DeviceBlurRegion, Rect};
use reqwest::{Method, StatusCode};
use serde_json::json;

use super::{bench, next_config, version};
use crate::both;
use crate::common::*;

fn rect(x: f32, y: f32, width: f32, height: f32) -> Rect {
    Rect {
        x,
        y,
        width,
        height,
    }
}

both!(
    blur_regions_are_kept_inside_the_frame_and_sent,
    |app: TestApp| async move {
        let mut b = bench(&app).await;
        let (w, id) = (&b.w, b.id);
        let write = |camera: &str, regions: Vec<Rect>| BlurRegionsWrite {
            device: id,
            camera: camera.into(),
            regions,
        };
        let added_: Vec<DeviceBlurRegion> = app
            .create_as(
                "device/blur_regions",
                &write("cam0", vec![rect(0.0, 0.0, 0.5, 0.25)]),
                &w.eng,
            )
            .await;
        assert_eq!(added_.len(), 1);
        assert_eq!(
            (added_[0].camera.as_str(), added_[0].width, added_[0].device),
            ("cam0", 0.5, id)
        );
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.blur.len(), 1);
        assert_eq!((config.blur[0].x, config.blur[0].height), (0.0, 0.25));

        // Replaced with two; another camera's stay.
        let _: Vec<DeviceBlurRegion> = app
            .create_as(
                "device/blur_regions",
                &write("cam1", vec![rect(0.9, 0.9, 0.1, 0.1)]),
                &w.eng,
            )
            .await;
        let _ = next_config(&mut b.dev, &mut b.seen).await;
        let two: Vec<DeviceBlurRegion> = app
            .send_as(
                Method::PUT,
                "device/blur_regions",
                &write(
                    "cam0",
                    vec![rect(0.1, 0.1, 0.2, 0.2), rect(0.5, 0.5, 0.5, 0.5)],
                ),
                &w.eng,
            )
            .await;
        assert_eq!(two.len(), 2);
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.blur.len(), 3);
        let cam0: Vec<DeviceBlurRegion> = app
            .get_as(
                &format!("device/blur_regions?device={id}&camera=cam0"),
                &w.eng,
            )
            .await;
        assert_eq!(cam0, two);
        let all: Vec<DeviceBlurRegion> = app
            .get_as(&format!("device/blur_regions?device={id}"), &w.eng)
            .await;
        assert_eq!(all.len(), 3);

        // Bad rectangles, cameras, bodies: refused whole, nothing written.
        let before = version(&app, id).await;
        for (body, field, says) in [
            (
                write(
                    "cam0",
                    vec![rect(0.0, 0.0, 0.1, 0.1), rect(1.2, 0.0, 0.1, 0.1)],
                ),
                "regions",
                "Region 2: A blur region's x, y, width and height are fractions 0 to 1 of the frame.",
            ),
            (
                write("cam0", vec![rect(0.2, 0.2, 0.0, 0.1)]),
                "regions",
                "Region 1: A blur region needs a width and a height above 0.",
            ),
            (
                write("cam0", vec![rect(0.7, 0.2, 0.5, 0.1)]),
                "regions",
                "Region 1: A blur region must lie inside the frame (x + width and y + height at most 1).",
            ),
            (
                write("cam0", vec![rect(-0.1, 0.2, 0.5, 0.1)]),
                "regions",
                "Region 1: A blur region's x, y, width and height are fractions 0 to 1 of the frame.",
            ),
            (
                write("cam9", vec![rect(0.1, 0.1, 0.1, 0.1)]),
                "camera",
                "Bench has no camera cam9.",
            ),
            (
                write("cam0", vec![]),
                "regions",
                "Draw at least one region.",
            ),
        ] {
            let (s, v) = app
                .send_refused(Method::POST, "device/blur_regions", &body, &w.eng)
                .await;
            assert_eq!(s, StatusCode::BAD_REQUEST, "{body:?}: {v}");
            assert_eq!(v, json!({ field: [says] }), "{body:?}");
            let put = serde_json::to_value(&body).unwrap();
            let (s, _) = app
                .call(Method::PUT, "device/blur_regions", Some(put), Some(&w.eng))
                .await;
            // Replacing with none is how a camera's regions are removed.
            let none = body.regions.is_empty();
            assert_eq!(s == StatusCode::OK, none, "{body:?}");
            if none {
                let _ = next_config(&mut b.dev, &mut b.seen).await;
                // Put them back as they were.
                let _: Vec<DeviceBlurRegion> = app
                    .send_as(
                        Method::PUT,
                        "device/blur_regions",
                        &write(
                            "cam0",
                            two.iter()
                                .map(|r| rect(r.x, r.y, r.width, r.height))
                                .collect(),
                        ),
                        &w.eng,
                    )
                    .await;
                let _ = next_config(&mut b.dev, &mut b.seen).await;
            }
        }
        let (s, v) = app
            .send_refused(
                Method::POST,
                "device/blur_regions",
                &json!({"device": id, "camera": "cam0", "regions": [{"x": 0.1}]}),
                &w.eng,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
        let cam0: Vec<DeviceBlurRegion> = app
            .get_as(
                &format!("device/blur_regions?device={id}&camera=cam0"),
                &w.eng,
            )
            .await;
        assert_eq!(cam0.len(), 2);
        assert_eq!(version(&app, id).await, before + 2);

        // Roles and tenancy.
        let (s, _) = app
            .send_refused(
                Method::GET,
                &format!("device/blur_regions?device={id}"),
                &(),
                &w.analyst,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let (s, _) = app
            .send_refused(
                Method::GET,
                &format!("device/blur_regions?device={id}"),
                &(),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .send_refused(
                Method::POST,
                "device/blur_regions",
                &write("cam0", vec![rect(0.1, 0.1, 0.1, 0.1)]),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .send_refused(Method::GET, "device/blur_regions?device=abc", &(), &w.eng)
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);

        // Deleted by ids: all of the caller's or none.
        let del = |ids: &str| format!("device/delete_blur_regions?ids={ids}");
        for (ids, status) in [
            ("", StatusCode::BAD_REQUEST),
            ("a,b", StatusCode::BAD_REQUEST),
            ("0", StatusCode::BAD_REQUEST),
            (&*format!("{},999999999", cam0[0].id), StatusCode::NOT_FOUND),
        ] {
            let (s, v) = app
                .send_refused(Method::DELETE, &del(ids), &(), &w.eng)
                .await;
            assert_eq!(s, status, "{ids}: {v}");
        }
        let (s, _) = app
            .send_refused(
                Method::DELETE,
                &del(&cam0[0].id.to_string()),
                &(),
                &w.boss_b,
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        let (s, _) = app
            .send_refused(
                Method::DELETE,
                &del(&cam0[0].id.to_string()),
                &(),
                &w.analyst,
            )
            .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
        let cam0_again: Vec<DeviceBlurRegion> = app
            .get_as(
                &format!("device/blur_regions?device={id}&camera=cam0"),
                &w.eng,
            )
            .await;
        assert_eq!(cam0_again.len(), 2);
        let m: Msg = app
            .send_as(
                Method::DELETE,
                &del(&format!("{},{}", cam0[0].id, cam0[1].id)),
                &(),
                &w.eng,
            )
            .await;
        assert_eq!(m.msg, "Data deleted successfully!");
        let (_, config) = next_config(&mut b.dev, &mut b.seen).await;
        assert_eq!(config.blur.len(), 1);
        assert_eq!(config.blur[0].camera, "cam1");
    }
);
