import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';

import type { ModelType } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { FormError, SelectField } from '@/components/ui/field';
import { MAX_MODEL_FILE_BYTES } from '@/config/constants';
import { errorMessage } from '@/lib/api-errors';
import { formatDateTime, megabytes } from '@/lib/format';
import { notify } from '@/lib/toast';
import { useIdSet } from '@/lib/use-id-set';

import { deleteModelFiles, modelTypesKey, moveModelFiles, uploadModelFile } from '../api/model-types';
import { UploadProgressBar } from './upload-progress';

const files = (n: number) => `${n} model file${n === 1 ? '' : 's'}`;

/**
 * A model type's files: the list (name, version and labels from the model's metadata,
 * size, SHA-256), the chosen ones deleted (after a confirmation) or moved to another
 * type, and uploading one with a progress bar; the server reads the file and says why
 * it refuses one.
 */
export function ModelFiles({ type, others }: { type: ModelType; others: readonly ModelType[] }) {
  const qc = useQueryClient();
  const [chosen, toggle, setChosen] = useIdSet();
  const [moveTo, setMoveTo] = useState('');
  const [asking, setAsking] = useState(false);
  const ids = [...chosen];
  const done = async (message: string) => {
    notify.successShort(message);
    setChosen(new Set());
    setAsking(false);
    await qc.invalidateQueries({ queryKey: modelTypesKey });
  };
  const move = useMutation({
    mutationFn: (to: ModelType) => moveModelFiles(ids, to.id),
    onSuccess: (moved, to) => done(`${files(moved.length)} moved to ${to.name}.`),
    onError: (err) => notify.failure(err, 'post'),
  });
  const del = useMutation({
    mutationFn: () => deleteModelFiles(ids),
    onSuccess: (m) => done(m.msg),
    onError: (err) => {
      setAsking(false);
      notify.failure(err, 'delete');
    },
  });
  const target = others.find((o) => String(o.id) === moveTo);

  return (
    <>
      <DataTable
        label={`Model files of ${type.name}`}
        query={{ isPending: false, error: null, data: type.model_files }}
        empty={<p className="muted">No model files yet.</p>}
        columns={['', 'Name', 'Version', 'Labels', 'Size', 'SHA-256', 'Uploaded']}
        row={(f) => (
          <tr key={f.id}>
            <td>
              <input type="checkbox" aria-label={`Choose ${f.name}`} checked={chosen.has(f.id)} onChange={() => toggle(f.id)} />
            </td>
            <td>{f.name}</td>
            <td>{f.version}</td>
            <td>{f.labels.join(', ')}</td>
            <td>{megabytes(f.size_bytes)}</td>
            <td>
              <code title={f.sha256}>{f.sha256.slice(0, 12)}</code>
            </td>
            <td>{formatDateTime(f.created_at)}</td>
          </tr>
        )}
      />
      {type.model_files.length > 0 ? (
        <div className="inline-form" role="group" aria-label={`Chosen files of ${type.name}`}>
          <button type="button" className="danger" disabled={chosen.size === 0} onClick={() => setAsking(true)}>
            Delete
          </button>
          <SelectField label="Move to" value={moveTo} onChange={(e) => setMoveTo(e.target.value)}>
            <option value="">Choose a model type…</option>
            {others.map((o) => (
              <option key={o.id} value={o.id}>
                {`${o.name} (${o.input_width}×${o.input_height})`}
              </option>
            ))}
          </SelectField>
          <button
            type="button"
            className="secondary"
            disabled={chosen.size === 0 || !target || move.isPending}
            onClick={() => target && move.mutate(target)}
          >
            Move
          </button>
        </div>
      ) : null}
      <UploadForm type={type} />
      {asking ? (
        <ConfirmDialog
          title="Delete model files"
          confirmLabel="Delete"
          busy={del.isPending}
          onConfirm={() => del.mutate()}
          onCancel={() => setAsking(false)}
        >
          <p>
            Delete {files(chosen.size)} of <strong>{type.name}</strong>? Model versions registered from them keep their own
            copy. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** Upload a model file (`.onnx`, at most 64 MiB) to `type`, with its progress. */
function UploadForm({ type }: { type: ModelType }) {
  const qc = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const up = useMutation({
    mutationFn: (file: File) => uploadModelFile(type.id, file, (sent, total) => setProgress({ sent, total })),
    onSuccess: async (f) => {
      notify.successShort(`${f.name} uploaded: version ${f.version}.`);
      setProgress(null);
      if (input.current) input.current.value = '';
      await qc.invalidateQueries({ queryKey: modelTypesKey });
    },
    // 400: why the server refused the file; 413: too large.
    onError: (err) => {
      setProgress(null);
      setError(errorMessage(err, 'account'));
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (up.isPending) return;
    const file = input.current?.files?.[0];
    const problem = !file
      ? 'Choose a model file.'
      : file.size > MAX_MODEL_FILE_BYTES
        ? `A model file is at most ${MAX_MODEL_FILE_BYTES / 1024 / 1024} MiB.`
        : null;
    setError(problem);
    if (file && !problem) {
      setProgress({ sent: 0, total: file.size });
      up.mutate(file);
    }
  };

  return (
    <form aria-label={`Upload a model file to ${type.name}`} onSubmit={submit} className="upload-panel" noValidate>
      <label>
        Model file (.onnx)
        <input type="file" accept=".onnx" ref={input} disabled={up.isPending} onChange={() => setError(null)} />
      </label>
      <FormError message={error} />
      <button type="submit" disabled={up.isPending}>
        {up.isPending ? 'Uploading…' : 'Upload'}
      </button>
      {progress ? (
        <UploadProgressBar
          sent={progress.sent}
          total={progress.total}
          note={progress.sent === progress.total && up.isPending ? ' · reading the model…' : ''}
        />
      ) : null}
    </form>
  );
}
