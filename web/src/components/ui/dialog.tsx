import { type ReactNode, useEffect, useId, useRef } from 'react';

const FOCUSABLE = 'input:not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled]), [href]';

/**
 * A modal dialog: labelled by its title, the first field (else the first button) takes
 * the focus, Tab stays inside, Escape closes, and the focus returns where it was.
 */
export function Dialog({
  title,
  onClose,
  className,
  children,
}: {
  title: string;
  onClose: () => void;
  /** Beside `dialog` (a wider one: `camera-player`). */
  className?: string;
  children: ReactNode;
}) {
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  }, [onClose]);

  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const el = box.current;
    const first = el?.querySelector<HTMLElement>('input:not([disabled]), select:not([disabled]), textarea:not([disabled])') ??
      el?.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
    return () => before?.focus();
  }, []);

  function onKeyDown(e: React.KeyboardEvent) {
    if (e.key === 'Escape') {
      e.stopPropagation();
      close.current();
      return;
    }
    if (e.key !== 'Tab' || !box.current) return;
    const items = [...box.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  }

  return (
    <div className="dialog-backdrop">
      <div ref={box} className={className ? `dialog ${className}` : 'dialog'} role="dialog" aria-modal="true" aria-labelledby={id} onKeyDown={onKeyDown}>
        <h2 id={id} className="dialog-title">
          {title}
        </h2>
        {children}
      </div>
    </div>
  );
}

/**
 * A form dialog's buttons: Cancel (`onCancel`), then the form's submit button, disabled
 * while the request is `pending` or the form has nothing to submit (`disabled`).
 */
export function DialogActions({
  onCancel,
  cancelLabel = 'Cancel',
  submitLabel = 'Save',
  pending = false,
  disabled = false,
}: {
  onCancel: () => void;
  cancelLabel?: string;
  submitLabel?: string;
  pending?: boolean;
  disabled?: boolean;
}) {
  return (
    <div className="dialog-actions">
      <button type="button" className="secondary" onClick={onCancel}>
        {cancelLabel}
      </button>
      <button type="submit" disabled={pending || disabled}>
        {submitLabel}
      </button>
    </div>
  );
}
