import { screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';

import type { PrivacyPolicy } from '@/api/generated';
import { parseMarkdown, parseInline } from '@/lib/markdown';
import { signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

const answer = (p: PrivacyPolicy) => server.use(http.get(apiUrl('privacy_policy/'), () => HttpResponse.json(p)));

const POLICY = `# Privacy Policy

This server keeps **accounts** and *cycles*.

## How long it is kept

- Clips: 30 days
- Screenshots: 30 days, see [the docs](https://gemba.example/docs)
- <script>alert(1)</script> stays text
- a [bad link](javascript:alert(1)) loses its address
`;

test("the cloud's policy shows as headings, paragraphs and lists, its contact as a mail link", async () => {
  answer({ markdown: POLICY, custom: false, contact: 'privacy@acme.test' });
  renderApp('/privacy-policy');
  expect(await screen.findByRole('heading', { level: 2, name: 'How long it is kept' })).toBeInTheDocument();
  // The text's own title is the page's: not two.
  expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Privacy Policy']);
  expect(screen.getByText('accounts').tagName).toBe('STRONG');
  expect(screen.getByText('cycles').tagName).toBe('EM');
  const items = within(screen.getByRole('list')).getAllByRole('listitem');
  expect(items.map((li) => li.textContent)).toEqual([
    'Clips: 30 days',
    'Screenshots: 30 days, see the docs',
    '<script>alert(1)</script> stays text',
    'a bad link loses its address',
  ]);
  expect(screen.getByRole('link', { name: 'the docs' })).toHaveAttribute('href', 'https://gemba.example/docs');
  expect(screen.queryByRole('link', { name: 'bad link' })).toBeNull();
  expect(document.querySelector('script')).toBeNull();
  expect(screen.getByRole('link', { name: 'privacy@acme.test' })).toHaveAttribute('href', 'mailto:privacy@acme.test');
  expect(screen.getByRole('link', { name: 'Back' })).toHaveAttribute('href', '/');
});

test('plain text without a title gets the page title; every role reaches it signed in', async () => {
  answer({ markdown: 'We keep what you type.\nNothing else.', custom: true, contact: 'Ask the plant manager, room 4.' });
  signInAs('workstation_user', 1);
  renderApp('/privacy-policy');
  expect(await screen.findByText('We keep what you type. Nothing else.')).toBeInTheDocument();
  expect(screen.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeInTheDocument();
  expect(screen.getByText('Questions about your data: Ask the plant manager, room 4.')).toBeInTheDocument();
});

test('a policy the server cannot read shows why', async () => {
  server.use(
    http.get(apiUrl('privacy_policy/'), () =>
      HttpResponse.json({ detail: 'The privacy policy cannot be shown right now.', msg: 'x' }, { status: 503 }),
    ),
  );
  renderApp('/privacy-policy');
  expect(await screen.findByRole('alert')).toHaveTextContent('The privacy policy could not be loaded');
  expect(screen.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeInTheDocument();
});

test('the Markdown reader: blocks, inline marks, escapes, safe links only', () => {
  expect(parseMarkdown('# A\ntext\nmore\n\n1. one\n2. two\n\n---\n- x\n  continued')).toEqual([
    { kind: 'heading', level: 1, children: [{ kind: 'text', text: 'A' }] },
    { kind: 'paragraph', children: [{ kind: 'text', text: 'text more' }] },
    { kind: 'list', ordered: true, items: [[{ kind: 'text', text: 'one' }], [{ kind: 'text', text: 'two' }]] },
    { kind: 'rule' },
    { kind: 'list', ordered: false, items: [[{ kind: 'text', text: 'x continued' }]] },
  ]);
  expect(parseInline('a \\*not em\\* and `co*de*` and snake_case_name')).toEqual([
    { kind: 'text', text: 'a *not em* and ' },
    { kind: 'code', text: 'co*de*' },
    { kind: 'text', text: ' and snake_case_name' },
  ]);
  expect(parseInline('[m](mailto:a@b.test) [x](data:text/html,hi)')).toEqual([
    { kind: 'link', href: 'mailto:a@b.test', children: [{ kind: 'text', text: 'm' }] },
    { kind: 'text', text: ' x' },
  ]);
});
