import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import type { AssistantAnswer } from '@/api/generated';
import { BODY_LIMITS } from '@/lib/validate';
import { signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { BETA_NOTICE } from './api/assistant';

const FIGURE = { id: 'F2', label: 'Average cycle time, Pump on Bench 7', value: 16.2, unit: 's', link: '/user/analytics?from=2026-10-13&to=2026-10-17&task=4&device=7' };
const ANSWER: AssistantAnswer = {
  mode: 'station_performance',
  messages: [
    { type: 'question', caption: 'Why so slow?', is_advisor: false, figures: [], method: null, passage: null },
    { type: 'fact', caption: 'Pump on Bench 7 averages 16.2 s [F2]. (Standard work)', is_advisor: true, figures: [FIGURE], method: 'Standard work', passage: null },
    { type: 'advice', caption: 'Walk the gemba at Pump on Bench 7.', is_advisor: true, figures: [], method: 'Standard work', passage: null },
  ],
  facts: [FIGURE],
  follow_up: ['Which steps make Pump on Bench 7 slower than its target?'],
  model: null,
  notice: BETA_NOTICE,
};

test('a question in a mode: the beta notice, the facts linking to their cycles, the method, a follow-up asked', async () => {
  signInAs('analytics_user', 1);
  const asked: Record<string, unknown>[] = [];
  server.use(
    http.get(apiUrl('organization/assistant/documents/'), () => HttpResponse.json([])),
    http.post(apiUrl('organization/assistant/'), async ({ request }) => {
      asked.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json(ANSWER);
    }),
  );
  const user = userEvent.setup();
  renderApp('/user/assistant');
  expect(await screen.findByRole('heading', { name: 'Kaizen Assistant' })).toBeInTheDocument();
  expect(screen.getByRole('note')).toHaveTextContent(BETA_NOTICE);
  expect(within(screen.getByLabelText('Mode')).getAllByRole('option').map((o) => o.textContent)).toEqual([
    'Station Performance (single time period)',
    'Station Performance (comparison of two time periods)',
    'Line Performance',
    'Ergonomics',
    'IoT Infrastructure',
    'Retrieval-Augmented Generation',
  ]);
  // The server's limit on the question (the generated one): longer is not typed.
  expect(screen.getByLabelText('Question')).toHaveAttribute('maxlength', String(BODY_LIMITS.AssistantAsk.message));
  await user.type(screen.getByLabelText('Question'), 'Why so slow?');
  await user.click(screen.getByLabelText('Use semantic ranker'));
  await user.click(screen.getByRole('button', { name: 'Ask' }));
  const chat = screen.getByRole('list', { name: 'Chat' });
  expect(await within(chat).findByText('Pump on Bench 7 averages 16.2 s [F2]. (Standard work)')).toBeInTheDocument();
  expect(within(chat).getByText('Why so slow?')).toBeInTheDocument();
  expect(within(chat).getByRole('link', { name: /Average cycle time, Pump on Bench 7: 16.2 s/ })).toHaveAttribute('href', FIGURE.link);
  expect(within(chat).getByText('Lean method: Standard work')).toBeInTheDocument();
  expect(asked[0]).toMatchObject({
    mode: 'station_performance',
    message: 'Why so slow?',
    use_semantic_ranker: false,
    use_query_contextual_summaries: true,
    suggest_followup_questions: true,
  });
  expect(typeof asked[0]!.datetime_start).toBe('string');
  // The follow-up question is asked as it is.
  await user.click(screen.getByRole('button', { name: 'Which steps make Pump on Bench 7 slower than its target?' }));
  await waitFor(() => expect(asked).toHaveLength(2));
  expect(asked[1]!.message).toBe('Which steps make Pump on Bench 7 slower than its target?');
  // The analytics user reads the documents but adds none.
  expect(screen.queryByRole('form', { name: 'Add a document' })).toBeNull();
});

test('the comparison asks for the second period; the server\'s field errors show at their fields', async () => {
  signInAs('org_user', 1);
  server.use(
    http.get(apiUrl('organization/assistant/documents/'), () => HttpResponse.json([{ id: 3, name: 'Torque SOP.docx', source: 'docx', chunks: 4, created_at_ms: 0 }])),
    http.post(apiUrl('organization/assistant/'), () => HttpResponse.json({ compare_end: ['Choose where the range ends.'] }, { status: 400 })),
  );
  const user = userEvent.setup();
  renderApp('/user/assistant');
  await user.selectOptions(await screen.findByLabelText('Mode'), 'station_comparison');
  expect(screen.getByLabelText('Compare from')).toBeInTheDocument();
  await user.click(screen.getByRole('button', { name: 'Ask' }));
  expect(await screen.findByText('Choose where the range ends.')).toBeInTheDocument();
  // Who writes the SOPs adds and deletes documents.
  expect(await screen.findByText(/Torque SOP.docx \(docx, 4 passages\)/)).toBeInTheDocument();
  expect(screen.getByRole('button', { name: 'Delete Torque SOP.docx' })).toBeInTheDocument();
  expect(screen.getByRole('form', { name: 'Add a document' })).toBeInTheDocument();
});
