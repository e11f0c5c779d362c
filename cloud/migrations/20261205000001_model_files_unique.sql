-- One model type holds given bytes once (an upload or a move that would make a second
-- copy is refused).
CREATE UNIQUE INDEX model_files_type_bytes ON model_files (model_type_id, sha256);
