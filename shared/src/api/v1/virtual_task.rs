//! `GET organization/task/virtual_tasks/{id}/`: an operation's processes, each seen as
//! an operation of its own (spec section 3 "Task": processes, steps, the cycle rules
//! keyed by process). The spec names the call and no shape (docs/decisions.md "Virtual
//! tasks"): a virtual task is one process of a task with its steps (their indexes in the
//! whole operation, which labels and cycles use) and the task's rules that concern it.
//! Nothing is stored: they follow the task's operation and parameters as they are.

use serde::{Deserialize, Serialize};

use super::task::TaskSettings;

/// One process of a task, as an operation of its own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VirtualTask {
    /// The task it belongs to.
    pub task: i64,
    /// The process's index in the task (0 first).
    pub process: u32,
    /// The task's name and the process's: `Assemble pump / Pre-assembly`.
    #[serde(rename = "taskName")]
    pub task_name: String,
    pub process_name: String,
    pub steps: Vec<VirtualStep>,
    /// The steps that start a cycle of this process (the task's
    /// `required_steps_for_start` under this process).
    pub required_steps_for_start: Vec<u32>,
    /// The steps that end one.
    pub required_steps_for_end: Vec<u32>,
    /// The task's negative and optional steps among this process's.
    #[serde(rename = "negativeSteps")]
    pub negative_steps: Vec<u32>,
    pub optional_steps: Vec<u32>,
}

/// A step of a virtual task: its index in the whole operation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VirtualStep {
    pub index: u32,
    pub name: String,
    pub substeps: Vec<String>,
}

/// Separates the task's name from the process's in [`VirtualTask::task_name`].
pub const NAME_SEPARATOR: &str = " / ";

/// The virtual tasks of task `task` with settings `s`: one per process, in order.
pub fn virtual_tasks(task: i64, s: &TaskSettings) -> Vec<VirtualTask> {
    let op = s.operation();
    let telemetry = &s.task_parameters.telemetry_params;
    let mut next = 0u32;
    let mut out = Vec::with_capacity(op.processes.len());
    for (p, process) in (0u32..).zip(&op.processes) {
        let steps: Vec<VirtualStep> = process
            .steps
            .iter()
            .map(|st| {
                let index = next;
                next += 1;
                VirtualStep {
                    index,
                    name: st.name.clone(),
                    substeps: st.substeps.clone(),
                }
            })
            .collect();
        let mine = |i: &u32| steps.iter().any(|st| st.index == *i);
        let among = |v: &[u32]| -> Vec<u32> {
            let mut out: Vec<u32> = v.iter().copied().filter(mine).collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        let rule = |m: &super::task::StepsByProcess| among(m.get(&p).map_or(&[][..], |v| v));
        out.push(VirtualTask {
            task,
            process: p,
            task_name: format!("{}{NAME_SEPARATOR}{}", s.task_name, process.name),
            process_name: process.name.clone(),
            required_steps_for_start: rule(&telemetry.required_steps_for_start),
            required_steps_for_end: rule(&telemetry.required_steps_for_end),
            negative_steps: among(&s.negative_steps),
            optional_steps: among(&s.optional_steps),
            steps,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const PUMP: &str = "Assemble pump\nFit housing:\nPlace housing;\nTighten screws;\nCheck seal:\nPre-assembly~\nPack:\nLabel:\nPacking~\n";

    fn pump() -> TaskSettings {
        TaskSettings::new("Assemble pump".into(), PUMP.into())
    }

    #[test]
    fn each_process_is_a_virtual_task_with_the_whole_operations_step_indexes() {
        let v = virtual_tasks(7, &pump());
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].task, v[0].process, v[0].task_name.as_str()),
            (7, 0, "Assemble pump / Pre-assembly")
        );
        let names = |t: &VirtualTask| {
            t.steps
                .iter()
                .map(|s| (s.index, s.name.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&v[0]),
            [(0, "Fit housing".into()), (1, "Check seal".into())]
        );
        assert_eq!(v[0].steps[0].substeps, ["Place housing", "Tighten screws"]);
        assert_eq!(
            (v[1].process_name.as_str(), names(&v[1])),
            ("Packing", vec![(2, "Pack".into()), (3, "Label".into())])
        );
    }

    #[test]
    fn rules_go_to_the_process_whose_steps_they_name() {
        let mut s = pump();
        s.negative_steps = vec![3, 1];
        s.optional_steps = vec![2, 2];
        let t = &mut s.task_parameters.telemetry_params;
        t.required_steps_for_start = BTreeMap::from([(0, vec![0]), (1, vec![2, 0])]);
        t.required_steps_for_end = BTreeMap::from([(1, vec![3])]);
        let v = virtual_tasks(1, &s);
        assert_eq!(v[0].negative_steps, [1]);
        assert_eq!(v[1].negative_steps, [3]);
        assert!(v[0].optional_steps.is_empty());
        assert_eq!(v[1].optional_steps, [2]);
        assert_eq!(v[0].required_steps_for_start, [0]);
        // Step 0 is not the second process's: left out of its start.
        assert_eq!(v[1].required_steps_for_start, [2]);
        assert!(v[0].required_steps_for_end.is_empty());
        assert_eq!(v[1].required_steps_for_end, [3]);
    }

    #[test]
    fn a_one_process_operation_has_one_virtual_task() {
        let s = TaskSettings::new("Pack".into(), "Pack\nFold:\nTape:\n".into());
        let v = virtual_tasks(3, &s);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].steps.len(), 2);
    }
}
