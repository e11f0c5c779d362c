-- Model types (spec section 3 "Model type"): the platform's catalogue of step-model
-- recipes, kept by the super admin; a task chooses one by its model_choice (the id).
CREATE TABLE model_types (
    id {{PK}},
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    input_width BIGINT NOT NULL,
    input_height BIGINT NOT NULL,
    hidden BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
-- The recipe the trainer followed before there were types (models/train.py's defaults).
INSERT INTO model_types (name, description, input_width, input_height, hidden, created_at)
VALUES ('Step classifier 64×48',
        'The whole frame at 64×48 through one hidden layer of 48 units: the default.',
        64, 48, 48, 0);

-- Model files: ONNX bundles made to a type's recipe, stored under `platform/model_files/`
-- in the object store; what their metadata says is kept beside them.
CREATE TABLE model_files (
    id {{PK}},
    model_type_id BIGINT NOT NULL REFERENCES model_types(id),
    name TEXT NOT NULL,
    object_key TEXT NOT NULL,
    version TEXT NOT NULL,
    labels TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX model_files_type ON model_files (model_type_id, id);
