import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { toast } from 'sonner';

import { clearAllStorage } from '@/lib/session';

import { server } from './server';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  vi.useRealTimers();
  server.events.removeAllListeners();
  server.resetHandlers();
  cleanup();
  toast.dismiss();
  // Through the session store, so its cached snapshot is dropped too.
  clearAllStorage();
});
afterAll(() => server.close());
