/** Devices for the tests: a device as the API answers it, and the 'Devices' subscription. */
import { HttpResponse, http } from 'msw';

import type { Device, DeviceCommand, DeviceDetails, EngineConfig, RecentCycle, Task } from '@/api/generated';
import { apiUrl } from '@/testing/server';

/** 2026-02-03 04:05:06 local time. */
export const SEEN = new Date(2026, 1, 3, 4, 5, 6).getTime();

export const device = (id: number, display_name: string, extra: Partial<Device> = {}): Device => ({
  id,
  display_name,
  Serial_number: `SN-${id}`,
  Type: 'workstation',
  starred: false,
  active: true,
  is_archived: false,
  organization: 1,
  department: null,
  enrolled: true,
  online: false,
  last_seen: null,
  status: null,
  settings: {},
  tasks: [],
  created_at: SEEN,
  update_channel: 'prod',
  fetch_analytics: true,
  ...extra,
});

export const details = (
  d: Device,
  commands: DeviceCommand[] = [],
  recent_cycles: RecentCycle[] = [],
  task_steps: DeviceDetails['task_steps'] = {},
): DeviceDetails => ({ ...d, commands, recent_cycles, task_steps, notice: null, camera_events: [] });

/** The organisation holds 'Devices' (the list and a device's page are gated by it). */
export const devicesFeature = () =>
  http.get(apiUrl('feature_control/subscribed_feature/'), () =>
    HttpResponse.json([{ id: 1, Feature: 3, Organization: 1, feature_name: 'Devices', is_suppressed: false }]),
  );

/** A task as `organization/task/` lists it (only what the device screens read matters). */
export const task = (id: number, taskName: string): Task => ({
  id,
  taskName,
  Organization: { id: 1, org_name_to_display: 'ACME' },
  starred: false,
  train_status: 'new_task',
  created_at: SEEN,
  stepsCount: 1,
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
});

/** The cycle rules a `start_task` command carries (a two-step task on the defaults). */
export const engine: EngineConfig = {
  steps: 2,
  start_steps: [0, 1],
  end_steps: [],
  optional_steps: [],
  negative_steps: [],
  similar_steps: [],
  smoothing: 1,
  verify_frames: 6,
  min_share_to_end: 0.75,
  min_cycle_ms: 0,
  max_cycle_ms: Number.MAX_SAFE_INTEGER,
  strict_order: false,
  background_to_step: false,
};

/**
 * What a device's page asks beside the device (its schedules, its remote cameras, the
 * organisation's time zone), answered empty unless a test says.
 */
export const deviceConfigApi = () => [
  http.get(apiUrl('device/get_schedules'), () => HttpResponse.json([])),
  http.get(apiUrl('device/remote_cam/:id/'), () => HttpResponse.json([])),
  http.get(apiUrl('organization/'), () =>
    HttpResponse.json([{ id: 1, name: 'acme', org_name_to_display: 'ACME', use_proxy_server: false, created_at: SEEN, time_zone: 'Europe/Berlin' }]),
  ),
];
