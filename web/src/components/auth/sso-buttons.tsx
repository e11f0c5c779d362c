import { useState } from 'react';

import { useSite } from '@/lib/site';
import { notify } from '@/lib/toast';

import { type SsoKind, type SsoMode, startSso } from '@/lib/sso';

const LABEL: Record<SsoKind, string> = { azure: 'Microsoft', google: 'Google' };

/**
 * "Sign in with Microsoft" / "Sign in with Google" (or "Sign up with …"): one button
 * per provider the deployment configured (`/portal-config.json`); none without.
 */
export function SsoButtons({ mode }: { mode: SsoMode }) {
  const { config } = useSite();
  const [busy, setBusy] = useState(false);
  const offered = (['azure', 'google'] as const).flatMap((k) => {
    const p = config?.sso?.[k];
    return p ? [{ kind: k, p }] : [];
  });
  if (offered.length === 0) return null;
  const verb = mode === 'signup' ? 'Sign up' : 'Sign in';
  return (
    <div className="sso-buttons">
      {offered.map(({ kind, p }) => (
        <button
          key={kind}
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            startSso(kind, mode, p).catch(() => {
              setBusy(false);
              notify.errorShort(`${verb} with ${LABEL[kind]} could not start.`);
            });
          }}
        >
          {verb} with {LABEL[kind]}
        </button>
      ))}
    </div>
  );
}
