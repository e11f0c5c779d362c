import { useId } from 'react';
import { Link } from 'react-router';

import type { EnrolmentCode } from '@/api/generated';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

import { devicePath } from './device-path';

/**
 * A new one-time enrolment code, shown this once (the server keeps only its hash): the
 * code, large; when it expires; the command that enrols the agent on the workstation,
 * with a copy button; and, where asked, a link to the device's page.
 */
export function EnrolmentCodePanel({ enrolment, linkToDevice = false }: { enrolment: EnrolmentCode; linkToDevice?: boolean }) {
  const titleId = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(enrolment.command);
      notify.hint('Command copied.');
    } catch {
      notify.errorShort('The command could not be copied; select it and copy it by hand.');
    }
  };
  return (
    <section className="section enrolment-code" aria-labelledby={titleId}>
      <h2 id={titleId}>Enrolment code for {enrolment.device.display_name}</h2>
      <p className="muted">It shows only this once and can be used once.</p>
      <dl className="facts">
        <dt>Code</dt>
        <dd className="enrolment-code-value">{enrolment.code}</dd>
        <dt>Valid until</dt>
        <dd>{formatDateTime(enrolment.expires_at)}</dd>
        <dt>Command to run on the workstation</dt>
        <dd className="enrolment-command">
          <code>{enrolment.command}</code>{' '}
          <button type="button" className="small secondary" onClick={() => void copy()}>
            Copy command
          </button>
        </dd>
      </dl>
      {linkToDevice ? (
        <p>
          <Link to={devicePath(enrolment.device.id)}>Open the page of {enrolment.device.display_name}</Link>
        </p>
      ) : null}
    </section>
  );
}
