import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { TamperingAction, TamperingRequest } from '@/api/generated';
import { DataTable } from '@/components/ui/data-table';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { FormError, SelectField } from '@/components/ui/field';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { Pager } from '@/components/ui/pager';
import { EmptyState } from '@/components/ui/empty-state';
import { DATA_UPDATED } from '@/config/messages';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { kindTitle } from '@/lib/device-health';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';
import { notify } from '@/lib/toast';

import { type TamperingFilter, reviewTampering, tamperingKey, tamperingPageQuery } from '../api/tampering';

const ACTION_WORDS: Record<TamperingAction, string> = {
  accept_view: 'New view accepted',
  dismiss: 'Dismissed',
};

/** What was decided, by whom, when and why; or what can be done. */
function Review({ r, onDecide }: { r: TamperingRequest; onDecide: (a: TamperingAction) => void }) {
  if (r.state === 'resolved' && r.action) {
    return (
      <span>
        {ACTION_WORDS[r.action]} by {r.reviewed_by ?? 'a deleted user'}
        {r.reviewed_at ? ` on ${formatDateTime(r.reviewed_at)}` : ''}
        {r.note ? ` — ${r.note}` : ''}
      </span>
    );
  }
  return (
    <span className="actions">
      {r.kind === 'moved' ? (
        <button type="button" onClick={() => onDecide('accept_view')}>
          Accept new view
        </button>
      ) : null}
      <button type="button" className="secondary" onClick={() => onDecide('dismiss')}>
        Dismiss
      </button>
    </span>
  );
}

/** Accept a moved camera's new view, or dismiss a request, with a note (required to dismiss). */
function DecideDialog({ r, action, onClose }: { r: TamperingRequest; action: TamperingAction; onClose: () => void }) {
  const qc = useQueryClient();
  const [note, setNote] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const accept = action === 'accept_view';
  const decide = useMutation({
    mutationFn: () => reviewTampering(r.id, { action, note: note.trim() || null }),
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      onClose();
      await qc.invalidateQueries({ queryKey: tamperingKey });
    },
    onError: (err) => {
      const f = fieldErrors(err);
      // 409 (decided already), 502 (the device refused, and why), 504: their `detail`.
      setProblem(f.note ?? f.action ?? f.device ?? errorMessage(err, 'account'));
    },
  });
  const title = accept ? `Accept the new view of ${r.camera} on ${r.device_name}` : `Dismiss: ${r.camera} on ${r.device_name}`;
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!accept && note.trim() === '') {
            setProblem('Say why the request is dismissed.');
            return;
          }
          setProblem(null);
          decide.mutate();
        }}
      >
        <p>
          {accept
            ? 'The device takes what the camera sees now as its reference: the camera is no longer reported moved.'
            : 'The request is closed; the camera is not changed.'}
        </p>
        <label>
          <span>{accept ? 'Note (optional)' : 'Note'}</span>
          <textarea value={note} maxLength={1000} onChange={(e) => setNote(e.target.value)} />
        </label>
        <FormError message={problem} />
        <DialogActions onCancel={onClose} submitLabel={accept ? 'Accept new view' : 'Dismiss'} pending={decide.isPending} />
      </form>
    </Dialog>
  );
}

/**
 * `/admin/tampering-requests` (super admin; issue 31): cameras their devices found covered
 * (the picture nearly uniform: the lens blocked, or dark) or moved (the view no longer
 * its reference), open ones first, every organisation's or one's: the screenshot taken
 * when it began, device, camera, organisation, kind, since (and until), and the review:
 * Accept new view (a moved camera: the device takes it as its reference) or Dismiss, with
 * a note; who decided, when and why once resolved.
 */
export default function TamperingRequestsScreen() {
  const { page, filters, setPage, setFilter } = useListParams(['state', 'organization']);
  const state: TamperingFilter = filters.state === 'all' ? '' : filters.state === 'resolved' ? 'resolved' : 'open';
  const org = Number(filters.organization) || null;
  const q = useQuery(tamperingPageQuery(page, state, org));
  const [deciding, setDeciding] = useState<{ r: TamperingRequest; action: TamperingAction } | null>(null);
  useClampPage(page, q.data, setPage);

  return (
    <section>
      <div className="screen-header">
        <h1>Tampering Requests</h1>
      </div>
      <OrganizationSelect value={org} onChange={(o) => setFilter('organization', o ? String(o) : '')} none="All organizations" />
      <div className="toolbar">
        <SelectField label="Requests" value={filters.state || 'open'} onChange={(e) => setFilter('state', e.target.value === 'open' ? '' : e.target.value)}>
          <option value="open">Open</option>
          <option value="resolved">Resolved</option>
          <option value="all">All</option>
        </SelectField>
      </div>
      <DataTable
        label="Tampering requests"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title={state === 'open' ? 'No open tampering requests.' : 'No tampering requests.'} />}
        columns={['Screenshot', 'Device', 'Camera', 'Organization', 'Kind', 'Since', 'Review']}
        row={(r) => (
          <tr key={r.id}>
            <td>
              {r.screenshot ? (
                <a href={r.screenshot} target="_blank" rel="noreferrer">
                  <img src={r.screenshot} alt={`${r.camera} on ${r.device_name} when it began`} width={160} />
                </a>
              ) : (
                <span className="muted">No screenshot</span>
              )}
            </td>
            <td>{r.device_name}</td>
            <td>{r.camera}</td>
            <td>{r.organization_name}</td>
            <td title={r.detail ?? undefined}>{kindTitle(r.kind)}</td>
            <td>
              {formatDateTime(r.started_at)}
              {r.ended_at ? ` until ${formatDateTime(r.ended_at)}` : ' (ongoing)'}
            </td>
            <td>
              <Review r={r} onDecide={(action) => setDeciding({ r, action })} />
            </td>
          </tr>
        )}
      />
      {q.data ? <Pager label="Tampering requests" page={page} count={q.data.count} onPage={setPage} /> : null}
      {deciding ? <DecideDialog r={deciding.r} action={deciding.action} onClose={() => setDeciding(null)} /> : null}
    </section>
  );
}
