-- The task queues of `POST generic/send_message_to_sqs/` (issue 31; docs/decisions.md
-- "send_message_to_sqs"): `update_task` (the task and its changes, JSON as `PATCH
-- organization/task/{id}/` takes them), `cloning_task` (the task, the copy's name and
-- organisation), `sample_images_for_detector` (the task, frames of each video), and
-- what each made: the task changed or copied, the annotation images taken (their ids,
-- comma-separated). No foreign keys: the task may go while the message stays.
-- `sender_role`: the role the sender's call acted as (a service token's may be below
-- its account's); the job acts as the sender with it.
ALTER TABLE queue_messages ADD COLUMN task_id BIGINT;
ALTER TABLE queue_messages ADD COLUMN task_name TEXT;
ALTER TABLE queue_messages ADD COLUMN target_organization_id BIGINT;
ALTER TABLE queue_messages ADD COLUMN changes TEXT;
ALTER TABLE queue_messages ADD COLUMN frames_per_video BIGINT;
ALTER TABLE queue_messages ADD COLUMN result_task_id BIGINT;
ALTER TABLE queue_messages ADD COLUMN result_image_ids TEXT NOT NULL DEFAULT '';
ALTER TABLE queue_messages ADD COLUMN sender_role TEXT;
