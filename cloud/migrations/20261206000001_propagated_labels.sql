-- Propagated labels: a video's labels as a trained model guessed them, for a person to
-- review. The version that guessed them; NULL for labels a person saved. Not trained on
-- until reviewed.
ALTER TABLE video_labels ADD COLUMN propagated_from TEXT;
