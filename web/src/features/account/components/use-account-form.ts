/**
 * The account forms' state and submit (spec sections 5 and 8):
 * - every field is checked first; when one is wrong its message shows next to it and
 *   nothing is sent;
 * - a 400 `{field: [message]}` shows each message next to its field (a field the form
 *   does not have, such as a link's `token`, above the button) and the first one as a
 *   3 s toast; any other failure shows its message as a 3 s toast (`errorMessage`).
 */
import { useState } from 'react';

import type { Msg } from '@/api/generated';
import { type ErrorKind, errorMessage, fieldErrors } from '@/lib/api-errors';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';

/** Messages by field; `form` holds one the form has no field for. */
export type FormErrors<F extends string> = Partial<Record<F | 'form', string>>;

type Options<F extends string> = {
  initial: Record<F, string>;
  /** The message of each wrong field (`null`: fine). */
  check: (values: Record<F, string>) => Partial<Record<F, string | null>>;
  send: (values: Record<F, string>) => Promise<Msg>;
  /** How failures read (section 8): `register`, `account`. */
  kind: ErrorKind;
  /**
   * The screen's own message for a failure (a bad link's 'Token expired/Invalid!'),
   * shown above the button and as the toast; `null`: the usual `errorMessage`.
   */
  failure?: (err: unknown) => string | null;
  /** What a success does (`reset` empties the form for another use); by default its
   * message shows as a toast and becomes `done` (the screen then shows it in place of
   * the form). */
  onSuccess?: (answer: Msg, form: { reset: () => void }) => void | Promise<void>;
};

export function useAccountForm<F extends string>(opts: Options<F>) {
  const [values, setValues] = useState(opts.initial);
  const [errors, setErrors] = useState<FormErrors<F>>({});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (busy) return;
    const found: FormErrors<F> = {};
    for (const [f, m] of Object.entries(opts.check(values)) as [F, string | null | undefined][]) {
      if (m) found[f] = m;
    }
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const answer = await withSpinner(opts.send(values));
      if (opts.onSuccess) await opts.onSuccess(answer, { reset });
      else {
        notify.success(answer.msg);
        setDone(answer.msg);
      }
    } catch (err) {
      const own = opts.failure?.(err) ?? null;
      const message = own ?? errorMessage(err, opts.kind);
      const shown: FormErrors<F> = {};
      for (const [f, m] of Object.entries(fieldErrors(err))) {
        if (f in opts.initial) shown[f as F] = m;
        else shown.form ??= m;
      }
      if (own !== null) shown.form = own;
      setErrors(shown);
      notify.errorShort(message);
    } finally {
      setBusy(false);
    }
  }

  /** The props of `<Field>` for `f`: its value, its message, and clearing that message on edit. */
  function field(f: F) {
    return {
      name: f,
      value: values[f],
      error: errors[f],
      onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
        const v = e.target.value;
        setValues((old) => ({ ...old, [f]: v }));
        setErrors((old) => (old[f] ? { ...old, [f]: undefined } : old));
      },
    };
  }

  /** Back to the initial values, with no messages (a form used again after a success). */
  function reset() {
    setValues(opts.initial);
    setErrors({});
    setDone(null);
  }

  return { values, errors, busy, done, submit, field, reset };
}
