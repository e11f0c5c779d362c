//! The save rules of a task beyond the operation's own: names, indexes, parameter
//! ranges, translations; and how a patch makes new settings.

use super::*;

pub(crate) fn check_name(field: &str, label: &str, name: &str) -> ApiResult<String> {
    // Trimmed as the text format trims lines (byte-order marks too), so the name is
    // the text's first line exactly.
    let name = name.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if name.is_empty() {
        return Err(ApiError::field(field, format!("{label} is required!")));
    }
    if name.chars().count() > MAX_NAME {
        return Err(ApiError::field(
            field,
            format!("{label} must be at most {MAX_NAME} characters."),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::field(
            field,
            format!("{label} cannot contain line breaks or control characters."),
        ));
    }
    Ok(name.to_string())
}

/// The operation of a text or of processes, checked by the save rules of section 5,
/// with `name` as its name; answered as its canonical text.
pub(super) fn operation_text(
    name: &str,
    text: Option<&str>,
    processes: Option<&Vec<Process>>,
) -> ApiResult<Option<String>> {
    let (field, mut op) = match (text, processes) {
        (Some(t), _) => (
            "task_detail",
            operation::parse(t).map_err(|e| {
                ApiError::field("task_detail", format!("Line {}: {}", e.line, e.message))
            })?,
        ),
        (None, Some(p)) => (
            "processes",
            Operation {
                name: name.into(),
                processes: p.clone(),
            },
        ),
        (None, None) => return Ok(None),
    };
    // Each name bounded as the processes' are, however the operation came.
    let names = serde_json::json!({ "processes": &op.processes });
    gemba_shared::validate::lengths::check_value(
        &names,
        &gemba_shared::api::v1::lengths::PROCESS_NAMES,
    )
    .map_err(|e| ApiError::field(field, e.message))?;
    operation::validate(&op).map_err(|m| ApiError::field(field, m))?;
    op.name = name.into();
    Ok(Some(operation::print(&op)))
}

/// The settings fields (API names) whose values differ between `a` and `b`.
pub(super) fn changed_fields(a: &TaskSettings, b: &TaskSettings) -> Vec<String> {
    let (Value::Object(a), Value::Object(b)) = (
        serde_json::to_value(a).expect("settings serialise"),
        serde_json::to_value(b).expect("settings serialise"),
    ) else {
        return vec![];
    };
    a.iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect()
}

fn check_indexes(field: &str, indexes: &[u32], steps: usize) -> ApiResult<()> {
    match indexes.iter().find(|&&i| i as usize >= steps) {
        Some(i) => Err(ApiError::field(
            field,
            format!("Step index {i} is out of range: the task has {steps} step(s)."),
        )),
        None => Ok(()),
    }
}

fn check_steps_by_process(
    field: &str,
    map: &StepsByProcess,
    processes: usize,
    steps: usize,
) -> ApiResult<()> {
    if let Some(p) = map.keys().find(|&&p| p as usize >= processes) {
        return Err(ApiError::field(
            field,
            format!("Process index {p} is out of range: the task has {processes} process(es)."),
        ));
    }
    map.values()
        .try_for_each(|v| check_indexes(field, v, steps))
}

/// Drops step and process indexes the operation no longer has (after its steps
/// changed).
pub(super) fn prune(s: &mut TaskSettings) {
    let op = s.operation();
    let steps = op.step_count() as u32;
    let processes = op.processes.len() as u32;
    let keep = |v: &mut Vec<u32>| v.retain(|&i| i < steps);
    keep(&mut s.negative_steps);
    keep(&mut s.optional_steps);
    s.similar_steps.iter_mut().for_each(keep);
    s.similar_steps.retain(|g| g.len() > 1);
    let t = &mut s.task_parameters.telemetry_params;
    for map in [
        &mut t.required_steps_for_start,
        &mut t.required_steps_for_end,
    ] {
        map.retain(|&p, _| p < processes);
        map.values_mut().for_each(keep);
    }
    // Translations of names the operation no longer has.
    let names = op.step_and_substep_names();
    s.translation.retain(|k, _| names.contains(k.as_str()));
}

/// Checks the settings as a whole (after a patch): the parameters' ranges and that
/// every index names a step of the operation.
pub(super) fn check_settings(s: &TaskSettings) -> ApiResult<()> {
    let op = s.operation();
    let steps = op.step_count();
    let processes = op.processes.len();
    check_indexes("negativeSteps", &s.negative_steps, steps)?;
    check_indexes("optional_steps", &s.optional_steps, steps)?;
    for g in &s.similar_steps {
        check_indexes("similarSteps", g, steps)?;
    }
    let t = &s.task_parameters.telemetry_params;
    let field = "taskParameters";
    check_steps_by_process(
        "required_steps_for_start",
        &t.required_steps_for_start,
        processes,
        steps,
    )?;
    check_steps_by_process(
        "required_steps_for_end",
        &t.required_steps_for_end,
        processes,
        steps,
    )?;
    if t.minimum_cycle_time < 0 {
        return Err(ApiError::field(
            field,
            "The minimum cycle time cannot be negative.",
        ));
    }
    if t.maximum_cycle_time < t.minimum_cycle_time {
        return Err(ApiError::field(
            "maximum_cycle_time",
            "The maximum cycle time cannot be below the minimum cycle time.",
        ));
    }
    let share = t.min_percentage_of_steps_required_to_end_cycle;
    if !(0.0..=1.0).contains(&share) {
        return Err(ApiError::field(
            field,
            "The share of steps required to end a cycle must be between 0 and 1.",
        ));
    }
    if t.temporal_smoothness < 1 {
        return Err(ApiError::field(
            field,
            "The temporal smoothness must be at least 1 frame.",
        ));
    }
    if s.task_parameters.training_params.verify_threshold < 1 {
        return Err(ApiError::field(
            field,
            "The verify threshold must be at least 1 frame.",
        ));
    }
    for (f, v) in [
        ("model_choice", &s.model_choice),
        ("model_type", &s.model_type),
    ] {
        if let Some(v) = v {
            check_name(f, "The model name", v)?;
        }
    }
    check_translation(s, &op)
}

/// A translation names only steps and sub-steps of the operation, each with a name the
/// save rules accept, and has a language.
fn check_translation(s: &TaskSettings, op: &Operation) -> ApiResult<()> {
    if s.translation.is_empty() {
        return Ok(());
    }
    let lang = s.translation_name.as_deref().unwrap_or("");
    check_name("translation_name", "The language", lang)?;
    let names = op.step_and_substep_names();
    for (from, to) in &s.translation {
        if !names.contains(from.as_str()) {
            return Err(ApiError::field(
                "translation",
                format!("\"{from}\" is not a step or sub-step of this task."),
            ));
        }
        let to = to.trim();
        if to.is_empty() {
            return Err(ApiError::field(
                "translation",
                "Please fill the empty steps!",
            ));
        }
        if to.chars().any(|c| c == '~' || c == '`' || c.is_control()) {
            return Err(ApiError::field(
                "translation",
                format!("Translation \"{to}\" contains invalid characters (~)."),
            ));
        }
        if to.chars().count() > MAX_NAME {
            return Err(ApiError::field(
                "translation",
                format!("A translation must be at most {MAX_NAME} characters."),
            ));
        }
    }
    Ok(())
}

/// A database error as the API answers it: a unique violation is the task name taken.
pub(super) fn name_taken_or(e: sqlx::Error) -> ApiError {
    ApiError::unique_as(e, "taskName", "A task with this name already exists.")
}

/// The settings `p` makes of `cur`, checked; `None` fields stay.
pub(super) fn apply(cur: &TaskSettings, p: TaskPatch) -> ApiResult<TaskSettings> {
    let mut s = cur.clone();
    if let Some(n) = &p.task_name {
        s.task_name = check_name("taskName", "Task name", n)?;
    }
    let text = operation_text(&s.task_name, p.task_detail.as_deref(), p.processes.as_ref())?;
    let steps_changed = text.is_some();
    s.task_detail = match text {
        Some(t) => t,
        // A new name only: the text's first line follows it.
        None => {
            let mut op = cur.operation();
            op.name = s.task_name.clone();
            operation::print(&op)
        }
    };
    if steps_changed {
        prune(&mut s);
    }
    macro_rules! set {
        ($($f:ident),*) => { $( if let Some(v) = p.$f { s.$f = v; } )* };
    }
    set!(
        is_deleted,
        negative_steps,
        optional_steps,
        similar_steps,
        steps_avg_time,
        sub_step_times,
        steps_data_json,
        advance_features_json,
        translation,
        task_parameters
    );
    macro_rules! set_opt {
        ($($f:ident),*) => { $( if let Some(v) = p.$f { s.$f = Some(v); } )* };
    }
    set_opt!(
        model_choice,
        model_version,
        model_type,
        annotation_image_id,
        translation_name
    );
    let t = &mut s.task_parameters.telemetry_params;
    macro_rules! set_t {
        ($($f:ident),*) => { $( if let Some(v) = p.$f { t.$f = v; } )* };
    }
    set_t!(
        maximum_cycle_time,
        add_background_time_to_step_time,
        object_rotation,
        strict_step_order,
        required_steps_for_start,
        required_steps_for_end
    );
    if s.translation.is_empty() {
        s.translation_name = None;
    }
    check_settings(&s)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_fields_are_the_api_names() {
        let a = TaskSettings::new("A".into(), "A\nS:\ns;\n".into());
        let mut b = a.clone();
        b.task_name = "B".into();
        b.negative_steps = vec![0];
        b.task_parameters.training_params.verify_threshold = 9;
        assert_eq!(
            changed_fields(&a, &b),
            ["negativeSteps", "taskName", "taskParameters"]
        );
        assert!(changed_fields(&a, &a).is_empty());
    }

    #[test]
    fn pruning_drops_indexes_the_operation_lost() {
        let mut s = TaskSettings::new("A".into(), "A\nS:\ns;\n".into());
        s.negative_steps = vec![0, 3];
        s.similar_steps = vec![vec![0, 2]];
        s.translation.insert("S".into(), "Schritt".into());
        s.translation.insert("Gone".into(), "Weg".into());
        prune(&mut s);
        assert_eq!(s.negative_steps, [0]);
        assert!(s.similar_steps.is_empty());
        let t = &s.task_parameters.telemetry_params;
        assert_eq!(t.required_steps_for_start[&0], [0]);
        assert_eq!(s.translation.len(), 1);
    }
}
