import { useId } from 'react';

/** The 6-digit code field, with its message next to it (described by it). */
export function OtpInput({ value, onChange, error }: { value: string; onChange: (v: string) => void; error: string | null }) {
  const errorId = `${useId()}-error`;
  return (
    <>
      <label>
        6-digit code
        <input
          name="otp"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          value={value}
          aria-invalid={error !== null}
          aria-describedby={error ? errorId : undefined}
          onChange={(e) => onChange(e.target.value)}
        />
      </label>
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
