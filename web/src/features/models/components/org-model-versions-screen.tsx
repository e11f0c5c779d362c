import { useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { OrganizationSelect } from '@/components/ui/organization-select';

import { ModelVersionsTable } from './model-versions-table';

/**
 * `/admin/model-versions` (Org Model Versions, super admin): choose an organisation
 * (`?organization=` in the address), then its model versions with the soft delete, as
 * its users see them on their Models screen; the calls name the chosen organisation.
 */
export default function OrgModelVersionsScreen() {
  const [params, setParams] = useSearchParams();
  const org = Number(params.get('organization')) || null;
  return (
    <section>
      <h1>Org Model Versions</h1>
      <OrganizationSelect value={org} none="Choose an organization…" onChange={(o) => setParams(o !== null ? { organization: String(o) } : {})} />
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
