import { useMutation, useQueryClient } from '@tanstack/react-query';

import type { UserSummary } from '@/api/generated';
import { deleteUser, fullName, usersKey } from '@/api/users';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DATA_DELETED } from '@/config/messages';
import { notify } from '@/lib/toast';

/** Confirms and deletes a user's account (`DELETE account/update-delete/{id}/`). */
export function DeleteUserDialog({ user, onClose }: { user: UserSummary; onClose: () => void }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => deleteUser(user.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      onClose();
      await qc.invalidateQueries({ queryKey: usersKey });
    },
    onError: (err) => notify.failure(err, 'delete'),
  });
  return (
    <ConfirmDialog title="Delete user" confirmLabel="Delete" busy={m.isPending} onConfirm={() => m.mutate()} onCancel={onClose}>
      <p>
        Delete the account of <strong>{fullName(user)}</strong> ({user.email})? This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
