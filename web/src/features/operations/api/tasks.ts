/**
 * Tasks (operations), spec section 7 "Tasks": the organisation's list (starred first)
 * and its pages, one task, defining, changing (`TaskPatch`: settings, the operation,
 * `is_deleted`, the caller's star), cloning, the history and reverting, the model
 * choices. Every change answers the task after it; callers put it in the cache
 * (`putTask`) and invalidate the task keys, so lists, details and history reload.
 */
import { keepPreviousData, type QueryClient, queryOptions } from '@tanstack/react-query';

import type {
  CloneTask,
  ModelChoice,
  Page,
  RevertResult,
  RevertTask,
  Task,
  TaskCreate,
  TaskFromDocument,
  TaskHistoryEntry,
  TaskPatch,
} from '@/api/generated';
import { api } from '@/lib/api-client';

/**
 * A patch's fields, each optional. (The generated `TaskPatch` marks the four free-form
 * JSON fields as present-but-nullable; the server reads a missing field as unchanged.)
 */
export type TaskChanges = Partial<TaskPatch>;

export const tasksKey = ['tasks'] as const;
export const taskKey = (id: number) => [...tasksKey, 'detail', id] as const;
export const historyKey = (id: number) => [...tasksKey, 'history', id] as const;

/** The lists of tasks (the list and its pages), not one task's queries. */
export const taskListsKeys = [
  [...tasksKey, 'list'],
  [...tasksKey, 'page'],
] as const;

/** The organisation's tasks (not deleted), starred first; `search` on the name. */
export const taskListQuery = (search: string) =>
  queryOptions({
    queryKey: [...tasksKey, 'list', search],
    queryFn: () => api.get<Task[]>('organization/task/', { query: { search: search || undefined } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

/** The organisation's tasks, 10 a page. */
export const taskPageQuery = (page: number, search: string) =>
  queryOptions({
    queryKey: [...tasksKey, 'page', { page, search }],
    queryFn: () => api.get<Page<Task>>('organization/task/taskpage', { query: { page, search: search || undefined } }),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });

export const taskQuery = (id: number) =>
  queryOptions({
    queryKey: taskKey(id),
    queryFn: () => api.get<Task>(`organization/task/${id}/`),
    staleTime: 0,
  });

/** A task's history, newest first. */
export const taskHistoryQuery = (id: number) =>
  queryOptions({
    queryKey: historyKey(id),
    queryFn: () => api.get<TaskHistoryEntry[]>(`organization/task/${id}/history/`),
    staleTime: 0,
  });

export const modelChoicesQuery = () =>
  queryOptions({
    queryKey: [...tasksKey, 'model-choices'],
    queryFn: () => api.get<ModelChoice[]>('organization/task/model_choices'),
    staleTime: Infinity,
  });

export const createTask = (body: TaskCreate) => api.post<Task>('organization/task/', body);

export const patchTask = (id: number, body: TaskChanges) => api.patch<Task>(`organization/task/${id}/`, body);

/** Deleting is a patch: the task is kept, marked deleted (spec section 7). */
export const deleteTask = (id: number) => patchTask(id, { is_deleted: true });

export const cloneTask = (body: CloneTask) => api.post<Task>('generic/clone_task/', body);

export const revertTask = (id: number, body: RevertTask) => api.patch<RevertResult>(`organization/task/${id}/revert/`, body);

/** After a change: the answered task in the cache, and every task query marked stale (the
 * lists, the details, the history reload). */
export async function putTask(qc: QueryClient, task: Task): Promise<void> {
  qc.setQueryData(taskKey(task.id), task);
  await qc.invalidateQueries({ queryKey: tasksKey });
}

/**
 * A standard operating procedure (.docx, .pdf or text) read by the server as a draft
 * operation (`POST organization/task/extract_task_from_doc/`, the file as the body);
 * nothing is saved.
 */
export function extractFromDocument(file: File): Promise<TaskFromDocument> {
  return api.post<TaskFromDocument>('organization/task/extract_task_from_doc/', file, { query: { name: file.name } });
}
