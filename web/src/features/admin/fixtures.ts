/** Test data of the admin screens' tests. */
import { HttpResponse, http } from 'msw';

import type { Organization, Page, RoleRecord, Task, UserSummary } from '@/api/generated';
import { ROLES } from '@/lib/access/roles';
import { apiUrl } from '@/testing/server';

export const ROLE_ROWS: RoleRecord[] = ROLES.map((name, i) => ({ id: i + 1, name }));

export const ORGS: Organization[] = [
  { id: 1, name: 'acme', org_name_to_display: 'ACME', use_proxy_server: false, created_at: 0 },
  { id: 2, name: 'globex', org_name_to_display: 'Globex', use_proxy_server: false, created_at: 0 },
];

export const person = (id: number, name: string, extra: Partial<UserSummary> = {}): UserSummary => ({
  id,
  email: `${name.toLowerCase()}@example.test`,
  name,
  lastname: 'Tester',
  username: name,
  role: 'org_user',
  is_active: true,
  is_email_verified: true,
  is_approved: true,
  Organization: 1,
  created_at: new Date(2026, 4, 6, 7, 8, 9).getTime(),
  ...extra,
});

/** `users_list/v2` over `rows()` with the server's filters, 10 a page; `seen` gets each query. */
export function usersHandler(rows: () => UserSummary[], seen: URLSearchParams[] = []) {
  return http.get(apiUrl('account/users_list/v2'), ({ request }) => {
    const q = new URL(request.url).searchParams;
    seen.push(q);
    const page = Number(q.get('page') ?? '1');
    const search = (q.get('search') ?? '').toLowerCase();
    const hits = rows().filter(
      (u) =>
        (q.get('is_active') === null || String(u.is_active) === q.get('is_active')) &&
        (q.get('role__name') === null || u.role === q.get('role__name')) &&
        (search === '' || `${u.name} ${u.lastname} ${u.email}`.toLowerCase().includes(search)),
    );
    return HttpResponse.json({ results: hits.slice((page - 1) * 10, page * 10), count: hits.length } satisfies Page<UserSummary>);
  });
}

export const rolesHandler = (rows: () => RoleRecord[] = () => ROLE_ROWS) =>
  http.get(apiUrl('account/roles/'), () => HttpResponse.json(rows()));

export const orgsHandler = () => http.get(apiUrl('organization/'), () => HttpResponse.json(ORGS));

/** A task as the task lists answer it (only what the admin screens read matters). */
export const adminTask = (id: number, taskName: string, org: Organization, extra: Partial<Task> = {}): Task => ({
  id,
  taskName,
  Organization: { id: org.id, org_name_to_display: org.org_name_to_display },
  starred: false,
  train_status: 'new_task',
  created_at: new Date(2026, 10, 20, 9, 30, 0).getTime(),
  stepsCount: 2,
  processes: [],
  steps: [],
  substeps: [],
  maximum_cycle_time: 0,
  add_background_time_to_step_time: false,
  object_rotation: false,
  strict_step_order: false,
  required_steps_for_start: {},
  required_steps_for_end: {},
  taskJson: {} as Task['taskJson'],
  task_detail: taskName,
  is_deleted: false,
  negativeSteps: [],
  optional_steps: [],
  similarSteps: [],
  stepsAvgTime: {},
  sub_step_times: {},
  steps_data_json: {},
  advance_features_json: {},
  translation: {},
  taskParameters: {} as Task['taskParameters'],
  ...extra,
});
