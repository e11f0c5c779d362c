//! Barcodes drawn into a grey camera-sized frame with rxing's writers (the
//! dev-dependency's `encoders`): the unit tests' frames, and `examples/barcode_bench.rs`'s,
//! which includes this file by its path. The agent itself never draws one.

use rxing::{BarcodeFormat, MultiFormatWriter, Writer};

/// A `width` × `height` grey frame with `value` drawn as `format` at (`x`, `y`), its
/// modules `scale` pixels wide (a quiet zone around it, as printed labels have).
pub fn frame_with(
    format: BarcodeFormat,
    value: &str,
    (width, height): (u32, u32),
    (x, y): (u32, u32),
    scale: u32,
) -> Vec<u8> {
    let (w, h) = match format {
        BarcodeFormat::CODE_128 => (0, 40),
        _ => (0, 0),
    };
    let m = MultiFormatWriter
        .encode(value, &format, w, h)
        .expect("the writer draws it");
    // Mid grey with a little texture, as a workstation's background.
    let mut f: Vec<u8> = (0..width * height)
        .map(|i| 120 + ((i * 7919) % 23) as u8)
        .collect();
    let quiet = 4 * scale;
    let (mw, mh) = (
        m.width() * scale + 2 * quiet,
        m.height() * scale + 2 * quiet,
    );
    for dy in 0..mh {
        for dx in 0..mw {
            let (px, py) = (x + dx, y + dy);
            if px >= width || py >= height {
                continue;
            }
            let inside = dx >= quiet && dy >= quiet && dx < mw - quiet && dy < mh - quiet;
            let dark = inside && m.get((dx - quiet) / scale, (dy - quiet) / scale);
            f[(py * width + px) as usize] = if dark { 20 } else { 235 };
        }
    }
    f
}
