/**
 * Model types and model files (spec section 7 "Model versions, types and files"): the
 * platform's catalogue every user-area role reads (`organization/model_types`, each type
 * with its files); the super admin creates and changes types and uploads, moves and
 * deletes their files. A file goes whole as the request body, with upload progress;
 * moves and deletes name the files in `?ids=1,2` and change all of them or none.
 */
import { queryOptions } from '@tanstack/react-query';

import type { ModelFile, ModelFilesPatch, ModelType, ModelTypeCreate, ModelTypePatch, Msg } from '@/api/generated';
import { api } from '@/lib/api-client';

export const modelTypesKey = ['model-types'] as const;

export const modelTypesQuery = () =>
  queryOptions({
    queryKey: modelTypesKey,
    queryFn: () => api.get<ModelType[]>('organization/model_types'),
    staleTime: 0,
  });

export const createModelType = (body: ModelTypeCreate) => api.post<ModelType>('organization/model_types', body);

export const updateModelType = (id: number, body: ModelTypePatch) => api.patch<ModelType>(`organization/model_type/${id}`, body);

/**
 * What an upload declares of a file made elsewhere (a PyTorch export says none of it),
 * as query parameters: the cloud writes them into the stored file's metadata. `labels`
 * is a JSON list (the steps in order, then background); scale, mean and std apply to
 * float32 only: each value becomes (x · scale − mean) / std.
 */
export type ModelFileDeclaration = {
  labels: string;
  version: string;
  input_layout: 'NCHW' | 'NHWC';
  input_type: 'float32' | 'uint8';
  input_scale?: string;
  input_mean?: string;
  input_std?: string;
  input_format: 'RGB' | 'BGR';
};

/**
 * Uploads `file` as a model file of type `modelType`, declaring `declared` when given;
 * `onProgress` hears the bytes sent.
 */
export const uploadModelFile = (
  modelType: number,
  file: File,
  onProgress: (sent: number, total: number) => void,
  declared?: ModelFileDeclaration,
) =>
  api.post<ModelFile>('organization/model_files', file, {
    query: { model_type: modelType, name: file.name, ...declared },
    onUploadProgress: onProgress,
  });

const ids = (files: readonly number[]) => ({ ids: files.join(',') });

export const moveModelFiles = (files: readonly number[], to: number) =>
  api.patch<ModelFile[]>('organization/model_files', { model_type: to } satisfies ModelFilesPatch, { query: ids(files) });

export const deleteModelFiles = (files: readonly number[]) => api.delete<Msg>('organization/model_files', { query: ids(files) });
