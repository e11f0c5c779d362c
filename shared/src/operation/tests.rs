use super::*;
use proptest::prelude::*;
use proptest::sample::Index;

fn step(name: &str, substeps: &[&str]) -> Step {
    Step {
        name: name.into(),
        substeps: substeps.iter().map(|s| s.to_string()).collect(),
    }
}

fn process(name: &str, steps: Vec<Step>) -> Process {
    Process {
        name: name.into(),
        steps,
    }
}

/// The module docs' example.
const PUMP: &str = "Assemble pump
Fit housing:
Place housing;
Tighten screws;
Check seal:
Inspect seal;
Pre-assembly~
Pack:
Put in box;
";

fn pump() -> Operation {
    Operation {
        name: "Assemble pump".into(),
        processes: vec![
            process(
                "Pre-assembly",
                vec![
                    step("Fit housing", &["Place housing", "Tighten screws"]),
                    step("Check seal", &["Inspect seal"]),
                ],
            ),
            process("Process 2", vec![step("Pack", &["Put in box"])]),
        ],
    }
}

fn line_error(text: &str) -> usize {
    parse(text).unwrap_err().line
}

#[test]
fn a_process_line_closes_the_steps_above_it() {
    assert_eq!(parse(PUMP).unwrap(), pump());
}

#[test]
fn steps_after_the_last_process_line_get_a_default_process() {
    let op = parse("Op\nA:\na;\n").unwrap();
    assert_eq!(
        op.processes,
        vec![process("Process 1", vec![step("A", &["a"])])]
    );
    let op = parse("Op\nA:\na;\nFirst~\n").unwrap();
    assert_eq!(
        op.processes,
        vec![process("First", vec![step("A", &["a"])])]
    );
    // The default name is never one the text gave already.
    let op = parse("Op\nA:\na;\nProcess 2~\nB:\nb;\n").unwrap();
    assert_eq!(op.processes[1].name, "Process 3");
    assert_eq!(validate(&op), Ok(()));
}

#[test]
fn a_name_alone_has_no_process() {
    assert_eq!(
        parse("Op").unwrap(),
        Operation {
            name: "Op".into(),
            processes: vec![]
        }
    );
    assert_eq!(
        validate(&parse("Op").unwrap()).unwrap_err(),
        NO_PROCESS_MESSAGE
    );
}

#[test]
fn print_writes_the_canonical_text() {
    let canonical = format!("{PUMP}Process 2~\n");
    assert_eq!(print(&pump()), canonical);
    assert_eq!(print(&parse(&canonical).unwrap()), canonical);
    assert_eq!(parse(&canonical).unwrap(), pump());
}

#[test]
fn whitespace_blank_lines_and_line_breaks_are_forgiven() {
    let messy = "\u{feff}\r\n  Assemble pump  \r\n\r\n Fit housing :\r\n\tPlace housing ;\rTighten screws;\n\n  Check seal:\n   Inspect seal;\nPre-assembly ~\nPack:\nPut in box;";
    assert_eq!(parse(messy).unwrap(), pump());
}

#[test]
fn markers_inside_names_are_kept() {
    let op = parse("Op: v2;\nA: left;:\nb:c;;\nx:~ y~\n").unwrap();
    assert_eq!(op.name, "Op: v2;");
    assert_eq!(
        op.processes,
        vec![process("x:~ y", vec![step("A: left;", &["b:c;"])])]
    );
    assert_eq!(parse(&print(&op)).unwrap(), op);
}

#[test]
fn empty_names_are_read_and_left_to_validate() {
    let op = parse("Op\n:\n;\n~\n").unwrap();
    assert_eq!(op.processes, vec![process("", vec![step("", &[""])])]);
    assert_eq!(validate(&op).unwrap_err(), EMPTY_STEPS_MESSAGE);
}

#[test]
fn unreadable_text_names_its_line() {
    let e = parse("").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("empty"), "{e}");
    assert_eq!(line_error(" \n\t\r\n"), 1);
    let e = parse("Op\r\nA:\r\n\r\nno marker here\r\n").unwrap_err();
    assert_eq!(e.line, 4);
    assert_eq!(
        e.to_string(),
        "line 4: \"no marker here\" ends in none of ':' (a step), ';' (a sub-step) or '~' (a process)"
    );
    // A sub-step right after the name, or after the process line that closed its step.
    assert_eq!(line_error("Op\na;\n"), 2);
    assert_eq!(line_error("Op\nA:\na;\nP~\nb;\n"), 5);
    // Old Mac line breaks count as one each.
    assert_eq!(line_error("Op\rA:\rbad"), 3);
}

#[test]
fn long_lines_are_shortened_in_messages() {
    let e = parse(&format!("Op\n{}", "é".repeat(500))).unwrap_err();
    assert!(e.message.chars().count() < 150, "{e}");
}

fn valid() -> Operation {
    Operation {
        name: "Op".into(),
        processes: vec![
            process("P1", vec![step("A", &["a", "b"]), step("B", &["a"])]),
            process("P2", vec![step("C", &["A", "c"])]),
        ],
    }
}

#[test]
fn the_spec_examples_pass() {
    assert_eq!(validate(&valid()), Ok(()));
    assert_eq!(validate(&pump()), Ok(()));
}

#[test]
fn each_rule_answers_its_message() {
    let with = |f: &dyn Fn(&mut Operation)| {
        let mut op = valid();
        f(&mut op);
        validate(&op).unwrap_err()
    };
    assert_eq!(
        with(&|o| o.processes[0].steps[1].name = " ".into()),
        "Please fill the empty steps!"
    );
    assert_eq!(
        with(&|o| o.processes[1].steps[0].substeps[1].clear()),
        "Please fill the empty steps!"
    );
    assert_eq!(
        with(&|o| o.processes[1].name.clear()),
        "Please fill the empty process names!"
    );
    assert_eq!(
        with(&|o| o.processes[0].steps[1].substeps.clear()),
        "Each step must have atleast one sub-step!"
    );
    assert_eq!(
        with(&|o| o.processes[0].steps[0].name = "A~1".into()),
        "Step name \"A~1\" contains invalid characters (~)."
    );
    assert_eq!(
        with(&|o| o.processes[0].steps[0].substeps[1] = " b`2 ".into()),
        "Substep name \"b`2\" contains invalid characters (~)."
    );
    assert_eq!(
        with(&|o| o.processes[1].name = "P\n2".into()),
        "Process name \"P\n2\" contains invalid characters (~)."
    );
    assert_eq!(
        with(&|o| o.processes[1].name = "P1 ".into()),
        "Processes name cannot be same!"
    );
    assert_eq!(
        with(&|o| o.processes[1].steps[0].name = "A".into()),
        "Steps name cannot be same!"
    );
    assert_eq!(
        with(&|o| o.processes[0].steps[1].name = "A".into()),
        "Steps name cannot be same!"
    );
    assert_eq!(
        with(
            &|o| o.processes[0].steps[0].substeps = vec!["Put in box".into(), " Putin  box".into()]
        ),
        "Substeps cannot be same!"
    );
    assert_eq!(
        with(&|o| o.processes[0].steps[0].substeps.push(" A".into())),
        "Step and Substep name cannot be same!"
    );
    assert_eq!(
        with(&|o| o.processes.clear()),
        "An operation must contain atleast one process!"
    );
    assert_eq!(
        with(&|o| o.processes[1].steps.clear()),
        "A process must contain atleast one step!"
    );
    assert_eq!(
        with(&|o| o.processes.push(process("P3", vec![step("D", &["d"])]))),
        "An operation can contain at most 2 process!"
    );
}

#[test]
fn the_first_failing_rule_in_the_documented_order_wins() {
    let mut op = valid();
    op.processes.push(process("P1", vec![step("A~", &[])]));
    op.processes.push(process("P4", vec![]));
    op.processes[0].steps[0].name.clear();
    assert_eq!(validate(&op).unwrap_err(), EMPTY_STEPS_MESSAGE);
    op.processes[0].steps[0].name = "A".into();
    assert_eq!(validate(&op).unwrap_err(), STEP_WITHOUT_SUBSTEP_MESSAGE);
    op.processes[2].steps[0].substeps.push("x".into());
    assert!(validate(&op).unwrap_err().contains("invalid characters"));
    op.processes[2].steps[0].name = "A".into();
    assert_eq!(validate(&op).unwrap_err(), SAME_PROCESS_NAMES_MESSAGE);
    op.processes[2].name = "P3".into();
    assert_eq!(validate(&op).unwrap_err(), SAME_STEP_NAMES_MESSAGE);
    op.processes[2].steps[0].name = "D".into();
    assert_eq!(validate(&op).unwrap_err(), PROCESS_WITHOUT_STEP_MESSAGE);
    op.processes.pop();
    assert_eq!(validate(&op).unwrap_err(), TOO_MANY_PROCESSES_MESSAGE);
}

#[test]
fn the_invalid_character_message_names_the_first_name_in_order() {
    let mut op = valid();
    op.processes[0].steps[1].substeps[0] = "x~".into();
    op.processes[1].name = "P`".into();
    op.processes[0].steps[1].name = "B~".into();
    assert_eq!(
        validate(&op).unwrap_err(),
        invalid_characters_message(NameKind::Step, "B~")
    );
}

// ---- Property tests ----

/// A name the format can carry and the rules accept: no `~`, backtick or control
/// character; it may hold the markers `:` and `;`, spaces and non-ASCII letters.
fn raw_name() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9é漢][a-zA-Z0-9é漢 :;.,'()/-]{0,10}"
}

/// Names needed at most: 1 operation, 2 processes, 2×3 steps, 2×3×3 sub-steps.
const NAMES: usize = 27;

/// A valid operation whose names all differ once their whitespace is removed (each ends
/// in `#` and its own number), so a mutation breaks only the rule it aims at.
fn distinct_operation() -> impl Strategy<Value = Operation> {
    let shape = prop::collection::vec(prop::collection::vec(1usize..4, 1..4), 1..=MAX_PROCESSES);
    (shape, prop::collection::vec(raw_name(), NAMES)).prop_map(|(shape, raw)| {
        let mut names = raw
            .into_iter()
            .enumerate()
            .map(|(i, r)| format!("{}#{i}", r.trim()));
        let mut next = || names.next().unwrap_or_default();
        let name = next();
        let processes = shape
            .iter()
            .map(|steps| {
                let steps = steps
                    .iter()
                    .map(|&n| Step {
                        name: next(),
                        substeps: (0..n).map(|_| next()).collect(),
                    })
                    .collect();
                Process {
                    name: next(),
                    steps,
                }
            })
            .collect();
        Operation { name, processes }
    })
}

fn step_positions(op: &Operation) -> Vec<(usize, usize)> {
    op.processes
        .iter()
        .enumerate()
        .flat_map(|(p, pr)| (0..pr.steps.len()).map(move |s| (p, s)))
        .collect()
}

fn pick_step<'a>(op: &'a mut Operation, i: &Index) -> &'a mut Step {
    let (p, s) = *i.get(&step_positions(op));
    &mut op.processes[p].steps[s]
}

fn fresh_process(k: usize) -> Process {
    process(
        &format!("fresh#{}", 100 + 3 * k),
        vec![step(
            &format!("fresh#{}", 101 + 3 * k),
            &[&format!("fresh#{}", 102 + 3 * k)],
        )],
    )
}

/// Same operation with every name trimmed, as the text format reads it back.
fn trimmed(op: &Operation) -> Operation {
    let t = |s: &String| s.trim().to_string();
    Operation {
        name: t(&op.name),
        processes: op
            .processes
            .iter()
            .map(|p| Process {
                name: t(&p.name),
                steps: p
                    .steps
                    .iter()
                    .map(|s| Step {
                        name: t(&s.name),
                        substeps: s.substeps.iter().map(t).collect(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// A valid operation with coincidences the rules allow: one sub-step under two steps,
/// a sub-step named like another step, names with surrounding spaces.
fn valid_operation() -> impl Strategy<Value = Operation> {
    (distinct_operation(), any::<Index>(), any::<Index>(), 0u8..8).prop_map(
        |(mut op, a, b, tweaks)| {
            let positions = step_positions(&op);
            let (pa, sa) = *a.get(&positions);
            let (pb, sb) = *b.get(&positions);
            if (pa, sa) != (pb, sb) {
                if tweaks & 1 != 0 {
                    let sub = op.processes[pa].steps[sa].substeps[0].clone();
                    op.processes[pb].steps[sb].substeps.push(sub);
                }
                if tweaks & 2 != 0 {
                    let name = op.processes[pa].steps[sa].name.clone();
                    op.processes[pb].steps[sb].substeps.insert(0, name);
                }
            }
            if tweaks & 4 != 0 {
                op.name = format!("  {} ", op.name);
                for p in &mut op.processes {
                    p.name = format!(" {}\t", p.name);
                    for s in &mut p.steps {
                        s.name = format!("\u{a0}{} ", s.name);
                        for n in &mut s.substeps {
                            *n = format!(" {n}  ");
                        }
                    }
                }
            }
            op
        },
    )
}

/// Breaks exactly rule `rule` of a [`distinct_operation`]; answers the expected message.
fn break_rule(op: &mut Operation, rule: u8, a: &Index, b: &Index, c: &Index) -> String {
    match rule {
        0 => {
            pick_step(op, a).name = [" ", ""][b.index(2)].into();
            EMPTY_STEPS_MESSAGE.into()
        }
        1 => {
            let s = pick_step(op, a);
            let i = b.index(s.substeps.len());
            s.substeps[i] = "\t".into();
            EMPTY_STEPS_MESSAGE.into()
        }
        2 => {
            let i = a.index(op.processes.len());
            op.processes[i].name = " ".into();
            EMPTY_PROCESS_NAME_MESSAGE.into()
        }
        3 => {
            pick_step(op, a).substeps.clear();
            STEP_WITHOUT_SUBSTEP_MESSAGE.into()
        }
        4 => {
            let bad = ['~', '`', '\n', '\r', '\t', '\u{0}'][c.index(6)];
            let (kind, name) = match c.index(18) % 3 {
                0 => {
                    let i = a.index(op.processes.len());
                    (NameKind::Process, &mut op.processes[i].name)
                }
                1 => (NameKind::Step, &mut pick_step(op, a).name),
                _ => {
                    let s = pick_step(op, a);
                    let i = b.index(s.substeps.len());
                    (NameKind::Substep, &mut s.substeps[i])
                }
            };
            *name = format!("{name}{bad}x");
            invalid_characters_message(kind, name)
        }
        5 => {
            if op.processes.len() < 2 {
                op.processes.push(fresh_process(0));
            }
            op.processes[1].name = format!(" {}", op.processes[0].name);
            SAME_PROCESS_NAMES_MESSAGE.into()
        }
        6 => {
            if step_positions(op).len() < 2 {
                op.processes[0].steps.push(fresh_process(0).steps.remove(0));
            }
            let positions = step_positions(op);
            let i = a.index(positions.len());
            let j = (i + 1 + b.index(positions.len() - 1)) % positions.len();
            let name = op.processes[positions[i].0].steps[positions[i].1]
                .name
                .clone();
            op.processes[positions[j].0].steps[positions[j].1].name = name;
            SAME_STEP_NAMES_MESSAGE.into()
        }
        7 => {
            let s = pick_step(op, a);
            let sub = &s.substeps[b.index(s.substeps.len())];
            let mut chars = sub.chars();
            let first = chars.next().unwrap_or('x');
            let spaced = format!("{first} {}", chars.as_str());
            s.substeps.push(spaced);
            SAME_SUBSTEPS_MESSAGE.into()
        }
        8 => {
            let s = pick_step(op, a);
            let name = format!(" {} ", s.name);
            let at = b.index(s.substeps.len() + 1);
            s.substeps.insert(at, name);
            STEP_IS_SUBSTEP_MESSAGE.into()
        }
        9 => {
            op.processes.clear();
            NO_PROCESS_MESSAGE.into()
        }
        10 => {
            let i = a.index(op.processes.len());
            op.processes[i].steps.clear();
            PROCESS_WITHOUT_STEP_MESSAGE.into()
        }
        _ => {
            let mut k = 0;
            while op.processes.len() <= MAX_PROCESSES {
                op.processes.push(fresh_process(k));
                k += 1;
            }
            TOO_MANY_PROCESSES_MESSAGE.into()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn printed_operations_read_back_the_same(op in valid_operation()) {
        let text = print(&op);
        prop_assert_eq!(parse(&text), Ok(trimmed(&op)));
        prop_assert_eq!(print(&trimmed(&op)), text);
    }

    #[test]
    fn valid_operations_pass(op in valid_operation()) {
        prop_assert_eq!(validate(&op), Ok(()));
    }

    #[test]
    fn breaking_one_rule_answers_its_message(
        mut op in distinct_operation(),
        rule in 0u8..12,
        a in any::<Index>(),
        b in any::<Index>(),
        c in any::<Index>(),
    ) {
        prop_assert_eq!(validate(&op), Ok(()));
        let expected = break_rule(&mut op, rule, &a, &b, &c);
        prop_assert_eq!(validate(&op), Err(expected));
    }

    #[test]
    fn any_text_parses_or_names_a_line_and_what_parses_prints_back(
        text in "(([ \t]*[a-c~`:;\u{feff}\u{a0}é]{0,4}[:;~]?[ \t]*)(\r\n|\n|\r)){0,12}",
    ) {
        match parse(&text) {
            Ok(op) => {
                prop_assert_eq!(parse(&print(&op)), Ok(op.clone()));
                let _ = validate(&op);
            }
            Err(e) => {
                let lines = text.split("\r\n").map(|l| l.split(['\n', '\r']).count()).sum::<usize>();
                prop_assert!(e.line >= 1 && e.line <= lines.max(1), "{} of {:?}", e, text);
            }
        }
    }

    #[test]
    fn no_input_panics(text in any::<String>()) {
        if let Ok(op) = parse(&text) {
            prop_assert_eq!(parse(&print(&op)), Ok(op.clone()));
            let _ = validate(&op);
        }
    }
}
