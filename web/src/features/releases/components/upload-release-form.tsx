import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';

import { Field, FormError, SelectField } from '@/components/ui/field';
import { UploadProgressBar } from '@/components/ui/upload-progress';
import { ApiError } from '@/lib/api-client';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { releasesKey, uploadRelease } from '../api/releases';
import {
  ENVIRONMENTS,
  EMPTY_FIELDS,
  RELEASE_FIELDS,
  type ReleaseField,
  type ReleaseFields,
  TARGETS,
  checkRelease,
  releaseName,
  signCommand,
} from '../releases';

type Problems = Partial<Record<ReleaseField, string>>;

/**
 * Upload an agent build as a release: the binary, its version, branch, environment and
 * target, and its signature (made on the cloud's host with `gemba-cloud sign-release`,
 * the command shown filled in). Checked before sending with the server's rules; the
 * upload's progress shows; a refusal shows next to its field (a wrong signature under
 * the signature), anything else above the button.
 */
export function UploadReleaseForm() {
  const qc = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [f, setF] = useState<ReleaseFields>(EMPTY_FIELDS);
  const [fileName, setFileName] = useState('');
  const [problems, setProblems] = useState<Problems>({});
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const up = useMutation({
    mutationFn: ({ file, fields }: { file: File; fields: ReleaseFields }) =>
      uploadRelease(file, fields, (sent, total) => setProgress({ sent, total })),
    onSuccess: async (r) => {
      notify.successShort(`Release ${releaseName(r)} uploaded to ${r.running_environment}.`);
      setProgress(null);
      setF((old) => ({ ...old, version: '', signature: '' }));
      setFileName('');
      if (input.current) input.current.value = '';
      await qc.invalidateQueries({ queryKey: releasesKey });
    },
    onError: (err) => {
      setProgress(null);
      const all = fieldErrors(err);
      const mine = Object.fromEntries(Object.entries(all).filter(([k]) => (RELEASE_FIELDS as readonly string[]).includes(k)));
      const other = Object.entries(all).find(([k]) => !(RELEASE_FIELDS as readonly string[]).includes(k))?.[1];
      setProblems(mine);
      if (err instanceof ApiError && err.status === 413) setError('The binary is larger than the cloud takes.');
      else setError(other ?? (Object.keys(mine).length > 0 ? null : errorMessage(err, 'post')));
    },
  });
  const set = (k: keyof ReleaseFields) => (e: { target: { value: string } }) => {
    setF({ ...f, [k]: e.target.value });
    if (problems[k]) setProblems({ ...problems, [k]: undefined });
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (up.isPending) return;
    const file = input.current?.files?.[0];
    const own = checkRelease(f, file);
    setProblems(own);
    setError(null);
    if (file && Object.keys(own).length === 0) {
      setProgress({ sent: 0, total: file.size });
      up.mutate({ file, fields: f });
    }
  };

  return (
    <form aria-label="Upload a release" onSubmit={submit} className="upload-panel" noValidate>
      <h2>Upload a release</h2>
      <label>
        Agent binary
        <input
          type="file"
          ref={input}
          disabled={up.isPending}
          aria-invalid={problems.file ? true : undefined}
          onChange={(e) => {
            setFileName(e.target.files?.[0]?.name ?? '');
            setProblems({ ...problems, file: undefined });
          }}
        />
      </label>
      {problems.file ? (
        <p className="field-error" role="alert">
          {problems.file}
        </p>
      ) : null}
      <Field label="Version" value={f.version} onChange={set('version')} error={problems.version} placeholder="1.4.0" />
      <Field label="Branch" value={f.branch} onChange={set('branch')} error={problems.branch} />
      <SelectField label="Environment" value={f.environment} onChange={set('environment')} error={problems.environment}>
        {ENVIRONMENTS.map((e) => (
          <option key={e} value={e}>
            {e}
          </option>
        ))}
      </SelectField>
      <SelectField label="Target" value={f.target} onChange={set('target')} error={problems.target}>
        {TARGETS.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </SelectField>
      <Field label="Signature" value={f.signature} onChange={set('signature')} error={problems.signature} spellCheck={false} autoComplete="off" />
      <p className="muted">
        Sign the binary on the cloud&apos;s host, whose data folder keeps the release key (<code>gemba-cloud release-key</code> prints
        its public key, which devices learn at enrolment), and paste what it prints:{' '}
        <code aria-label="Signing command">{signCommand(f, fileName)}</code>
      </p>
      <FormError message={error} />
      <button type="submit" disabled={up.isPending}>
        {up.isPending ? 'Uploading…' : 'Upload'}
      </button>
      {progress ? (
        <UploadProgressBar
          sent={progress.sent}
          total={progress.total}
          note={progress.sent === progress.total && up.isPending ? ' · checking the signature…' : ''}
        />
      ) : null}
    </form>
  );
}
