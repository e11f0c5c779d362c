//! A PDF's text, by `pdf-extract` (pure Rust, over `lopdf`): lines as the page draws
//! them, which [`super::outline::from_text`] then reads like a text file. A PDF that
//! holds only pictures of text (a scan) has none, and says so.

/// The PDF's text, or why it cannot be read. `pdf-extract` panics on some damaged
/// files; that is caught here and answered as damage.
pub fn text(bytes: &[u8]) -> Result<String, String> {
    let read = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(bytes));
    let text = match read {
        Ok(Ok(text)) => text,
        Ok(Err(pdf_extract::OutputError::PdfError(e))) if e.to_string().contains("ncrypt") => {
            return Err("The PDF is encrypted: save it without a password first.".into());
        }
        Ok(Err(_)) | Err(_) => {
            return Err("The PDF is damaged: its text could not be read.".into());
        }
    };
    if text.trim().is_empty() {
        return Err(
            "The PDF has no text to read (a scanned page is a picture): export it from the document it was made from."
                .into(),
        );
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_is_an_answer_not_a_panic() {
        assert!(text(b"%PDF-1.4\n garbage").unwrap_err().contains("damaged"));
        assert!(text(b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF")
            .is_err());
    }
}
