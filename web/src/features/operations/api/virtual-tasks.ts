/** A task's virtual tasks (`GET organization/task/virtual_tasks/{id}/`): each process as
 * an operation of its own, with its steps and cycle rules. */
import { queryOptions } from '@tanstack/react-query';

import type { VirtualTask } from '@/api/generated';
import { api } from '@/lib/api-client';

export const virtualTasksQuery = (task: number) =>
  queryOptions({
    queryKey: ['tasks', 'virtual', task],
    queryFn: () => api.get<VirtualTask[]>(`organization/task/virtual_tasks/${task}/`),
    staleTime: 0,
  });
