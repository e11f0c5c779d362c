-- Tasks (operations). A task's user-set fields live in `settings` (JSON, the wire type
-- TaskSettings); the columns beside it are what queries filter or sort on, kept equal
-- to the settings by every write (cloud/src/db/tasks.rs).
CREATE TABLE tasks (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_name TEXT NOT NULL,
    -- lower(task_name) while the task is not deleted, else NULL: names are unique per
    -- organisation among live tasks (NULLs never collide).
    live_name TEXT,
    is_deleted BIGINT NOT NULL DEFAULT 0,
    train_status TEXT NOT NULL DEFAULT 'new_task',
    settings TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    last_update BIGINT,
    -- Bumped by every write: an update applies only to the version it read.
    version BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX tasks_live_name ON tasks (organization_id, live_name);
CREATE INDEX tasks_org ON tasks (organization_id, is_deleted, id);

-- A user's starred tasks.
CREATE TABLE task_stars (
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    PRIMARY KEY (task_id, user_id)
);

-- Every change of a task: who, when, which fields, and the settings after it.
CREATE TABLE task_history (
    id {{PK}},
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    action TEXT NOT NULL,
    changed_fields TEXT NOT NULL,
    user_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
    user_name TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX task_history_task ON task_history (task_id, id);

-- What the object detector of a task looks for.
CREATE TABLE task_objects (
    id {{PK}},
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    outline_color TEXT NOT NULL,
    is_static BIGINT NOT NULL DEFAULT 0,
    step_id BIGINT
);
CREATE INDEX task_objects_task ON task_objects (task_id, id);

CREATE TABLE plane_objects (
    id {{PK}},
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    points TEXT NOT NULL
);
CREATE INDEX plane_objects_task ON plane_objects (task_id, id);

-- One rule per step of a task (static_object, non_static_object: JSON arrays of
-- task object ids; rule: the StepRule JSON).
CREATE TABLE detection_rules (
    id {{PK}},
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    step BIGINT NOT NULL,
    static_object TEXT NOT NULL,
    non_static_object TEXT NOT NULL,
    verify BIGINT NOT NULL DEFAULT 0,
    rule TEXT NOT NULL
);
CREATE UNIQUE INDEX detection_rules_step ON detection_rules (task_id, step);

-- A task's regions of interest.
CREATE TABLE task_regions (
    task_id BIGINT PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    region_json TEXT NOT NULL
);
