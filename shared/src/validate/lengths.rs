//! Bounded free-text fields (issue 28): a request body declares its [`Limit`]s once
//! ([`Bounded::LIMITS`], the table in `api::v1::lengths`), and [`Bounded::check_lengths`]
//! answers the first field over its limit, before the server reads or stores anything.
//!
//! A limit names its field by path over the body's JSON (the names serde writes, so the
//! wire's own names): `.` between names, `*` for each element of a list or each value
//! of a map (`recipients.*`, `processes.*.steps.*.substeps.*`). Lengths count
//! characters (Unicode scalar values) of the value as sent, untrimmed: what a handler
//! may store is never longer.

use serde::Serialize;
use serde_json::Value;

/// '{Field} must be at most {max} characters.'
pub fn too_long_message(label: &str, max: usize) -> String {
    format!("{label} must be at most {max} characters.")
}

/// `value` is at most `max` characters; else the message naming `label`.
pub fn max_chars(label: &str, value: &str, max: usize) -> Result<(), String> {
    if value.chars().count() > max {
        Err(too_long_message(label, max))
    } else {
        Ok(())
    }
}

/// One bounded field of a request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// Where it is in the body's JSON (see the module's header).
    pub path: &'static str,
    /// What the message calls it: 'Name must be at most 100 characters.'
    pub label: &'static str,
    pub max: usize,
    /// The message of a rule that already had one (the password rule's), instead of
    /// the label's.
    pub message: Option<&'static str>,
}

impl Limit {
    pub const fn new(path: &'static str, label: &'static str, max: usize) -> Limit {
        Limit {
            path,
            label,
            max,
            message: None,
        }
    }

    /// The same limit, refused with `message`.
    pub const fn said(self, message: &'static str) -> Limit {
        Limit {
            message: Some(message),
            ..self
        }
    }

    /// The body's field the error names: the path's first name.
    pub fn field(&self) -> &'static str {
        self.path.split('.').next().unwrap_or(self.path)
    }

    /// The refusal of this limit.
    pub fn refusal(&self) -> TooLong {
        TooLong {
            field: self.field(),
            message: self
                .message
                .map(str::to_string)
                .unwrap_or_else(|| too_long_message(self.label, self.max)),
        }
    }
}

/// A field over its limit: the body's field (the API's 400 names it) and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLong {
    pub field: &'static str,
    pub message: String,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for TooLong {}

/// A request body whose free-text fields have a longest length.
pub trait Bounded: Serialize {
    /// Every free-text field of the body with its limit.
    const LIMITS: &'static [Limit];

    /// The first field (in [`Self::LIMITS`]' order) longer than its limit.
    fn check_lengths(&self) -> Result<(), TooLong> {
        // Serialising cannot fail for these types (plain structs, string-keyed maps);
        // if it did, there would be nothing to measure.
        let v = serde_json::to_value(self).unwrap_or(Value::Null);
        check_value(&v, Self::LIMITS)
    }
}

/// The first of `limits` that a string of `v` exceeds.
pub fn check_value(v: &Value, limits: &[Limit]) -> Result<(), TooLong> {
    for l in limits {
        let mut over = false;
        visit(v, l.path.split('.'), &mut |s| {
            over = over || s.chars().count() > l.max
        });
        if over {
            return Err(l.refusal());
        }
    }
    Ok(())
}

/// Calls `f` with each string at `path` under `v`.
fn visit<'a>(v: &Value, mut path: impl Iterator<Item = &'a str> + Clone, f: &mut impl FnMut(&str)) {
    let Some(name) = path.next() else {
        if let Value::String(s) = v {
            f(s);
        }
        return;
    };
    match (name, v) {
        ("*", Value::Array(items)) => items.iter().for_each(|i| visit(i, path.clone(), f)),
        ("*", Value::Object(m)) => m.values().for_each(|i| visit(i, path.clone(), f)),
        (n, Value::Object(m)) => {
            if let Some(i) = m.get(n) {
                visit(i, path, f);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMITS: &[Limit] = &[
        Limit::new("name", "Name", 3),
        Limit::new("tags.*", "Tag", 2),
        Limit::new("steps.*.subs.*", "Sub-step name", 2),
        Limit::new("map.*", "Translation", 2).said("A translation must be at most 2 characters."),
    ];

    fn check(v: Value) -> Result<(), TooLong> {
        check_value(&v, LIMITS)
    }

    #[test]
    fn each_path_is_measured_in_characters() {
        assert_eq!(check(json!({"name": "abc", "tags": ["ab", "é😀"]})), Ok(()));
        assert_eq!(
            check(json!({"name": "abcd"})).unwrap_err(),
            TooLong {
                field: "name",
                message: "Name must be at most 3 characters.".into()
            }
        );
        // Not trimmed: what is sent counts.
        assert!(check(json!({"name": " ab "})).is_err());
        assert_eq!(
            check(json!({"tags": ["a", "abc"]})).unwrap_err().field,
            "tags"
        );
        let deep = json!({"steps": [{"subs": ["ab"]}, {"subs": ["ab", "abc"]}]});
        let e = check(deep).unwrap_err();
        assert_eq!(
            (e.field, e.message.as_str()),
            ("steps", "Sub-step name must be at most 2 characters.")
        );
        let e = check(json!({"map": {"x": "abc"}})).unwrap_err();
        assert_eq!(e.message, "A translation must be at most 2 characters.");
    }

    #[test]
    fn absent_null_and_other_types_pass() {
        for v in [
            json!({}),
            json!({"name": null, "tags": null, "steps": [{"subs": null}]}),
            json!({"name": 12345, "tags": "abcdef", "map": 5}),
            json!([1, 2]),
        ] {
            assert_eq!(check(v.clone()), Ok(()), "{v}");
        }
    }

    #[test]
    fn max_chars_counts_code_points() {
        assert!(max_chars("Name", &"é".repeat(3), 3).is_ok());
        assert_eq!(
            max_chars("Name", &"😀".repeat(4), 3).unwrap_err(),
            "Name must be at most 3 characters."
        );
    }
}
