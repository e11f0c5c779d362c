-- Time-stamp tags: one of the organisation's tags at a moment of a video.
CREATE TABLE video_time_tags (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    video_id BIGINT NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
    tag_id BIGINT NOT NULL REFERENCES org_tags(id) ON DELETE CASCADE,
    time_ms BIGINT NOT NULL,
    created_by BIGINT REFERENCES users(id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX video_time_tags_video ON video_time_tags (video_id, time_ms);
