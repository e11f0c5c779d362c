//! IoT Infrastructure: devices online and health events.

use std::collections::BTreeMap;

use gemba_shared::api::v1::device::{DeviceEvent, DeviceStatus};

use crate::assistant::facts::{Facts, Period, link, method, text};

/// IoT Infrastructure: devices online, and the health events of the period by kind.
pub fn iot(p: Period, devices: &[DeviceStatus], events: &[DeviceEvent]) -> Facts {
    let mut f = Facts::default();
    let all = link("/user/devices", &[]);
    if devices.is_empty() {
        f.note("The organisation has no devices.");
        return f;
    }
    let online = devices.iter().filter(|d| d.online).count();
    let n = f.figure("Devices", devices.len() as f64, "devices", all.clone());
    let on = f.figure("Devices online", online as f64, "devices", all.clone());
    f.fact(
        format!("{} of {} are online.", f.cite(&on), f.cite(&n)),
        vec![on, n],
        None,
    );
    for d in devices.iter().filter(|d| !d.online) {
        let seen = d
            .last_seen
            .and_then(chrono::DateTime::from_timestamp_millis)
            .map_or("never".to_string(), |t| {
                t.format("%Y-%m-%d %H:%M UTC").to_string()
            });
        f.fact(
            format!("{} is offline (last heard {seen}).", d.display_name),
            vec![],
            Some(method::TPM),
        );
    }
    let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for e in events {
        let k = serde_json::to_value(e.event.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let c = kinds.entry(k).or_default();
        c.0 += 1;
        if e.event.ended_at.is_none() {
            c.1 += 1;
        }
    }
    let (from, to) = p.days();
    let here = link("/user/devices", &[("from", from), ("to", to)]);
    for (kind, (n, open)) in &kinds {
        let words = kind.replace('_', " ");
        let c = f.figure(
            format!("Health events: {words}"),
            *n as f64,
            "events",
            here.clone(),
        );
        f.fact(
            format!(
                "{} of {words} in the period, {} still open.",
                f.cite(&c),
                text(*open as f64)
            ),
            vec![c],
            Some(method::TPM),
        );
    }
    if !kinds.is_empty() {
        f.advice(
            "Treat the devices and cameras as equipment: a daily check of the open events, the \
             causes of the repeated ones fixed (TPM), so that no cycle goes unrecorded."
                .to_string(),
            vec![],
            method::TPM,
        );
        f.ask("Which device has the most health events, and why?");
    } else {
        f.fact("No health events in the period.".to_string(), vec![], None);
    }
    f
}
