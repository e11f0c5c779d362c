import { useQuery } from '@tanstack/react-query';

import { allOrganizationsQuery } from '@/api/organizations';

import { SelectField } from './field';
import { QueryStatus } from './query-status';

/**
 * The super admin's choice of an organisation on an admin screen (every organisation,
 * by display name); `none` names the empty choice ("Choose an organization…", "All
 * organizations").
 */
export function OrganizationSelect({ value, onChange, none }: { value: number | null; onChange: (org: number | null) => void; none: string }) {
  const orgs = useQuery(allOrganizationsQuery());
  return (
    <>
      <div className="toolbar">
        <SelectField label="Organization" value={value ?? ''} onChange={(e) => onChange(Number(e.target.value) || null)}>
          <option value="">{none}</option>
          {(orgs.data ?? []).map((o) => (
            <option key={o.id} value={o.id}>
              {o.org_name_to_display}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryStatus pending={orgs.isPending} error={orgs.error} what="Organizations" />
    </>
  );
}
