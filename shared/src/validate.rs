//! Field rules of the spec (section 5) with their exact messages, and the longest
//! value of every free-text field the API takes ([`lengths`]).
//!
//! The same functions validate on the server and (through the generated
//! messages) in the portal. Each returns `Err(message)` with the text to show.

pub mod lengths;

pub use lengths::{Bounded, Limit, TooLong, max_chars, too_long_message};

// ----- Field lengths (issue 28) ------------------------------------------------------
// The longest value of each free-text field, in characters (Unicode scalar values:
// Rust's `chars().count()`, the portal's `[...s].length`), counted on the value as
// sent. The spec gives none, so these are ours (docs/decisions.md "Field lengths");
// which field has which is the table in `api::v1::lengths`. The portal reads the same
// numbers (`MAX_CHARS` in the generated `field-limits.ts`).

/// An e-mail address (RFC 5321's longest path).
pub const MAX_EMAIL_CHARS: usize = 254;
/// A person's first or last name.
pub const MAX_PERSON_NAME_CHARS: usize = 100;
/// A name or label: organisation, department, role, feature, task, step, device,
/// camera, line, object, plane, model type, language; a browser's name and version.
pub const MAX_NAME_CHARS: usize = 100;
/// An organisation's sub-domain name (a DNS label).
pub const MAX_SUBDOMAIN_CHARS: usize = 63;
/// A token the server issued and the client hands back (refresh, e-mail links).
pub const MAX_TOKEN_CHARS: usize = 1024;
/// A short code or keyword: one-time and enrolment codes, mobile numbers, colours,
/// statuses, event types, cycle ids, issue keys, date-times.
pub const MAX_CODE_CHARS: usize = 64;
/// A file name.
pub const MAX_FILE_NAME_CHARS: usize = 255;
/// A video tag's name.
pub const MAX_TAG_CHARS: usize = 50;
/// A comment on a video.
pub const MAX_COMMENT_CHARS: usize = 2000;
/// A person's reason or note (a cycle's verdict, archiving, a review).
pub const MAX_REASON_CHARS: usize = 500;
/// A description, or a step rule's boolean expression.
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
/// An operation in the task-detail text format (its names are bounded one by one too).
pub const MAX_TASK_DETAIL_CHARS: usize = 50_000;

/// Every limit by name, for the portal and the shared corpus.
pub const LIMITS: [(&str, usize); 15] = [
    ("EMAIL", MAX_EMAIL_CHARS),
    ("PERSON_NAME", MAX_PERSON_NAME_CHARS),
    ("NAME", MAX_NAME_CHARS),
    ("SUBDOMAIN", MAX_SUBDOMAIN_CHARS),
    ("PASSWORD", PASSWORD_MAX_LEN),
    ("TOKEN", MAX_TOKEN_CHARS),
    ("CODE", MAX_CODE_CHARS),
    ("FILE_NAME", MAX_FILE_NAME_CHARS),
    ("TAG", MAX_TAG_CHARS),
    ("COMMENT", MAX_COMMENT_CHARS),
    ("REASON", MAX_REASON_CHARS),
    ("DESCRIPTION", MAX_DESCRIPTION_CHARS),
    ("SUBJECT", MAX_SUBJECT_CHARS),
    ("TASK_DETAIL", MAX_TASK_DETAIL_CHARS),
    ("BODY_BYTES", MAX_BODY_BYTES),
];

/// The spec's OTP length (section 9).
pub const OTP_LENGTH: usize = 6;
pub const OTP_MESSAGE: &str = "Please enter the 6-digit OTP";
pub const INVALID_NAME_MESSAGE: &str =
    "Invalid Name. Valid name only contain letters, dashes (-) and spaces";
/// Our password rule (the spec does not show one; see docs/decisions.md).
pub const PASSWORD_MIN_LEN: usize = 8;
pub const PASSWORD_MAX_LEN: usize = 128;
pub const PASSWORD_TOO_LONG: &str =
    "This password is too long. It must contain at most 128 characters.";

/// A 6-digit one-time code.
pub fn otp(code: &str) -> Result<(), &'static str> {
    if code.len() == OTP_LENGTH && code.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(OTP_MESSAGE)
    }
}

/// A person's name: letters, with single dashes, apostrophes or spaces between letters.
/// `field` is the label used in the "required" message, e.g. "First name".
pub fn person_name(field: &str, value: &str) -> Result<(), String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(format!("{field} is required!"));
    }
    let mut prev_sep = true; // the name must start with a letter
    for c in v.chars() {
        if c.is_alphabetic() {
            prev_sep = false;
        } else if matches!(c, '-' | '\'' | ' ') {
            if prev_sep {
                return Err(INVALID_NAME_MESSAGE.to_string());
            }
            prev_sep = true;
        } else {
            return Err(INVALID_NAME_MESSAGE.to_string());
        }
    }
    if prev_sep {
        return Err(INVALID_NAME_MESSAGE.to_string());
    }
    Ok(())
}

/// A plausible e-mail address: one `@`, a non-empty local part of at most 64 bytes, a
/// dotted domain of labels of at most 63, no spaces (RFC 5321's sizes, which the mailer
/// holds addresses to).
pub fn email(value: &str) -> Result<(), &'static str> {
    const MSG: &str = "Enter a valid email address.";
    let v = value.trim();
    if v.len() > 254 || v.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(MSG);
    }
    let Some((local, domain)) = v.split_once('@') else {
        return Err(MSG);
    };
    if local.is_empty()
        || local.len() > 64
        || domain.split('.').any(|l| l.len() > 63)
        || domain.contains('@')
        || !domain.contains('.')
        || domain.starts_with('.')
        || domain.ends_with('.')
        || domain.contains("..")
    {
        return Err(MSG);
    }
    Ok(())
}

/// Password strength: length bounds, and not only digits or only letters.
pub fn password(value: &str) -> Result<(), &'static str> {
    let n = value.chars().count();
    if n < PASSWORD_MIN_LEN {
        return Err("This password is too short. It must contain at least 8 characters.");
    }
    if n > PASSWORD_MAX_LEN {
        return Err(PASSWORD_TOO_LONG);
    }
    if value.chars().all(|c| c.is_ascii_digit()) {
        return Err("This password is entirely numeric.");
    }
    if !value.chars().any(|c| !c.is_alphabetic()) {
        return Err("This password must contain at least one digit or symbol.");
    }
    Ok(())
}

pub const MOBILE_NUMBER_MESSAGE: &str = "Enter a valid mobile number, e.g. +4915112345678.";

/// A mobile number for SMS codes: 8 to 15 digits, optionally after a `+`; spaces,
/// dashes and brackets are dropped. Answers the number as stored.
pub fn mobile_number(value: &str) -> Result<String, &'static str> {
    let number: String = value
        .trim()
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '(' | ')'))
        .collect();
    let digits = number.strip_prefix('+').unwrap_or(&number);
    if !(8..=15).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(MOBILE_NUMBER_MESSAGE);
    }
    Ok(number)
}

/// A 3- or 6-digit hex colour, with its leading `#`.
pub fn hex_color(value: &str) -> bool {
    let Some(hex) = value.strip_prefix('#') else {
        return false;
    };
    matches!(hex.len(), 3 | 6) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// An organisation's sub-domain name: lowercase letters, digits and inner dashes, 1..=63.
pub fn subdomain(value: &str) -> Result<(), &'static str> {
    const MSG: &str = "Enter a valid name: lowercase letters, digits and dashes, not starting or ending with a dash.";
    let ok = !value.is_empty()
        && value.len() <= 63
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if ok { Ok(()) } else { Err(MSG) }
}

/// The event types an event notification can be for: the spec's 'Task Update', and
/// 'Device Health' (issue 30: a camera offline, frozen or slow, a model failing, a
/// device's outbox filling or disk low).
pub const EVENT_TYPES: [&str; 2] = ["Task Update", "Device Health"];
/// Most recipients of one e-mail or event notification.
pub const MAX_RECIPIENTS: usize = 50;
/// Longest e-mail subject, in characters.
pub const MAX_SUBJECT_CHARS: usize = 200;
/// Largest e-mail body, in bytes (UTF-8).
pub const MAX_BODY_BYTES: usize = 100 * 1024;
pub const BLANK_MESSAGE: &str = "This field may not be blank.";

/// An event type: one of [`EVENT_TYPES`], exactly.
pub fn event_type(value: &str) -> Result<(), String> {
    if EVENT_TYPES.contains(&value) {
        Ok(())
    } else {
        Err(format!("\"{value}\" is not a valid choice."))
    }
}

/// A list of e-mail recipients: 1 to [`MAX_RECIPIENTS`] valid addresses. Answers them
/// trimmed, lowercased and without repeats, in the order given.
pub fn recipients(values: &[String]) -> Result<Vec<String>, String> {
    if values.is_empty() {
        return Err("At least one recipient is required.".into());
    }
    if values.len() > MAX_RECIPIENTS {
        return Err(format!(
            "Ensure this field has no more than {MAX_RECIPIENTS} elements."
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(values.len());
    for v in values {
        let a = v.trim().to_lowercase();
        if email(&a).is_err() {
            return Err(format!("Enter a valid email address: \"{}\".", v.trim()));
        }
        if !out.contains(&a) {
            out.push(a);
        }
    }
    Ok(out)
}

/// An e-mail subject: 1 to [`MAX_SUBJECT_CHARS`] characters on one line. Answers it trimmed.
pub fn email_subject(value: &str) -> Result<&str, String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(BLANK_MESSAGE.into());
    }
    if v.chars().count() > MAX_SUBJECT_CHARS {
        return Err(too_long_message("Subject", MAX_SUBJECT_CHARS));
    }
    if v.chars().any(char::is_control) {
        return Err("The subject may not contain line breaks or control characters.".into());
    }
    Ok(v)
}

/// An e-mail body: not blank, at most [`MAX_BODY_BYTES`].
pub fn email_body(value: &str) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err(BLANK_MESSAGE.into());
    }
    if value.len() > MAX_BODY_BYTES {
        return Err(format!(
            "Ensure this field has no more than {} kB.",
            MAX_BODY_BYTES / 1024
        ));
    }
    Ok(())
}

/// A feature's name: 1 to 100 characters. Answers it trimmed.
pub fn feature_name(value: &str) -> Result<&str, String> {
    let v = value.trim();
    if v.is_empty() {
        return Err(BLANK_MESSAGE.into());
    }
    if v.chars().count() > MAX_NAME_CHARS || v.chars().any(char::is_control) {
        return Err("Enter a name of 1 to 100 characters on one line.".into());
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn otp_needs_exactly_six_digits() {
        assert!(otp("123456").is_ok());
        for bad in ["", "12345", "1234567", "12345a", " 123456", "١٢٣٤٥٦"] {
            assert_eq!(otp(bad), Err(OTP_MESSAGE), "{bad:?}");
        }
    }

    #[test]
    fn person_names() {
        for good in ["Ann", "Mary-Jane", "O'Neil", "Jean Luc", "Zoë"] {
            assert!(person_name("Name", good).is_ok(), "{good}");
        }
        assert_eq!(
            person_name("First name", "  ").unwrap_err(),
            "First name is required!"
        );
        for bad in ["Ann1", "-Ann", "Ann-", "A--n", "A  n", "Ann!", "a_b"] {
            assert_eq!(
                person_name("Name", bad).unwrap_err(),
                INVALID_NAME_MESSAGE,
                "{bad}"
            );
        }
    }

    #[test]
    fn colours() {
        assert!(hex_color("#fff") && hex_color("#A0b1C2"));
        assert!(!hex_color("fff") && !hex_color("#ffff") && !hex_color("#ggg"));
    }

    #[test]
    fn emails_and_passwords() {
        assert!(email("a@b.co").is_ok());
        for bad in [
            "", "a", "a@b", "@b.co", "a@@b.co", "a b@c.de", "a@.b", "a@b..c",
        ] {
            assert!(email(bad).is_err(), "{bad}");
        }
        assert!(password("correct horse 1").is_ok());
        assert!(password("short1").is_err());
        assert!(password("12345678901").is_err());
        assert!(password("onlyletters").is_err());
    }

    #[test]
    fn event_types_are_only_task_update() {
        assert!(event_type("Task Update").is_ok());
        for bad in ["task update", "Task Update ", "", "Cycle Alert"] {
            assert_eq!(
                event_type(bad).unwrap_err(),
                format!("\"{bad}\" is not a valid choice.")
            );
        }
    }

    #[test]
    fn recipient_lists() {
        let r = recipients(&[" A@x.io".into(), "a@x.io".into(), "b@y.io".into()]).unwrap();
        assert_eq!(r, vec!["a@x.io", "b@y.io"]);
        assert_eq!(
            recipients(&[]).unwrap_err(),
            "At least one recipient is required."
        );
        assert!(
            recipients(&["a@x.io".into(), "nope".into()])
                .unwrap_err()
                .contains("\"nope\"")
        );
        let many: Vec<String> = (0..51).map(|i| format!("u{i}@x.io")).collect();
        assert!(recipients(&many).unwrap_err().contains("50"));
        assert_eq!(recipients(&many[..50]).unwrap().len(), 50);
    }

    #[test]
    fn email_subjects_and_bodies() {
        assert_eq!(email_subject("  Hi  ").unwrap(), "Hi");
        assert_eq!(email_subject(" ").unwrap_err(), BLANK_MESSAGE);
        assert!(email_subject("a\r\nBcc: x@y.z").is_err());
        assert!(email_subject(&"s".repeat(200)).is_ok());
        assert!(email_subject(&"s".repeat(201)).is_err());
        assert!(email_body("hello").is_ok());
        assert_eq!(email_body("\n ").unwrap_err(), BLANK_MESSAGE);
        assert!(email_body(&"b".repeat(MAX_BODY_BYTES)).is_ok());
        assert!(email_body(&"b".repeat(MAX_BODY_BYTES + 1)).is_err());
    }

    proptest! {
        #[test]
        fn any_six_digits_pass(code in "[0-9]{6}") {
            prop_assert!(otp(&code).is_ok());
        }

        #[test]
        fn names_of_letter_words_pass(words in proptest::collection::vec("[a-zA-Z]{1,8}", 1..4)) {
            prop_assert!(person_name("Name", &words.join(" ")).is_ok());
        }

        #[test]
        fn names_with_a_digit_fail(prefix in "[a-z]{0,5}", d in "[0-9]", suffix in "[a-z]{0,5}") {
            let name = format!("{prefix}{d}{suffix}");
            prop_assert_eq!(person_name("Name", &name).unwrap_err(), INVALID_NAME_MESSAGE);
        }
    }
}
