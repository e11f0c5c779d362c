import type { ReactNode } from 'react';

import type { Msg } from '@/api/generated';
import { Field, FormError } from '@/components/ui/field';
import * as rule from '@/lib/validate';

import { changePassword } from '../api/account';
import { PASSWORDS_DIFFER, SAME_PASSWORD } from '../messages';
import { useAccountForm } from './use-account-form';

type Props = {
  /** The form's accessible name. */
  label: string;
  /** Above the fields (the screen's title, or a section's). */
  heading: ReactNode;
  /** After the server saved it (its sessions elsewhere have ended). */
  onSaved: (answer: Msg, reset: () => void) => void | Promise<void>;
  /** Under the button. */
  children?: ReactNode;
  className?: string;
};

/**
 * The signed-in user's own password change (`PATCH account/request_change_password/`):
 * the current password, the new one twice. Checked before sending with the server's
 * rules (spec section 5, docs/decisions.md "Account forms"): required fields, password
 * strength, the new one differing from the old and matching its confirmation. The
 * server's field messages show next to their fields.
 */
export function ChangePasswordForm({ label, heading, onSaved, children, className }: Props) {
  const { busy, errors, submit, field } = useAccountForm({
    initial: { old_password: '', new_password: '', confirm: '' },
    check: (v) => ({
      old_password: v.old_password === '' ? rule.requiredMessage('Current password') : null,
      new_password:
        rule.password('New password', v.new_password) ??
        (v.old_password !== '' && v.new_password === v.old_password ? SAME_PASSWORD : null),
      confirm:
        v.confirm === '' ? rule.requiredMessage('Confirm password') : v.confirm !== v.new_password ? PASSWORDS_DIFFER : null,
    }),
    send: (v) => changePassword({ old_password: v.old_password, new_password: v.new_password }),
    kind: 'account',
    onSuccess: (answer, { reset }) => onSaved(answer, reset),
  });

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-label={label} className={className}>
      {heading}
      <Field label="Current password" type="password" autoComplete="current-password" required maxLength={rule.MAX_CHARS.PASSWORD} {...field('old_password')} />
      <Field label="New password" type="password" autoComplete="new-password" required maxLength={rule.MAX_CHARS.PASSWORD} {...field('new_password')} />
      <Field label="Confirm new password" type="password" autoComplete="new-password" required maxLength={rule.MAX_CHARS.PASSWORD} {...field('confirm')} />
      <FormError message={errors.form} />
      <button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Change password'}
      </button>
      {children}
    </form>
  );
}
