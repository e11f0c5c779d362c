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

/** Uploads `file` as a model file of type `modelType`; `onProgress` hears the bytes sent. */
export const uploadModelFile = (modelType: number, file: File, onProgress: (sent: number, total: number) => void) =>
  api.post<ModelFile>('organization/model_files', file, {
    query: { model_type: modelType, name: file.name },
    onUploadProgress: onProgress,
  });

const ids = (files: readonly number[]) => ({ ids: files.join(',') });

export const moveModelFiles = (files: readonly number[], to: number) =>
  api.patch<ModelFile[]>('organization/model_files', { model_type: to } satisfies ModelFilesPatch, { query: ids(files) });

export const deleteModelFiles = (files: readonly number[]) => api.delete<Msg>('organization/model_files', { query: ids(files) });
