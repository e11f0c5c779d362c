import { useQuery } from '@tanstack/react-query';

import type { AdminDevice } from '@/api/generated';
import { allOrganizationsQuery } from '@/api/organizations';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { SearchForm } from '@/components/ui/search-form';
import { healthLine } from '@/lib/device-health';
import { useClampPage, useListParams } from '@/lib/list-params';

import { adminDevicesPageQuery } from '../api/devices';

/** A device's health: its open events in words, or 'OK'. */
function Health({ d }: { d: AdminDevice }) {
  if (d.health.length === 0) return <span className="badge status-online">OK</span>;
  return (
    <ul aria-label={`Health of ${d.display_name}`} className="plain-list">
      {d.health.map((e) => (
        <li key={e.id} className="warning">
          {healthLine(e)}
          {e.detail ? ` — ${e.detail}` : ''}
        </li>
      ))}
    </ul>
  );
}

/**
 * `/admin/devices` (super admin): every organisation's devices, 10 a page, searched, the
 * archived ones on request: name, serial number, organisation (by name), online or offline, and
 * health (issue 30): what is going wrong now (a camera offline, frozen frames, the disk
 * low, …) and since when, 'OK' when nothing is.
 */
export default function AdminDevicesScreen() {
  const { page, search, filters, setPage, setSearch, setFilter } = useListParams(['archived']);
  const archived = filters.archived === 'true';
  const q = useQuery(adminDevicesPageQuery(page, search, archived));
  const orgs = useQuery(allOrganizationsQuery());
  const orgName = (id: number) => {
    const o = orgs.data?.find((x) => x.id === id);
    return o ? o.org_name_to_display || o.name : `#${id}`;
  };
  useClampPage(page, q.data, setPage);

  return (
    <section>
      <div className="screen-header">
        <h1>All Devices</h1>
      </div>
      <div className="toolbar">
        <SearchForm label="Search devices" value={search} onSearch={setSearch} />
        <label>
          <input
            type="checkbox"
            checked={archived}
            onChange={(e) => setFilter('archived', e.target.checked ? 'true' : '')}
          />{' '}
          Archived
        </label>
      </div>
      <DataTable
        label="All devices"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No device matches "${search}".` : 'No devices yet.'} />}
        columns={['Device', 'Serial number', 'Organization', 'Status', 'Health']}
        row={(d) => (
          <tr key={d.id}>
            <td>{d.display_name}</td>
            <td>{d.Serial_number || '—'}</td>
            <td>{orgName(d.organization)}</td>
            <td>
              <span className={`badge ${d.online ? 'status-online' : 'status-offline'}`}>{d.online ? 'Online' : 'Offline'}</span>
            </td>
            <td>
              <Health d={d} />
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager label="All devices" page={page} count={q.data.count} onPage={setPage} /> : null}
    </section>
  );
}
