import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { Organization } from '@/api/generated';
import { organizationsKey } from '@/api/organizations';
import { Dialog, DialogActions } from '@/components/ui/dialog';
import { Field } from '@/components/ui/field';
import { DATA_CREATED, DATA_UPDATED } from '@/config/messages';
import { notify } from '@/lib/toast';
import { BODY_LIMITS, checkName } from '@/lib/validate';

import { createOrganization, updateOrganization } from '../api/organizations';

/**
 * Create an organisation (its display name; the server makes the sub-domain name from
 * it), or change one (display name, `use_proxy_server`).
 */
export function OrganizationFormDialog({ org, onClose }: { org?: Organization; onClose: () => void }) {
  const qc = useQueryClient();
  const [display, setDisplay] = useState(org?.org_name_to_display ?? '');
  const [proxy, setProxy] = useState(org?.use_proxy_server ?? false);
  const [error, setError] = useState<string | null>(null);

  const m = useMutation({
    mutationFn: (name: string) =>
      org
        ? updateOrganization(org.id, { org_name_to_display: name, use_proxy_server: proxy })
        : createOrganization({ org_name_to_display: name, use_proxy_server: false }),
    onSuccess: async () => {
      notify.successShort(org ? DATA_UPDATED : DATA_CREATED);
      onClose();
      await qc.invalidateQueries({ queryKey: organizationsKey });
    },
    onError: (err) => notify.failure(err, 'post'),
  });

  function submit(e: React.FormEvent) {
    e.preventDefault();
    if (m.isPending) return;
    const problem = checkName(display, 'Display name');
    setError(problem);
    if (problem) return;
    m.mutate(display.trim());
  }

  return (
    <Dialog title={org ? `Edit ${org.org_name_to_display}` : 'Create Organization'} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field
          label="Display name"
          maxLength={BODY_LIMITS.OrganizationCreate.org_name_to_display}
          value={display}
          error={error}
          onChange={(e) => {
            setDisplay(e.target.value);
            setError(null);
          }}
        />
        {org ? (
          <label className="checkbox">
            <input type="checkbox" checked={proxy} onChange={(e) => setProxy(e.target.checked)} />
            Use proxy server
          </label>
        ) : (
          <p className="muted">The sub-domain name is made from the display name.</p>
        )}
        <DialogActions onCancel={onClose} submitLabel={org ? 'Save' : 'Create'} pending={m.isPending} />
      </form>
    </Dialog>
  );
}
