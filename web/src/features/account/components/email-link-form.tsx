import type { ReactNode } from 'react';
import { Link } from 'react-router';

import type { EmailRequest, Msg } from '@/api/generated';
import { Field } from '@/components/ui/field';
import { paths } from '@/config/paths';
import * as rule from '@/lib/validate';

import { Result } from './result';
import { useAccountForm } from './use-account-form';

type Props = {
  title: string;
  intro: string;
  button: string;
  send: (req: EmailRequest) => Promise<Msg>;
  /** Links under "Back to login". */
  links?: ReactNode;
};

/** A screen asking for an address to mail a link to (forgotten password, verification
 * again); the server's message replaces the form once sent. */
export function EmailLinkForm({ title, intro, button, send, links }: Props) {
  const { busy, done, submit, field } = useAccountForm({
    initial: { email: '' },
    check: (v) => ({ email: rule.email('E-mail', v.email) }),
    send: (v) => send({ email: v.email.trim() }),
    kind: 'account',
  });

  if (done !== null) return <Result title={title} message={done} />;

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={title[0] + title.slice(1).toLowerCase()}>
      <h1>{title}</h1>
      <p className="muted">{intro}</p>
      <Field label="E-mail" type="email" autoComplete="email" required maxLength={rule.MAX_CHARS.EMAIL} {...field('email')} />
      <button type="submit" disabled={busy}>
        {busy ? 'Sending…' : button}
      </button>
      <p className="auth-links">
        <Link to={paths.login}>Back to login</Link>
        {links}
      </p>
    </form>
  );
}
