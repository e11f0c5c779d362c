import { ChunkLoadError, lazyScreen, withTimeout } from './lazy';

afterEach(() => vi.useRealTimers());

test('a screen that has not loaded after 120 s fails with a chunk load error', async () => {
  vi.useFakeTimers();
  const never = new Promise<never>(() => {});
  const p = withTimeout(never);
  let failed: unknown = null;
  p.catch((e: unknown) => (failed = e));
  await vi.advanceTimersByTimeAsync(119_999);
  expect(failed).toBeNull();
  await vi.advanceTimersByTimeAsync(1);
  expect(failed).toBeInstanceOf(ChunkLoadError);
  expect((failed as Error).message).toBe('The screen did not load within 120 s.');
});

test('a failed import is a chunk load error too; a loaded one gives the screen', async () => {
  await expect(withTimeout(Promise.reject(new TypeError('Failed to fetch dynamically imported module')))).rejects.toBeInstanceOf(
    ChunkLoadError,
  );
  const Screen = () => null;
  await expect(lazyScreen(() => Promise.resolve({ default: Screen }))()).resolves.toEqual({ Component: Screen });
});
