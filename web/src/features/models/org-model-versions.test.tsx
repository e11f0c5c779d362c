import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';

import type { Organization } from '@/api/generated';
import { callsTo, fail, ok, recordCalls, signInAs, tableRows } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { modelVersion } from './fixtures';

const org = (id: number, display: string): Organization => ({
  id,
  name: display.toLowerCase(),
  org_name_to_display: display,
  use_proxy_server: false,
  created_at: 0,
});

/** Each organisation's model versions and tasks, answered by the `Organization` header. */
const VERSIONS: Record<string, ReturnType<typeof modelVersion>[]> = {
  '1': [modelVersion(1, false, { version: 'acme-1' })],
  '2': [modelVersion(7, false, { version: 'demo-1', task: 5 }), modelVersion(6, true, { version: 't5-r6', task: 5 })],
};

beforeEach(() => {
  signInAs('admin', null);
  server.use(
    http.get(apiUrl('organization/'), () => ok([org(1, 'ACME'), org(2, 'Globex')])),
    http.get(apiUrl('organization/model_version'), ({ request }) => ok(VERSIONS[request.headers.get('organization') ?? ''] ?? [])),
    http.get(apiUrl('organization/task/'), ({ request }) =>
      ok(request.headers.get('organization') === '2' ? [{ id: 5, taskName: 'Assemble sensor' }] : []),
    ),
  );
});

test("the chosen organisation's model versions are listed, its calls naming it", async () => {
  const rec = recordCalls();
  const user = userEvent.setup();
  const { router } = renderApp('/admin/model-versions');
  const picker = await screen.findByLabelText('Organization');
  expect(screen.queryByRole('table', { name: 'Model versions' })).toBeNull();
  await screen.findByRole('option', { name: 'Globex' });

  await user.selectOptions(picker, 'Globex');
  expect(router.state.location.search).toBe('?organization=2');
  const table = await screen.findByRole('table', { name: 'Model versions' });
  await waitFor(() => expect(tableRows(table).map((r) => r.slice(0, 2))).toEqual([['demo-1', 'Assemble sensor'], ['t5-r6', 'Assemble sensor']]));
  expect(screen.getByRole('checkbox', { name: 't5-r6 deleted' })).toBeChecked();
  for (const path of ['organization/model_version', 'organization/task/']) {
    expect(callsTo(rec, 'GET', path).map((c) => c.headers.get('organization'))).toEqual(['2']);
  }

  await user.selectOptions(picker, 'ACME');
  expect(await screen.findByRole('checkbox', { name: 'acme-1 deleted' })).not.toBeChecked();
  expect(callsTo(rec, 'GET', 'organization/model_version').map((c) => c.headers.get('organization'))).toEqual(['2', '1']);
});

test('the soft delete acts in the chosen organisation, and is put back when refused', async () => {
  const rec = recordCalls();
  server.use(http.patch(apiUrl('organization/model_version/7'), () => fail(500, { detail: 'boom' })));
  const user = userEvent.setup();
  renderApp('/admin/model-versions?organization=2');
  const box = await screen.findByRole('checkbox', { name: 'demo-1 deleted' });
  await user.click(box);
  expect(await screen.findByText('Unable to delete Model Version')).toBeInTheDocument();
  await waitFor(() => expect(screen.getByRole('checkbox', { name: 'demo-1 deleted' })).not.toBeChecked());
  expect(callsTo(rec, 'PATCH', 'organization/model_version/7').map((c) => [c.headers.get('organization'), c.body])).toEqual([
    ['2', { is_deleted: true }],
  ]);
});
