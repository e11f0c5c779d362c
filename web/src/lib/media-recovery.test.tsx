import { render } from '@testing-library/react';
import { useRef } from 'react';
import { vi } from 'vitest';

import { useMediaRecovery } from './media-recovery';

function Player({ src, refresh }: { src: string; refresh: () => void }) {
  const ref = useRef<HTMLVideoElement>(null);
  useMediaRecovery(ref, src, refresh);
  return <video ref={ref} src={src} aria-label="player" />;
}

test('an error asks once for a new URL, and the new source resumes where the old stopped', () => {
  const refresh = vi.fn();
  const { getByLabelText, rerender } = render(<Player src="/api/media/old" refresh={refresh} />);
  const v = getByLabelText('player') as HTMLVideoElement;
  v.currentTime = 42;
  v.dispatchEvent(new Event('error'));
  v.dispatchEvent(new Event('error'));
  expect(refresh).toHaveBeenCalledTimes(1);

  rerender(<Player src="/api/media/new" refresh={refresh} />);
  v.currentTime = 0;
  v.dispatchEvent(new Event('loadedmetadata'));
  expect(v.currentTime).toBe(42);

  // The new URL may expire in its turn.
  v.dispatchEvent(new Event('error'));
  expect(refresh).toHaveBeenCalledTimes(2);
});
