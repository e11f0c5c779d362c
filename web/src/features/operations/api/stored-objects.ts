/** A task's files in the object store (`GET organization/task/s3_objects/{id}/`): its
 * videos and thumbnails, models, clips, validation videos and annotation images. */
import { queryOptions } from '@tanstack/react-query';

import type { StoredObject } from '@/api/generated';
import { api } from '@/lib/api-client';

export const storedObjectsQuery = (task: number) =>
  queryOptions({
    queryKey: ['tasks', 'stored-objects', task],
    queryFn: () => api.get<StoredObject[]>(`organization/task/s3_objects/${task}/`),
    staleTime: 0,
  });

const KIND: Record<string, string> = {
  video: 'Video',
  thumbnail: 'Thumbnail',
  model: 'Model',
  clip: 'Cycle clip',
  validation_video: 'Validation video',
  annotation_image: 'Annotation image',
};

/** A kind as people read it. */
export const kindLabel = (kind: string) => KIND[kind] ?? kind;

/** A size for people; a file the store lacks says so. */
export function sizeLabel(bytes: number | null): string {
  if (bytes === null) return 'missing from the store';
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
