import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

import type { UserSummary } from '@/api/generated';
import { fullName } from '@/api/users';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { CHANGES_SAVED } from '@/config/messages';
import { notify } from '@/lib/toast';
import { BODY_LIMITS, requiredMessage } from '@/lib/validate';

import { resetWorkstationPassword } from '../api/org-users';

const PASSWORDS_DIFFER = 'The two passwords do not match.';

/** Sets a workstation user's password (the device signs in with it). The server's
 * password rule applies; its message shows when it refuses one. */
export function WorkstationPasswordDialog({ user, onClose }: { user: UserSummary; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [errors, setErrors] = useState<{ password?: string | null; again?: string | null }>({});

  const m = useMutation({
    mutationFn: (pw: string) => resetWorkstationPassword({ user: user.id, password: pw }),
    onSuccess: () => {
      notify.successShort(CHANGES_SAVED);
      onClose();
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const next = {
      password: password === '' ? requiredMessage('Password') : null,
      again: password !== '' && again !== password ? PASSWORDS_DIFFER : null,
    };
    setErrors(next);
    if (next.password || next.again) return;
    m.mutate(password);
  }

  return (
    <Dialog title={`Set the password of ${fullName(user)}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p className="muted">The user's sessions end, and they must choose a new password at their next sign-in.</p>
        <Field
          label="New password"
          maxLength={BODY_LIMITS.WorkstationPasswordRequest.password}
          type="password"
          autoComplete="new-password"
          value={password}
          error={errors.password}
          onChange={(e) => {
            setPassword(e.target.value);
            setErrors({});
          }}
        />
        <Field
          label="Repeat the password"
          maxLength={BODY_LIMITS.WorkstationPasswordRequest.password}
          type="password"
          autoComplete="new-password"
          value={again}
          error={errors.again}
          onChange={(e) => {
            setAgain(e.target.value);
            setErrors({});
          }}
        />
        <DialogActions onCancel={onClose} pending={m.isPending} />
      </form>
    </Dialog>
  );
}
