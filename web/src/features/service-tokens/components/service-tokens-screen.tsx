import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import type { ServiceToken, ServiceTokenCreated } from '@/api/generated';
import { allOrganizationsQuery } from '@/api/organizations';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, SelectField } from '@/components/ui/field';
import { TOKEN_CREATE_FAILED } from '@/config/messages';
import { fieldErrors } from '@/lib/api-errors';
import { ROLES, ROLE_LABELS, parseRole } from '@/lib/access/roles';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

import {
  MAX_EXPIRY_DAYS,
  type TokenForm,
  createServiceToken,
  formProblems,
  revokeServiceToken,
  serviceTokensKey,
  serviceTokensQuery,
  tokenState,
} from '../api/service-tokens';

const EMPTY: TokenForm = { name: '', organization: '', role: 'org_user', days: '90' };

const roleName = (r: string) => {
  const p = parseRole(r);
  return p ? ROLE_LABELS[p] : r;
};

/**
 * `/admin/aws-token` (super admin), the spec's Cloud Function Token: service tokens an
 * integration (a script, a cloud function, an MES connector) calls the API with, as one
 * organisation and one role, without a person's sign-in. The list (never a secret),
 * creating one (checked before sending; its secret shown once, with a copy button), and
 * revoking one (confirmed).
 */
export default function ServiceTokensScreen() {
  const qc = useQueryClient();
  const q = useQuery(serviceTokensQuery());
  const orgs = useQuery(allOrganizationsQuery());
  const [form, setForm] = useState<TokenForm>(EMPTY);
  const [problems, setProblems] = useState<Partial<Record<keyof TokenForm, string>>>({});
  const [created, setCreated] = useState<ServiceTokenCreated | null>(null);
  const [revoking, setRevoking] = useState<ServiceToken | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: serviceTokensKey });
  const create = useMutation({
    mutationFn: () =>
      createServiceToken({
        name: form.name.trim(),
        organization: Number(form.organization),
        role: form.role,
        expires_in_days: Number(form.days),
      }),
    onSuccess: async (made) => {
      setCreated(made);
      setForm(EMPTY);
      setProblems({});
      await refresh();
    },
    onError: (err) => {
      const f = fieldErrors(err);
      setProblems({ name: f.name, organization: f.organization, role: f.role, days: f.expires_in_days });
      notify.failure(err, 'post', TOKEN_CREATE_FAILED);
    },
  });
  const revoke = useMutation({
    mutationFn: (t: ServiceToken) => revokeServiceToken(t.id),
    onSuccess: async (_, t) => {
      notify.successShort(`${t.name} revoked.`);
      setRevoking(null);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  const set = (k: keyof TokenForm) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  // A token's state as of the list's fetch (it is fetched again on each change).
  const now = q.dataUpdatedAt;

  return (
    <section>
      <div className="screen-header">
        <h1>Cloud Function Token</h1>
      </div>
      <p className="muted">
        A service token lets an integration — a script, a cloud function, an MES connector — call the API as one organization
        and one role, without a person signing in: it sends <code>Authorization: Bearer &lt;token&gt;</code>. It reaches no
        admin call and can be revoked at any time.
      </p>
      <form
        aria-label="Create a service token"
        className="section"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const p = formProblems(form);
          setProblems(p ?? {});
          if (p === null) create.mutate();
        }}
      >
        <Field label="Name" value={form.name} maxLength={100} placeholder="MES connector, line 2" onChange={set('name')} error={problems.name} />
        <SelectField label="Organization" value={form.organization} onChange={set('organization')} error={problems.organization}>
          <option value="">Choose an organization…</option>
          {(orgs.data ?? []).map((o) => (
            <option key={o.id} value={o.id}>
              {o.org_name_to_display || o.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Role" value={form.role} onChange={set('role')} error={problems.role}>
          {ROLES.filter((r) => r !== 'admin').map((r) => (
            <option key={r} value={r}>
              {ROLE_LABELS[r]}
            </option>
          ))}
        </SelectField>
        <Field
          label="Expires in (days)"
          type="number"
          min={1}
          max={MAX_EXPIRY_DAYS}
          value={form.days}
          onChange={set('days')}
          error={problems.days}
        />
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </form>
      {created ? <NewToken made={created} onDone={() => setCreated(null)} /> : null}
      <DataTable
        label="Service tokens"
        query={{ isPending: q.isPending, error: q.error, data: q.data }}
        empty={<EmptyState title="No service tokens yet." />}
        columns={['Name', 'Organization', 'Role', 'Created by', 'Created', 'Expires', 'Last used', 'State', 'Actions']}
        row={(t) => {
          const state = tokenState(t, now);
          return (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>{t.organization_name}</td>
              <td>{roleName(t.role)}</td>
              <td>{t.created_by ?? '—'}</td>
              <td>{formatDateTime(t.created_at)}</td>
              <td>{formatDateTime(t.expires_at)}</td>
              <td>{t.last_used_at !== null ? formatDateTime(t.last_used_at) : 'Never'}</td>
              <td>{state === 'Revoked' && t.revoked_at !== null ? `Revoked ${formatDateTime(t.revoked_at)}` : state}</td>
              <td className="actions">
                {state !== 'Revoked' ? (
                  <button type="button" className="danger" aria-label={`Revoke ${t.name}`} onClick={() => setRevoking(t)}>
                    Revoke
                  </button>
                ) : null}
              </td>
            </tr>
          );
        }}
      />
      {revoking ? (
        <ConfirmDialog
          title="Revoke service token"
          confirmLabel="Revoke"
          busy={revoke.isPending}
          onConfirm={() => revoke.mutate(revoking)}
          onCancel={() => setRevoking(null)}
        >
          Calls made with {revoking.name} ({revoking.organization_name}) will be refused from now on. This cannot be undone.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** A token just created: its secret, shown this once (the server keeps only its hash). */
function NewToken({ made, onDone }: { made: ServiceTokenCreated; onDone: () => void }) {
  const titleId = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(made.secret);
      notify.hint('Token copied.');
    } catch {
      notify.errorShort('The token could not be copied; select it and copy it by hand.');
    }
  };
  return (
    <section className="section enrolment-code" aria-labelledby={titleId}>
      <h2 id={titleId}>Token {made.token.name} created</h2>
      <p className="muted">Copy it now: it is shown only this once. Send it as Authorization: Bearer &lt;token&gt;.</p>
      <dl className="facts">
        <dt>Token</dt>
        <dd className="enrolment-command">
          <code aria-label="Token secret">{made.secret}</code>{' '}
          <button type="button" className="small secondary" onClick={() => void copy()}>
            Copy token
          </button>
        </dd>
        <dt>Acts in</dt>
        <dd>
          {made.token.organization_name} as {roleName(made.token.role)}
        </dd>
        <dt>Valid until</dt>
        <dd>{formatDateTime(made.token.expires_at)}</dd>
      </dl>
      <button type="button" className="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
