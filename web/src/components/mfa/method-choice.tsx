/** The ways to receive one-time codes (spec section 4 "Login flow"): the server's
 * `mfa_method` values and their labels. */
export const MFA_METHODS = ['email', 'authenticator_app', 'sms'] as const;
export type MfaMethod = (typeof MFA_METHODS)[number];

export const MFA_METHOD_LABELS: Record<MfaMethod, string> = {
  email: 'E-mail',
  authenticator_app: 'Authenticator app',
  sms: 'SMS',
};

export function parseMfaMethod(v: unknown): MfaMethod | null {
  return typeof v === 'string' && (MFA_METHODS as readonly string[]).includes(v) ? (v as MfaMethod) : null;
}

/** The three methods as buttons; the one being set up is pressed. */
export function MfaMethodChoice({
  value,
  busy,
  onChoose,
}: {
  value: MfaMethod | null;
  busy: boolean;
  onChoose: (m: MfaMethod) => void;
}) {
  return (
    <div className="choice-list" role="group" aria-label="Verification method">
      {MFA_METHODS.map((m) => (
        <button key={m} type="button" disabled={busy} aria-pressed={value === m} onClick={() => onChoose(m)}>
          {MFA_METHOD_LABELS[m]}
        </button>
      ))}
    </div>
  );
}
