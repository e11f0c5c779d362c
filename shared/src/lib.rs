//! gemba-shared: domain and wire types, validation, roles and permissions.
//!
//! No I/O and no panics on input. Serde only by default; the OpenAPI schema
//! derives are behind the `openapi` feature so the edge agent stays small.

pub mod api;
pub mod broker;
pub mod cycle;
pub mod eval;
pub mod footage;
pub mod model_io;
pub mod mqtt;
pub mod operation;
pub mod release;
pub mod roles;
pub mod validate;

pub use roles::{Permission, Role};

/// Bytes as lower-case hex (digests: token hashes, model checksums, ids).
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn hex_is_lower_case_two_digits_a_byte() {
        assert_eq!(super::hex(&[0x00, 0x0f, 0xab, 0xff]), "000fabff");
        assert_eq!(super::hex(&[]), "");
    }
}
