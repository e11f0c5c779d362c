import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';

import type { ModelType } from '@/api/generated';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { UploadProgressBar } from '@/components/ui/upload-progress';
import { MAX_MODEL_FILE_BYTES } from '@/config/constants';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { formatDateTime, megabytes } from '@/lib/format';
import { notify } from '@/lib/toast';
import { useIdSet } from '@/lib/use-id-set';

import {
  type ModelFileDeclaration,
  deleteModelFiles,
  modelTypesKey,
  moveModelFiles,
  uploadModelFile,
} from '../api/model-types';

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

/** What a file made elsewhere is declared with, until changed: a PyTorch export's usual frame. */
const MADE_ELSEWHERE = {
  labels: '',
  version: '',
  layout: 'NCHW' as ModelFileDeclaration['input_layout'],
  type: 'float32' as ModelFileDeclaration['input_type'],
  scale: '1/255',
  mean: '0.485, 0.456, 0.406',
  std: '0.229, 0.224, 0.225',
  format: 'RGB' as ModelFileDeclaration['input_format'],
};

/** The parameters a refusal may name, shown next to their fields. */
const DECLARED = ['labels', 'version', 'input_layout', 'input_type', 'input_scale', 'input_mean', 'input_std', 'input_format'];

/** The names of "Fit, Check, background". */
const names = (s: string) =>
  s
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');

/**
 * Upload a model file (`.onnx`, at most 64 MiB) to `type`, with its progress. A file made
 * elsewhere ("Made elsewhere") is sent with what it does not say: its labels, version and
 * the frame it takes (layout, element type, scale, mean, std, colour order), which the
 * server writes into it; a refused declaration shows next to its field.
 */
function UploadForm({ type }: { type: ModelType }) {
  const qc = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [elsewhere, setElsewhere] = useState(false);
  const [d, setD] = useState(MADE_ELSEWHERE);
  const up = useMutation({
    mutationFn: ({ file, declared }: { file: File; declared?: ModelFileDeclaration }) =>
      uploadModelFile(type.id, file, (sent, total) => setProgress({ sent, total }), declared),
    onSuccess: async (f) => {
      notify.successShort(`${f.name} uploaded: version ${f.version}.`);
      setProgress(null);
      if (input.current) input.current.value = '';
      await qc.invalidateQueries({ queryKey: modelTypesKey });
    },
    // 400: why the server refused the file or a declared value; 413: too large.
    onError: (err) => {
      setProgress(null);
      const all = Object.entries(fieldErrors(err));
      const mine = all.filter(([k]) => DECLARED.includes(k));
      const other = all.find(([k]) => !DECLARED.includes(k))?.[1];
      setFields(Object.fromEntries(mine));
      setError(other ?? (mine.length > 0 ? null : errorMessage(err, 'account')));
    },
  });
  const set = (k: keyof typeof MADE_ELSEWHERE) => (e: { target: { value: string } }) => setD({ ...d, [k]: e.target.value });

  const declaration = (): ModelFileDeclaration => ({
    labels: JSON.stringify(names(d.labels)),
    version: d.version.trim(),
    input_layout: d.layout,
    input_type: d.type,
    ...(d.type === 'float32' ? { input_scale: d.scale, input_mean: d.mean, input_std: d.std } : {}),
    input_format: d.format,
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
    const own: Record<string, string> = {};
    if (elsewhere && names(d.labels).length < 2) own.labels = 'Give at least two names: the steps in order, then background.';
    if (elsewhere && d.version.trim() === '') own.version = 'Give the version a name.';
    setError(problem);
    setFields(own);
    if (file && !problem && Object.keys(own).length === 0) {
      setProgress({ sent: 0, total: file.size });
      up.mutate({ file, ...(elsewhere ? { declared: declaration() } : {}) });
    }
  };

  return (
    <form aria-label={`Upload a model file to ${type.name}`} onSubmit={submit} className="upload-panel" noValidate>
      <label>
        Model file (.onnx)
        <input type="file" accept=".onnx" ref={input} disabled={up.isPending} onChange={() => setError(null)} />
      </label>
      <label>
        <input type="checkbox" checked={elsewhere} onChange={(e) => setElsewhere(e.target.checked)} /> Made elsewhere: declare
        what the file does not say
      </label>
      {elsewhere ? (
        <fieldset>
          <legend>{`What the model takes (a ${type.input_width}×${type.input_height} frame) and answers`}</legend>
          <Field
            label="Labels (the steps in order, then background; comma-separated)"
            value={d.labels}
            onChange={set('labels')}
            error={fields.labels}
          />
          <Field label="Version" value={d.version} onChange={set('version')} error={fields.version} />
          <SelectField label="Layout" value={d.layout} onChange={set('layout')} error={fields.input_layout}>
            <option value="NCHW">NCHW (1×3×height×width)</option>
            <option value="NHWC">NHWC (1×height×width×3)</option>
          </SelectField>
          <SelectField label="Element type" value={d.type} onChange={set('type')} error={fields.input_type}>
            <option value="float32">float32</option>
            <option value="uint8">uint8 (the frame&apos;s bytes as they are)</option>
          </SelectField>
          {d.type === 'float32' ? (
            <>
              <Field label="Scale" value={d.scale} onChange={set('scale')} error={fields.input_scale} />
              <Field label="Mean (per channel)" value={d.mean} onChange={set('mean')} error={fields.input_mean} />
              <Field label="Std (per channel)" value={d.std} onChange={set('std')} error={fields.input_std} />
            </>
          ) : null}
          <SelectField label="Colour order" value={d.format} onChange={set('format')} error={fields.input_format}>
            <option value="RGB">RGB</option>
            <option value="BGR">BGR</option>
          </SelectField>
        </fieldset>
      ) : null}
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
