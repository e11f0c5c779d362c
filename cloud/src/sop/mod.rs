//! Operations from documents (spec section 7 `organization/task/extract_task_from_doc/`):
//! a standard operating procedure as .docx, .pdf or plain text becomes a draft operation
//! the user checks and saves in the editor. Nothing here is stored.
//!
//! - [`outline`]: each paragraph classified (title, heading, list item and its depth,
//!   prose) by its own marks;
//! - [`docx`], [`pdf`]: the readers, which make those paragraphs (a Word document's
//!   styles and lists say more than its text);
//! - [`draft`]: the paragraphs as processes, steps and sub-steps, fitted to the save
//!   rules, with notes of what the user should look at.
//!
//! The kind of file is told by its first bytes, not its name: `%PDF-`, a zip (`PK`),
//! else UTF-8 (or UTF-16 with its byte-order mark) text. A text already in the
//! task-detail format (`gemba_shared::operation::parse`) is taken as it is.

pub mod docx;
pub mod draft;
pub mod outline;
pub mod pdf;

use gemba_shared::operation;

pub use draft::{Draft, NO_STEPS};

/// The largest document read.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;

pub const NOT_A_DOCUMENT: &str = "The file is not a .docx, .pdf or .txt document.";
pub const OLD_WORD: &str = "Word 97-2003 .doc files are not read: save it as .docx or .pdf.";

/// What the document was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Docx,
    Pdf,
    Text,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Docx => "docx",
            Source::Pdf => "pdf",
            Source::Text => "text",
        }
    }
}

/// The draft operation of the document `bytes`, named by its title or else `file_name`
/// (without its extension); `Err` says why not, in words for the user.
pub fn read(bytes: &[u8], file_name: &str) -> Result<(Draft, Source), String> {
    let fallback = stem(file_name);
    let (paras, source) = if bytes.starts_with(b"%PDF-") {
        (outline::from_text(&pdf::text(bytes)?), Source::Pdf)
    } else if bytes.starts_with(b"PK\x03\x04") {
        (docx::paragraphs(bytes)?, Source::Docx)
    } else if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        return Err(OLD_WORD.into());
    } else {
        let text = decode(bytes).ok_or_else(|| NOT_A_DOCUMENT.to_owned())?;
        if let Ok(op) = operation::parse(&text)
            && op.step_count() > 0
        {
            let draft = Draft {
                operation: op,
                notes: Vec::new(),
            };
            return Ok((draft, Source::Text));
        }
        (outline::from_text(&text), Source::Text)
    };
    let draft = draft::draft(&paras, &fallback).map_err(str::to_owned)?;
    Ok((draft, source))
}

/// The document `bytes`' paragraphs as its reader makes them, without drafting an
/// operation (the assistant's documents, `crate::assistant::rag`); `Err` says why not.
pub fn paragraphs(bytes: &[u8]) -> Result<(Vec<outline::Para>, Source), String> {
    if bytes.starts_with(b"%PDF-") {
        Ok((outline::from_text(&pdf::text(bytes)?), Source::Pdf))
    } else if bytes.starts_with(b"PK\x03\x04") {
        Ok((docx::paragraphs(bytes)?, Source::Docx))
    } else if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
        Err(OLD_WORD.into())
    } else {
        let text = decode(bytes).ok_or_else(|| NOT_A_DOCUMENT.to_owned())?;
        Ok((outline::from_text(&text), Source::Text))
    }
}

/// UTF-8 (with or without its byte-order mark) or UTF-16 with one; text with NUL bytes
/// or that decodes to nothing is not text.
fn decode(bytes: &[u8]) -> Option<String> {
    let text = if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        utf16(rest, u16::from_le_bytes)?
    } else if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        utf16(rest, u16::from_be_bytes)?
    } else {
        let rest = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
        String::from_utf8(rest.to_vec()).ok()?
    };
    (!text.contains('\0') && !text.trim().is_empty()).then_some(text)
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Option<String> {
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let units: Vec<u16> = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]])).collect();
    String::from_utf16(&units).ok()
}

/// "SOP pump v2.docx" → "SOP pump v2"; a path's folders left out.
fn stem(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or("");
    let stem = match base.rsplit_once('.') {
        Some((s, ext)) if !s.is_empty() && ext.len() <= 5 => s,
        _ => base,
    };
    stem.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_task_detail_format_is_taken_as_it_is() {
        let (d, source) = read(b"Pump\nFit:\nPlace;\n", "x.txt").unwrap();
        assert_eq!(source, Source::Text);
        assert_eq!(
            operation::print(&d.operation),
            "Pump\nFit:\nPlace;\nProcess 1~\n"
        );
    }

    #[test]
    fn prose_text_is_read_as_a_procedure() {
        let (d, _) = read(
            "\u{feff}Pump SOP\r\n1. Fit\r\n- Place\r\n".as_bytes(),
            "a.txt",
        )
        .unwrap();
        assert_eq!(d.operation.name, "Pump SOP");
        assert_eq!(d.operation.step_names(), vec!["Fit"]);
    }

    #[test]
    fn utf16_text_with_its_mark_is_read() {
        let mut bytes = vec![0xFF, 0xFE];
        for u in "T\n1. Fit\n- a\n".encode_utf16() {
            bytes.extend(u.to_le_bytes());
        }
        assert_eq!(
            read(&bytes, "").unwrap().0.operation.step_names(),
            vec!["Fit"]
        );
    }

    #[test]
    fn what_is_not_a_document_says_so() {
        assert_eq!(
            read(&[0, 159, 146, 150, 0, 1], "x.bin").unwrap_err(),
            NOT_A_DOCUMENT
        );
        assert_eq!(read(b"   \n", "x.txt").unwrap_err(), NOT_A_DOCUMENT);
        assert_eq!(
            read(&[0xD0, 0xCF, 0x11, 0xE0, 1, 2], "x.doc").unwrap_err(),
            OLD_WORD
        );
        assert_eq!(read(b"Just a title\n", "x.txt").unwrap_err(), NO_STEPS);
        // The first bytes decide, not the name.
        assert!(
            read(b"%PDF-1.4 junk", "x.docx")
                .unwrap_err()
                .contains("PDF")
        );
    }

    #[test]
    fn the_file_name_names_an_untitled_document() {
        assert_eq!(stem("C:\\docs\\SOP pump v2.docx"), "SOP pump v2");
        assert_eq!(stem("/tmp/x/notes"), "notes");
        assert_eq!(stem(".hidden"), ".hidden");
        let (d, _) = read(b"1. Fit\n- a\n", "pump-line.txt").unwrap();
        assert_eq!(d.operation.name, "pump-line");
    }
}
