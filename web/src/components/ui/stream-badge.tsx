import type { StreamState } from '@/api/stream';

/** Whether the screen hears of changes as they happen (the device stream). */
export function StreamBadge({ state }: { state: StreamState }) {
  const text = state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span className={`stream-state stream-${state}`} role="status" aria-label="Live updates">
      {text}
    </span>
  );
}
