import { useMutation, useQuery } from '@tanstack/react-query';

import { roleLabel } from '@/api/users';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, SelectField } from '@/components/ui/field';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { Pager } from '@/components/ui/pager';
import { SearchForm } from '@/components/ui/search-form';
import { ROLES } from '@/lib/access/roles';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';
import { notify } from '@/lib/toast';

import { type ReportFilter, userReportCsv, userReportQuery } from '../api/reports';

/** The sort orders the report offers (`ordering=`), most recently active first by default. */
export const ORDERINGS = [
  ['', 'Last active (newest first)'],
  ['-time', 'Time in portal (most first)'],
  ['-sessions', 'Sessions (most first)'],
  ['-sign_ins', 'Sign-ins (most first)'],
  ['name', 'Name'],
  ['email', 'E-mail'],
  ['role', 'Role'],
  ['last_active', 'Last active (oldest first)'],
] as const;

/** Time in the portal: '2 h 05 min', '12 min', '< 1 min', '0 min'. */
export function portalTime(ms: number): string {
  if (ms > 0 && ms < 60_000) return '< 1 min';
  const minutes = Math.floor(ms / 60_000);
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min`;
}

/** A day of the period as `YYYY-MM-DD` in the browser's time zone. */
export function dayOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Saves `blob` as `name` through a link the browser downloads. */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/**
 * `/admin/user-report` (User Report, super admin): who uses the portal over a period
 * (the last 30 days unless chosen), by organisation, role and name: each user's
 * organisations, role, activity sessions, sign-ins, time in the portal, last activity
 * and browsers; sorted, 10 a page, all in the address; the same rows as a CSV file.
 */
export default function UserReportScreen() {
  const { page, search, filters, setPage, setSearch, setFilter } = useListParams(['from', 'to', 'org', 'role', 'ordering']);
  const f: ReportFilter = {
    from: filters.from,
    to: filters.to,
    organization: Number(filters.org) || null,
    role: filters.role,
    search,
    ordering: filters.ordering,
  };
  const q = useQuery(userReportQuery(page, f));
  useClampPage(page, q.data, setPage);
  const csv = useMutation({
    mutationFn: () => userReportCsv(f),
    onSuccess: (blob) => {
      const period = q.data ? `-${dayOf(q.data.from)}-${dayOf(q.data.to - 1)}` : '';
      save(blob, `user-report${period}.csv`);
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  return (
    <section>
      <div className="screen-header">
        <h1>User Report</h1>
        <button type="button" onClick={() => csv.mutate()} disabled={csv.isPending}>
          Download CSV
        </button>
      </div>
      <div className="filters" role="group" aria-label="Report filters">
        <Field label="From" type="date" value={filters.from} max={filters.to || undefined} onChange={(e) => setFilter('from', e.target.value)} />
        <Field label="To" type="date" value={filters.to} min={filters.from || undefined} onChange={(e) => setFilter('to', e.target.value)} />
        <SelectField label="Role" value={filters.role} onChange={(e) => setFilter('role', e.target.value)}>
          <option value="">All roles</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {roleLabel(r)}
            </option>
          ))}
        </SelectField>
        <SelectField label="Sort by" value={filters.ordering} onChange={(e) => setFilter('ordering', e.target.value)}>
          {ORDERINGS.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </SelectField>
      </div>
      <OrganizationSelect value={f.organization} onChange={(o) => setFilter('org', o === null ? '' : String(o))} none="All organizations" />
      <div className="toolbar">
        <SearchForm label="Search users" value={search} onSearch={setSearch} />
      </div>
      {q.data ? (
        <p>
          From {formatDateTime(q.data.from)} to {formatDateTime(q.data.to)}
        </p>
      ) : null}
      <DataTable
        label="User report"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No user matches "${search}".` : 'No users match these filters.'} />}
        columns={['Name', 'E-mail', 'Organizations', 'Role', 'Sessions', 'Sign-ins', 'Time in portal', 'Last active', 'Browsers']}
        row={(u) => (
          <tr key={u.id}>
            <td>
              {`${u.name} ${u.lastname}`.trim()}
              {u.is_active ? null : <span className="badge"> inactive</span>}
            </td>
            <td>{u.email}</td>
            <td>{u.organizations.length > 0 ? u.organizations.join(', ') : '—'}</td>
            <td>{roleLabel(u.role)}</td>
            <td>{u.sessions}</td>
            <td>{u.sign_ins}</td>
            <td>{portalTime(u.time_ms)}</td>
            <td>{u.last_active === null ? 'Never' : formatDateTime(u.last_active)}</td>
            <td>{u.browsers.length > 0 ? u.browsers.join(', ') : '—'}</td>
          </tr>
        )}
      />
      {q.data ? <Pager label="User report" page={page} count={q.data.count} onPage={setPage} /> : null}
    </section>
  );
}
