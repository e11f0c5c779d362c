/**
 * A task's videos as a list (spec section 7 "Videos, tags and comments"), with the
 * spec's filters: shared by recording (Record Training Set) and labeling (Label
 * Training Set). Every video query starts with `videosKey`; a change to a video, its
 * labels or its comments invalidates it.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Page, Video } from '@/api/generated';
import { api } from '@/lib/api-client';

export const videosKey = ['videos'] as const;

/** The list's filters: the video type filter of section 9 ('' all, 'true' training,
 * 'false' trace), a date range (YYYY-MM-DD, either may be empty), the order. */
export type VideoFilter = {
  isUploadedVideo: '' | 'true' | 'false';
  from: string;
  to: string;
  ordering: '' | 'no_of_comments' | '-no_of_comments';
};

export const NO_FILTER: VideoFilter = { isUploadedVideo: '', from: '', to: '', ordering: '' };

export const videoListQuery = (task: number, page: number, f: VideoFilter) =>
  queryOptions({
    queryKey: [...videosKey, task, page, f],
    queryFn: () =>
      api.get<Page<Video>>(`organization/task/videos/${task}`, {
        query: {
          page,
          isUploadedVideo: f.isUploadedVideo || undefined,
          datetime_start: f.from || undefined,
          datetime_end: f.to || undefined,
          ordering: f.ordering || undefined,
        },
      }),
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.results.some((v) => v.status === 'recording') ? RECORDING_POLL_MS : false),
  });

/** A list with a video a device is still recording is asked again every few seconds. */
export const RECORDING_POLL_MS = 3000;
