import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import type { Feature, SubscribedFeature } from '@/api/generated';
import { allOrganizationsQuery } from '@/api/organizations';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { OrganizationSelect } from '@/components/ui/organization-select';
import { DATA_CREATED, DATA_DELETED, DATA_UPDATED } from '@/config/messages';
import { fieldErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import {
  createFeature,
  deleteFeature,
  featureControlKey,
  featuresQuery,
  subscribe,
  subscriptionsQuery,
  unsubscribe,
} from '../api/feature-control';

/** Where an organisation stands with a feature: its subscription's state in words. */
export function stateOf(s: SubscribedFeature | undefined): 'Not subscribed' | 'Subscribed' | 'Suppressed' {
  if (!s) return 'Not subscribed';
  return s.is_suppressed ? 'Suppressed' : 'Subscribed';
}

/**
 * `/admin/feature-control` (Feature Control, super admin): the features, added and
 * deleted (a deleted feature takes its subscriptions with it); and, for the
 * organisation chosen (`?organization=` in the address), each feature's state with
 * Subscribe, Suppress / Unsuppress and Unsubscribe. A gated screen of section 6
 * (Devices, Define Operation, Record Training Set, Deploy Model, OPC, Pathfinder)
 * shows for that organisation's users while its subscription is on and not
 * suppressed. With no organisation chosen, every organisation's subscriptions.
 */
export default function FeatureControlScreen() {
  const qc = useQueryClient();
  const [params, setParams] = useSearchParams();
  const org = Number(params.get('organization')) || null;
  const features = useQuery(featuresQuery());
  const subs = useQuery(subscriptionsQuery(org));
  const orgs = useQuery(allOrganizationsQuery());
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Feature | null>(null);
  const refresh = async () => {
    await qc.invalidateQueries({ queryKey: featureControlKey });
    // The session's own sidebar reads the subscriptions too.
    await qc.invalidateQueries({ queryKey: ['subscribed-features'] });
  };
  const add = useMutation({
    mutationFn: () => createFeature({ name: name.trim() }),
    onSuccess: async () => {
      notify.successShort(DATA_CREATED);
      setName('');
      setNameError(null);
      await refresh();
    },
    onError: (err) => {
      const e = fieldErrors(err);
      if (e.name) setNameError(e.name);
      else notify.failure(err, 'post');
    },
  });
  const remove = useMutation({
    mutationFn: (f: Feature) => deleteFeature(f.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      setDeleting(null);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  const change = useMutation({
    mutationFn: (c: { feature: number; suppressed: boolean; existing: boolean }) =>
      subscribe({ Feature: c.feature, Organization: org ?? 0, is_suppressed: c.suppressed }),
    onSuccess: async (_, c) => {
      notify.successShort(c.existing ? DATA_UPDATED : DATA_CREATED);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  const end = useMutation({
    mutationFn: (s: SubscribedFeature) => unsubscribe(s.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  const busy = change.isPending || end.isPending;
  const orgName = (id: number) => {
    const o = orgs.data?.find((x) => x.id === id);
    return o ? o.org_name_to_display || o.name : `#${id}`;
  };
  const subOf = (f: Feature) => subs.data?.find((s) => s.Feature === f.id);

  return (
    <section>
      <div className="screen-header">
        <h1>Feature Control</h1>
      </div>
      <h2>Features</h2>
      <form
        aria-label="Add feature"
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim() === '') {
            setNameError('Enter the feature’s name.');
            return;
          }
          add.mutate();
        }}
      >
        <Field label="Feature name" value={name} maxLength={100} error={nameError} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={add.isPending}>
          Add feature
        </button>
      </form>

      <h2>Subscriptions</h2>
      <OrganizationSelect
        value={org}
        none="All organizations"
        onChange={(o) => setParams(o !== null ? { organization: String(o) } : {})}
      />
      {org === null ? (
        <DataTable
          label="Subscriptions"
          query={{ isPending: subs.isPending, error: subs.error, data: subs.data }}
          empty={<EmptyState title="No organisation is subscribed to a feature yet." />}
          columns={['Organization', 'Feature', 'State']}
          row={(s) => (
            <tr key={s.id}>
              <td>{orgName(s.Organization)}</td>
              <td>{s.feature_name}</td>
              <td>{stateOf(s)}</td>
            </tr>
          )}
        />
      ) : null}
      <DataTable
        label={org === null ? 'Features' : `Features of ${orgName(org)}`}
        query={{ isPending: features.isPending || (org !== null && subs.isPending), error: features.error ?? subs.error, data: features.data }}
        empty={<EmptyState title="No features yet." />}
        columns={['Feature', org !== null && 'State', 'Actions']}
        row={(f) => {
          const s = subOf(f);
          return (
            <tr key={f.id}>
              <td>{f.name}</td>
              {org !== null ? <td>{stateOf(s)}</td> : null}
              <td className="actions">
                {org !== null && !s ? (
                  <button type="button" disabled={busy} aria-label={`Subscribe ${orgName(org)} to ${f.name}`} onClick={() => change.mutate({ feature: f.id, suppressed: false, existing: false })}>
                    Subscribe
                  </button>
                ) : null}
                {org !== null && s ? (
                  <>
                    <button
                      type="button"
                      className="secondary"
                      disabled={busy}
                      aria-label={`${s.is_suppressed ? 'Unsuppress' : 'Suppress'} ${f.name} for ${orgName(org)}`}
                      onClick={() => change.mutate({ feature: f.id, suppressed: !s.is_suppressed, existing: true })}
                    >
                      {s.is_suppressed ? 'Unsuppress' : 'Suppress'}
                    </button>{' '}
                    <button type="button" className="secondary" disabled={busy} aria-label={`Unsubscribe ${orgName(org)} from ${f.name}`} onClick={() => end.mutate(s)}>
                      Unsubscribe
                    </button>{' '}
                  </>
                ) : null}
                {org === null ? (
                  <button type="button" className="danger" aria-label={`Delete feature ${f.name}`} onClick={() => setDeleting(f)}>
                    Delete
                  </button>
                ) : null}
              </td>
            </tr>
          );
        }}
      />
      {deleting ? (
        <ConfirmDialog
          title="Delete feature"
          confirmLabel="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          Delete {deleting.name}? Every organisation’s subscription to it ends, and the screens it gates are hidden again.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
