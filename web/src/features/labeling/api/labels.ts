/**
 * A video's labels (spec section 7 "Videos, tags and comments"): its step segments,
 * read and saved through the organisation's calls (Label Training Set) or the labeler
 * area's; marking a trained model's propagated labels reviewed; deleting a task's
 * labels. Under `videosKey`, so a change refreshes the video lists too.
 */
import { queryOptions } from '@tanstack/react-query';

import type { LabelState, LabelsPut, Msg, TaskVideos, VideoLabels } from '@/api/generated';
import { videosKey } from '@/api/videos';
import { api } from '@/lib/api-client';

/** Whose calls reach a video's labels: the organisation's (Label Training Set) or the
 * labeler area's (a task requested of the labeler). */
export type LabelsVia = 'organization' | 'labeler';

export const labelsKey = (video: number, via: LabelsVia = 'organization') => [...videosKey, 'labels', via, video] as const;

export const labelsQuery = (video: number, via: LabelsVia = 'organization') =>
  queryOptions({
    queryKey: labelsKey(video, via),
    queryFn: () => api.get<VideoLabels>(`${via}/task_record/${video}/labels/`),
    staleTime: 0,
  });

export const saveLabels = (video: number, body: LabelsPut, via: LabelsVia = 'organization') =>
  api.put<VideoLabels>(`${via}/task_record/${video}/labels/`, body);

/** Marks propagated labels (a trained model's guesses) reviewed, so training uses them. */
export const markPropagationsReviewed = (body: TaskVideos, via: LabelsVia = 'organization') =>
  api.patch<Msg>(`${via}/task/mark_propagations_as_reviewed`, body);

/** Deletes the labels of some videos of a task (all of its videos without `videos`). */
export const deleteAnnotations = (body: TaskVideos) => api.patch<Msg>('organization/task/delete_annotations', body);

/** Where a video's labels stand, in words. */
export const LABEL_STATES: Record<LabelState, string> = {
  none: 'Not labelled',
  labelled: 'Labelled',
  propagated: 'Propagated: to review',
  reviewed: 'Reviewed',
};
