import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import type { Release } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Pager } from '@/components/ui/pager';
import { BINARIES_DOWNLOAD_FAILED, DATA_DELETED, DATA_UPDATED } from '@/config/messages';
import { formatDateTime } from '@/lib/format';
import { useClampPage, useListParams } from '@/lib/list-params';
import { notify } from '@/lib/toast';

import { deleteRelease, downloadRelease, moveRelease, releasesKey, releasesPageQuery, setRolloutState } from '../api/releases';
import { actionsOf, binaryFileName, progress, releaseName, releaseState, size } from '../releases';
import { RolloutPanel } from './rollout-panel';
import { UploadReleaseForm } from './upload-release-form';

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
 * `/admin/updates` (super admin): agent releases. The upload form; the releases, newest
 * upload first, 10 a page (version, branch, environment, target, size, uploaded, state
 * with why it stopped, the roll-out's devices done and failed of all); each moved to
 * the other environment (every target of its version), its roll-out stopped or gone on
 * with, downloaded, deleted after a confirmation. Choosing one (`?release=ID`) shows its
 * roll-out device by device, asked again every few seconds while it rolls out.
 */
export default function UpdatesScreen() {
  const { page, setPage } = useListParams();
  const [params, setParams] = useSearchParams();
  const chosen = Number(params.get('release') ?? '') || null;
  const choose = (id: number | null) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (id === null) next.delete('release');
        else next.set('release', String(id));
        return next;
      },
      { replace: true },
    );
  const q = useQuery(releasesPageQuery(page));
  useClampPage(page, q.data, setPage);
  const qc = useQueryClient();
  const [deleting, setDeleting] = useState<Release | null>(null);
  const [downloading, setDownloading] = useState<number | null>(null);

  const refresh = () => qc.invalidateQueries({ queryKey: releasesKey });
  const move = useMutation({
    mutationFn: (r: Release) => moveRelease(r.version_number, actionsOf(r).moveTo),
    onSuccess: async (moved, r) => {
      notify.successShort(`Version ${r.version_number} moved to ${actionsOf(r).moveTo} (${moved.length} release${moved.length === 1 ? '' : 's'}).`);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  const rollout = useMutation({
    mutationFn: ({ r, to }: { r: Release; to: 'stopped' | 'rolling_out' }) => setRolloutState(r.id, to),
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  const del = useMutation({
    mutationFn: (r: Release) => deleteRelease(r),
    onSuccess: async (_m, r) => {
      notify.successShort(DATA_DELETED);
      setDeleting(null);
      if (chosen === r.id) choose(null);
      await refresh();
    },
    onError: (err) => {
      setDeleting(null);
      notify.failure(err, 'delete');
    },
  });
  const download = async (r: Release) => {
    setDownloading(r.id);
    try {
      save(await downloadRelease(r), binaryFileName(r));
    } catch {
      notify.errorShort(BINARIES_DOWNLOAD_FAILED);
    } finally {
      setDownloading(null);
    }
  };
  const busy = move.isPending || rollout.isPending;

  return (
    <section>
      <div className="screen-header">
        <h1>Updates</h1>
      </div>
      <UploadReleaseForm />
      <h2>Releases</h2>
      <DataTable
        label="Releases"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title="No releases yet." />}
        columns={['Version', 'Branch', 'Environment', 'Target', 'Size', 'Uploaded', 'State', 'Devices', 'Actions']}
        row={(r) => {
          const a = actionsOf(r);
          const name = releaseName(r);
          return (
            <tr key={r.id} aria-selected={chosen === r.id}>
              <td>
                <button type="button" className="link-button" aria-label={`Show the roll-out of ${name}`} onClick={() => choose(r.id)}>
                  {r.version_number}
                </button>
              </td>
              <td>{r.branch}</td>
              <td>{r.running_environment}</td>
              <td>{r.target}</td>
              <td>{size(r.size_bytes)}</td>
              <td>{formatDateTime(r.uploaded_at)}</td>
              <td>{releaseState(r)}</td>
              <td>{progress(r)}</td>
              <td className="actions">
                <button type="button" className="small secondary" disabled={busy} aria-label={`Move ${name} to ${a.moveTo}`} onClick={() => move.mutate(r)}>
                  {a.moveTo === 'prod' ? 'Move to prod' : 'Back to dev'}
                </button>
                {a.stop ? (
                  <button
                    type="button"
                    className="small secondary"
                    disabled={busy}
                    aria-label={`Stop the roll-out of ${name}`}
                    onClick={() => rollout.mutate({ r, to: 'stopped' })}
                  >
                    Stop
                  </button>
                ) : null}
                {a.goOn ? (
                  <button
                    type="button"
                    className="small secondary"
                    disabled={busy}
                    aria-label={`Go on with the roll-out of ${name}`}
                    onClick={() => rollout.mutate({ r, to: 'rolling_out' })}
                  >
                    Go on
                  </button>
                ) : null}
                <button
                  type="button"
                  className="small secondary"
                  disabled={downloading === r.id}
                  aria-label={`Download ${name}`}
                  onClick={() => void download(r)}
                >
                  Download
                </button>
                <button type="button" className="small danger" aria-label={`Delete ${name}`} onClick={() => setDeleting(r)}>
                  Delete
                </button>
              </td>
            </tr>
          );
        }}
      />
      {q.data ? <Pager label="Releases" page={page} count={q.data.count} onPage={setPage} /> : null}
      {chosen !== null ? <RolloutPanel id={chosen} onClose={() => choose(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete the release?"
          confirmLabel="Delete"
          busy={del.isPending}
          onConfirm={() => del.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            Delete release <strong>{releaseName(deleting)}</strong> of branch {deleting.branch} in {deleting.running_environment}, its
            binary and its roll-out? Devices keep the version they run. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
