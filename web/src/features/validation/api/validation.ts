/**
 * Validation groups, videos and runs (spec section 7 "Organisations and validation"):
 * the groups with their runs, a group's videos, task videos added to a group, a run of
 * a model version over it, and a run's report over the group and per video. A run
 * goes on in the background, so its query asks again every second until it ends.
 */
import { queryOptions } from '@tanstack/react-query';

import type {
  AddVideosToGroup,
  Msg,
  RecordsFromTrace,
  Segment,
  ValidationGroup,
  ValidationGroupCreate,
  ValidationRun,
  ValidationRunCreate,
  ValidationRunVideo,
  ValidationVideo,
} from '@/api/generated';
import { api } from '@/lib/api-client';

export const validationKey = ['validation'] as const;
const RUN_POLL_MS = 1000;

export const groupsQuery = () =>
  queryOptions({
    queryKey: [...validationKey, 'groups'],
    queryFn: () => api.get<ValidationGroup[]>('organization/validation-groups/'),
    staleTime: 0,
  });

export const groupVideosQuery = (group: number) =>
  queryOptions({
    queryKey: [...validationKey, 'videos', group],
    queryFn: () => api.get<ValidationVideo[]>('organization/validation-videos/retrieve/', { query: { group_id: group } }),
    staleTime: 0,
  });

const running = (r: ValidationRun | undefined) => r?.status === 'queued' || r?.status === 'running';

export const runQuery = (id: number) =>
  queryOptions({
    queryKey: [...validationKey, 'run', id],
    queryFn: () => api.get<ValidationRun>(`organization/validation-runs/${id}/`),
    staleTime: 0,
    refetchInterval: (q) => (running(q.state.data) ? RUN_POLL_MS : false),
  });

export const runVideosQuery = (id: number, status: string | undefined) =>
  queryOptions({
    queryKey: [...validationKey, 'run-videos', id, status],
    queryFn: () => api.get<ValidationRunVideo[]>(`organization/validation-runs-videos/${id}/`),
    staleTime: 0,
  });

export const createGroup = (body: ValidationGroupCreate) => api.post<ValidationGroup>('organization/validation-groups/', body);

export const deleteGroup = (id: number) => api.delete<Msg>(`organization/validation-groups/${id}/`);

export const addVideos = (body: AddVideosToGroup) => api.put<Msg>('organization/validation-videos/add-video-to-group/', body);

export const startRun = (body: ValidationRunCreate) => api.post<ValidationRun>('organization/validation-runs/', body);

/** Cycles' clips become records of the group, labelled with the recognised steps. */
export const recordsFromTrace = (body: RecordsFromTrace) =>
  api.post<ValidationVideo[]>('websocket_inference/validation_records_from_trace/', body);

/** A record's labels as a person checked them. */
export const checkRecord = (id: number, segments: Segment[]) =>
  api.post<ValidationVideo>(`websocket_inference/validation_record/${id}/`, { segments });
