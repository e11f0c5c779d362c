-- Annotation images (spec section 7 "Annotation, media and depth"): a frame of a task's
-- video kept as a JPEG in the object store (`object_key`, under the organisation), and
-- the boxes drawn on it, one per task object seen, scaled to 0..1 of the image.
-- `previous_objects` holds the image's boxes before their last change (JSON, the
-- `AnnotationObjectWrite` list) for `revert_object_list`; NULL when there is none.
-- A frame is taken once: (video_id, frame_ms) is unique while the video is there.
CREATE TABLE annotation_images (
    id {{PK}},
    organization_id BIGINT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    task_id BIGINT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
    video_id BIGINT REFERENCES videos(id) ON DELETE SET NULL,
    frame_ms BIGINT NOT NULL,
    width BIGINT NOT NULL,
    height BIGINT NOT NULL,
    object_key TEXT NOT NULL,
    previous_objects TEXT,
    created_by BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX annotation_images_task ON annotation_images (task_id, id);
CREATE UNIQUE INDEX annotation_images_frame ON annotation_images (video_id, frame_ms);

CREATE TABLE annotation_objects (
    id {{PK}},
    image_id BIGINT NOT NULL REFERENCES annotation_images(id) ON DELETE CASCADE,
    task_object_id BIGINT NOT NULL REFERENCES task_objects(id) ON DELETE CASCADE,
    x DOUBLE PRECISION NOT NULL,
    y DOUBLE PRECISION NOT NULL,
    width DOUBLE PRECISION NOT NULL,
    height DOUBLE PRECISION NOT NULL,
    confidence DOUBLE PRECISION
);
CREATE INDEX annotation_objects_image ON annotation_objects (image_id, id);
CREATE INDEX annotation_objects_object ON annotation_objects (task_object_id);
