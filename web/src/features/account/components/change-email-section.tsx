import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useSearchParams } from 'react-router';

import { Field, FormError } from '@/components/ui/field';
import { useSession, writeSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import * as rule from '@/lib/validate';

import { requestChangeEmail, verifyEmailChange, verifyEmailChangeQuery } from '../api/account';
import { SAME_EMAIL, TOKEN_INVALID, isBadToken } from '../messages';
import { useAccountForm } from './use-account-form';
import { useLinkOutcome } from './use-link-outcome';

/** The query parameter of the link mailed to the new address. */
export const VERIFY_PARAM = 'verify-email-change';

const sameAddress = (a: string, b: string | null) => b !== null && rule.trimWs(a).toLowerCase() === b.toLowerCase();

/**
 * Change of e-mail address: the new address and the current password
 * (`POST account/request_change_email/`); the server mails a link and a code to the new
 * address, and the address changes once either is used (`PATCH
 * account/verify-email-change/`). Until then the user signs in with the old one.
 */
export function ChangeEmailSection() {
  const s = useSession();
  const id = useId();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const request = useAccountForm({
    initial: { email: '', password: '' },
    check: (v) => ({
      email: rule.email('New e-mail', v.email) ?? (sameAddress(v.email, s.email) ? SAME_EMAIL : null),
      password: v.password === '' ? rule.requiredMessage('Current password') : null,
    }),
    send: async (v) => {
      const email = rule.trimWs(v.email);
      const answer = await requestChangeEmail({ email, password: v.password });
      setSentTo(email);
      return answer;
    },
    kind: 'account',
    onSuccess: ({ msg }, { reset }) => {
      notify.success(msg);
      reset();
    },
  });

  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id}>Change e-mail</h2>
      <form onSubmit={(e) => void request.submit(e)} noValidate aria-label="Change e-mail" className="profile-form">
        <p className="muted">
          We send a confirmation link to the new address. Your address changes once you open it; until then you sign in
          with {s.email ?? 'your current address'}.
        </p>
        <Field label="New e-mail" type="email" autoComplete="email" required maxLength={rule.MAX_CHARS.EMAIL} {...request.field('email')} />
        <Field label="Current password" type="password" autoComplete="current-password" required maxLength={rule.MAX_CHARS.PASSWORD} {...request.field('password')} />
        <FormError message={request.errors.form} />
        <button type="submit" disabled={request.busy}>
          {request.busy ? 'Sending…' : 'Send confirmation link'}
        </button>
        {sentTo ? (
          <p role="status" className="result">
            A confirmation link has been sent to {sentTo}. Open it to finish the change.
          </p>
        ) : null}
      </form>
      <details>
        <summary>I have the confirmation code from the e-mail</summary>
        <ConfirmCodeForm pending={sentTo} />
      </details>
    </section>
  );
}

/** The new address now belongs to the account: the session shows it (when known). */
function changed(newAddress: string | null) {
  if (newAddress) writeSession({ email: newAddress });
}

/** The code the mail carries beside its link (for a browser the link does not open in). */
function ConfirmCodeForm({ pending }: { pending: string | null }) {
  const [done, setDone] = useState<string | null>(null);
  const f = useAccountForm({
    initial: { code: '' },
    check: (v) => ({ code: rule.trimWs(v.code) === '' ? rule.requiredMessage('Confirmation code') : null }),
    send: (v) => verifyEmailChange(rule.trimWs(v.code)),
    kind: 'account',
    failure: (err) => (isBadToken(err) ? TOKEN_INVALID : null),
    onSuccess: ({ msg }, { reset }) => {
      notify.success(msg);
      changed(pending);
      reset();
      setDone(msg);
    },
  });
  return (
    <form onSubmit={(e) => void f.submit(e)} noValidate aria-label="Confirm new e-mail" className="profile-form">
      <Field label="Confirmation code" autoComplete="off" spellCheck={false} required {...f.field('code')} />
      <FormError message={f.errors.form} />
      <button type="submit" disabled={f.busy}>
        {f.busy ? 'Confirming…' : 'Confirm new e-mail'}
      </button>
      {done ? (
        <p role="status" className="result">
          {done}
        </p>
      ) : null}
    </form>
  );
}

/**
 * The mailed link (`?verify-email-change={token}`): confirms the new address once and
 * says how it went; the token leaves the address bar so a reload does not send it again.
 */
export function EmailChangeLink() {
  const [params, setParams] = useSearchParams();
  const [token] = useState(() => params.get(VERIFY_PARAM));
  useEffect(() => {
    if (params.has(VERIFY_PARAM)) {
      setParams(
        (p) => {
          p.delete(VERIFY_PARAM);
          return p;
        },
        { replace: true },
      );
    }
  }, [params, setParams]);
  return token ? <LinkResult token={token} /> : null;
}

function LinkResult({ token }: { token: string }) {
  const q = useQuery(verifyEmailChangeQuery(token));
  const message = useLinkOutcome(q);

  if (message === null) return <p role="status">Confirming your new e-mail address…</p>;
  return (
    <p role={q.isError ? 'alert' : 'status'} className={q.isError ? 'result result-failed' : 'result'}>
      {message}
      {q.isSuccess ? ' Sign in with the new address from now on.' : null}
    </p>
  );
}
