/**
 * The model versions training makes (spec section 7 `organization/model_version`): the
 * list, the soft delete, registering a model file as one; deploying one to devices and
 * following its deployments. Under `trainingKey`, so a finished training run shows here.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Deployment, ModelVersion, ModelVersionCreate, ModelVersionPatch } from '@/api/generated';
import { trainingKey } from '@/api/training';
import { TRAINING_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';

export const modelVersionsKey = [...trainingKey, 'models'] as const;

/** The model versions (of one task) of the session's organisation, or of `organization`
 * (the super admin's Org Model Versions), newest first. */
export const modelVersionsQuery = (task: number | null, organization?: number) =>
  queryOptions({
    queryKey: [...modelVersionsKey, task, organization ?? null],
    queryFn: () => api.get<ModelVersion[]>('organization/model_version', { query: { task: task ?? undefined }, organization }),
    staleTime: 0,
  });

export const setModelDeleted = (id: number, is_deleted: boolean, organization?: number) =>
  api.patch<ModelVersion>(`organization/model_version/${id}`, { is_deleted } satisfies ModelVersionPatch, { organization });

/** Registers a model file (of the model types) as a model version of a task. */
export const registerModelVersion = (body: ModelVersionCreate) => api.post<ModelVersion>('organization/model_version', body);

export const deploy = (model: number, devices: number[]) =>
  api.post<Deployment[]>(`organization/model_version/${model}/deploy/`, { devices });

/** A model version's deployments, asked every second while one is still installing. */
export const deploymentsQuery = (model: number) =>
  queryOptions({
    queryKey: [...trainingKey, 'deployments', model],
    queryFn: () => api.get<Deployment[]>('organization/deployments/', { query: { model_version: model } }),
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === 'installing') ? TRAINING_POLL_MS : false),
  });
