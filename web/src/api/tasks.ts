/**
 * The organisation's operations (`organization/task/`) as the media screens name and
 * choose them: the operation picker of recording, labeling, training and deploying,
 * and the model screens' names of operations.
 */
import type { Task } from '@/api/generated';
import { api } from '@/lib/api-client';

/** The operations of the session's organisation, or of `organization` (the picker's
 * choices; names for other lists). */
export const tasksQuery = (organization?: number) => ({
  queryKey: ['media', 'tasks', organization ?? null],
  queryFn: () => api.get<Task[]>('organization/task/', { organization }),
  staleTime: 0,
});
