/**
 * Binding a node to a camera (`POST device/{id}/opcua_bindings/`): the form's checks
 * before sending (the server checks again, and its 400s show by their fields), and
 * how a binding reads in the list.
 */
import type { OpcuaBindingCreate, OpcuaBindingRecord, OpcuaRoleName } from '@/api/generated';
import { requiredMessage, trimWs } from '@/lib/validate';

export const ROLE_LABELS: Record<OpcuaRoleName, string> = {
  start_cycle: 'Start cycle',
  end_cycle: 'End cycle',
  metadata: 'Metadata',
};

export const ROLES: readonly OpcuaRoleName[] = ['start_cycle', 'end_cycle', 'metadata'];

/** The longest metadata key (`mqtt::v1::MAX_KEY_BYTES`, a cycle's metadata keys). */
export const MAX_KEY_CHARS = 100;

/** The form as typed: `task` '' for any task, `role` '' until chosen. */
export type BindingForm = { camera: string; task: string; role: OpcuaRoleName | ''; key: string };

export const EMPTY_FORM: BindingForm = { camera: '', task: '', role: '', key: '' };

export type BindingErrors = Partial<Record<'camera' | 'role' | 'key', string>>;

/** The body to send for node `nodeId` of `endpoint`, or the form's errors. */
export function bindingBody(
  endpoint: string,
  nodeId: string,
  f: BindingForm,
): { body: OpcuaBindingCreate; errors: null } | { body: null; errors: BindingErrors } {
  const errors: BindingErrors = {};
  if (f.camera === '') errors.camera = requiredMessage('Camera');
  if (f.role === '') errors.role = requiredMessage('Role');
  const key = trimWs(f.key);
  if (f.role === 'metadata') {
    if (key === '') errors.key = requiredMessage('Metadata key');
    else if ([...key].length > MAX_KEY_CHARS) errors.key = `A metadata key is at most ${MAX_KEY_CHARS} characters.`;
  }
  if (Object.keys(errors).length > 0 || f.role === '') return { body: null, errors };
  return {
    body: {
      endpoint,
      node_id: nodeId,
      camera: f.camera,
      task: f.task === '' ? null : Number(f.task),
      role: f.role,
      key: f.role === 'metadata' ? key : null,
    },
    errors: null,
  };
}

/** What a binding does, in words: "Start cycle", "Metadata part_number". */
export function roleText(b: Pick<OpcuaBindingRecord, 'role' | 'key'>): string {
  return b.role === 'metadata' ? `${ROLE_LABELS.metadata} ${b.key ?? ''}`.trim() : ROLE_LABELS[b.role];
}

/** The task a binding applies to, in words. */
export function taskText(b: Pick<OpcuaBindingRecord, 'task' | 'task_name'>): string {
  if (b.task === null) return 'Any task';
  return b.task_name ?? `Task ${b.task} (deleted)`;
}
