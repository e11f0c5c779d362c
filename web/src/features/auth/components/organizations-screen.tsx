import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';

import type { Organization } from '@/api/generated';
import { ORG_SWITCH_DELAY_MS } from '@/config/constants';
import { errorMessage } from '@/lib/api-errors';
import { browser } from '@/lib/browser';
import { clearSessionState, readSession, writeSession } from '@/lib/session';
import { withSession } from '@/lib/session-transfer';
import { useSite } from '@/lib/site';
import { withSpinner } from '@/lib/spinner';
import { notify } from '@/lib/toast';

import { organizationsQuery, switchOrganization } from '../api/auth';
import { landingOfSession, takeRedirect } from '../flow';

export const NO_ORGANIZATION = 'User is not assigned to any organization';

/**
 * `/organizations`: pick the organisation to work in; with exactly one it is chosen
 * automatically. On the base domain (or another organisation's sub-domain) the portal
 * continues on the chosen organisation's sub-domain, carrying the session.
 */
export default function OrganizationsScreen() {
  const navigate = useNavigate();
  const { site } = useSite();
  const q = useQuery(organizationsQuery());
  const [busy, setBusy] = useState<number | null>(null);
  const auto = useRef(false);

  async function choose(org: Organization) {
    setBusy(org.id);
    try {
      const local_storage = Object.fromEntries(
        Object.entries(readSession()).filter(([, v]) => v !== null),
      ) as Record<string, never>;
      const res = await withSpinner(
        switchOrganization({ organization: org.id, organizationDisplayName: org.org_name_to_display, local_storage }),
      );
      writeSession({ organization: res.organization, organizationName: res.organization_name_to_display });
      const to = takeRedirect(landingOfSession(), readSession().role);
      const elsewhere = site.kind === 'base' || (site.kind === 'org' && site.org !== org.name);
      if (elsewhere) {
        const url = withSession(res.url, to);
        setTimeout(() => {
          // The session moves with the address: this host keeps none of it (a logout
          // on the organisation's host could not clear it here).
          clearSessionState();
          browser.assign(url);
        }, ORG_SWITCH_DELAY_MS);
      } else {
        await navigate(to);
      }
    } catch (err) {
      notify.errorShort(errorMessage(err, 'account'));
      setBusy(null);
    }
  }

  const orgs = q.data;
  useEffect(() => {
    if (orgs?.length === 1 && !auto.current) {
      auto.current = true;
      void choose(orgs[0]!);
    }
    // `choose` is recreated each render; the ref makes this run once.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [orgs]);

  return (
    <section>
      <h1>Select Organization</h1>
      {q.isPending ? <p>Loading your organisations…</p> : null}
      {q.isError ? <p role="alert">{errorMessage(q.error, 'account')}</p> : null}
      {orgs && orgs.length === 0 ? <p role="alert">{NO_ORGANIZATION}</p> : null}
      {orgs && orgs.length > 0 ? (
        <ul className="org-list">
          {orgs.map((o) => (
            <li key={o.id}>
              <button type="button" disabled={busy !== null} onClick={() => void choose(o)}>
                <span className="org-logo" aria-hidden="true">
                  {o.org_name_to_display.slice(0, 1).toUpperCase()}
                </span>
                {o.org_name_to_display}
                {busy === o.id ? ' …' : null}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
