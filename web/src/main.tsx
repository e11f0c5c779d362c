import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from '@/app/app';
import { takeSessionFromQuery } from '@/lib/session-transfer';
import { loadSite } from '@/lib/site';
import '@/styles.css';

// A session carried from another host in `?config=` is stored and removed from the
// address before anything reads it.
const search = takeSessionFromQuery(window.location.search);
if (search !== window.location.search) {
  window.history.replaceState(window.history.state, '', window.location.pathname + search + window.location.hash);
}

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
const site = await loadSite();
createRoot(root).render(
  <StrictMode>
    <App site={site} />
  </StrictMode>,
);
