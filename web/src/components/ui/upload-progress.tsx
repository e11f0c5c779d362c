import type { ReactNode } from 'react';

import { megabytes } from '@/lib/format';

/**
 * An upload's progress: the bar ('Upload progress') and '1.2 MB of 3.4 MB (35%)', with
 * the screen's `note` after it and `children` (a warning) below.
 */
export function UploadProgressBar({ sent, total, note, children }: { sent: number; total: number; note?: ReactNode; children?: ReactNode }) {
  const pct = total > 0 ? Math.floor((sent / total) * 100) : 0;
  return (
    <div className="upload-progress">
      <progress aria-label="Upload progress" max={100} value={pct} />
      <span aria-live="polite">
        {megabytes(sent)} of {megabytes(total)} ({pct}%){note}
      </span>
      {children}
    </div>
  );
}
