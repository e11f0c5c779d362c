import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { Link } from 'react-router';

import type { AssistantAnswer, AssistantAsk, AssistantMessage } from '@/api/generated';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { ScreenHeader } from '@/components/ui/screen-header';
import { DATA_DELETED } from '@/config/messages';
import { can } from '@/lib/access/roles';
import { formErrors } from '@/lib/api-errors';
import { addDays, dayOf, isoDay, startOfDay } from '@/lib/days';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import { BODY_LIMITS } from '@/lib/validate';

import { BETA_NOTICE, MODES, type Mode, askAssistant, deleteDocument, documentsKey, documentsQuery, lineChoicesQuery, uploadDocument } from '../api/assistant';

/** A chat entry: the user's question or one of the assistant's messages. */
type Entry = { key: number; message: AssistantMessage };

/**
 * `/user/assistant` (Kaizen Assistant; the spec's "separate assistant feature for
 * lean-manufacturing chat with beta models"): a mode, a period (two for the
 * comparison, a line for Line Performance), the retrieval options, and the chat; each
 * figure of an answer links to the screen listing its cycles. The organisation's manuals
 * and SOPs for Retrieval-Augmented Generation are added below the chat.
 */
export default function AssistantScreen() {
  const s = useSession();
  const today = startOfDay(new Date());
  const [mode, setMode] = useState<Mode>('station_performance');
  const [from, setFrom] = useState(isoDay(addDays(today, -6)));
  const [to, setTo] = useState(isoDay(today));
  const [cFrom, setCFrom] = useState(isoDay(addDays(today, -13)));
  const [cTo, setCTo] = useState(isoDay(addDays(today, -7)));
  const [line, setLine] = useState('');
  const [question, setQuestion] = useState('');
  const [ranker, setRanker] = useState(true);
  const [summaries, setSummaries] = useState(true);
  const [followUps, setFollowUps] = useState(true);
  const [chat, setChat] = useState<Entry[]>([]);
  const [last, setLast] = useState<AssistantAnswer | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const lines = useQuery({ ...lineChoicesQuery(), enabled: mode === 'line_performance' });
  const ask = useMutation({
    mutationFn: (body: AssistantAsk) => askAssistant(body),
    onSuccess: (a) => {
      setErrors({});
      setLast(a);
      // The question is the user's own entry already: the answer's others follow it.
      setChat((c) => [...c, ...a.messages.filter((m) => m.is_advisor).map((message, i) => ({ key: c.length + i, message }))]);
    },
    onError: (err) => setErrors(formErrors(err)),
  });
  const send = (text: string) => {
    const body: AssistantAsk = {
      mode,
      message: text.trim() === '' ? null : text.trim(),
      datetime_start: mode === 'rag' ? null : dayOf(from).toISOString(),
      datetime_end: mode === 'rag' ? null : addDays(dayOf(to), 1).toISOString(),
      compare_start: mode === 'station_comparison' ? dayOf(cFrom).toISOString() : null,
      compare_end: mode === 'station_comparison' ? addDays(dayOf(cTo), 1).toISOString() : null,
      task: null,
      device: null,
      line: mode === 'line_performance' && line !== '' ? Number(line) : null,
      use_semantic_ranker: ranker,
      use_query_contextual_summaries: summaries,
      suggest_followup_questions: followUps,
    };
    if (text.trim() !== '') {
      setChat((c) => [...c, { key: c.length, message: { type: 'question', caption: text.trim(), is_advisor: false, figures: [], method: null, passage: null } }]);
    }
    setQuestion('');
    ask.mutate(body);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send(question);
  };
  return (
    <section className="assistant">
      <ScreenHeader title="Kaizen Assistant" />
      <p className="beta-notice" role="note">
        {BETA_NOTICE}
      </p>
      <form className="filters" aria-label="Assistant" onSubmit={submit}>
        <SelectField label="Mode" value={mode} error={errors.mode} onChange={(e) => setMode(e.target.value as Mode)}>
          {MODES.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </SelectField>
        {mode !== 'rag' ? (
          <>
            <Field label="From" type="date" value={from} max={to} error={errors.datetime_start} onChange={(e) => setFrom(e.target.value)} />
            <Field label="To" type="date" value={to} min={from} error={errors.datetime_end} onChange={(e) => setTo(e.target.value)} />
          </>
        ) : null}
        {mode === 'station_comparison' ? (
          <>
            <Field label="Compare from" type="date" value={cFrom} max={cTo} error={errors.compare_start} onChange={(e) => setCFrom(e.target.value)} />
            <Field label="Compare to" type="date" value={cTo} min={cFrom} error={errors.compare_end} onChange={(e) => setCTo(e.target.value)} />
          </>
        ) : null}
        {mode === 'line_performance' ? (
          <SelectField label="Line" value={line} error={errors.line} onChange={(e) => setLine(e.target.value)}>
            <option value="">Choose a line</option>
            {(lines.data ?? []).map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </SelectField>
        ) : null}
        <fieldset className="options">
          <legend>Retrieval options</legend>
          <label>
            <input type="checkbox" checked={ranker} onChange={(e) => setRanker(e.target.checked)} /> Use semantic ranker
          </label>
          <label>
            <input type="checkbox" checked={summaries} onChange={(e) => setSummaries(e.target.checked)} /> Use query-contextual summaries
          </label>
          <label>
            <input type="checkbox" checked={followUps} onChange={(e) => setFollowUps(e.target.checked)} /> Suggest follow-up questions
          </label>
        </fieldset>
        <Field label="Question" value={question} maxLength={BODY_LIMITS.AssistantAsk.message} error={errors.message} onChange={(e) => setQuestion(e.target.value)} />
        <FormError message={errors.non_field_errors ?? errors.task ?? errors.device} />
        <button type="submit" disabled={ask.isPending}>
          {ask.isPending ? 'Asking…' : 'Ask'}
        </button>
      </form>
      <ol className="chat" aria-label="Chat">
        {chat.map((e) => (
          <ChatMessage key={e.key} message={e.message} />
        ))}
      </ol>
      {last && last.follow_up.length > 0 ? (
        <div className="follow-up" aria-label="Follow-up questions" role="group">
          {last.follow_up.map((q) => (
            <button key={q} type="button" className="secondary" disabled={ask.isPending} onClick={() => send(q)}>
              {q}
            </button>
          ))}
        </div>
      ) : null}
      {s.role !== null && can(s.role, 'ViewCycles') ? <Documents manage={can(s.role, 'ManageTasks')} /> : null}
    </section>
  );
}

/** A message: its caption, the figures it cites as links to their cycles, its method. */
function ChatMessage({ message: m }: { message: AssistantMessage }) {
  return (
    <li className={`chat-message ${m.is_advisor ? 'advisor' : 'user'} ${m.type}`} data-type={m.type}>
      <p>{m.caption}</p>
      {m.figures.length > 0 ? (
        <ul className="figures" aria-label="Figures">
          {m.figures.map((f) => (
            <li key={f.id}>
              <Link to={f.link}>
                [{f.id}] {f.label}: {f.value}
                {f.unit === '%' ? '%' : ` ${f.unit}`}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {m.method && m.type === 'advice' ? <p className="method">Lean method: {m.method}</p> : null}
    </li>
  );
}

/** The organisation's documents the assistant searches. */
function Documents({ manage }: { manage: boolean }) {
  const qc = useQueryClient();
  const q = useQuery(documentsQuery());
  const file = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (f: File) => uploadDocument(f),
    onSuccess: async () => {
      setError(null);
      if (file.current) file.current.value = '';
      await qc.invalidateQueries({ queryKey: documentsKey });
    },
    onError: (err) => {
      const e = formErrors(err);
      setError(e.file ?? e.name ?? e.non_field_errors ?? null);
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => deleteDocument(id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      await qc.invalidateQueries({ queryKey: documentsKey });
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  return (
    <section aria-label="Documents">
      <h2>Documents</h2>
      <p>Manuals and SOPs the Retrieval-Augmented Generation mode searches (.docx, .pdf or text).</p>
      <ul className="documents">
        {(q.data ?? []).map((d) => (
          <li key={d.id}>
            {d.name} ({d.source}, {d.chunks} passages){' '}
            {manage ? (
              <button type="button" className="danger" aria-label={`Delete ${d.name}`} onClick={() => remove.mutate(d.id)}>
                Delete
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {manage ? (
        <form
          aria-label="Add a document"
          onSubmit={(e) => {
            e.preventDefault();
            const f = file.current?.files?.[0];
            if (f) add.mutate(f);
            else setError('Choose a file.');
          }}
        >
          <label>
            Document <input type="file" accept=".docx,.pdf,.txt,.md,text/plain" ref={file} aria-label="Document" />
          </label>
          <FormError message={error} />
          <button type="submit" disabled={add.isPending}>
            Add document
          </button>
        </form>
      ) : null}
    </section>
  );
}
