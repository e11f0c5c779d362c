//! A Word document (.docx: a zip holding `word/document.xml`) as paragraphs, with what
//! its styles say: "Title", "Heading N" (or an outline level), list paragraphs at their
//! level (`w:numPr`, or the "List Number"/"List Bullet" styles that carry their
//! numbering in the style), and table rows as one paragraph each ("1 | Fit housing" as
//! "1. Fit housing"). Paragraphs with no such style are read by their own marks
//! ([`classify`]).

use std::io::{Cursor, Read};

use super::outline::{Kind, Para, classify};

/// The most `word/document.xml` may unpack to (a zip bomb stops here).
const MAX_XML_BYTES: u64 = 32 * 1024 * 1024;

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/// The document's paragraphs, or why it cannot be read.
pub fn paragraphs(bytes: &[u8]) -> Result<Vec<Para>, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|_| "The .docx file is damaged: it is not a readable zip archive.".to_owned())?;
    let entry = zip.by_name("word/document.xml").map_err(|_| {
        "The file is a zip archive but not a Word document (no word/document.xml).".to_owned()
    })?;
    let mut xml = String::new();
    entry
        .take(MAX_XML_BYTES + 1)
        .read_to_string(&mut xml)
        .map_err(|_| "The .docx file is damaged: its text could not be unpacked.".to_owned())?;
    if xml.len() as u64 > MAX_XML_BYTES {
        return Err("The .docx file's text is larger than 32 MB.".into());
    }
    let doc = roxmltree::Document::parse(&xml)
        .map_err(|e| format!("The .docx file is damaged: its text does not read as XML ({e})."))?;
    let Some(body) = doc.root_element().children().find(|n| is(n, "body")) else {
        return Err("The .docx file has no body.".into());
    };
    let mut out = Vec::new();
    walk(body, &mut out);
    Ok(out)
}

fn is(n: &roxmltree::Node, name: &str) -> bool {
    n.is_element() && n.tag_name().name() == name && n.tag_name().namespace() == Some(W)
}

fn attr<'a>(n: &roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    n.attribute((W, name))
}

/// Paragraphs and tables in document order (a table in a table cell is read as text).
fn walk(node: roxmltree::Node, out: &mut Vec<Para>) {
    for child in node.children() {
        if is(&child, "p") {
            if let Some(p) = paragraph(child) {
                out.push(p);
            }
        } else if is(&child, "tbl") {
            for row in child.descendants().filter(|n| is(n, "tr")) {
                if let Some(p) = row_para(row) {
                    out.push(p);
                }
            }
        } else if is(&child, "sdt") || is(&child, "sdtContent") {
            // Content controls wrap paragraphs of templates.
            walk(child, out);
        }
    }
}

/// A paragraph's text: its runs' text, tabs and breaks as spaces, deleted text left out.
fn text_of(p: roxmltree::Node) -> String {
    let mut s = String::new();
    for n in p.descendants() {
        if is(&n, "t") {
            s.push_str(n.text().unwrap_or(""));
        } else if is(&n, "tab") || is(&n, "br") {
            s.push(' ');
        }
    }
    s
}

fn paragraph(p: roxmltree::Node) -> Option<Para> {
    let text = text_of(p);
    let read = classify(&text)?;
    let ppr = p.children().find(|n| is(n, "pPr"));
    let style = ppr
        .and_then(|ppr| ppr.children().find(|n| is(n, "pStyle")))
        .and_then(|s| attr(&s, "val"))
        .unwrap_or("");
    let numbered_level = ppr
        .and_then(|ppr| ppr.children().find(|n| is(n, "numPr")))
        .map(|num| {
            num.children()
                .find(|n| is(n, "ilvl"))
                .and_then(|l| attr(&l, "val"))
                .and_then(|v| v.parse::<u8>().ok())
                .unwrap_or(0)
        });
    let outline = ppr
        .and_then(|ppr| ppr.children().find(|n| is(n, "outlineLvl")))
        .and_then(|o| attr(&o, "val"));
    let kind = match (style_kind(style), numbered_level) {
        // A list style's paragraph numbered at a level of its own ("List Paragraph"
        // with `w:ilvl`): the level is the numbering's.
        (Some(Kind::Item(_)), Some(level)) => Some(Kind::Item(level)),
        (Some(k), _) => Some(k),
        (None, Some(level)) => Some(Kind::Item(level)),
        (None, None) => outline.map(|_| Kind::Heading),
    };
    Some(match kind {
        // A styled list item may also carry typed numbering ("1. …"): the text without it.
        Some(Kind::Item(level)) => Para::new(read.text, Kind::Item(level)),
        Some(Kind::Title) | Some(Kind::Heading) => {
            // A heading numbered by hand ("2. Assembly") is still the heading.
            let trimmed = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let name = match read.kind {
                Kind::Item(_) => read.text,
                _ => trimmed.trim_end_matches(':').trim().to_owned(),
            };
            Para::new(name, kind.expect("matched"))
        }
        Some(Kind::Plain) | None => read,
    })
}

/// What a paragraph style's id says: Word's English ids ("Title", "Heading1",
/// "ListNumber2", "ListBullet", "ListParagraph"), as python-docx and LibreOffice write
/// them too.
fn style_kind(style: &str) -> Option<Kind> {
    let s = style.to_ascii_lowercase().replace([' ', '-', '_'], "");
    if s == "title" {
        return Some(Kind::Title);
    }
    if s.starts_with("heading") {
        return Some(Kind::Heading);
    }
    for list in ["listnumber", "listbullet", "listparagraph", "list"] {
        if let Some(rest) = s.strip_prefix(list) {
            let level = rest.parse::<u8>().map_or(0, |n| n.saturating_sub(1));
            return Some(Kind::Item(level));
        }
    }
    None
}

/// A table row as one paragraph: its cells' text joined; a first cell that is only a
/// number ("3", "3.", "1.2") numbers the rest.
fn row_para(row: roxmltree::Node) -> Option<Para> {
    let cells: Vec<String> = row
        .children()
        .filter(|n| is(n, "tc"))
        .map(|c| {
            c.children()
                .filter(|n| is(n, "p"))
                .map(text_of)
                .collect::<Vec<_>>()
                .join(" ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|c| !c.is_empty())
        .collect();
    let (first, rest) = cells.split_first()?;
    let number = first.trim_end_matches('.');
    let is_number = !number.is_empty()
        && number
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    if is_number && !rest.is_empty() {
        return classify(&format!("{number}. {}", rest.join(" - ")));
    }
    classify(&cells.join(" - "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A minimal .docx: the zip with `word/document.xml` holding `body`.
    pub(crate) fn docx(body: &str) -> Vec<u8> {
        let mut buf = Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("word/document.xml", opts).unwrap();
        write!(
            zip,
            r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}"><w:body>{body}</w:body></w:document>"#
        )
        .unwrap();
        zip.finish().unwrap();
        buf.into_inner()
    }

    fn p(style: &str, text: &str) -> String {
        let ppr = if style.is_empty() {
            String::new()
        } else {
            format!(r#"<w:pPr><w:pStyle w:val="{style}"/></w:pPr>"#)
        };
        format!(r#"<w:p>{ppr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>"#)
    }

    #[test]
    fn styles_say_title_headings_and_list_levels() {
        let body = [
            p("Title", "Pump SOP"),
            p("Heading1", "1. Assembly"),
            p("ListNumber", "Fit housing"),
            p("ListBullet2", "Place housing"),
            p("", "2) Typed step"),
            r#"<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="3"/></w:numPr></w:pPr><w:r><w:t>Deep</w:t></w:r><w:r><w:tab/><w:t>item</w:t></w:r></w:p>"#.into(),
            p("Normal", "Prose here."),
        ]
        .concat();
        let got = paragraphs(&docx(&body)).unwrap();
        assert_eq!(
            got,
            vec![
                Para::new("Pump SOP", Kind::Title),
                Para::new("Assembly", Kind::Heading),
                Para::new("Fit housing", Kind::Item(0)),
                Para::new("Place housing", Kind::Item(1)),
                Para::new("Typed step", Kind::Item(0)),
                Para::new("Deep item", Kind::Item(1)),
                Para::new("Prose here.", Kind::Plain),
            ]
        );
    }

    #[test]
    fn table_rows_numbered_by_their_first_cell() {
        let cell = |t: &str| format!("<w:tc>{}</w:tc>", p("", t));
        let body = format!(
            "<w:tbl><w:tr>{}{}</w:tr><w:tr>{}{}{}</w:tr></w:tbl>",
            cell("Step"),
            cell("Description"),
            cell("1"),
            cell("Fit housing"),
            cell("Check fit"),
        );
        let got = paragraphs(&docx(&body)).unwrap();
        assert_eq!(got[0], Para::new("Step - Description", Kind::Plain));
        assert_eq!(got[1], Para::new("Fit housing - Check fit", Kind::Item(0)));
    }

    #[test]
    fn damaged_and_foreign_files_say_why() {
        assert!(
            paragraphs(b"PK\x03\x04 not really")
                .unwrap_err()
                .contains("damaged")
        );
        let mut buf = Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        zip.start_file("other.txt", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.finish().unwrap();
        assert!(
            paragraphs(&buf.into_inner())
                .unwrap_err()
                .contains("not a Word document")
        );
        assert!(paragraphs(&docx("")).unwrap().is_empty());
    }

    #[test]
    fn an_entity_expansion_is_refused() {
        let mut buf = Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut buf);
        zip.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        write!(zip, r#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>"#).unwrap();
        zip.finish().unwrap();
        assert!(paragraphs(&buf.into_inner()).unwrap_err().contains("XML"));
    }
}
