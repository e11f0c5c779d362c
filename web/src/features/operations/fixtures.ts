/**
 * Test data of the operations screens: tasks, and a small in-memory copy of the task
 * API (`cloud/src/http/tasks`) for msw: the list (starred first) and its pages, one
 * task, create, patch (settings, operation, deletion, star; refused while training),
 * clone, history and revert, model choices. Enough of the server's behaviour for the
 * screens; its rules are the server's own tests'.
 */
import { HttpResponse, http } from 'msw';

import type {
  ModelChoice,
  Operation,
  Page,
  Process,
  RevertResult,
  Task,
  TaskCreate,
  TaskHistoryEntry,
  TaskPatch,
  TaskSettings,
} from '@/api/generated';
import { print } from '@/lib/operation';
import { apiUrl } from '@/testing/server';

export const PUMP: Process[] = [
  {
    name: 'Pre-assembly',
    steps: [
      { name: 'Fit housing', substeps: ['Place housing', 'Tighten screws'] },
      { name: 'Check seal', substeps: ['Inspect seal'] },
    ],
  },
  { name: 'Packing', steps: [{ name: 'Pack', substeps: ['Put in box'] }] },
];

/** The model types as `task/model_choices` answers them: the type's id, its name. */
export const MODEL_CHOICES: ModelChoice[] = [
  { value: '1', label: 'Step classifier 64×48' },
  { value: '2', label: 'Close-up 96×72' },
];

export const CREATED_AT = new Date(2026, 0, 2, 3, 4, 5).getTime();

const SETTING_KEYS = [
  'taskName',
  'task_detail',
  'is_deleted',
  'negativeSteps',
  'optional_steps',
  'similarSteps',
  'stepsAvgTime',
  'sub_step_times',
  'model_choice',
  'model_version',
  'model_type',
  'steps_data_json',
  'annotation_image_id',
  'advance_features_json',
  'translation',
  'translation_name',
  'taskParameters',
] as const satisfies readonly (keyof TaskSettings)[];

export function defaultSettings(name: string, processes: Process[]): TaskSettings {
  const steps = processes.reduce((n, p) => n + p.steps.length, 0);
  return {
    taskName: name,
    task_detail: print({ name, processes }),
    is_deleted: false,
    negativeSteps: [],
    optional_steps: [],
    similarSteps: [],
    stepsAvgTime: {},
    sub_step_times: { background: 50 },
    model_choice: null,
    model_version: null,
    model_type: null,
    steps_data_json: {},
    annotation_image_id: null,
    advance_features_json: {},
    translation: {},
    translation_name: null,
    taskParameters: {
      telemetryParams: {
        maximum_cycle_time: Number.MAX_SAFE_INTEGER,
        minimum_cycle_time: 0,
        min_percentage_of_steps_required_to_end_cycle: 0.75,
        required_steps_for_start: { 0: [0, 1].filter((i) => i < steps) },
        required_steps_for_end: { 0: [] },
        temporal_smoothness: 1,
        object_rotation: false,
        strict_step_order: false,
        add_background_time_to_step_time: false,
      },
      trainingParams: { verify_threshold: 6, background_time: 50 },
    },
  };
}

/** The operation of a task's text (the fixtures keep it canonical, one `~` per process). */
function operationOf(s: TaskSettings): Operation {
  const lines = s.task_detail.split('\n').filter(Boolean);
  const processes: Process[] = [];
  let steps: Process['steps'] = [];
  for (const line of lines.slice(1)) {
    const item = line.slice(0, -1);
    if (line.endsWith(':')) steps.push({ name: item, substeps: [] });
    else if (line.endsWith(';')) steps[steps.length - 1]!.substeps.push(item);
    else {
      processes.push({ name: item, steps });
      steps = [];
    }
  }
  return { name: lines[0] ?? '', processes };
}

type Row = { id: number; settings: TaskSettings; starred: boolean; train_status: Task['train_status']; created_at: number };

/** A task as the API answers it: the settings and what derives from them. */
export function taskOf(r: Row): Task {
  const s = r.settings;
  const op = operationOf(s);
  const steps = op.processes.flatMap((p) => p.steps);
  const t = s.taskParameters.telemetryParams;
  return {
    ...s,
    id: r.id,
    Organization: { id: 1, org_name_to_display: 'ACME' },
    starred: r.starred,
    train_status: r.train_status,
    created_at: r.created_at,
    last_update: null,
    stepsCount: steps.length,
    processes: op.processes,
    steps: steps.map((x) => x.name),
    substeps: steps.map((x) => x.substeps),
    maximum_cycle_time: t.maximum_cycle_time,
    add_background_time_to_step_time: t.add_background_time_to_step_time,
    object_rotation: t.object_rotation,
    strict_step_order: t.strict_step_order,
    required_steps_for_start: t.required_steps_for_start,
    required_steps_for_end: t.required_steps_for_end,
    taskJson: { training_params: s.taskParameters.trainingParams, cycle_calculation_params: t },
  };
}

const bad = (field: string, message: string) => HttpResponse.json({ [field]: [message] }, { status: 400 });

/** The fields that differ, sorted as the server's JSON map sorts its keys. */
const changedFields = (a: TaskSettings, b: TaskSettings) =>
  SETTING_KEYS.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort((x, y) => (x < y ? -1 : 1));

/** The revert message of spec section 8 (`revert_message`). */
export function revertMessage(fields: string[]): string {
  if (fields.length === 0) return 'Task reverted - no changes detected (task was already in the target state)';
  return `Task successfully reverted! ${fields.length} field(s) updated: ${fields.slice(0, 3).join(', ')}${fields.length > 3 ? '...' : ''}`;
}

/** The organisation's tasks, in memory, answering as the task API does. */
export class FakeTasks {
  rows: Row[] = [];
  history: TaskHistoryEntry[] = [];
  private nextId = 1;
  private nextHistory = 1;
  private clock = CREATED_AT;

  /** Adds a task (its history starts with `created`); answers it. */
  add(name: string, processes: Process[] = PUMP, extra: Partial<Omit<Row, 'settings'>> & { settings?: Partial<TaskSettings> } = {}): Task {
    const { settings, ...rest } = extra;
    const row: Row = {
      id: this.nextId++,
      settings: { ...defaultSettings(name, processes), ...settings },
      starred: false,
      train_status: 'new_task',
      created_at: CREATED_AT,
      ...rest,
    };
    this.rows.push(row);
    this.record(row, 'created', []);
    return taskOf(row);
  }

  task(id: number): Task {
    return taskOf(this.row(id)!);
  }

  private row(id: number) {
    return this.rows.find((r) => r.id === id);
  }

  private record(row: Row, action: string, fields: string[]) {
    this.clock += 60_000;
    this.history.push({
      id: this.nextHistory++,
      task: row.id,
      action,
      changed_fields: fields,
      user: 5,
      user_name: 'Tess',
      created_at: this.clock,
      snapshot: structuredClone(row.settings),
    });
  }

  private live(search: string) {
    const q = search.toLowerCase();
    return this.rows
      .filter((r) => !r.settings.is_deleted && r.settings.taskName.toLowerCase().includes(q))
      .sort((a, b) => Number(b.starred) - Number(a.starred) || a.id - b.id)
      .map(taskOf);
  }

  private nameTaken(name: string, except?: number) {
    return this.rows.some((r) => r.id !== except && !r.settings.is_deleted && r.settings.taskName.toLowerCase() === name.toLowerCase());
  }

  /** Applies a patch as `apply` does (the fields the screens send). */
  private apply(row: Row, p: Partial<TaskPatch>): Response | null {
    if (row.train_status === 'training') {
      return HttpResponse.json(
        { non_field_errors: [`${row.settings.taskName} is being trained, You cannot update the task when it is being trained.`] },
        { status: 400 },
      );
    }
    // A model choice names one of the model types (or none: the default).
    if (p.model_choice != null && p.model_choice.trim() !== '' && !MODEL_CHOICES.some((c) => c.value === p.model_choice)) {
      return bad('model_choice', 'Choose one of the model types.');
    }
    const before = structuredClone(row.settings);
    const s = structuredClone(row.settings);
    if (p.taskName != null) {
      if (this.nameTaken(p.taskName, row.id)) return bad('taskName', 'A task with this name already exists.');
      s.taskName = p.taskName;
    }
    const processes = p.processes ?? operationOf(s).processes;
    s.task_detail = print({ name: s.taskName, processes });
    if (p.processes) {
      // `prune`: translations of names the operation no longer has go.
      const names = new Set(processes.flatMap((x) => x.steps.flatMap((st) => [st.name, ...st.substeps])));
      s.translation = Object.fromEntries(Object.entries(s.translation).filter(([k]) => names.has(k)));
    }
    for (const k of ['is_deleted', 'negativeSteps', 'optional_steps', 'similarSteps', 'translation', 'taskParameters'] as const) {
      if (p[k] != null) (s as Record<string, unknown>)[k] = p[k];
    }
    for (const k of ['model_choice', 'model_version', 'translation_name'] as const) {
      if (p[k] != null) (s as Record<string, unknown>)[k] = p[k];
    }
    if (p.required_steps_for_start) s.taskParameters.telemetryParams.required_steps_for_start = p.required_steps_for_start;
    if (p.required_steps_for_end) s.taskParameters.telemetryParams.required_steps_for_end = p.required_steps_for_end;
    if (Object.keys(s.translation).length === 0) s.translation_name = null;
    row.settings = s;
    const fields = changedFields(before, s);
    if (fields.length > 0) this.record(row, !before.is_deleted && s.is_deleted ? 'deleted' : 'updated', fields);
    return null;
  }

  /** A change made elsewhere (another user): recorded in the history like the screen's. */
  change(id: number, p: Partial<TaskPatch>): Task {
    const row = this.row(id)!;
    this.apply(row, p);
    return taskOf(row);
  }

  handlers() {
    return [
      http.get(apiUrl('organization/task/model_choices'), () => HttpResponse.json(MODEL_CHOICES)),
      // Virtual tasks and rectification steps: none (their own tests are the server's and e2e's).
      http.get(apiUrl('organization/task/virtual_tasks/:id/'), () => HttpResponse.json([])),
      http.get(apiUrl('organization/rectification_steps/'), () => HttpResponse.json([])),
      http.get(apiUrl('organization/task/taskpage'), ({ request }) => {
        const q = new URL(request.url).searchParams;
        const page = Number(q.get('page') ?? '1');
        const all = this.live(q.get('search') ?? '');
        return HttpResponse.json({ results: all.slice((page - 1) * 10, page * 10), count: all.length } satisfies Page<Task>);
      }),
      http.get(apiUrl('organization/task/'), ({ request }) => HttpResponse.json(this.live(new URL(request.url).searchParams.get('search') ?? ''))),
      http.post(apiUrl('organization/task/'), async ({ request }) => {
        const body = (await request.json()) as TaskCreate;
        const name = body.taskName ?? '';
        if (this.nameTaken(name)) return bad('taskName', 'A task with this name already exists.');
        return HttpResponse.json(this.add(name, body.processes ?? []), { status: 201 });
      }),
      http.get(apiUrl('organization/task/:id/history/'), ({ params }) =>
        HttpResponse.json(this.history.filter((h) => h.task === Number(params.id)).reverse()),
      ),
      http.patch(apiUrl('organization/task/:id/revert/'), async ({ params, request }) => {
        const row = this.row(Number(params.id));
        const { history_id } = (await request.json()) as { history_id: number };
        const entry = this.history.find((h) => h.id === history_id && h.task === row?.id);
        if (!row || !entry) return bad('history_id', 'No such history entry of this task.');
        if (row.train_status === 'training') return this.apply(row, {})!;
        const before = row.settings;
        row.settings = { ...structuredClone(entry.snapshot), is_deleted: before.is_deleted };
        const fields = changedFields(before, row.settings);
        this.record(row, 'reverted', fields);
        return HttpResponse.json({
          msg: revertMessage(fields),
          reverted_fields: fields,
          reverted_fields_count: fields.length,
          task: taskOf(row),
        } satisfies RevertResult);
      }),
      http.get(apiUrl('organization/task/:id/'), ({ params }) => {
        const row = this.row(Number(params.id));
        return row && !row.settings.is_deleted ? HttpResponse.json(taskOf(row)) : HttpResponse.json({ detail: 'Not found.', msg: 'Not found.' }, { status: 404 });
      }),
      http.patch(apiUrl('organization/task/:id/'), async ({ params, request }) => {
        const row = this.row(Number(params.id));
        if (!row) return HttpResponse.json({ detail: 'Not found.', msg: 'Not found.' }, { status: 404 });
        const { starred, ...changes } = (await request.json()) as Partial<TaskPatch>;
        if (Object.keys(changes).length > 0) {
          const refused = this.apply(row, changes);
          if (refused) return refused;
        }
        if (starred != null) row.starred = starred;
        return HttpResponse.json(taskOf(row));
      }),
      http.post(apiUrl('generic/clone_task/'), async ({ request }) => {
        const body = (await request.json()) as { task: number; taskName: string };
        const from = this.row(body.task);
        if (!from) return HttpResponse.json({ detail: 'Not found.', msg: 'Not found.' }, { status: 404 });
        if (this.nameTaken(body.taskName)) return bad('taskName', 'A task with this name already exists.');
        const op = operationOf(from.settings);
        const row: Row = {
          ...from,
          id: this.nextId++,
          starred: false,
          train_status: 'new_task',
          settings: { ...structuredClone(from.settings), taskName: body.taskName, task_detail: print({ ...op, name: body.taskName }) },
        };
        this.rows.push(row);
        this.record(row, 'cloned', []);
        return HttpResponse.json(taskOf(row), { status: 201 });
      }),
    ];
  }
}

/** The organisation holds the Define Operation subscription (the screen's gate). */
export const defineOperationFeature = () =>
  http.get(apiUrl('feature_control/subscribed_feature/'), () =>
    HttpResponse.json([{ id: 1, Feature: 5, Organization: 1, feature_name: 'Define Operation', is_suppressed: false }]),
  );
