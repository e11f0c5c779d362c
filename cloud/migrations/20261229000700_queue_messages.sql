-- Messages sent to the cloud's own job queue (`POST generic/send_message_to_sqs/`,
-- docs/decisions.md "send_message_to_sqs"). apalis delivers the job (its own tables);
-- this row is the message's state as the portal reads it: `queued`, then the spec's
-- `started` and `finished`, or `failed` with its reason. The source video may go while
-- the row stays (no foreign key); the trimmed video is a task video of its own.
CREATE TABLE queue_messages (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    queue TEXT NOT NULL,
    status TEXT NOT NULL,
    video_id BIGINT,
    start_ms BIGINT,
    end_ms BIGINT,
    result_video_id BIGINT,
    message TEXT NOT NULL DEFAULT '',
    created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX queue_messages_org ON queue_messages (organization_id, id);
