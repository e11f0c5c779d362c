-- Each passage's embedding (issue 32): the embedding model's vector as f32 little-endian
-- bytes, and the model's id (name and the start of its file's sha256), so passages of
-- another model are embedded again (`crate::assistant::embed::backfill`). NULL: not
-- embedded (no model configured, or it failed): found by full-text search alone.
-- {{SQLITE}}
ALTER TABLE assistant_chunks ADD COLUMN embedding BLOB;
-- {{END}}
-- {{POSTGRES}}
ALTER TABLE assistant_chunks ADD COLUMN embedding BYTEA;
-- {{END}}
ALTER TABLE assistant_chunks ADD COLUMN embedding_model TEXT;
CREATE INDEX assistant_chunks_embedding_model ON assistant_chunks (organization_id, embedding_model);
