import { useId, useMemo, useState } from 'react';

import type { Operation } from '@/api/generated';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { FormError } from '@/components/ui/field';
import { isBlank, parse, validate } from '@/lib/operation';

/** The largest text file read (an operation's text is a few kilobytes). */
export const MAX_IMPORT_BYTES = 1024 * 1024;
export const FILE_TOO_LARGE = 'The file is too large: at most 1 MB.';
export const FILE_UNREADABLE = 'The file could not be read.';

/**
 * Import an operation from the task-detail text format (spec section 3): pasted, or read
 * from a .txt file into the same box. The text is read as the server reads it (`parse`):
 * a line it cannot read shows as 'Line N: …', otherwise a preview, with the save rule it
 * does not pass yet (the editor can fix that). Import hands the operation to `onImport`;
 * closing is the caller's.
 */
export function ImportOperationDialog({ onImport, onClose }: { onImport: (op: Operation) => void; onClose: () => void }) {
  const textId = useId();
  const [text, setText] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const read = useMemo(() => (isBlank(text) ? null : parse(text)), [text]);
  const problem = read?.ok ? validate(read.operation) : null;

  function choose(e: React.ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    setFileError(null);
    if (!file) return;
    if (file.size > MAX_IMPORT_BYTES) {
      setFileError(FILE_TOO_LARGE);
      return;
    }
    file.text().then(setText, () => setFileError(FILE_UNREADABLE));
  }

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (read?.ok) onImport(read.operation);
  }

  return (
    <Dialog title="Import operation" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <label htmlFor={textId}>
          Operation text
          <textarea id={textId} rows={10} value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} />
        </label>
        <p className="muted">
          The first line is the operation&apos;s name; a step ends in &apos;:&apos;, its sub-steps in &apos;;&apos;, and a
          process name in &apos;~&apos; after its steps.
        </p>
        <label>
          Text file
          <input type="file" accept=".txt,text/plain" onChange={choose} />
        </label>
        <FormError message={fileError} />
        {read && !read.ok ? <FormError message={`Line ${read.line}: ${read.message}`} /> : null}
        {read?.ok ? <Preview operation={read.operation} problem={problem} /> : null}
        <DialogActions onCancel={onClose} submitLabel="Import" disabled={!read?.ok} />
      </form>
    </Dialog>
  );
}

function Preview({ operation, problem }: { operation: Operation; problem: string | null }) {
  return (
    <section aria-label="Preview">
      <p>
        <strong>{operation.name}</strong>
      </p>
      {operation.processes.length === 0 ? <p className="muted">No process.</p> : null}
      <ul>
        {operation.processes.map((p, i) => (
          <li key={i}>
            {p.name}
            <ol>
              {p.steps.map((s, j) => (
                <li key={j}>
                  {s.name}
                  {s.substeps.length > 0 ? (
                    <ul>
                      {s.substeps.map((n, k) => (
                        <li key={k}>{n}</li>
                      ))}
                    </ul>
                  ) : null}
                </li>
              ))}
            </ol>
          </li>
        ))}
      </ul>
      {problem ? <p className="muted">Saving needs a change first: {problem}</p> : null}
    </section>
  );
}
