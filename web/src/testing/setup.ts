import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { toast } from 'sonner';

import { clearAllStorage } from '@/lib/session';

import { server } from './server';

// findBy*/waitFor wait up to 5 s (the library's default is 1 s): a screen's first render
// in a test file loads its lazy route chunk (Analytics: the charts), which on a busy
// 2-core CI machine took over a second. A test still fails when the element never comes.
configure({ asyncUtilTimeout: 5000 });

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
