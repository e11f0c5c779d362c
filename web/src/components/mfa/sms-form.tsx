import { useState } from 'react';

import { Field } from '@/components/ui/field';
import { BODY_LIMITS, mobileNumber } from '@/lib/validate';

/**
 * The mobile number for codes by SMS. The server's rule and message (section 5) are
 * checked first: nothing is sent for a bad number. `error`: the server's message for
 * the number, shown until the number is edited.
 */
export function SmsForm({
  busy,
  button,
  error: serverError = null,
  onSubmit,
}: {
  busy: boolean;
  button: string;
  error?: string | null;
  onSubmit: (number: string) => void;
}) {
  const [number, setNumber] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [edited, setEdited] = useState(false);
  return (
    <form
      noValidate
      aria-label="Mobile number for SMS codes"
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        const bad = mobileNumber('Mobile number', number);
        setError(bad);
        setEdited(false);
        if (bad === null) onSubmit(number.trim());
      }}
    >
      <Field
        label="Mobile number"
        maxLength={BODY_LIMITS.SmsMethodRequest.mobile_number}
        name="mobile_number"
        type="tel"
        autoComplete="tel"
        required
        value={number}
        error={error ?? (edited ? null : serverError)}
        onChange={(e) => {
          setNumber(e.target.value);
          setEdited(true);
        }}
        placeholder="+4915112345678"
      />
      <button type="submit" disabled={busy}>
        {button}
      </button>
    </form>
  );
}
