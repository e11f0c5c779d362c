//! Barcodes (spec sections 3 and 7 "Barcodes"): values an organisation prints on its
//! work (a QR code, Code 128 or DataMatrix label), each associated with at most one of
//! its tasks. A camera that reads an associated barcode starts that task
//! (`mqtt::v1::TaskBarcode` in the device's configuration).

use serde::{Deserialize, Serialize};

/// Most characters of a barcode's value (what a Code 128 label of normal width holds;
/// QR codes and DataMatrix hold more, but a value is typed and read by people too).
pub const MAX_BARCODE_CHARS: usize = 100;
/// Most barcodes of one organisation.
pub const MAX_BARCODES: usize = 1000;
/// Most barcodes associated with tasks in one organisation: each goes to every
/// device of the organisation with its task's engine settings.
pub const MAX_ASSOCIATED_BARCODES: usize = 32;

/// Spec section 3 "Barcode".
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Barcode {
    pub id: i64,
    pub barcode_value: String,
    /// The organisation's id.
    pub organization: i64,
    /// The tasks it is associated with (at most one).
    pub tasks: Vec<BarcodeTask>,
}

/// A task a barcode is associated with.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BarcodeTask {
    /// The association's id.
    pub id: i64,
    pub task: i64,
    pub task_name: String,
}

/// `PUT account/create_custom_barcode/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BarcodeCreate {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub barcode_value: String,
    /// The organisation; defaults to the one the request acts in.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub organization: Option<i64>,
}

/// `PATCH account/update_barcode_value/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BarcodeValuePatch {
    pub id: i64,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub barcode_value: String,
}

/// Spec section 3 "Associated barcode": `barcode` is the value, `barcode_id` its id.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssociatedBarcode {
    pub id: i64,
    pub task: i64,
    pub barcode: String,
    pub barcode_id: i64,
}

/// `POST account/associate_barcode/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssociateBarcode {
    pub task: i64,
    pub barcode_id: i64,
}

/// `PATCH account/associate_barcode/{id}/`: another barcode, or another task, for the
/// association; a field left out stays.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct AssociateBarcodePatch {
    pub task: Option<i64>,
    pub barcode_id: Option<i64>,
}

/// A barcode's value as it is kept: trimmed; 1 to [`MAX_BARCODE_CHARS`] characters,
/// none a control character. The error is the field's message.
pub fn check_value(v: &str) -> Result<String, String> {
    let v = v.trim();
    if v.is_empty() {
        return Err("A barcode value is required.".into());
    }
    if v.chars().count() > MAX_BARCODE_CHARS {
        return Err(format!(
            "Barcode value must be at most {MAX_BARCODE_CHARS} characters."
        ));
    }
    if v.chars().any(char::is_control) {
        return Err(
            "A barcode value cannot contain control characters (line breaks, tabs).".into(),
        );
    }
    Ok(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_trimmed_bounded_and_printable() {
        assert_eq!(check_value("  LOT-42 ").unwrap(), "LOT-42");
        assert!(check_value("   ").is_err());
        assert!(check_value("a\tb").is_err());
        assert!(check_value(&"x".repeat(MAX_BARCODE_CHARS)).is_ok());
        assert!(check_value(&"x".repeat(MAX_BARCODE_CHARS + 1)).is_err());
    }
}
