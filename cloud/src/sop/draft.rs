//! An outline ([`Para`]s) as a draft operation: which paragraphs are its steps, which
//! their sub-steps, which its processes, and the names made fit for the save rules
//! (`gemba_shared::operation::validate`). Pure.
//!
//! The layouts read, in this order:
//! 1. **Two levels of list** ("1." and "1.1", or numbers with bullets or letters under
//!    them): the outer items are steps, the inner ones (and prose right under a step)
//!    its sub-steps. Up to [`MAX_PROCESSES`] headings with steps under them name the
//!    processes; with more, every step goes into one process.
//! 2. **One level of list under headings** (sections "Preparation", "Assembly", each a
//!    numbered list): each heading with items is a step, its items the sub-steps.
//! 3. **One level of list** with no such headings: the items are steps, the prose
//!    right under each its sub-steps.
//! 4. **No list**: headings with prose under them are steps with sub-steps; else each
//!    line of prose is a step.
//!
//! A step the document gives no sub-step keeps none, and the notes say so: the editor
//! asks for one before saving (a sub-step named like its step is refused by the rules).

use gemba_shared::operation::{MAX_PROCESSES, Operation, Process, Step, default_process_name};

use super::outline::{Kind, Para};

/// The longest name a draft gives a step, sub-step or process (the task name's limit).
pub const MAX_NAME: usize = gemba_shared::validate::MAX_NAME_CHARS;
/// The most steps a draft takes (a procedure longer than this is not one operation).
pub const MAX_STEPS: usize = 100;
/// The most sub-steps of one step.
pub const MAX_SUBSTEPS: usize = 50;

pub const NO_STEPS: &str = "No steps were found in the document.";

/// A draft: the operation, and what the user should look at before saving it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    pub operation: Operation,
    pub notes: Vec<String>,
}

/// The draft of `paras`, named by the document's title, else `fallback` (the file's
/// name). `Err` with [`NO_STEPS`] when nothing in it reads as a step.
pub fn draft(paras: &[Para], fallback: &str) -> Result<Draft, &'static str> {
    let mut notes = Notes::default();
    let title = paras.iter().find(|p| p.kind == Kind::Title);
    let body: Vec<&Para> = paras.iter().filter(|p| p.kind != Kind::Title).collect();
    let name = title
        .map(|t| t.text.as_str())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(fallback);
    let name = fit(name, &mut notes);
    let name = if name.is_empty() {
        "Imported operation".to_owned()
    } else {
        name
    };

    let levels: Vec<u8> = body
        .iter()
        .filter_map(|p| match p.kind {
            Kind::Item(l) => Some(l),
            _ => None,
        })
        .collect();
    let top = levels.iter().copied().min();
    let sections = sections(&body);
    let processes = match top {
        Some(top) if levels.iter().any(|&l| l > top) => two_levels(&sections, top, &mut notes),
        Some(_)
            if sections
                .iter()
                .filter(|s| s.heading.is_some() && s.has_items())
                .count()
                >= 2 =>
        {
            headings_as_steps(&sections, |p| matches!(p.kind, Kind::Item(_)))
        }
        Some(_) => vec![(None, items_as_steps(&body))],
        None if sections
            .iter()
            .any(|s| s.heading.is_some() && !s.paras.is_empty()) =>
        {
            headings_as_steps(&sections, |p| p.kind == Kind::Plain)
        }
        None => vec![(
            None,
            body.iter()
                .filter(|p| p.kind == Kind::Plain)
                .map(|p| (p.text.clone(), Vec::new()))
                .collect(),
        )],
    };
    let operation = finish(name, processes, &mut notes);
    if operation.step_count() == 0 {
        return Err(NO_STEPS);
    }
    Ok(Draft {
        operation,
        notes: notes.into_vec(),
    })
}

/// A heading (or the start) and the paragraphs under it up to the next heading.
struct Section<'a> {
    heading: Option<&'a str>,
    paras: Vec<&'a Para>,
}

impl Section<'_> {
    fn has_items(&self) -> bool {
        self.paras.iter().any(|p| matches!(p.kind, Kind::Item(_)))
    }
}

fn sections<'a>(body: &[&'a Para]) -> Vec<Section<'a>> {
    let mut out = vec![Section {
        heading: None,
        paras: Vec::new(),
    }];
    for p in body {
        if p.kind == Kind::Heading {
            out.push(Section {
                heading: Some(&p.text),
                paras: Vec::new(),
            });
        } else {
            out.last_mut().expect("one at least").paras.push(p);
        }
    }
    out
}

/// A process's name (none: a default one) and its steps with their sub-steps.
type Rough = (Option<String>, Vec<(String, Vec<String>)>);

fn two_levels(sections: &[Section], top: u8, notes: &mut Notes) -> Vec<Rough> {
    let mut processes: Vec<Rough> = Vec::new();
    for s in sections {
        let mut steps: Vec<(String, Vec<String>)> = Vec::new();
        for p in &s.paras {
            match p.kind {
                Kind::Item(l) if l == top => steps.push((p.text.clone(), Vec::new())),
                Kind::Item(_) | Kind::Plain => {
                    if let Some(step) = steps.last_mut() {
                        step.1.push(p.text.clone());
                    }
                }
                _ => {}
            }
        }
        if !steps.is_empty() {
            processes.push((s.heading.map(str::to_owned), steps));
        }
    }
    let named = processes.iter().filter(|p| p.0.is_some()).count();
    if processes.len() > MAX_PROCESSES || (named > 0 && named < processes.len()) {
        if named > 0 {
            notes.push(format!(
                "The document's {} sections became one process (an operation has at most {MAX_PROCESSES}).",
                processes.len()
            ));
        }
        let steps = processes.into_iter().flat_map(|p| p.1).collect();
        return vec![(None, steps)];
    }
    processes
}

fn headings_as_steps(sections: &[Section], under: impl Fn(&Para) -> bool) -> Vec<Rough> {
    let steps = sections
        .iter()
        .filter_map(|s| {
            let subs: Vec<String> = s
                .paras
                .iter()
                .filter(|p| under(p))
                .map(|p| p.text.clone())
                .collect();
            match s.heading {
                Some(h) if !subs.is_empty() => Some((h.to_owned(), subs)),
                _ => None,
            }
        })
        .collect();
    vec![(None, steps)]
}

fn items_as_steps(body: &[&Para]) -> Vec<(String, Vec<String>)> {
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    for p in body {
        match p.kind {
            Kind::Item(_) => steps.push((p.text.clone(), Vec::new())),
            Kind::Plain => {
                if let Some(step) = steps.last_mut() {
                    step.1.push(p.text.clone());
                }
            }
            _ => {}
        }
    }
    steps
}

/// The rough processes as an operation: names fitted, repeated names told apart, the
/// limits kept, processes without a name given the default one.
fn finish(name: String, rough: Vec<Rough>, notes: &mut Notes) -> Operation {
    let mut op = Operation {
        name,
        processes: Vec::new(),
    };
    let mut step_names: Vec<String> = Vec::new();
    let mut total = 0;
    let mut without_substeps = 0;
    for (pname, steps) in rough {
        let mut process = Process {
            name: String::new(),
            steps: Vec::new(),
        };
        for (sname, subs) in steps {
            if total == MAX_STEPS {
                notes.push(format!("Only the first {MAX_STEPS} steps were taken."));
                break;
            }
            let base = fit(&sname, notes);
            if base.is_empty() {
                continue;
            }
            let sname = unique(base.clone(), &step_names);
            step_names.push(sname.clone());
            let mut substeps: Vec<String> = Vec::new();
            for sub in subs {
                let sub = fit(&sub, notes);
                let squashed: String = sub.split_whitespace().collect();
                if sub.is_empty()
                    || sub == base
                    || sub == sname
                    || substeps
                        .iter()
                        .any(|s| s.split_whitespace().collect::<String>() == squashed)
                {
                    continue;
                }
                if substeps.len() == MAX_SUBSTEPS {
                    notes.push(format!(
                        "\"{sname}\" had more than {MAX_SUBSTEPS} sub-steps: the first {MAX_SUBSTEPS} were taken."
                    ));
                    break;
                }
                substeps.push(sub);
            }
            if substeps.is_empty() {
                without_substeps += 1;
            }
            total += 1;
            process.steps.push(Step {
                name: sname,
                substeps,
            });
        }
        if process.steps.is_empty() {
            continue;
        }
        process.name = match pname.map(|n| fit(&n, notes)).filter(|n| !n.is_empty()) {
            Some(n) if !op.processes.iter().any(|p| p.name == n) => n,
            _ => free_default(&op.processes),
        };
        op.processes.push(process);
    }
    if without_substeps > 0 {
        notes.push(format!(
            "{without_substeps} step(s) have no sub-step in the document: add at least one to each before saving."
        ));
    }
    op
}

fn free_default(processes: &[Process]) -> String {
    (processes.len() + 1..)
        .map(default_process_name)
        .find(|n| !processes.iter().any(|p| &p.name == n))
        .expect("a free number")
}

/// `name`, or `name (2)`, `name (3)`… if already taken.
fn unique(name: String, taken: &[String]) -> String {
    if !taken.contains(&name) {
        return name;
    }
    (2..)
        .map(|n| format!("{name} ({n})"))
        .find(|n| !taken.contains(n))
        .expect("a free number")
}

/// The name as the save rules take it: the characters they refuse (`~`, `` ` ``) gone,
/// a trailing ':' ';' or '.' off, cut at a word to [`MAX_NAME`] characters.
fn fit(name: &str, notes: &mut Notes) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| *c != '~' && *c != '`')
        .collect();
    let cleaned = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    let cleaned = cleaned.trim_end_matches([':', ';', '.']).trim().to_owned();
    if cleaned.chars().count() <= MAX_NAME {
        return cleaned;
    }
    notes.cut();
    let mut cut: String = cleaned.chars().take(MAX_NAME).collect();
    if let Some(space) = cut.rfind(' ').filter(|&i| i > MAX_NAME / 2) {
        cut.truncate(space);
    }
    cut.trim_end_matches([',', ';', ':', '.']).trim().to_owned()
}

/// The notes, each said once.
#[derive(Default)]
struct Notes {
    notes: Vec<String>,
    cut: bool,
}

impl Notes {
    fn push(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    fn cut(&mut self) {
        self.cut = true;
    }

    fn into_vec(mut self) -> Vec<String> {
        if self.cut {
            self.notes
                .push(format!("Long names were cut to {MAX_NAME} characters."));
        }
        self.notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sop::outline::from_text;
    use gemba_shared::operation::{print, validate};

    fn d(text: &str) -> Draft {
        draft(&from_text(text), "file").unwrap()
    }

    #[test]
    fn numbered_steps_with_lettered_substeps() {
        let got = d(
            "Pump assembly\n1. Fit housing\na) Place housing\nb) Align pins\n2. Tighten screws\na) Torque to 5 Nm\n",
        );
        assert_eq!(
            print(&got.operation),
            "Pump assembly\nFit housing:\nPlace housing;\nAlign pins;\nTighten screws:\nTorque to 5 Nm;\nProcess 1~\n"
        );
        assert_eq!(validate(&got.operation), Ok(()));
        assert!(got.notes.is_empty(), "{:?}", got.notes);
    }

    #[test]
    fn two_sections_of_two_level_lists_are_two_processes() {
        let got = d(
            "Kit\nPREPARATION\n1. Clean bench\n- Wipe\n2. Get parts\n- Pick tray\nASSEMBLY:\n3. Fit\n3.1 Press\n",
        );
        assert_eq!(
            print(&got.operation),
            "Kit\nClean bench:\nWipe;\nGet parts:\nPick tray;\nPREPARATION~\nFit:\nPress;\nASSEMBLY~\n"
        );
        assert_eq!(validate(&got.operation), Ok(()));
    }

    #[test]
    fn three_sections_become_one_process_and_say_so() {
        let got = d("K\nA:\n1. a1\n- x\nB:\n2. b1\n- y\nC:\n3. c1\n- z\n");
        assert_eq!(got.operation.processes.len(), 1);
        assert_eq!(got.operation.step_count(), 3);
        assert!(
            got.notes[0].contains("3 sections became one process"),
            "{:?}",
            got.notes
        );
    }

    #[test]
    fn headings_with_one_level_lists_are_steps_with_substeps() {
        let got = d(
            "Packing SOP\nInspect:\n1. Look for scratches\n2. Check label\nPack:\n1. Fold box\n2. Insert unit\n",
        );
        assert_eq!(
            print(&got.operation),
            "Packing SOP\nInspect:\nLook for scratches;\nCheck label;\nPack:\nFold box;\nInsert unit;\nProcess 1~\n"
        );
    }

    #[test]
    fn a_flat_list_with_prose_under_items_gives_prose_as_substeps() {
        let got = d("Title here\n1. Fit housing\nPlace it flat on the base.\n2. Tighten screws\n");
        let op = &got.operation;
        assert_eq!(op.step_names(), vec!["Fit housing", "Tighten screws"]);
        assert_eq!(
            op.processes[0].steps[0].substeps,
            vec!["Place it flat on the base"]
        );
        assert!(op.processes[0].steps[1].substeps.is_empty());
        assert!(
            got.notes
                .iter()
                .any(|n| n.starts_with("1 step(s) have no sub-step"))
        );
        // The editor's rule then asks for it: the draft is not saved as it is.
        assert!(validate(op).is_err());
    }

    #[test]
    fn repeated_names_and_refused_characters_are_made_fit() {
        let got = d("A~B `doc`\n1. Check\n- look\n- look\n- Look \n2. Check\n- Check\n- again;\n");
        let op = &got.operation;
        assert_eq!(op.name, "AB doc");
        assert_eq!(op.step_names(), vec!["Check", "Check (2)"]);
        assert_eq!(op.processes[0].steps[0].substeps, vec!["look", "Look"]);
        // A sub-step named like its step is left out (the rules refuse it).
        assert_eq!(op.processes[0].steps[1].substeps, vec!["again"]);
    }

    #[test]
    fn long_names_are_cut_at_a_word() {
        let long = "word ".repeat(40);
        let got = d(&format!("T\n1. {long}\n- sub\n"));
        let step = &got.operation.processes[0].steps[0].name;
        assert!(
            step.chars().count() <= MAX_NAME && step.ends_with("word"),
            "{step}"
        );
        assert!(got.notes.iter().any(|n| n.contains("cut")));
    }

    #[test]
    fn no_list_at_all_reads_headings_then_lines() {
        let got = d("Title\nFIT HOUSING\nPlace the housing.\nCHECK SEAL\nLook at the seal.\n");
        assert_eq!(
            got.operation.step_names(),
            vec!["FIT HOUSING", "CHECK SEAL"]
        );
        let got = d("Title\nFit the housing.\nCheck the seal.\n");
        assert_eq!(
            got.operation.step_names(),
            vec!["Fit the housing", "Check the seal"]
        );
    }

    #[test]
    fn nothing_to_read_is_refused_and_the_name_falls_back() {
        assert_eq!(draft(&from_text("Only a title\n"), "x"), Err(NO_STEPS));
        assert_eq!(draft(&[], "x"), Err(NO_STEPS));
        let got = draft(&from_text("1. One\n- a\n"), "sop-v2").unwrap();
        assert_eq!(got.operation.name, "sop-v2");
    }

    #[test]
    fn at_most_the_step_limit_is_taken() {
        let text: String = (1..=150).map(|i| format!("{i}. s{i}\n- a\n")).collect();
        let got = d(&format!("T\n{text}"));
        assert_eq!(got.operation.step_count(), MAX_STEPS);
        assert!(got.notes.iter().any(|n| n.contains("first 100 steps")));
    }
}
