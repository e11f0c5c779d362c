//! Field rules of the spec (section 5) with their exact messages.
//!
//! The same functions validate on the server and (through the generated
//! messages) in the portal. Each returns `Err(message)` with the text to show.

/// The spec's OTP length (section 9).
pub const OTP_LENGTH: usize = 6;
pub const OTP_MESSAGE: &str = "Please enter the 6-digit OTP";
pub const INVALID_NAME_MESSAGE: &str =
    "Invalid Name. Valid name only contain letters, dashes (-) and spaces";
/// Our password rule (the spec does not show one; see docs/decisions.md).
pub const PASSWORD_MIN_LEN: usize = 8;
pub const PASSWORD_MAX_LEN: usize = 128;

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

/// A plausible e-mail address: one `@`, a non-empty local part, a dotted domain, no spaces.
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
        return Err("This password is too long. It must contain at most 128 characters.");
    }
    if value.chars().all(|c| c.is_ascii_digit()) {
        return Err("This password is entirely numeric.");
    }
    if !value.chars().any(|c| !c.is_alphabetic()) {
        return Err("This password must contain at least one digit or symbol.");
    }
    Ok(())
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
