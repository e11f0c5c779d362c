import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { AdminLabeler, LabelerAssignment } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { EmptyState } from '@/components/ui/empty-state';
import { FormError, SelectField } from '@/components/ui/field';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { Pager } from '@/components/ui/pager';
import { SearchForm } from '@/components/ui/search-form';
import { DATA_CREATED, DATA_DELETED } from '@/config/messages';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';
import { notify } from '@/lib/toast';

import { annotationsKey, annotationsQuery, labelersKey, labelersQuery, requestLabeler, withdrawLabeler } from '../api/reports';

/** An operation's progress for the labeler: '2 of 3 videos labelled (1 by them)'. */
export function progressLine(a: LabelerAssignment): string {
  return `${a.labelled_videos} of ${a.ready_videos} videos labelled (${a.labelled_by_labeler} by them)`;
}

const fullName = (l: AdminLabeler) => `${l.name} ${l.lastname}`.trim();

/** Asks `labeler` for an operation: an organisation, then one of its operations. */
function RequestDialog({ labeler, onClose }: { labeler: AdminLabeler; onClose: () => void }) {
  const qc = useQueryClient();
  const [org, setOrg] = useState<number | null>(null);
  const [task, setTask] = useState('');
  const ops = useQuery({ ...annotationsQuery(1, org, '', 100), enabled: org !== null });
  const asked = new Set(labeler.assignments.map((a) => a.task));
  const ask = useMutation({
    mutationFn: () => requestLabeler(Number(task), org ?? 0, labeler.email),
    onSuccess: async () => {
      notify.successShort(DATA_CREATED);
      await Promise.all([qc.invalidateQueries({ queryKey: labelersKey }), qc.invalidateQueries({ queryKey: annotationsKey })]);
      onClose();
    },
  });
  const problem = ask.error ? (fieldErrors(ask.error).email ?? errorMessage(ask.error, 'post')) : null;
  return (
    <Dialog title={`Request an operation from ${fullName(labeler)}`} onClose={onClose}>
      <form
        aria-label="Request an operation"
        onSubmit={(e) => {
          e.preventDefault();
          if (org !== null && task !== '') ask.mutate();
        }}
      >
        <div className="dialog-body">
          <OrganizationSelect
            value={org}
            onChange={(o) => {
              setOrg(o);
              setTask('');
            }}
            none="Choose an organization…"
          />
          {org !== null ? (
            <SelectField label="Operation" value={task} onChange={(e) => setTask(e.target.value)}>
              <option value="">{ops.isPending ? 'Loading…' : 'Choose an operation…'}</option>
              {(ops.data?.results ?? [])
                .filter((t) => !asked.has(t.task))
                .map((t) => (
                  <option key={t.task} value={t.task}>
                    {t.taskName}
                  </option>
                ))}
            </SelectField>
          ) : null}
          <FormError message={problem} />
        </div>
        <DialogActions onCancel={onClose} submitLabel="Request" pending={ask.isPending} disabled={org === null || task === ''} />
      </form>
    </Dialog>
  );
}

/**
 * `/admin/labelers` (Labelers, super admin): every user with the role `labeler`, by
 * name, 10 a page, searched: the operations requested of them (any organisation's) with
 * their progress (videos labelled of the operation's ready videos, and how many by the
 * labeler), when they last saved labels. The super admin requests an operation of any
 * organisation from a labeler, and withdraws a request (confirmed).
 */
export default function LabelersScreen() {
  const qc = useQueryClient();
  const { page, search, setPage, setSearch } = useListParams();
  const q = useQuery(labelersQuery(page, search));
  useClampPage(page, q.data, setPage);
  const [asking, setAsking] = useState<AdminLabeler | null>(null);
  const [withdrawing, setWithdrawing] = useState<{ labeler: AdminLabeler; a: LabelerAssignment } | null>(null);
  const withdraw = useMutation({
    mutationFn: (w: { labeler: AdminLabeler; a: LabelerAssignment }) => withdrawLabeler(w.a.task, w.a.organization, w.labeler.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      setWithdrawing(null);
      await Promise.all([qc.invalidateQueries({ queryKey: labelersKey }), qc.invalidateQueries({ queryKey: annotationsKey })]);
    },
    onError: (err) => notify.failure(err, 'delete'),
  });

  return (
    <section>
      <div className="screen-header">
        <h1>Labelers</h1>
      </div>
      <div className="toolbar">
        <SearchForm label="Search labelers" value={search} onSearch={setSearch} />
      </div>
      <DataTable
        label="Labelers"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={search ? `No labeler matches "${search}".` : 'No labelers yet.'}>Approve a user with the role Labeler first.</EmptyState>}
        columns={['Labeler', 'E-mail', 'Operations requested', 'Last label saved', 'Actions']}
        row={(l) => (
          <tr key={l.id}>
            <td>
              {fullName(l)}
              {l.is_active ? null : <span className="badge"> inactive</span>}
            </td>
            <td>{l.email}</td>
            <td>
              {l.assignments.length === 0 ? (
                'None'
              ) : (
                <ul aria-label={`Operations of ${l.email}`} className="plain-list">
                  {l.assignments.map((a) => (
                    <li key={a.task}>
                      <strong>{a.taskName}</strong> ({a.org_name_to_display}): {progressLine(a)}{' '}
                      <button type="button" className="link-button" onClick={() => setWithdrawing({ labeler: l, a })}>
                        Withdraw
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td>{l.last_label_at === null ? 'Never' : formatDateTime(l.last_label_at)}</td>
            <td>
              <button type="button" onClick={() => setAsking(l)} disabled={!l.is_active}>
                Request operation
              </button>
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Labelers" page={page} count={q.data.count} onPage={setPage} /> : null}
      {asking ? <RequestDialog labeler={asking} onClose={() => setAsking(null)} /> : null}
      {withdrawing ? (
        <ConfirmDialog
          title="Withdraw the request?"
          confirmLabel="Withdraw"
          busy={withdraw.isPending}
          onConfirm={() => withdraw.mutate(withdrawing)}
          onCancel={() => setWithdrawing(null)}
        >
          {fullName(withdrawing.labeler)} will no longer reach {withdrawing.a.taskName} of {withdrawing.a.org_name_to_display}. Labels
          already saved stay.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
