//! Operations (spec "Task"): an operation is made of processes, a process of steps,
//! a step of sub-steps. This module holds the model, the task-detail text format
//! ([`parse()`], [`print()`]) and the save rules of spec section 5 ([`validate()`]).
//!
//! Pure: no I/O, and no input makes any function here panic.
//!
//! # The text format
//!
//! ```text
//! Assemble pump
//! Fit housing:
//! Place housing;
//! Tighten screws;
//! Check seal:
//! Inspect seal;
//! Pre-assembly~
//! Pack:
//! Put in box;
//! ```
//!
//! - The first line is the operation's name (blank lines before it are skipped).
//! - A line ending in `:` is a step; the lines ending in `;` below it are its sub-steps.
//! - A line ending in `~` is a process name. It **closes** the steps above it (since the
//!   previous process line): "Fit housing" and "Check seal" belong to "Pre-assembly".
//! - Steps after the last process line belong to a default process appended at the
//!   end, named `Process {n}` with `n` its 1-based position ([`default_process_name`]):
//!   "Pack" above belongs to "Process 2". When a process above already has that name,
//!   the next free number is taken ("Process 3"…), so the default never collides. A
//!   text with no step after its last process line (or with no step at all) gets no
//!   default process.
//! - Lines break at `\n`, `\r\n` or `\r`. Each line is read without its surrounding
//!   whitespace (and byte-order marks); a name is the line without its marker, trimmed
//!   again, so `  Fit housing :` is the step "Fit housing". Blank lines are skipped.
//! - Anything else is a [`ParseError`] naming the line: a line after the name ending in
//!   none of the three markers, a sub-step with no step above it in its process (the
//!   first one after a process line, or right after the name), a text with no name.
//!   Empty names (`:` alone) are read as empty: saving refuses them with the spec's
//!   message, which says more than a parse error would.
//!
//! [`print()`] writes the canonical text: the name, then per process its steps with their
//! sub-steps and finally its `~` line, one item per line, names trimmed, no indentation,
//! ending in a newline. So `parse(print(op)) == op` for every operation whose names are
//! trimmed and free of line breaks, with a non-blank operation name and at least one
//! process (an operation with none prints as its name alone, which reads back with no
//! process too); and `print(parse(t)) == t` for canonical text `t`.
//!
//! # Save rules (spec section 5 "Operation definition")
//!
//! [`validate()`] checks the rules below **in this order** (the order section 5 lists
//! them), each over the whole operation before the next, and answers the first failing
//! rule's message. Names are compared trimmed; a blank name is empty.
//!
//! 1. A step or sub-step name is empty: 'Please fill the empty steps!'.
//!    (ours) A process name is empty: 'Please fill the empty process names!'.
//! 2. A step has no sub-step: 'Each step must have atleast one sub-step!'.
//! 3. A name contains `~`, `` ` `` or a control character (a line break, a tab), checked
//!    process name, then each step followed by its sub-steps:
//!    'Step name "{name}" contains invalid characters (~).', the same with
//!    `Substep name` for sub-steps and (ours) `Process name` for processes.
//! 4. Two processes share a name: 'Processes name cannot be same!'.
//! 5. Two steps share a name, in the same or different processes:
//!    'Steps name cannot be same!'.
//! 6. Two sub-steps of one step are the same once all whitespace is removed:
//!    'Substeps cannot be same!'. (Different steps may have the same sub-step.)
//! 7. A step has a sub-step with its own name: 'Step and Substep name cannot be same!'.
//! 8. There is no process: 'An operation must contain atleast one process!'.
//! 9. A process has no step: 'A process must contain atleast one step!'.
//! 10. There are more than [`MAX_PROCESSES`] processes:
//!     'An operation can contain at most 2 process!'.
//!
//! The operation's own name is the task name; its rules (required, new unless editing)
//! belong to the task API, not to this module.

use std::fmt;

use serde::{Deserialize, Serialize};

/// An operation (a task's definition): its name and its processes, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Operation {
    pub name: String,
    pub processes: Vec<Process>,
}

impl Operation {
    /// Its steps, in order across processes (the order step indexes count in).
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.processes.iter().flat_map(|p| &p.steps)
    }

    /// Its step names, by index (what labels and models name).
    pub fn step_names(&self) -> Vec<String> {
        self.steps().map(|s| s.name.clone()).collect()
    }

    /// How many steps it has, across processes.
    pub fn step_count(&self) -> usize {
        self.processes.iter().map(|p| p.steps.len()).sum()
    }

    /// The names of its steps and sub-steps (what a translation translates).
    pub fn step_and_substep_names(&self) -> std::collections::BTreeSet<&str> {
        self.steps()
            .flat_map(|st| {
                std::iter::once(st.name.as_str()).chain(st.substeps.iter().map(String::as_str))
            })
            .collect()
    }
}

/// A process of an operation: its name and its steps, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Process {
    pub name: String,
    pub steps: Vec<Step>,
}

/// A step of a process: its name and its sub-steps' names, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Step {
    pub name: String,
    pub substeps: Vec<String>,
}

/// Most processes in one operation (spec section 9).
pub const MAX_PROCESSES: usize = 2;

/// The line markers of the text format.
pub const STEP_MARKER: char = ':';
pub const SUBSTEP_MARKER: char = ';';
pub const PROCESS_MARKER: char = '~';

pub const EMPTY_STEPS_MESSAGE: &str = "Please fill the empty steps!";
/// Ours: the spec has no message for an empty process name.
pub const EMPTY_PROCESS_NAME_MESSAGE: &str = "Please fill the empty process names!";
pub const STEP_WITHOUT_SUBSTEP_MESSAGE: &str = "Each step must have atleast one sub-step!";
pub const SAME_PROCESS_NAMES_MESSAGE: &str = "Processes name cannot be same!";
pub const SAME_STEP_NAMES_MESSAGE: &str = "Steps name cannot be same!";
pub const SAME_SUBSTEPS_MESSAGE: &str = "Substeps cannot be same!";
pub const STEP_IS_SUBSTEP_MESSAGE: &str = "Step and Substep name cannot be same!";
pub const NO_PROCESS_MESSAGE: &str = "An operation must contain atleast one process!";
pub const PROCESS_WITHOUT_STEP_MESSAGE: &str = "A process must contain atleast one step!";
pub const TOO_MANY_PROCESSES_MESSAGE: &str = "An operation can contain at most 2 process!";

/// What a name with invalid characters belongs to, for its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    Process,
    Step,
    Substep,
}

/// 'Step name "{name}" contains invalid characters (~).' and its sub-step and process
/// forms.
pub fn invalid_characters_message(kind: NameKind, name: &str) -> String {
    let kind = match kind {
        NameKind::Process => "Process",
        NameKind::Step => "Step",
        NameKind::Substep => "Substep",
    };
    format!("{kind} name \"{name}\" contains invalid characters (~).")
}

/// The name of the default process appended at position `n` (1-based).
pub fn default_process_name(n: usize) -> String {
    format!("Process {n}")
}

/// Text the format cannot read: the 1-based line and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A name or line without its surrounding whitespace and byte-order marks.
fn clean(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// The lines of `text` with their 1-based numbers, breaking at `\r\n`, `\n` or `\r`.
fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = Some(text);
    let mut n = 0;
    std::iter::from_fn(move || {
        let s = rest?;
        n += 1;
        match s.find(['\r', '\n']) {
            Some(i) => {
                let skip = if s[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&s[i + skip..]);
                Some((n, &s[..i]))
            }
            None => {
                rest = None;
                Some((n, s))
            }
        }
    })
}

/// A line shortened for a message.
fn quoted(line: &str) -> String {
    const MAX: usize = 60;
    if line.chars().count() <= MAX {
        format!("\"{line}\"")
    } else {
        let head: String = line.chars().take(MAX).collect();
        format!("\"{head}…\"")
    }
}

/// Reads the task-detail text format (see the module docs).
pub fn parse(text: &str) -> Result<Operation, ParseError> {
    let mut lines = numbered_lines(text)
        .map(|(n, l)| (n, clean(l)))
        .filter(|(_, l)| !l.is_empty());
    let Some((_, name)) = lines.next() else {
        return Err(ParseError {
            line: 1,
            message: "the text is empty: its first line must be the operation's name".into(),
        });
    };
    let mut processes = Vec::new();
    // The steps since the last process line, closed by the next one.
    let mut steps: Vec<Step> = Vec::new();
    for (n, line) in lines {
        // `line` is not empty, so it has a last character.
        let Some(marker) = line.chars().next_back() else {
            continue;
        };
        let item = clean(&line[..line.len() - marker.len_utf8()]);
        match marker {
            STEP_MARKER => steps.push(Step {
                name: item.to_string(),
                substeps: Vec::new(),
            }),
            SUBSTEP_MARKER => match steps.last_mut() {
                Some(step) => step.substeps.push(item.to_string()),
                None => {
                    return Err(ParseError {
                        line: n,
                        message: format!(
                            "the sub-step {} has no step above it in its process",
                            quoted(line)
                        ),
                    });
                }
            },
            PROCESS_MARKER => processes.push(Process {
                name: item.to_string(),
                steps: std::mem::take(&mut steps),
            }),
            _ => {
                return Err(ParseError {
                    line: n,
                    message: format!(
                        "{} ends in none of ':' (a step), ';' (a sub-step) or '~' (a process)",
                        quoted(line)
                    ),
                });
            }
        }
    }
    if !steps.is_empty() {
        let taken = |n: &String| processes.iter().any(|p: &Process| p.name == *n);
        let name = (processes.len() + 1..)
            .map(default_process_name)
            .find(|n| !taken(n))
            .unwrap_or_default();
        processes.push(Process { name, steps });
    }
    Ok(Operation {
        name: name.to_string(),
        processes,
    })
}

/// Writes the canonical task-detail text of `op` (see the module docs).
pub fn print(op: &Operation) -> String {
    let mut out = String::new();
    let mut line = |name: &str, marker: Option<char>| {
        out.push_str(clean(name));
        if let Some(m) = marker {
            out.push(m);
        }
        out.push('\n');
    };
    line(&op.name, None);
    for process in &op.processes {
        for step in &process.steps {
            line(&step.name, Some(STEP_MARKER));
            for substep in &step.substeps {
                line(substep, Some(SUBSTEP_MARKER));
            }
        }
        line(&process.name, Some(PROCESS_MARKER));
    }
    out
}

/// A name `validate` refuses as containing invalid characters.
fn has_invalid_characters(name: &str) -> bool {
    clean(name)
        .chars()
        .any(|c| c == '~' || c == '`' || c.is_control())
}

/// A name with all its whitespace (and byte-order marks) removed, for comparing
/// sub-steps.
fn without_whitespace(name: &str) -> String {
    name.chars()
        .filter(|&c| !c.is_whitespace() && c != '\u{feff}')
        .collect()
}

/// Whether `names` holds the same key twice.
fn has_repeats<K: Ord>(mut names: impl Iterator<Item = K>) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    names.any(|k| !seen.insert(k))
}

/// The save rules of spec section 5, in the module docs' order: `Err` carries the first
/// failing rule's message.
pub fn validate(op: &Operation) -> Result<(), String> {
    let steps = || op.processes.iter().flat_map(|p| &p.steps);
    let blank = |s: &str| clean(s).is_empty();

    if steps().any(|s| blank(&s.name) || s.substeps.iter().any(|n| blank(n))) {
        return Err(EMPTY_STEPS_MESSAGE.into());
    }
    if op.processes.iter().any(|p| blank(&p.name)) {
        return Err(EMPTY_PROCESS_NAME_MESSAGE.into());
    }
    if steps().any(|s| s.substeps.is_empty()) {
        return Err(STEP_WITHOUT_SUBSTEP_MESSAGE.into());
    }
    for process in &op.processes {
        if has_invalid_characters(&process.name) {
            return Err(invalid_characters_message(
                NameKind::Process,
                clean(&process.name),
            ));
        }
        for step in &process.steps {
            if has_invalid_characters(&step.name) {
                return Err(invalid_characters_message(
                    NameKind::Step,
                    clean(&step.name),
                ));
            }
            if let Some(sub) = step.substeps.iter().find(|n| has_invalid_characters(n)) {
                return Err(invalid_characters_message(NameKind::Substep, clean(sub)));
            }
        }
    }
    if has_repeats(op.processes.iter().map(|p| clean(&p.name))) {
        return Err(SAME_PROCESS_NAMES_MESSAGE.into());
    }
    if has_repeats(steps().map(|s| clean(&s.name))) {
        return Err(SAME_STEP_NAMES_MESSAGE.into());
    }
    if steps().any(|s| has_repeats(s.substeps.iter().map(|n| without_whitespace(n)))) {
        return Err(SAME_SUBSTEPS_MESSAGE.into());
    }
    if steps().any(|s| s.substeps.iter().any(|n| clean(n) == clean(&s.name))) {
        return Err(STEP_IS_SUBSTEP_MESSAGE.into());
    }
    if op.processes.is_empty() {
        return Err(NO_PROCESS_MESSAGE.into());
    }
    if op.processes.iter().any(|p| p.steps.is_empty()) {
        return Err(PROCESS_WITHOUT_STEP_MESSAGE.into());
    }
    if op.processes.len() > MAX_PROCESSES {
        return Err(TOO_MANY_PROCESSES_MESSAGE.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests;
