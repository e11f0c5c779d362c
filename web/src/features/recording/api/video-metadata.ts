/** A ready video's file read again by the server
 * (`POST organization/task_record/extract_video_metadata`): length, frame rate, size,
 * codec, container, sound. */
import { queryOptions } from '@tanstack/react-query';

import type { VideoMetadata } from '@/api/generated';
import { api } from '@/lib/api-client';

export const videoMetadataQuery = (video: number) =>
  queryOptions({
    queryKey: ['videos', 'metadata', video],
    queryFn: () => api.post<VideoMetadata>('organization/task_record/extract_video_metadata', { task_record: video }),
    staleTime: Infinity,
  });

/** The metadata as the details list shows it: label and value, in order. */
export function metadataRows(m: VideoMetadata): [string, string][] {
  const seconds = (m.duration_ms / 1000).toFixed(1);
  return [
    ['Length', `${seconds} s`],
    ['Picture', `${m.width}×${m.height}`],
    ['Frame rate', m.frame_rate > 0 ? `${Number(m.frame_rate.toFixed(3))} fps` : 'variable'],
    ['Video codec', m.codec || 'unknown'],
    ['Container', m.container ?? 'none (a bare stream)'],
    ['Sound', m.has_audio ? 'yes' : 'no'],
    ['Bit rate', m.bitrate !== null && m.bitrate !== undefined ? `${Math.round(m.bitrate / 1000)} kbit/s` : 'not given'],
    ['File size', `${(m.size_bytes / 1e6).toFixed(2)} MB`],
  ];
}
