/**
 * The super admin's operations: All Operations (`organization/tasks/admin`, every
 * organisation's, 10 a page, searched, one organisation's on request), Trained
 * Operations (`organization/task/get_all_trained_tasks_of_organization?train_status=`
 * in a chosen organisation, and `organization/trained_task/{id}`), and Task Videos
 * (`organization/task/videos/{taskId}`, the task's own organisation's).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import type { Page, Task, TrainStatus, TrainedTask } from '@/api/generated';
import { TRAINING_POLL_MS } from '@/config/constants';
import { api } from '@/lib/api-client';

export const adminTasksKey = ['admin-tasks'] as const;

export const adminTasksQuery = (page: number, search: string, organization: number | null) =>
  queryOptions({
    queryKey: [...adminTasksKey, 'all', { page, search, organization }],
    queryFn: () =>
      api.get<Page<Task>>('organization/tasks/admin', {
        query: { page, search: search || undefined, organization: organization ?? undefined },
      }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** The training statuses, in the order a task goes through them. */
export const TRAIN_STATUSES: readonly TrainStatus[] = ['new_task', 'in_annotation', 'training', 'failed', 'trained'];

/** `organization`'s tasks of training status `status`. */
export const trainedTasksQuery = (organization: number, status: TrainStatus) =>
  queryOptions({
    queryKey: [...adminTasksKey, 'trained', organization, status],
    queryFn: () =>
      api.get<Task[]>('organization/task/get_all_trained_tasks_of_organization', {
        query: { train_status: status },
        organization,
      }),
    staleTime: 0,
  });

/** A task's training: its status, its latest run and the model that run made. */
export const trainedTaskQuery = (id: number) =>
  queryOptions({
    queryKey: [...adminTasksKey, 'trained-task', id],
    queryFn: () => api.get<TrainedTask>(`organization/trained_task/${id}`),
    staleTime: 0,
    // A run under way is followed until it ends.
    refetchInterval: (q) => (q.state.data?.train_status === 'training' ? TRAINING_POLL_MS : false),
  });

/** Task Videos' address of `task`. */
export const taskVideosPath = (task: Pick<Task, 'id' | 'taskName'>) =>
  `/admin/task-videos/${task.id}/${encodeURIComponent(task.taskName)}`;
