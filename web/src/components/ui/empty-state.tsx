import { Inbox } from 'lucide-react';
import type { ReactNode } from 'react';

/** A screen's honest empty state: says what is (not) there, invents nothing. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-state-title">
        <Inbox aria-hidden="true" className="icon" />
        {/* The title alone in its element: its text is the title, no leading space. */}
        <span>{title}</span>
      </p>
      {children ? <div className="empty-state-body">{children}</div> : null}
    </div>
  );
}
