//! The agent's version: the crate's, unless a release stamped another into the binary
//! (`gemba-agent stamp-version`). A release pipeline builds once and stamps each
//! release's version (a build number, a release candidate) into a copy without
//! building again; the stamp is part of the binary, so it is covered by the release's
//! hash and signature like every other byte.
//!
//! The stamp lives in [`SLOT`]: a marker, then room for the version (NUL-padded).
//! Stamping finds the marker in the binary file (it must be there exactly once) and
//! writes the version after it.

/// What the slot starts with. Only ever in [`SLOT`]: the search below reads it from
/// the slot itself, so the binary holds no second copy of these bytes.
const MARKER_LEN: usize = 28;
/// The most bytes a stamped version takes.
const ROOM: usize = 64;
const SLOT_LEN: usize = MARKER_LEN + ROOM;

const fn slot() -> [u8; SLOT_LEN] {
    let marker = *b"\x00gemba-agent-version-stamp\x00\x01";
    let mut s = [0u8; SLOT_LEN];
    let mut i = 0;
    while i < MARKER_LEN {
        s[i] = marker[i];
        i += 1;
    }
    s
}

static SLOT: [u8; SLOT_LEN] = slot();

/// The slot as it is in this process's memory (read through an opaque reference, so
/// the compiler cannot fold in the unstamped contents).
fn slot_now() -> [u8; SLOT_LEN] {
    *std::hint::black_box(&SLOT)
}

/// The version this binary reports.
pub fn version() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| {
        let s = slot_now();
        let stamped: Vec<u8> = s[MARKER_LEN..]
            .iter()
            .copied()
            .take_while(|&b| b != 0)
            .collect();
        match String::from_utf8(stamped) {
            Ok(v) if !v.is_empty() => v,
            _ => env!("CARGO_PKG_VERSION").to_string(),
        }
    })
}

/// `binary` (the bytes of a `gemba-agent`) with `version` stamped in.
pub fn stamp(binary: &[u8], version: &str) -> anyhow::Result<Vec<u8>> {
    gemba_shared::release::check_version(version).map_err(anyhow::Error::msg)?;
    let marker = &slot_now()[..MARKER_LEN];
    let at: Vec<usize> = binary
        .windows(MARKER_LEN)
        .enumerate()
        .filter(|(_, w)| *w == marker)
        .map(|(i, _)| i)
        .collect();
    let [at] = at[..] else {
        anyhow::bail!(
            "this is not a gemba-agent binary with one version slot ({} found)",
            at.len()
        );
    };
    let mut out = binary.to_vec();
    let room = &mut out[at + MARKER_LEN..at + SLOT_LEN];
    room.fill(0);
    room[..version.len()].copy_from_slice(version.as_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_goes_in_the_one_slot_and_only_a_version_fits() {
        assert_eq!(version(), env!("CARGO_PKG_VERSION"));
        let mut bin = b"ELF...".to_vec();
        bin.extend_from_slice(&SLOT);
        bin.extend_from_slice(b"...end");
        let out = stamp(&bin, "2.0.0-rc.1").unwrap();
        assert_eq!(out.len(), bin.len());
        let at = 6 + MARKER_LEN;
        assert_eq!(&out[at..at + 10], b"2.0.0-rc.1");
        assert!(out[at + 10..at + ROOM].iter().all(|&b| b == 0));
        // Stamped again: the new version whole, nothing of the old left.
        let again = stamp(&out, "3").unwrap();
        assert_eq!(&again[at..at + 2], b"3\0");
        // No slot, two slots, a version that is not one: refused.
        assert!(stamp(b"not an agent", "1.0").is_err());
        let mut two = bin.clone();
        two.extend_from_slice(&SLOT);
        assert!(
            stamp(&two, "1.0")
                .unwrap_err()
                .to_string()
                .contains("2 found")
        );
        assert!(stamp(&bin, "../1").is_err());
        assert!(stamp(&bin, &"1".repeat(65)).is_err());
    }
}
