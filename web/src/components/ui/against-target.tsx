import { seconds } from '@/lib/format';

/**
 * A mean cycle time against its target (both ms), with the spec's marker colours
 * (section 9): green at or under the target, yellow up to 10% over, red beyond.
 */
export function AgainstTarget({ avg, target }: { avg: number; target: number }) {
  const over = avg / target - 1;
  const colour = over <= 0 ? 'green' : over <= 0.1 ? 'yellow' : 'red';
  const words = over <= 0 ? 'at or under target' : `${Math.round(over * 100)}% over target`;
  return (
    <span className={`marker marker-${colour}`} title={`Target ${seconds(target)}`}>
      {' '}
      {words} ({seconds(target)})
    </span>
  );
}
