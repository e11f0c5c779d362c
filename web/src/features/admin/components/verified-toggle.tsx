import { useMutation, useQueryClient } from '@tanstack/react-query';

import type { UserSummary } from '@/api/generated';
import { fullName, usersKey } from '@/api/users';
import { DATA_UPDATED } from '@/config/messages';
import { notify } from '@/lib/toast';

import { setEmailVerified } from '../api/accounts';

/** The admin-side e-mail-verified flag of a user (`PATCH admin-verification-email/{id}/`). */
export function VerifiedToggle({ user }: { user: UserSummary }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (v: boolean) => setEmailVerified(user.id, { is_email_verified: v }),
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      await qc.invalidateQueries({ queryKey: usersKey });
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  const checked = m.isPending ? (m.variables ?? user.is_email_verified) : user.is_email_verified;
  return (
    <label className="checkbox">
      <input
        type="checkbox"
        checked={checked}
        disabled={m.isPending}
        aria-label={`E-mail verified: ${fullName(user)}`}
        onChange={(e) => m.mutate(e.target.checked)}
      />
      {checked ? 'Yes' : 'No'}
    </label>
  );
}
