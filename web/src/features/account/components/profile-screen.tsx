import { useId, useState } from 'react';
import { useMatches } from 'react-router';

import { ScreenHeader } from '@/components/ui/screen-header';
import { ROLE_LABELS } from '@/lib/access/roles';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { ChangeEmailSection, EmailChangeLink } from './change-email-section';
import { ChangePasswordForm } from './change-password-form';
import { VerificationMethodSection } from './verification-method-section';

/** Shown after a password change: the server has ended every other session. */
export const PASSWORD_CHANGED = 'Your password has been changed. You are signed out on your other devices and browsers.';

/**
 * Profile Setting (`/user/setting`, and `/labeler/setting` in the labeler area): the
 * signed-in user's details as the session holds them, changing their password, their
 * e-mail address (confirmed through a link mailed to the new one, which opens this
 * screen with `?verify-email-change={token}`), and how they receive sign-in codes.
 * docs/decisions.md "Profile Setting".
 */
export default function ProfileScreen() {
  const matches = useMatches();
  const title = (matches[matches.length - 1]?.handle as { title?: string } | undefined)?.title ?? 'Profile Setting';
  return (
    <section className="profile">
      <ScreenHeader title={title} />
      <EmailChangeLink />
      <Details />
      <PasswordSection />
      <ChangeEmailSection />
      <VerificationMethodSection />
    </section>
  );
}

function Details() {
  const s = useSession();
  const id = useId();
  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id}>Your details</h2>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{s.name ?? '—'}</dd>
        <dt>E-mail</dt>
        <dd>{s.email ?? '—'}</dd>
        <dt>Role</dt>
        <dd>{s.role ? ROLE_LABELS[s.role] : '—'}</dd>
        <dt>Organization</dt>
        <dd>{s.organizationName ?? 'None'}</dd>
      </dl>
    </section>
  );
}

function PasswordSection() {
  const id = useId();
  const [saved, setSaved] = useState(false);
  return (
    <section className="section" aria-labelledby={id}>
      <ChangePasswordForm
        label="Change password"
        className="profile-form"
        heading={
          <>
            <h2 id={id}>Change password</h2>
            <p className="muted">Changing it signs you out on your other devices and browsers; this one stays signed in.</p>
          </>
        }
        onSaved={({ msg }, reset) => {
          notify.successShort(msg);
          reset();
          setSaved(true);
        }}
      >
        {saved ? (
          <p role="status" className="result">
            {PASSWORD_CHANGED}
          </p>
        ) : null}
      </ChangePasswordForm>
    </section>
  );
}
