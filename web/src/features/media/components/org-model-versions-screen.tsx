import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { SelectField } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { allOrganizationsQuery } from '@/lib/organizations';

import { ModelVersionsTable } from './model-versions-table';

/**
 * `/admin/model-versions` (Org Model Versions, super admin): choose an organisation
 * (`?organization=` in the address), then its model versions with the soft delete, as
 * its users see them on their Models screen; the calls name the chosen organisation.
 */
export default function OrgModelVersionsScreen() {
  const [params, setParams] = useSearchParams();
  const org = Number(params.get('organization')) || null;
  const orgs = useQuery(allOrganizationsQuery());
  return (
    <section>
      <h1>Org Model Versions</h1>
      <div className="toolbar">
        <SelectField
          label="Organization"
          value={org ?? ''}
          onChange={(e) => setParams(e.target.value ? { organization: e.target.value } : {})}
        >
          <option value="">Choose an organization…</option>
          {(orgs.data ?? []).map((o) => (
            <option key={o.id} value={o.id}>
              {o.org_name_to_display}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryStatus pending={orgs.isPending} error={orgs.error} what="Organizations" />
      {org !== null ? (
        <ModelVersionsTable
          key={org}
          organization={org}
          manage
          empty={<EmptyState title="No model versions in this organization yet." />}
        />
      ) : null}
    </section>
  );
}
