-- Validation groups, videos and runs (spec section 7 "Organisations and validation";
-- docs/decisions.md "Validation"). A group holds labelled videos of one task; a video
-- keeps its own copy of the footage (`object_key`, under the organisation) and of its
-- labels, so deleting or relabelling the task video it came from leaves the group as it
-- was judged. Deleting a group leaves its videos, in no group. A run is one model
-- version over a group's checked videos; its videos keep their names and results when
-- the validation video goes.
CREATE TABLE validation_groups (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX validation_groups_name ON validation_groups (organization_id, name);

CREATE TABLE validation_videos (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    group_id BIGINT REFERENCES validation_groups(id) ON DELETE SET NULL,
    name TEXT NOT NULL,
    -- Where it came from: a task video, or a cycle's clip (no foreign key: either may
    -- go while the copy stays).
    video_id BIGINT,
    cycle_id TEXT,
    object_key TEXT NOT NULL,
    duration_ms BIGINT NOT NULL,
    segments TEXT NOT NULL,
    reviewed BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);
CREATE INDEX validation_videos_group ON validation_videos (group_id);
CREATE INDEX validation_videos_org ON validation_videos (organization_id);

CREATE TABLE validation_runs (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    group_id BIGINT NOT NULL REFERENCES validation_groups(id) ON DELETE CASCADE,
    model_version_id BIGINT NOT NULL REFERENCES model_versions(id) ON DELETE CASCADE,
    -- queued, running, succeeded, failed
    status TEXT NOT NULL,
    error TEXT,
    -- The report over its videos (JSON), once it succeeded.
    report TEXT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
);
CREATE INDEX validation_runs_group ON validation_runs (group_id);

CREATE TABLE validation_run_videos (
    id {{PK}},
    run_id BIGINT NOT NULL REFERENCES validation_runs(id) ON DELETE CASCADE,
    validation_video_id BIGINT REFERENCES validation_videos(id) ON DELETE SET NULL,
    name TEXT NOT NULL,
    -- `gemba-agent eval`'s report (JSON), or why the video could not be evaluated.
    report TEXT,
    error TEXT
);
CREATE INDEX validation_run_videos_run ON validation_run_videos (run_id);
