-- The organisation's tags (spec section 3 "Organisation tag"), the tags of each video,
-- and comments on videos (spec "Comment": entity_id is the video).
CREATE TABLE org_tags (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    tag_name TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (organization_id, tag_name)
);
CREATE TABLE video_tags (
    video_id BIGINT NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
    tag_id BIGINT NOT NULL REFERENCES org_tags(id) ON DELETE CASCADE,
    PRIMARY KEY (video_id, tag_id)
);
CREATE TABLE video_comments (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    video_id BIGINT NOT NULL REFERENCES videos(id) ON DELETE CASCADE,
    user_id BIGINT REFERENCES users(id) ON DELETE SET NULL,
    user_name TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX video_comments_video ON video_comments (video_id, created_at);
