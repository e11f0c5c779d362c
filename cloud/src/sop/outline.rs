//! A document's paragraphs, classified: what a standard operating procedure's layout
//! says about each line (a title, a section heading, a list item at some depth, or
//! prose). Pure; the readers (`docx`, `pdf`, plain text) make [`Para`]s, and
//! [`super::draft`] turns them into an operation.

/// What a paragraph is in the document's outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The document's title (a "Title" style, or a plain text's first line).
    Title,
    /// A section heading (a "Heading N" style, a line ending in ':' or in capitals).
    Heading,
    /// A list item, 0 the outermost (numbered "1.", "1.1", "a)", bulleted, or a Word
    /// list paragraph at its level).
    Item(u8),
    /// Anything else: prose.
    Plain,
}

/// One paragraph: its text without its numbering or bullet, and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Para {
    pub text: String,
    pub kind: Kind,
}

impl Para {
    pub fn new(text: impl Into<String>, kind: Kind) -> Self {
        Para {
            text: text.into(),
            kind,
        }
    }
}

/// Classifies one line of text by its own marks: numbering ("1.", "2)", "Step 3:",
/// "1.2", "a)", "iv."), bullets, a heading's trailing ':' or capitals. Returns the text
/// without its mark. `None` for a blank line.
pub fn classify(line: &str) -> Option<Para> {
    let line = clean(line);
    if line.is_empty() {
        return None;
    }
    if let Some((level, rest)) = numbered(&line) {
        return Some(Para::new(rest, Kind::Item(level)));
    }
    if let Some(rest) = bulleted(&line) {
        // Bullets sit under the numbered steps in most procedures; a bullet list with no
        // numbers above it is lifted to level 0 by the draft.
        return Some(Para::new(rest, Kind::Item(1)));
    }
    if is_heading(&line) {
        return Some(Para::new(
            line.trim_end_matches(':').trim().to_owned(),
            Kind::Heading,
        ));
    }
    Some(Para::new(line, Kind::Plain))
}

/// Plain text (a .txt file, or a PDF's text) as paragraphs: a line per paragraph, the
/// first that is not a list item the title, a line that wraps (it starts in lower case
/// right after an item or prose, no blank line between) joined to the one before.
pub fn from_text(text: &str) -> Vec<Para> {
    let mut out: Vec<Para> = Vec::new();
    let mut after_blank = true;
    for line in text.lines() {
        let Some(mut p) = classify(line) else {
            after_blank = true;
            continue;
        };
        let continues = !after_blank
            && p.kind == Kind::Plain
            && p.text.chars().next().is_some_and(char::is_lowercase)
            && out
                .last()
                .is_some_and(|l| matches!(l.kind, Kind::Item(_) | Kind::Plain));
        after_blank = false;
        if continues {
            let last = out.last_mut().expect("checked");
            last.text.push(' ');
            last.text.push_str(&p.text);
            continue;
        }
        if out.is_empty() && matches!(p.kind, Kind::Plain | Kind::Heading) {
            p.kind = Kind::Title;
        }
        out.push(p);
    }
    out
}

/// The line without control characters (a tab or form feed is a space), its runs of
/// spaces as one, trimmed.
fn clean(line: &str) -> String {
    let mapped: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| *c != '\u{feff}' && *c != '\u{200b}')
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// "1. x", "1) x", "(1) x", "1 - x", "Step 1: x", "Step 1 x" → level 0; "1.2 x",
/// "1.2.3. x" → the count of its dots; "a) x", "b. x", "iv) x" → level 1. A number
/// alone ("2024 results", "10 mm") is not numbering: it needs its mark and a space.
fn numbered(line: &str) -> Option<(u8, String)> {
    let lower = line.to_lowercase();
    let (body, stepword) = match lower.strip_prefix("step") {
        Some(r) if r.starts_with(|c: char| c == ' ' || c.is_ascii_digit()) => {
            (&line[line.len() - r.len()..], true)
        }
        _ => (line, false),
    };
    let body = body.trim_start();
    let body = body.strip_prefix('(').unwrap_or(body);
    // Digits with dots between: "1", "1.2", "1.2.3".
    let digits_end = body
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.' && body[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
        })
        .map_or(body.len(), |(i, _)| i);
    if digits_end > 0 && digits_end <= 12 {
        let number = &body[..digits_end];
        let rest = &body[digits_end..];
        let dots = number.matches('.').count();
        let mark = rest.chars().next()?;
        let after = match mark {
            '.' | ')' | ':' => &rest[1..],
            '-' | '–' | '—' if rest[mark.len_utf8()..].starts_with(' ') => {
                &rest[mark.len_utf8()..]
            }
            ' ' if stepword || dots > 0 => rest,
            ' ' => {
                // "1 - Fit housing" or "1 Fit housing": a bare number is numbering only
                // when a dash follows, else it is likely a quantity.
                rest.trim_start().strip_prefix(['-', '–', '—'])?
            }
            _ => return None,
        };
        let text = after.trim().trim_start_matches(['-', '–', '—']).trim();
        if text.is_empty() {
            return None;
        }
        return Some((u8::try_from(dots).unwrap_or(u8::MAX), text.to_owned()));
    }
    if stepword {
        return None;
    }
    // "a) x", "b. x", "iv) x": one letter or a short roman numeral, then ')' or '.'.
    let mark_at = body.find([')', '.'])?;
    let label = &body[..mark_at];
    let roman = !label.is_empty()
        && label.len() <= 4
        && label
            .chars()
            .all(|c| "ivx".contains(c.to_ascii_lowercase()));
    let letter = label.chars().count() == 1 && label.chars().all(|c| c.is_ascii_alphabetic());
    if !(roman || letter) {
        return None;
    }
    let rest = &body[mark_at + 1..];
    if !rest.starts_with(' ') {
        return None;
    }
    let text = rest.trim();
    if text.is_empty() {
        return None;
    }
    Some((1, text.to_owned()))
}

fn bulleted(line: &str) -> Option<String> {
    let first = line.chars().next()?;
    if !"-*•·▪◦‣–—●○■□➢►✓✔".contains(first) {
        return None;
    }
    let rest = &line[first.len_utf8()..];
    if !rest.starts_with(' ') {
        return None;
    }
    let text = rest.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// A short line ending in ':' ("Tools required:"), or in capitals ("ASSEMBLY").
fn is_heading(line: &str) -> bool {
    let words = line.split_whitespace().count();
    if words > 10 || line.chars().count() > 80 {
        return false;
    }
    if line.ends_with(':') {
        return true;
    }
    let letters: Vec<char> = line.chars().filter(|c| c.is_alphabetic()).collect();
    letters.len() >= 3 && letters.iter().all(|c| c.is_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(line: &str) -> (Kind, String) {
        let p = classify(line).unwrap();
        (p.kind, p.text)
    }

    #[test]
    fn numbering_of_every_usual_kind_is_read_and_taken_off() {
        assert_eq!(k("1. Fit housing"), (Kind::Item(0), "Fit housing".into()));
        assert_eq!(
            k("  2) Tighten screws"),
            (Kind::Item(0), "Tighten screws".into())
        );
        assert_eq!(k("(3) Check seal"), (Kind::Item(0), "Check seal".into()));
        assert_eq!(k("Step 4: Pack"), (Kind::Item(0), "Pack".into()));
        assert_eq!(k("STEP 5 Label box"), (Kind::Item(0), "Label box".into()));
        assert_eq!(k("6 - Ship"), (Kind::Item(0), "Ship".into()));
        assert_eq!(
            k("1.2 Place housing"),
            (Kind::Item(1), "Place housing".into())
        );
        assert_eq!(k("1.2.3. Torque"), (Kind::Item(2), "Torque".into()));
        assert_eq!(k("a) Wipe"), (Kind::Item(1), "Wipe".into()));
        assert_eq!(k("iv. Dry"), (Kind::Item(1), "Dry".into()));
        assert_eq!(k("• Gloves on"), (Kind::Item(1), "Gloves on".into()));
        assert_eq!(k("- Gloves on"), (Kind::Item(1), "Gloves on".into()));
    }

    #[test]
    fn numbers_that_are_not_numbering_stay_prose() {
        assert_eq!(k("10 mm spanner").0, Kind::Plain);
        assert_eq!(k("2024 was a good year.").0, Kind::Plain);
        assert_eq!(k("1.5").0, Kind::Plain);
        assert_eq!(k("e.g. the housing").0, Kind::Plain);
        assert_eq!(k("Stephen fits the housing.").0, Kind::Plain);
        assert_eq!(k("-5 degrees is too cold.").0, Kind::Plain);
        assert_eq!(k("1."), (Kind::Plain, "1.".into()));
    }

    #[test]
    fn headings_end_in_a_colon_or_are_in_capitals() {
        assert_eq!(
            k("Tools required:"),
            (Kind::Heading, "Tools required".into())
        );
        assert_eq!(k("ASSEMBLY"), (Kind::Heading, "ASSEMBLY".into()));
        assert_eq!(k("Fit the housing.").0, Kind::Plain);
        assert_eq!(k("OK").0, Kind::Plain);
    }

    #[test]
    fn blank_and_control_characters_are_cleaned() {
        assert!(classify("   \t ").is_none());
        assert_eq!(
            k("\u{feff}1.\tFit\u{0}  housing"),
            (Kind::Item(0), "Fit housing".into())
        );
    }

    #[test]
    fn plain_text_has_a_title_and_wrapped_lines_joined() {
        let paras = from_text(
            "Pump assembly SOP\n\n1. Fit the housing onto\nthe base plate\n2. Tighten screws\n\nNote: wear gloves\n",
        );
        assert_eq!(
            paras,
            vec![
                Para::new("Pump assembly SOP", Kind::Title),
                Para::new("Fit the housing onto the base plate", Kind::Item(0)),
                Para::new("Tighten screws", Kind::Item(0)),
                Para::new("Note: wear gloves", Kind::Plain),
            ]
        );
    }
}
