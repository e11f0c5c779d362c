/**
 * The labeler area (`labeler/…`) and an organisation's requests of labelers
 * (`organization/task/{id}/labelers/`): see docs/decisions.md "The labeler area".
 */
import { queryOptions } from '@tanstack/react-query';

import type { LabelRequest, Page, RequestedTask, Video } from '@/api/generated';
import { api } from '@/lib/api-client';

export const labelerKey = ['labeler'] as const;

export const requestedTasksQuery = () =>
  queryOptions({
    queryKey: [...labelerKey, 'tasks'],
    queryFn: () => api.get<RequestedTask[]>('labeler/tasks/'),
    staleTime: 0,
  });

export const requestedVideosQuery = (task: number, page: number) =>
  queryOptions({
    queryKey: [...labelerKey, 'videos', task, page],
    queryFn: () => api.get<Page<Video>>(`labeler/videos/${task}`, { query: { page } }),
    staleTime: 0,
  });

export const labelRequestsQuery = (task: number) =>
  queryOptions({
    queryKey: [...labelerKey, 'requests', task],
    queryFn: () => api.get<LabelRequest[]>(`organization/task/${task}/labelers/`),
    staleTime: 0,
  });

export const requestLabeling = (task: number, email: string) =>
  api.post<LabelRequest[]>(`organization/task/${task}/labelers/`, { email });

export const withdrawLabeling = (task: number, labeler: number) =>
  api.delete<null>(`organization/task/${task}/labelers/${labeler}/`);
