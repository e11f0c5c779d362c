//! What happened to a device's cameras, kept after it ended (issue 26): today the model
//! unsure of what a camera sees, as the agent's status says it (`unsure_since_ms`).
//!
//! Each status of a device is compared with its open events ([`changes`], plain logic):
//! a camera the status says is unsure opens an event (started at the device's
//! `unsure_since_ms`, put on the cloud's clock by the status's own send time against
//! its arrival); an open event whose camera the status does not say is unsure (sure
//! again, stopped, gone, or the device offline) ends at the status's arrival. A camera
//! unsure since another time than its open event ends that one and opens another.
//!
//! Invariant: at most one open event per device, camera and kind (a partial unique
//! index); a second replica opening the same one changes nothing.

use gemba_shared::api::v1::device::{CameraEvent, CameraEventKind};
use gemba_shared::mqtt::v1::StatusMessage;

use super::Db;

/// The events the device page lists.
pub const LISTED: i64 = 20;

const UNSURE: &str = "unsure";

/// An open event, as [`changes`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    pub id: i64,
    pub camera: String,
    /// Its start on the device's clock.
    pub device_since: i64,
}

/// An event to open.
#[derive(Debug, Clone, PartialEq)]
pub struct New {
    pub camera: String,
    pub device_since: i64,
    /// On the cloud's clock.
    pub started_at: i64,
    pub unsure_share: Option<f64>,
    pub brightness: Option<f64>,
    pub sure_share: Option<f64>,
    pub sure_brightness: Option<f64>,
}

/// What a status does to the open events: those to end (ids), those to open.
pub fn changes(open: &[Open], status: &StatusMessage, now: i64) -> (Vec<i64>, Vec<New>) {
    // The device's clock to the cloud's (the last will carries no time).
    let skew = if status.ts_ms > 0 {
        now - status.ts_ms
    } else {
        0
    };
    let unsure: Vec<_> = status
        .cameras
        .iter()
        .filter_map(|c| Some((c, c.unsure_since_ms?)))
        .collect();
    let end = open
        .iter()
        .filter(|o| {
            !unsure
                .iter()
                .any(|(c, since)| c.camera == o.camera && *since == o.device_since)
        })
        .map(|o| o.id)
        .collect();
    let new = unsure
        .into_iter()
        .filter(|(c, since)| {
            !open
                .iter()
                .any(|o| o.camera == c.camera && o.device_since == *since)
        })
        .map(|(c, since)| New {
            camera: c.camera.clone(),
            device_since: since,
            started_at: (since + skew).min(now),
            unsure_share: c.unsure_share.map(figure),
            brightness: c.brightness.map(figure),
            sure_share: c.sure_share.map(figure),
            sure_brightness: c.sure_brightness.map(figure),
        })
        .collect();
    (end, new)
}

/// A status's figure as kept: to 4 decimals (an `f32`'s digits beyond mean nothing).
fn figure(x: f32) -> f64 {
    (f64::from(x) * 1e4).round() / 1e4
}

/// Notes what device `device`'s new status says of its cameras' events. `before`: its
/// previous status; when neither says a camera is unsure there is nothing to do (and
/// nothing is read).
pub async fn note_status(
    db: &Db,
    device: i64,
    before: Option<&StatusMessage>,
    status: &StatusMessage,
    now: i64,
) -> sqlx::Result<()> {
    let any_unsure = |s: &StatusMessage| s.cameras.iter().any(|c| c.unsure_since_ms.is_some());
    if !any_unsure(status) && !before.is_some_and(any_unsure) {
        return Ok(());
    }
    let open: Vec<(i64, String, i64)> = sqlx::query_as(
        "SELECT id, camera, device_since FROM device_camera_events \
         WHERE device_id = $1 AND kind = $2 AND ended_at IS NULL",
    )
    .bind(device)
    .bind(UNSURE)
    .fetch_all(&db.pool)
    .await?;
    let open: Vec<Open> = open
        .into_iter()
        .map(|(id, camera, device_since)| Open {
            id,
            camera,
            device_since,
        })
        .collect();
    let (end, new) = changes(&open, status, now);
    for id in end {
        sqlx::query("UPDATE device_camera_events SET ended_at = $2 WHERE id = $1")
            .bind(id)
            .bind(now)
            .execute(&db.pool)
            .await?;
    }
    for n in new {
        sqlx::query(
            "INSERT INTO device_camera_events (device_id, camera, kind, device_since, \
             started_at, unsure_share, brightness, sure_share, sure_brightness) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (device_id, camera, kind) WHERE ended_at IS NULL DO NOTHING",
        )
        .bind(device)
        .bind(&n.camera)
        .bind(UNSURE)
        .bind(n.device_since)
        .bind(n.started_at)
        .bind(n.unsure_share)
        .bind(n.brightness)
        .bind(n.sure_share)
        .bind(n.sure_brightness)
        .execute(&db.pool)
        .await?;
    }
    Ok(())
}

type Row = (
    i64,
    String,
    i64,
    Option<i64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
);

/// Device `device`'s latest `limit` camera events, newest first.
pub async fn of_device(db: &Db, device: i64, limit: i64) -> sqlx::Result<Vec<CameraEvent>> {
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, camera, started_at, ended_at, unsure_share, brightness, sure_share, \
         sure_brightness FROM device_camera_events WHERE device_id = $1 AND kind = $2 \
         ORDER BY started_at DESC, id DESC LIMIT $3",
    )
    .bind(device)
    .bind(UNSURE)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(
                id,
                camera,
                started_at,
                ended_at,
                unsure_share,
                brightness,
                sure_share,
                sure_brightness,
            )| {
                CameraEvent {
                    id,
                    camera,
                    kind: CameraEventKind::Unsure,
                    started_at,
                    ended_at,
                    unsure_share,
                    brightness,
                    sure_share,
                    sure_brightness,
                }
            },
        )
        .collect())
}

#[cfg(test)]
mod tests {
    use gemba_shared::mqtt::v1::{CameraStatus, StatusMessage, VERSION};

    use super::*;

    fn status(ts_ms: i64, cameras: &[(&str, Option<i64>)]) -> StatusMessage {
        StatusMessage {
            v: VERSION,
            online: true,
            ts_ms,
            agent_version: String::new(),
            cameras: cameras
                .iter()
                .map(|(name, since)| CameraStatus {
                    camera: name.to_string(),
                    unsure_since_ms: *since,
                    unsure_share: since.map(|_| 0.8),
                    brightness: since.map(|_| 9.0),
                    sure_share: since.map(|_| 0.0),
                    sure_brightness: since.map(|_| 120.0),
                    ..CameraStatus::default()
                })
                .collect(),
            outbox: 0,
            disk_free_mb: None,
            temperature_c: None,
            config_version: 0,
            target: String::new(),
            updatable: false,
            update: None,
        }
    }

    fn open(id: i64, camera: &str, since: i64) -> Open {
        Open {
            id,
            camera: camera.into(),
            device_since: since,
        }
    }

    #[test]
    fn an_unsure_camera_opens_one_event_on_the_clouds_clock() {
        // The device's clock is 10 s behind the cloud's.
        let (end, new) = changes(
            &[],
            &status(5_000, &[("cam0", Some(1_000)), ("cam1", None)]),
            15_000,
        );
        assert!(end.is_empty());
        assert_eq!(new.len(), 1);
        assert_eq!(
            (new[0].camera.as_str(), new[0].started_at),
            ("cam0", 11_000)
        );
        assert_eq!(new[0].sure_brightness, Some(120.0));
        // The next status, still unsure since then: nothing changes.
        let (end, new) = changes(
            &[open(7, "cam0", 1_000)],
            &status(9_000, &[("cam0", Some(1_000))]),
            19_000,
        );
        assert!(end.is_empty() && new.is_empty());
    }

    #[test]
    fn an_event_ends_when_the_camera_is_sure_again_gone_or_the_device_offline() {
        let o = [open(7, "cam0", 1_000), open(8, "cam1", 2_000)];
        let (end, new) = changes(
            &o,
            &status(9_000, &[("cam0", None), ("cam1", Some(2_000))]),
            9_000,
        );
        assert_eq!((end, new), (vec![7], vec![]));
        let (end, _) = changes(&o, &status(9_000, &[]), 9_000);
        assert_eq!(end, vec![7, 8]);
        let mut will = status(0, &[]);
        will.online = false;
        assert_eq!(changes(&o, &will, 9_000).0, vec![7, 8]);
    }

    #[test]
    fn unsure_since_another_time_is_another_event() {
        let (end, new) = changes(
            &[open(7, "cam0", 1_000)],
            &status(9_000, &[("cam0", Some(5_000))]),
            9_000,
        );
        assert_eq!(end, vec![7]);
        assert_eq!(new[0].device_since, 5_000);
    }
}
