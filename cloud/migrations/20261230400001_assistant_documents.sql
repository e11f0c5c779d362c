-- The assistant's documents (issue 32): an organisation's manuals and SOPs, read as text
-- and cut into passages, each full-text indexed: SQLite's FTS5 (an external-content
-- table kept by triggers), PostgreSQL's tsvector with a GIN index.
CREATE TABLE assistant_documents (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    created_by BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX assistant_documents_org ON assistant_documents (organization_id);

CREATE TABLE assistant_chunks (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    document_id BIGINT NOT NULL REFERENCES assistant_documents(id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX assistant_chunks_document ON assistant_chunks (document_id, position);
CREATE INDEX assistant_chunks_org ON assistant_chunks (organization_id);

-- {{SQLITE}}
CREATE VIRTUAL TABLE assistant_chunks_fts USING fts5(
    body, content='assistant_chunks', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER assistant_chunks_ai AFTER INSERT ON assistant_chunks BEGIN
    INSERT INTO assistant_chunks_fts (rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER assistant_chunks_ad AFTER DELETE ON assistant_chunks BEGIN
    INSERT INTO assistant_chunks_fts (assistant_chunks_fts, rowid, body)
    VALUES ('delete', old.id, old.body);
END;
-- {{END}}
-- {{POSTGRES}}
ALTER TABLE assistant_chunks
    ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED;
CREATE INDEX assistant_chunks_tsv ON assistant_chunks USING GIN (tsv);
-- {{END}}
