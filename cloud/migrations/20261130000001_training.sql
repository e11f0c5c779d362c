-- Training runs of a task (spec section 4 training-task status): queued, then run by a
-- worker from the job queue (apalis), with progress; the model version they made.
CREATE TABLE training_runs (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    progress DOUBLE PRECISION NOT NULL DEFAULT 0,
    message TEXT NOT NULL DEFAULT '',
    epochs BIGINT NOT NULL,
    -- JSON lists of video ids.
    train_videos TEXT NOT NULL,
    holdout_videos TEXT NOT NULL,
    started_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT,
    model_version_id BIGINT
);
CREATE INDEX training_runs_task ON training_runs (organization_id, task_id, id);

-- Model versions (spec section 3 "Model version"): a bundle (`model.onnx`) in the
-- object store under `object_key`, its checksum, and its held-out metrics (JSON).
CREATE TABLE model_versions (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT REFERENCES tasks(id) ON DELETE SET NULL,
    model_type_id BIGINT,
    version TEXT NOT NULL,
    object_key TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    metrics TEXT,
    training_run_id BIGINT REFERENCES training_runs(id) ON DELETE SET NULL,
    is_deleted BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    UNIQUE (organization_id, version)
);
CREATE INDEX model_versions_task ON model_versions (organization_id, task_id, id);
