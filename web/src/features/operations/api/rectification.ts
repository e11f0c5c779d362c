/**
 * Rectification steps (`organization/rectification_steps/`): what an operator does to
 * put a cycle right when one of the task's steps is missed or done wrong. Listed per
 * task (by step, each step's in order), added one at a time, deleted by id; changes
 * invalidate the task's list.
 */
import { queryOptions } from '@tanstack/react-query';

import type { RectificationStep, RectificationStepCreate } from '@/api/generated';
import { api } from '@/lib/api-client';

export const rectificationKey = (task: number) => ['tasks', 'rectification', task] as const;

export const rectificationQuery = (task: number) =>
  queryOptions({
    queryKey: rectificationKey(task),
    queryFn: () => api.get<RectificationStep[]>('organization/rectification_steps/', { query: { task } }),
    staleTime: 0,
  });

export const addRectificationStep = (body: RectificationStepCreate) =>
  api.post<RectificationStep>('organization/rectification_steps/', body);

export const deleteRectificationStep = (id: number) =>
  api.delete<void>('organization/rectification_steps/', { query: { id } });

/** The task's steps in order, each with its rectification steps (in their order). */
export function byStep(steps: readonly string[], all: readonly RectificationStep[]) {
  const out = steps.map((name, index) => ({ index, name, rectification: [] as RectificationStep[] }));
  const gone: RectificationStep[] = [];
  for (const r of [...all].sort((a, b) => a.step - b.step || a.order - b.order)) {
    const s = out[r.step];
    if (s) s.rectification.push(r);
    else gone.push(r);
  }
  return { steps: out, gone };
}
