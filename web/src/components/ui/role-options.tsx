import type { RoleRecord } from '@/api/generated';
import { roleLabel } from '@/api/users';

/** The `<option>`s of a role select, from the roles `account/roles/` lists; `by` picks the value sent. */
export function RoleOptions({ roles, by }: { roles: readonly RoleRecord[]; by: 'id' | 'name' }) {
  return (
    <>
      {roles.map((r) => (
        <option key={r.id} value={by === 'id' ? r.id : r.name}>
          {roleLabel(r.name)}
        </option>
      ))}
    </>
  );
}
