import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';

import { Field, FormError } from '@/components/ui/field';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import { labelRequestsQuery, requestLabeling, withdrawLabeling } from '../api/labeler';
import { BODY_LIMITS } from '@/lib/validate';

/** Label Training Set's "Labelers" panel: ask a labeler (by e-mail) to label the
 * operation's videos in their labeler area, and see or withdraw those asked. */
export function LabelersPanel({ task }: { task: number }) {
  const qc = useQueryClient();
  const q = labelRequestsQuery(task);
  const requests = useQuery(q);
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const ask = useMutation({
    mutationFn: () => requestLabeling(task, email.trim()),
    onSuccess: (list) => {
      qc.setQueryData(q.queryKey, list);
      notify.successShort(`Labeling requested of ${email.trim()}.`);
      setEmail('');
      setError(null);
    },
    onError: (err) => {
      const f = fieldErrors(err);
      setError(f.email ?? errorMessage(err, 'post'));
    },
  });
  const withdraw = useMutation({
    mutationFn: (labeler: number) => withdrawLabeling(task, labeler),
    onSuccess: () => qc.invalidateQueries({ queryKey: q.queryKey }),
    onError: (err) => notify.failure(err, 'delete'),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!email.trim()) {
      setError('Enter the labeler’s e-mail address.');
      return;
    }
    ask.mutate();
  };
  return (
    <details className="labelers-panel">
      <summary>Labelers ({requests.data?.length ?? 0})</summary>
      <ul aria-label="Labelers asked">
        {(requests.data ?? []).map((r) => (
          <li key={r.labeler}>
            {r.name} &lt;{r.email}&gt;{' '}
            <button type="button" className="link-button" onClick={() => withdraw.mutate(r.labeler)}>
              Withdraw {r.email}
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} noValidate aria-label="Request labeling">
        <Field label="Labeler's e-mail" type="email" maxLength={BODY_LIMITS.LabelRequestCreate.email} value={email} onChange={(e) => setEmail(e.target.value)} />
        <FormError message={error} />
        <button type="submit" disabled={ask.isPending}>
          Request labeling
        </button>
      </form>
    </details>
  );
}
