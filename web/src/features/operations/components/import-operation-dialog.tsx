import { useId, useMemo, useState } from 'react';

import type { Operation } from '@/api/generated';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { FormError } from '@/components/ui/field';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { isBlank, parse, validate } from '@/lib/operation';

import { extractFromDocument } from '../api/tasks';

/** The largest text file read in the browser (an operation's text is a few kilobytes). */
export const MAX_IMPORT_BYTES = 1024 * 1024;
/** The largest document the server reads (`cloud/src/sop`'s `MAX_BYTES`). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
export const FILE_TOO_LARGE = 'The file is too large: at most 1 MB.';
export const DOCUMENT_TOO_LARGE = 'The document is too large: at most 10 MB.';
export const FILE_UNREADABLE = 'The file could not be read.';

/** A text file whose text is the task-detail format is read here; anything else (a
 * .docx, a .pdf, a procedure written as prose) goes to the server. */
function isPlainText(file: File) {
  return file.type === 'text/plain' || /\.txt$/i.test(file.name);
}

/**
 * Import an operation from the task-detail text format (spec section 3): pasted, or read
 * from a .txt file into the same box; or from a standard operating procedure (.docx,
 * .pdf, or a text written as a procedure), which the server reads as a draft in that
 * format (`extract_task_from_doc/`, issue 31) into the same box, with what to check. The
 * text is read as the server reads it (`parse`): a line it cannot read shows as
 * 'Line N: …', otherwise a preview, with the save rule it does not pass yet (the editor
 * can fix that). Import hands the operation to `onImport`; closing is the caller's.
 */
export function ImportOperationDialog({ onImport, onClose }: { onImport: (op: Operation) => void; onClose: () => void }) {
  const textId = useId();
  const [text, setText] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const [notes, setNotes] = useState<string[]>([]);
  const [reading, setReading] = useState(false);
  const read = useMemo(() => (isBlank(text) ? null : parse(text)), [text]);
  const problem = read?.ok ? validate(read.operation) : null;

  async function fromServer(file: File) {
    if (file.size > MAX_DOCUMENT_BYTES) {
      setFileError(DOCUMENT_TOO_LARGE);
      return;
    }
    setReading(true);
    try {
      const draft = await extractFromDocument(file);
      setText(draft.task_detail);
      setNotes(draft.notes);
    } catch (err) {
      setFileError(fieldErrors(err).file ?? errorMessage(err, 'post'));
    } finally {
      setReading(false);
    }
  }

  async function choose(e: React.ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    setFileError(null);
    setNotes([]);
    if (!file) return;
    if (!isPlainText(file)) return fromServer(file);
    if (file.size > MAX_IMPORT_BYTES) {
      setFileError(FILE_TOO_LARGE);
      return;
    }
    let content: string;
    try {
      content = await file.text();
    } catch {
      setFileError(FILE_UNREADABLE);
      return;
    }
    // Already in the format (with a step): taken as it is. Written as prose: read by the
    // server, as `extract_task_from_doc/` reads a text.
    const local = parse(content);
    if (local.ok && local.operation.processes.some((p) => p.steps.length > 0)) setText(content);
    else await fromServer(file);
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
          Text file or procedure (.txt, .docx, .pdf)
          <input
            type="file"
            accept=".txt,text/plain,.docx,application/vnd.openxmlformats-officedocument.wordprocessingml.document,.pdf,application/pdf"
            onChange={(e) => void choose(e)}
            disabled={reading}
          />
        </label>
        {reading ? <p role="status">Reading the document…</p> : null}
        <FormError message={fileError} />
        {notes.length > 0 ? (
          <section aria-label="Check before saving">
            <p>Read from the document; check before saving:</p>
            <ul>
              {notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          </section>
        ) : null}
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
