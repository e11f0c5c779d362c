import { type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, useId } from 'react';

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'aria-invalid' | 'aria-describedby'> & {
  label: string;
  /** The field's message (a check before sending, or the server's 400 for this field). */
  error?: string | null | undefined;
};

/** A labelled input with its error message next to it (described by it, for screen readers). */
export function Field({ label, error, ...input }: FieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <>
      <label htmlFor={id}>
        {label}
        <input id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? errorId : undefined} {...input} />
      </label>
      <FieldError id={errorId} message={error} />
    </>
  );
}

type SelectFieldProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'aria-invalid' | 'aria-describedby'> & {
  label: string;
  error?: string | null | undefined;
  children: ReactNode;
};

/** A labelled select with its error message next to it. */
export function SelectField({ label, error, children, ...select }: SelectFieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <>
      <label htmlFor={id}>
        {label}
        <select id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? errorId : undefined} {...select}>
          {children}
        </select>
      </label>
      <FieldError id={errorId} message={error} />
    </>
  );
}

function FieldError({ id, message }: { id: string; message: string | null | undefined }) {
  return message ? (
    <p id={id} className="field-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** A form's message that belongs to no one field (a refused link), above its button. */
export function FormError({ message }: { message?: string | null | undefined }) {
  return message ? (
    <p className="field-error" role="alert">
      {message}
    </p>
  ) : null;
}
