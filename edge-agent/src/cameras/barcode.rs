//! Barcodes in a camera's view (issue 31): a QR code, Code 128 or DataMatrix label read
//! with `rxing` (zxing in pure Rust) on a grayscale frame, a few times a second, never
//! on every frame.
//!
//! Pure parts, apart from the pipeline that feeds them (the capture's barcode branch,
//! `crate::capture::codes`, read on a thread of its own: [`feed`]):
//! - [`Reader`]: one grayscale frame → the barcode in it, if any;
//! - [`Sampler`]: which frames are read ([`READS_PER_SECOND`] of the camera's time);
//! - [`Station`]: what a read means for the camera: its value goes on the cycle that
//!   finishes next (`metadata["barcode"]`, which line traceability follows from station
//!   to station), and a value the organisation associated with a task
//!   (`mqtt::v1::TaskBarcode` in the device's configuration) starts that task on the
//!   camera. A label in view is read again and again: the same value within
//!   [`REPEAT_MS`] of its last read is the same label, not a new part.
//!
//! Another task running on the camera when a barcode of a task is read: the barcode's
//! task replaces it (the station changed product), as a start from the portal does;
//! the open cycle of the task it stops is closed as a stop closes it
//! (docs/decisions.md "Barcodes on the agent").

use std::collections::HashSet;

use gemba_shared::cycle::EngineConfig;
use gemba_shared::mqtt::v1::TaskBarcode;
use rxing::common::HybridBinarizer;
use rxing::{
    BarcodeFormat, BinaryBitmap, DecodeHints, Luma8Source, MultiFormatReader, Reader as _,
};

/// How many frames a second are read for a barcode.
pub const READS_PER_SECOND: i64 = 4;
/// The same value read again within this time is the same label still in view.
pub const REPEAT_MS: i64 = 5_000;
/// The metadata key of a cycle's barcode (what line traceability reads).
pub const METADATA_KEY: &str = "barcode";

/// The symbologies read, in the order they are tried.
pub const FORMATS: [BarcodeFormat; 3] = [
    BarcodeFormat::QR_CODE,
    BarcodeFormat::DATA_MATRIX,
    BarcodeFormat::CODE_128,
];

/// Reads one barcode in a grayscale frame.
pub struct Reader {
    reader: MultiFormatReader,
    /// One set of hints per symbology, tried in a fixed order (one set of all three is
    /// tried in a hash set's order, which differs from run to run).
    hints: Vec<DecodeHints>,
}

impl Default for Reader {
    fn default() -> Reader {
        Reader {
            reader: MultiFormatReader::default(),
            hints: FORMATS
                .iter()
                .map(|f| DecodeHints {
                    PossibleFormats: Some(HashSet::from([*f])),
                    // Looking harder costs several times the time; a few reads a second
                    // of a label held up to the camera find it anyway.
                    TryHarder: Some(false),
                    ..DecodeHints::default()
                })
                .collect(),
        }
    }
}

impl Reader {
    /// The value and symbology of a barcode in `luma` (`width` × `height`, one byte a
    /// pixel, rows top to bottom), if one is readable.
    pub fn read(
        &mut self,
        luma: &[u8],
        width: u32,
        height: u32,
    ) -> Option<(String, BarcodeFormat)> {
        let source = Luma8Source::new_with_slice(luma, width, height).ok()?;
        let mut bitmap = BinaryBitmap::new(HybridBinarizer::new(source));
        for hints in &self.hints {
            if let Ok(r) = self.reader.decode_with_hints(&mut bitmap, hints) {
                let value = r.getText().trim().to_string();
                if !value.is_empty() {
                    return Some((value, *r.getBarcodeFormat()));
                }
            }
        }
        None
    }
}

/// The luma of an RGB frame (BT.601 weights, integer arithmetic).
pub fn luma_of_rgb(rgb: &[u8]) -> Vec<u8> {
    rgb.chunks_exact(3)
        .map(|p| ((77 * u32::from(p[0]) + 150 * u32::from(p[1]) + 29 * u32::from(p[2])) >> 8) as u8)
        .collect()
}

/// Which frames are read: the first, then one per `1000 / READS_PER_SECOND` ms of the
/// camera's time (a source that starts again, such as a looped file, starts over).
#[derive(Debug, Default)]
pub struct Sampler {
    next_ms: Option<i64>,
}

impl Sampler {
    pub fn due(&mut self, t_ms: i64) -> bool {
        let every = 1000 / READS_PER_SECOND;
        match self.next_ms {
            Some(n) if t_ms < n && n - t_ms <= every => false,
            _ => {
                self.next_ms = Some(t_ms + every);
                true
            }
        }
    }
}

/// What a read asks of the camera.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Put this value on the cycle that finishes next.
    Attach(String),
    /// Run this task on the camera (in place of the one it runs).
    Start { task: i64, engine: EngineConfig },
}

/// One camera's barcodes: the organisation's task barcodes, the task it runs, the
/// label last read.
#[derive(Debug, Default)]
pub struct Station {
    barcodes: Vec<TaskBarcode>,
    task: Option<i64>,
    last: Option<(String, i64)>,
}

impl Station {
    pub fn new(barcodes: Vec<TaskBarcode>, task: Option<i64>) -> Station {
        Station {
            barcodes,
            task,
            last: None,
        }
    }

    /// The organisation's task barcodes changed (a new configuration): a label in view
    /// is looked at again, as it may start a task now.
    pub fn set_barcodes(&mut self, barcodes: Vec<TaskBarcode>) {
        if barcodes != self.barcodes {
            self.last = None;
        }
        self.barcodes = barcodes;
    }

    /// The camera now runs `task` (or nothing).
    pub fn set_task(&mut self, task: Option<i64>) {
        self.task = task;
    }

    /// `value` was read at `t_ms` (the camera's time): what to do, nothing for the same
    /// label still in view.
    pub fn read(&mut self, value: &str, t_ms: i64) -> Vec<Action> {
        let again = self
            .last
            .as_ref()
            .is_some_and(|(v, at)| v == value && (0..REPEAT_MS).contains(&(t_ms - at)));
        self.last = Some((value.to_string(), t_ms));
        if again {
            return vec![];
        }
        let mut out = vec![];
        if let Some(b) = self.barcodes.iter().find(|b| b.value == value)
            && self.task != Some(b.task)
        {
            out.push(Action::Start {
                task: b.task,
                engine: b.engine.clone(),
            });
            self.task = Some(b.task);
        }
        out.push(Action::Attach(value.to_string()));
        out
    }
}

/// Another task for a camera, asked for by the barcode it read.
#[derive(Debug, Clone, PartialEq)]
pub struct Switch {
    pub task: i64,
    pub engine: EngineConfig,
    /// The value read: it goes on the new task's first cycle, not on this one's.
    pub barcode: String,
}

/// The task `actions` (of reading `value`) start on the camera, if any.
pub fn switch_of(actions: &[Action], value: &str) -> Option<Switch> {
    actions.iter().find_map(|a| match a {
        Action::Start { task, engine } => Some(Switch {
            task: *task,
            engine: engine.clone(),
            barcode: value.to_string(),
        }),
        Action::Attach(_) => None,
    })
}

pub mod feed;

#[cfg(test)]
mod drawn;
#[cfg(test)]
mod tests;
