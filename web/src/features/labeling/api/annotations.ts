/**
 * Annotation images and their object boxes (spec section 7 "Annotation, media and
 * depth"): frames of a task's videos taken as images, the task's objects, an image's
 * boxes saved, reverted, and images deleted. Under one key per task, so every change
 * refreshes the task's images.
 */
import { queryOptions } from '@tanstack/react-query';

import type {
  AnnotationBulkDelete,
  AnnotationImage,
  AnnotationImageCreate,
  AnnotationObjectsPut,
  Msg,
  TaskObject,
} from '@/api/generated';
import { api } from '@/lib/api-client';

/** The portal's message when the images cannot be read (spec section 8). */
export const IMAGES_ERROR = 'error in getting images';

export const annotationsKey = (task: number) => ['annotation-images', task] as const;

export const annotationImagesQuery = (task: number) =>
  queryOptions({
    queryKey: annotationsKey(task),
    queryFn: () => api.get<AnnotationImage[]>(`organization/task/fetch_all_annotation_image_list/${task}?ordering=frame_ms`),
  });

export const taskObjectsQuery = (task: number) =>
  queryOptions({
    queryKey: ['task-objects', task] as const,
    queryFn: () => api.get<TaskObject[]>(`organization/task/list_task_objects/${task}/`),
  });

export const takeImage = (body: AnnotationImageCreate) => api.post<AnnotationImage>('organization/task/annotation_image/', body);

export const saveBoxes = (body: AnnotationObjectsPut) => api.patch<AnnotationImage>('organization/task/task_object/update_delete', body);

export const revertBoxes = (image: number) => api.post<AnnotationImage>('generic/revert_object_list/', { image });

export const deleteImages = (body: AnnotationBulkDelete) => api.patch<Msg>('organization/annotations/bulk-delete/', body);
