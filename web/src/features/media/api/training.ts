/**
 * A task's training (spec section 7 `organization/trained_task/{id}`,
 * `organization/train/stop/`): `PATCH` with `{train_status: 'training'}` starts it, `GET`
 * follows it (asked every second while a run is queued or running), `PUT train/stop/`
 * stops it.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Task, TrainedTask } from '@/api/generated';
import { TRAINING_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';

export const trainingKey = ['training'] as const;

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
