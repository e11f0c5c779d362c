//! The device's own faults (issue 30): its outbox filling (the cloud has not taken its
//! cycles for a while) and its disk nearly full. Plain logic fed each second by the
//! agent's loop with the outbox's length and the data folder's file system.

use gemba_shared::api::v1::device::CameraEventKind;
use gemba_shared::mqtt::v1::Fault;

/// The outbox is filling from this share of its capacity.
pub const OUTBOX_FILLING: f64 = 0.5;
/// The disk is low under this much free space…
pub const DISK_LOW_BYTES: u64 = 1 << 30;
/// …or under this share of its size.
pub const DISK_LOW_SHARE: f64 = 0.05;

#[derive(Debug, Default)]
pub(super) struct DeviceVitals {
    outbox: Option<(i64, usize, usize)>,
    /// Since when, its free and total bytes.
    disk: Option<(i64, u64, u64)>,
    disk_free: Option<u64>,
}

impl DeviceVitals {
    /// The outbox holds `len` of `capacity` messages; the disk has `disk` (free, total)
    /// bytes, when it could be read; at `now_ms`.
    pub fn tend(&mut self, now_ms: i64, len: usize, capacity: usize, disk: Option<(u64, u64)>) {
        let filling = capacity > 0 && len as f64 >= capacity as f64 * OUTBOX_FILLING;
        self.outbox = filling.then(|| {
            let since = self.outbox.map_or(now_ms, |(s, _, _)| s);
            (since, len, capacity)
        });
        self.disk_free = disk.map(|(free, _)| free);
        let low = disk.filter(|&(free, total)| {
            free < DISK_LOW_BYTES || (total > 0 && (free as f64) < total as f64 * DISK_LOW_SHARE)
        });
        self.disk = low.map(|(free, total)| {
            let since = self.disk.map_or(now_ms, |(s, _, _)| s);
            (since, free, total)
        });
    }

    pub fn faults(&self) -> Vec<Fault> {
        let mut out = vec![];
        if let Some((since, len, capacity)) = self.outbox {
            out.push(Fault {
                kind: CameraEventKind::OutboxFilling,
                since_ms: since,
                detail: Some(format!(
                    "{len} of {capacity} messages wait to be sent: the cloud has not taken them"
                )),
            });
        }
        if let Some((since, free, total)) = self.disk {
            out.push(Fault {
                kind: CameraEventKind::DiskLow,
                since_ms: since,
                detail: Some(format!("{} MiB free of {} MiB", free >> 20, total >> 20)),
            });
        }
        out
    }

    pub fn disk_free_mb(&self) -> Option<u64> {
        self.disk_free.map(|b| b >> 20)
    }
}

/// The free and total bytes of the file system holding `path`.
pub(super) fn disk_of(path: &std::path::Path) -> Option<(u64, u64)> {
    let s = rustix::fs::statvfs(path).ok()?;
    Some((s.f_bavail * s.f_frsize, s.f_blocks * s.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outbox_past_half_full_is_filling_from_when_it_first_was() {
        let mut v = DeviceVitals::default();
        v.tend(0, 49, 100, None);
        assert!(v.faults().is_empty());
        v.tend(1_000, 50, 100, None);
        v.tend(2_000, 70, 100, None);
        let f = v.faults();
        assert_eq!(
            (f[0].kind, f[0].since_ms),
            (CameraEventKind::OutboxFilling, 1_000)
        );
        assert!(f[0].detail.as_deref().unwrap().starts_with("70 of 100"));
        v.tend(3_000, 10, 100, None);
        assert!(v.faults().is_empty());
        assert_eq!(v.disk_free_mb(), None);
    }

    #[test]
    fn a_disk_under_a_gibibyte_or_five_percent_free_is_low() {
        let gib = 1u64 << 30;
        let mut v = DeviceVitals::default();
        v.tend(0, 0, 100, Some((10 * gib, 100 * gib)));
        assert!(v.faults().is_empty());
        assert_eq!(v.disk_free_mb(), Some(10 * 1024));
        // 4 % free of a large disk.
        v.tend(5_000, 0, 100, Some((40 * gib, 1000 * gib)));
        v.tend(6_000, 0, 100, Some((39 * gib, 1000 * gib)));
        let f = v.faults();
        assert_eq!(
            (f[0].kind, f[0].since_ms),
            (CameraEventKind::DiskLow, 5_000)
        );
        // Under 1 GiB of a small one.
        v.tend(7_000, 0, 100, Some((gib / 2, 8 * gib)));
        assert_eq!(v.faults()[0].since_ms, 5_000);
        v.tend(8_000, 0, 100, Some((4 * gib, 8 * gib)));
        assert!(v.faults().is_empty());
        assert!(disk_of(std::path::Path::new("/")).is_some_and(|(f, t)| f <= t && t > 0));
    }
}
