-- Rectification steps (spec section 7 "Tasks", `organization/rectification_steps/`):
-- what an operator does to put a cycle right when the step at `step_index` of the task
-- is missed or done wrong. A step's come in the order they were added (`id`). The
-- index is the step's place in the task's operation, as labels and cycles count steps.
CREATE TABLE rectification_steps (
    id {{PK}},
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    step_index BIGINT NOT NULL,
    description TEXT NOT NULL,
    created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX rectification_steps_task ON rectification_steps (task_id, step_index, id);
