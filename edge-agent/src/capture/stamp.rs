//! The time-stamped test camera (`stamp`): GStreamer's test source with the wall
//! clock's milliseconds drawn into each frame as it is made, a row of 48 black or white
//! blocks across the top (most significant bit first). A viewer that reads the blocks
//! back from the picture it shows knows how long the frame took from "glass" (here,
//! its making) to glass: the live view benchmark (`bench/live.sh`), or a technician
//! measuring a plant's network.

use gstreamer as gst;
use gstreamer::prelude::*;

/// Bits drawn: the Unix time in milliseconds fits in 48 until the year 10889.
pub const BITS: usize = 48;
/// The frame's size (I420).
pub const WIDTH: usize = 640;
pub const HEIGHT: usize = 360;
/// The band's height in rows.
pub const BAND: usize = 40;

/// The pipeline's head for the stamped source (its identity is where frames are drawn).
pub fn head() -> String {
    format!(
        "videotestsrc name=src is-live=true pattern=smpte \
         ! video/x-raw,format=I420,width={WIDTH},height={HEIGHT},framerate=30/1 \
         ! identity name=stamp"
    )
}

/// Draws `ms` into the luma plane `y` (rows of `stride` bytes, `WIDTH` wide).
pub fn draw(y: &mut [u8], stride: usize, ms: u64) {
    let block = WIDTH / BITS;
    for row in 0..BAND {
        let line = &mut y[row * stride..row * stride + WIDTH];
        for (bit, px) in line.chunks_mut(block).take(BITS).enumerate() {
            let on = (ms >> (BITS - 1 - bit)) & 1 == 1;
            px.fill(if on { 235 } else { 16 });
        }
    }
}

/// Reads the time back from a luma plane (the middle of each block, half way down the
/// band), as a viewer does from the picture it shows.
pub fn read(y: &[u8], stride: usize) -> u64 {
    let block = WIDTH / BITS;
    let row = BAND / 2;
    (0..BITS).fold(0u64, |acc, bit| {
        let v = y[row * stride + bit * block + block / 2];
        (acc << 1) | u64::from(v > 128)
    })
}

/// Stamps every frame passing the pipeline's `stamp` element with the time then.
pub fn install(pipeline: &gst::Pipeline) -> anyhow::Result<()> {
    let id = pipeline
        .by_name("stamp")
        .ok_or_else(|| anyhow::anyhow!("the stamp element is named"))?;
    let pad = id
        .static_pad("src")
        .ok_or_else(|| anyhow::anyhow!("identity has a source pad"))?;
    pad.add_probe(gst::PadProbeType::BUFFER, |_, info| {
        if let Some(gst::PadProbeData::Buffer(buffer)) = info.data.as_mut() {
            let ms = crate::clock::now_ms().max(0) as u64;
            let b = buffer.make_mut();
            if let Ok(mut map) = b.map_writable() {
                // I420: the luma plane first, `WIDTH` bytes a row, then the two chroma
                // planes at half size, made grey under the band.
                let f = map.as_mut_slice();
                let (luma, chroma) = (WIDTH * HEIGHT, (WIDTH / 2) * (HEIGHT / 2));
                if f.len() >= luma + 2 * chroma {
                    draw(&mut f[..luma], WIDTH, ms);
                    for plane in [luma, luma + chroma] {
                        f[plane..plane + (WIDTH / 2) * (BAND / 2)].fill(128);
                    }
                }
            }
        }
        gst::PadProbeReturn::Ok
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_drawn_reads_back() {
        let mut y = vec![128u8; WIDTH * HEIGHT];
        for ms in [0u64, 1, 1_795_000_000_123, (1 << 48) - 1] {
            draw(&mut y, WIDTH, ms);
            assert_eq!(read(&y, WIDTH), ms);
        }
    }
}
