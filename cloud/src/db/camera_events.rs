//! What happened to a device and its cameras, kept after it ended (issues 26 and 30):
//! the model unsure of what a camera sees (`unsure_since_ms`), and the faults the agent
//! reports (`Fault`): a camera offline, frozen, slow or its model failing; the device's
//! outbox filling or its disk low (camera `""`).
//!
//! Each status of a device is compared with its open events ([`changes`], plain logic):
//! what the status says (a camera unsure since a time, a fault since a time) opens an
//! event (started at the device's time, put on the cloud's clock by the status's own
//! send time against its arrival); an open event the status no longer says (over,
//! the camera stopped or gone, or the device offline) ends at the status's arrival. The
//! same kind since another time ends the open one and opens another.
//!
//! Invariant: at most one open event per device, camera and kind (a partial unique
//! index); a second replica opening the same one changes nothing, and only the replica
//! that opened an event mails it ([`note_status`] answers the events it opened).

use gemba_shared::api::v1::device::{CameraEvent, CameraEventKind, DeviceEvent};
use gemba_shared::mqtt::v1::StatusMessage;

use super::Db;

/// The events the device page lists.
pub const LISTED: i64 = 20;

/// An open event, as [`changes`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    pub id: i64,
    pub camera: String,
    pub kind: CameraEventKind,
    /// Its start on the device's clock.
    pub device_since: i64,
}

/// An event to open.
#[derive(Debug, Clone, PartialEq)]
pub struct New {
    pub camera: String,
    pub kind: CameraEventKind,
    pub device_since: i64,
    /// On the cloud's clock.
    pub started_at: i64,
    pub unsure_share: Option<f64>,
    pub brightness: Option<f64>,
    pub sure_share: Option<f64>,
    pub sure_brightness: Option<f64>,
    pub detail: Option<String>,
}

/// What `status` says is going on (with the start on the device's clock, not yet the
/// cloud's): nothing when the device is offline.
fn said(status: &StatusMessage) -> Vec<New> {
    if !status.online {
        return vec![];
    }
    let blank = |camera: &str, kind, since| New {
        camera: camera.to_string(),
        kind,
        device_since: since,
        started_at: since,
        unsure_share: None,
        brightness: None,
        sure_share: None,
        sure_brightness: None,
        detail: None,
    };
    let mut out = vec![];
    for c in &status.cameras {
        if let Some(since) = c.unsure_since_ms {
            out.push(New {
                unsure_share: c.unsure_share.map(figure),
                brightness: c.brightness.map(figure),
                sure_share: c.sure_share.map(figure),
                sure_brightness: c.sure_brightness.map(figure),
                ..blank(&c.camera, CameraEventKind::Unsure, since)
            });
        }
        for f in &c.faults {
            out.push(New {
                detail: f.detail.clone(),
                ..blank(&c.camera, f.kind, f.since_ms)
            });
        }
    }
    for f in &status.faults {
        out.push(New {
            detail: f.detail.clone(),
            ..blank("", f.kind, f.since_ms)
        });
    }
    out
}

/// What a status does to the open events: those to end (ids), those to open.
pub fn changes(open: &[Open], status: &StatusMessage, now: i64) -> (Vec<i64>, Vec<New>) {
    // The device's clock to the cloud's (the last will carries no time).
    let skew = if status.ts_ms > 0 {
        now - status.ts_ms
    } else {
        0
    };
    let said = said(status);
    let same = |o: &Open, n: &New| {
        o.camera == n.camera && o.kind == n.kind && o.device_since == n.device_since
    };
    let end = open
        .iter()
        .filter(|o| !said.iter().any(|n| same(o, n)))
        .map(|o| o.id)
        .collect();
    let new = said
        .into_iter()
        .filter(|n| !open.iter().any(|o| same(o, n)))
        .map(|n| New {
            started_at: (n.device_since + skew).min(now),
            ..n
        })
        .collect();
    (end, new)
}

/// A status's figure as kept: to 4 decimals (an `f32`'s digits beyond mean nothing).
fn figure(x: f32) -> f64 {
    (f64::from(x) * 1e4).round() / 1e4
}

/// Notes what device `device`'s new status says of its events. `before`: its previous
/// status; when neither says anything is going on there is nothing to do (and nothing
/// is read). Answers the events this call opened (for their mails).
pub async fn note_status(
    db: &Db,
    device: i64,
    before: Option<&StatusMessage>,
    status: &StatusMessage,
    now: i64,
) -> sqlx::Result<Vec<New>> {
    if said(status).is_empty() && before.is_none_or(|b| said(b).is_empty()) {
        return Ok(vec![]);
    }
    let open: Vec<(i64, String, String, i64)> = sqlx::query_as(
        "SELECT id, camera, kind, device_since FROM device_camera_events \
         WHERE device_id = $1 AND ended_at IS NULL",
    )
    .bind(device)
    .fetch_all(&db.pool)
    .await?;
    let open: Vec<Open> = open
        .into_iter()
        .filter_map(|(id, camera, kind, device_since)| {
            Some(Open {
                id,
                camera,
                kind: CameraEventKind::parse(&kind)?,
                device_since,
            })
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
    let mut opened = vec![];
    for n in new {
        let done = sqlx::query(
            "INSERT INTO device_camera_events (device_id, camera, kind, device_since, \
             started_at, unsure_share, brightness, sure_share, sure_brightness, detail) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (device_id, camera, kind) WHERE ended_at IS NULL DO NOTHING",
        )
        .bind(device)
        .bind(&n.camera)
        .bind(n.kind.as_str())
        .bind(n.device_since)
        .bind(n.started_at)
        .bind(n.unsure_share)
        .bind(n.brightness)
        .bind(n.sure_share)
        .bind(n.sure_brightness)
        .bind(&n.detail)
        .execute(&db.pool)
        .await?;
        if done.rows_affected() == 1 {
            opened.push(n);
        }
    }
    Ok(opened)
}

type Row = (
    i64,
    String,
    String,
    i64,
    Option<i64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<String>,
);

const EVENT_COLS: &str = "e.id, e.camera, e.kind, e.started_at, e.ended_at, e.unsure_share, \
     e.brightness, e.sure_share, e.sure_brightness, e.detail";

/// A row of [`EVENT_COLS`] as an event; `None` for a kind this build does not know.
fn event_of(
    (
        id,
        camera,
        kind,
        started_at,
        ended_at,
        unsure_share,
        brightness,
        sure_share,
        sure_brightness,
        detail,
    ): Row,
) -> Option<CameraEvent> {
    Some(CameraEvent {
        id,
        camera,
        kind: CameraEventKind::parse(&kind)?,
        started_at,
        ended_at,
        unsure_share,
        brightness,
        sure_share,
        sure_brightness,
        detail,
    })
}

/// Device `device`'s latest `limit` events, newest first.
pub async fn of_device(db: &Db, device: i64, limit: i64) -> sqlx::Result<Vec<CameraEvent>> {
    let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {EVENT_COLS} FROM device_camera_events e WHERE e.device_id = $1 \
         ORDER BY e.started_at DESC, e.id DESC LIMIT $2"
    )))
    .bind(device)
    .bind(limit)
    .fetch_all(&db.pool)
    .await?;
    Ok(rows.into_iter().filter_map(event_of).collect())
}

/// The open events of these devices (their health), oldest first, in one query.
pub async fn open_of(db: &Db, devices: &[i64]) -> sqlx::Result<Vec<(i64, CameraEvent)>> {
    if devices.is_empty() {
        return Ok(vec![]);
    }
    let ids = devices
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let rows: Vec<(i64, Row)> = sqlx::query_as::<_, DeviceRow>(sqlx::AssertSqlSafe(format!(
        "SELECT e.device_id, {EVENT_COLS} FROM device_camera_events e \
         WHERE e.device_id IN ({ids}) AND e.ended_at IS NULL ORDER BY e.started_at, e.id"
    )))
    .fetch_all(&db.pool)
    .await?
    .into_iter()
    .map(split)
    .collect();
    Ok(rows
        .into_iter()
        .filter_map(|(d, r)| Some((d, event_of(r)?)))
        .collect())
}

/// Most events [`of_org`] answers.
pub const ORG_EVENTS: i64 = 500;

/// Organisation `org`'s device events that overlap `[start, end)` (open ones last as
/// long as now), of device `device` if given: open ones first, then newest first; at most
/// [`ORG_EVENTS`].
pub async fn of_org(
    db: &Db,
    org: i64,
    start: i64,
    end: i64,
    device: Option<i64>,
) -> sqlx::Result<Vec<DeviceEvent>> {
    let rows: Vec<(i64, String, Row)> = sqlx::query_as::<_, OrgRow>(sqlx::AssertSqlSafe(format!(
        "SELECT e.device_id, d.display_name, {EVENT_COLS} FROM device_camera_events e \
         JOIN devices d ON d.id = e.device_id \
         WHERE d.organization_id = $1 AND e.started_at < $3 \
         AND (e.ended_at IS NULL OR e.ended_at >= $2) AND ($4 IS NULL OR e.device_id = $4) \
         ORDER BY CASE WHEN e.ended_at IS NULL THEN 0 ELSE 1 END, e.started_at DESC, e.id DESC \
         LIMIT $5"
    )))
    .bind(org)
    .bind(start)
    .bind(end)
    .bind(device)
    .bind(ORG_EVENTS)
    .fetch_all(&db.pool)
    .await?
    .into_iter()
    .map(|(d, name, id, camera, kind, s, e, us, b, ss, sb, detail)| {
        (d, name, (id, camera, kind, s, e, us, b, ss, sb, detail))
    })
    .collect();
    Ok(rows
        .into_iter()
        .filter_map(|(device, device_name, r)| {
            Some(DeviceEvent {
                device,
                device_name,
                event: event_of(r)?,
            })
        })
        .collect())
}

type DeviceRow = (
    i64,
    i64,
    String,
    String,
    i64,
    Option<i64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<String>,
);

type OrgRow = (
    i64,
    String,
    i64,
    String,
    String,
    i64,
    Option<i64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<String>,
);

fn split((d, id, camera, kind, s, e, us, b, ss, sb, detail): DeviceRow) -> (i64, Row) {
    (d, (id, camera, kind, s, e, us, b, ss, sb, detail))
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
            faults: vec![],
        }
    }

    fn open(id: i64, camera: &str, since: i64) -> Open {
        Open {
            id,
            camera: camera.into(),
            kind: CameraEventKind::Unsure,
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

    #[test]
    fn faults_of_cameras_and_of_the_device_are_events_of_their_kinds() {
        use gemba_shared::mqtt::v1::Fault;
        let fault = |kind, since_ms| Fault {
            kind,
            since_ms,
            detail: Some("said".into()),
        };
        let mut s = status(5_000, &[("cam0", None)]);
        s.cameras[0].faults = vec![fault(CameraEventKind::Offline, 1_000)];
        s.faults = vec![fault(CameraEventKind::DiskLow, 2_000)];
        let (end, new) = changes(&[], &s, 15_000);
        assert!(end.is_empty());
        let got: Vec<_> = new
            .iter()
            .map(|n| (n.camera.as_str(), n.kind, n.started_at, n.detail.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("cam0", CameraEventKind::Offline, 11_000, Some("said")),
                ("", CameraEventKind::DiskLow, 12_000, Some("said")),
            ]
        );
        // Open already: nothing new. The camera back: its event ends, the disk's stays.
        let open = [
            Open {
                id: 1,
                camera: "cam0".into(),
                kind: CameraEventKind::Offline,
                device_since: 1_000,
            },
            Open {
                id: 2,
                camera: String::new(),
                kind: CameraEventKind::DiskLow,
                device_since: 2_000,
            },
        ];
        assert_eq!(changes(&open, &s, 16_000), (vec![], vec![]));
        s.cameras[0].faults.clear();
        assert_eq!(changes(&open, &s, 17_000).0, vec![1]);
        // The same kind of the same camera is not another kind's event.
        s.cameras[0].faults = vec![fault(CameraEventKind::Frozen, 1_000)];
        let (end, new) = changes(&open, &s, 18_000);
        assert_eq!(
            (end, new.len(), new[0].kind),
            (vec![1], 1, CameraEventKind::Frozen)
        );
    }
}
