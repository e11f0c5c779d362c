/**
 * A task's training (spec section 7 `organization/trained_task/{id}`,
 * `organization/train/stop/`): `PATCH` with `{train_status: 'training'}` starts it, `GET`
 * follows it (asked every second while a run is queued or running), `PUT train/stop/`
 * stops it; whether its labels are enough to train on.
 */
import { queryOptions } from '@tanstack/react-query';

import type { AnnotationsCheck, Task, TrainedTask } from '@/api/generated';
import { trainingKey } from '@/api/training';
import { videosKey } from '@/api/videos';
import { TRAINING_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';

/** A run still to finish. */
export const isActive = (t: TrainedTask | undefined) =>
  t?.run?.status === 'queued' || t?.run?.status === 'running';

export const trainedTaskQuery = (task: number) =>
  queryOptions({
    queryKey: [...trainingKey, task],
    queryFn: () => api.get<TrainedTask>(`organization/trained_task/${task}`),
    staleTime: 0,
    refetchInterval: (q) => (isActive(q.state.data) ? TRAINING_POLL_MS : false),
  });

export const startTraining = (task: number, epochs: number) =>
  api.patch<TrainedTask>(`organization/trained_task/${task}`, { train_status: 'training', epochs });

export const stopTraining = (task: number) => api.put<Task>('organization/train/stop/', { task });

/** Whether a task's labels are enough to train on (under the videos' key: a label change
 * refreshes it). `model`: the task's latest model version, if any; a new one (whose
 * training labelled unlabelled videos) asks again. */
export const annotationsCheckQuery = (task: number, model: number | null = null) =>
  queryOptions({
    queryKey: [...videosKey, 'check', task, model],
    queryFn: () => api.get<AnnotationsCheck>(`organization/task/annotations_check/${task}`),
    staleTime: 0,
  });
