import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import type { Instance } from '@/api/generated';
import { CHANNELS, type Channel, setUpdateChannel } from '@/api/update-channel';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { SearchForm } from '@/components/ui/search-form';
import { DATA_UPDATED } from '@/config/messages';
import { useClampPage, useListParams } from '@/lib/list-params';
import { notify } from '@/lib/toast';

import { instancesKey, instancesPageQuery, releasesKey } from '../api/releases';
import { updateSummary } from '../releases';

/**
 * `/admin/instances` (super admin): every organisation's devices as the fleet sees
 * them, 10 a page, searched by the device's or its organisation's name: online, the
 * agent's version and target, the update channel (changed in its row), whether the
 * agent can update itself, its latest update and why it failed.
 */
export default function InstancesScreen() {
  const { page, search, setPage, setSearch } = useListParams();
  const q = useQuery(instancesPageQuery(page, search));
  useClampPage(page, q.data, setPage);
  const qc = useQueryClient();
  const channel = useMutation({
    mutationFn: ({ d, to }: { d: Instance; to: Channel }) => setUpdateChannel(d.device, to),
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      await Promise.all([qc.invalidateQueries({ queryKey: instancesKey }), qc.invalidateQueries({ queryKey: releasesKey })]);
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  return (
    <section>
      <div className="screen-header">
        <h1>Instances</h1>
      </div>
      <div className="toolbar">
        <SearchForm label="Search devices" value={search} onSearch={setSearch} />
      </div>
      <DataTable
        label="Instances"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No device matches "${search}".` : 'No devices yet.'} />}
        columns={['Device', 'Organization', 'Status', 'Version', 'Target', 'Channel', 'Updatable', 'Latest update', 'Detail']}
        row={(d) => (
          <tr key={d.device}>
            <td>{d.display_name}</td>
            <td>{d.organization_name}</td>
            <td>
              <span className={`badge ${d.online ? 'status-online' : 'status-offline'}`}>{d.online ? 'Online' : 'Offline'}</span>
            </td>
            <td>{d.agent_version || '—'}</td>
            <td>{d.target || '—'}</td>
            <td>
              <select
                aria-label={`Update channel of ${d.display_name}`}
                value={d.update_channel}
                disabled={channel.isPending}
                onChange={(e) => channel.mutate({ d, to: e.target.value as Channel })}
              >
                {CHANNELS.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </td>
            <td>{d.updatable ? 'Yes' : 'No'}</td>
            <td>{updateSummary(d.update)}</td>
            <td>{d.update?.detail ?? '—'}</td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Instances" page={page} count={q.data.count} onPage={setPage} /> : null}
    </section>
  );
}
