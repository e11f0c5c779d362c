/** Test data of the video screens (recording, labeling): a video and its labels. */
import type { Video, VideoLabels } from '@/api/generated';

/** A ready 12 s training video of task 1. */
export const video = (id: number, extra: Partial<Video> = {}): Video => ({
  id,
  task: 1,
  file_name: `clip-${id}.mp4`,
  isUploadedVideo: true,
  status: 'ready',
  size_bytes: 1_000_000,
  received_bytes: 1_000_000,
  duration_ms: 12_000,
  fps: 15,
  width: 320,
  height: 240,
  no_of_comments: 0,
  tags: [],
  url: `/api/media/${id}`,
  thumbnail_url: null,
  created_by: 5,
  created_at: 0,
  device: null,
  camera: null,
  message: '',
  labels: 'none',
  ...extra,
});

/** Labels of video `id` (task 1, steps Fit and Check): two segments. */
export const videoLabels = (id: number, extra: Partial<VideoLabels> = {}): VideoLabels => ({
  video: id,
  task: 1,
  steps: ['Fit', 'Check'],
  duration_ms: 12_000,
  segments: [
    { step: 0, start_ms: 0, end_ms: 4000 },
    { step: 1, start_ms: 5000, end_ms: 9000 },
  ],
  reviewed: false,
  propagated_from: null,
  updated_by: 5,
  updated_at: 0,
  ...extra,
});
