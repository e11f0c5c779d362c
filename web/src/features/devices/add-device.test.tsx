import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import type { EnrolmentCode } from '@/api/generated';
import { fail, jsonHandler, ok, recordCalls, screenCalls, signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { server } from '@/testing/server';

import { SEEN, device } from './fixtures';

const COMMAND = 'gemba-agent enroll --cloud http://acme.localhost:8080 --code ABCD-EFGH-JKMN';
const enrolment: EnrolmentCode = {
  device: device(9, 'Bench 9', { enrolled: false }),
  code: 'ABCD-EFGH-JKMN',
  expires_at: SEEN,
  command: COMMAND,
};

const form = () => screen.getByRole('form', { name: 'Add device' });

test('adding a device: the name is checked, a 400 shows next to its field, then the code and command show', async () => {
  signInAs('org_admin', 1);
  const bodies: unknown[] = [];
  let answer = () => fail(400, { display_name: ['Device name must not contain control characters.'] });
  server.use(jsonHandler('post', 'device/', bodies, () => answer()));
  const user = userEvent.setup();
  renderApp('/user/add-device');
  expect(await screen.findByRole('heading', { level: 1, name: 'Add Device' })).toBeInTheDocument();

  // Nothing is sent without a name.
  await user.click(within(form()).getByRole('button', { name: 'Add device' }));
  expect(within(form()).getByText('Device name is required!')).toBeInTheDocument();
  expect(bodies).toEqual([]);

  await user.type(within(form()).getByLabelText('Device name'), 'Bench 9');
  expect(within(form()).queryByText('Device name is required!')).toBeNull();
  await user.type(within(form()).getByLabelText('Serial number'), ' SN-9 ');
  await user.click(within(form()).getByRole('button', { name: 'Add device' }));
  const message = await within(form()).findByText('Device name must not contain control characters.');
  expect(within(form()).getByLabelText('Device name')).toHaveAttribute('aria-invalid', 'true');
  expect(within(form()).getByLabelText('Device name')).toHaveAccessibleDescription(message.textContent);

  answer = () => ok(enrolment, 201);
  await user.click(within(form()).getByRole('button', { name: 'Add device' }));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  const shown = screen.getByRole('region', { name: 'Enrolment code for Bench 9' });
  expect(within(shown).getByText('ABCD-EFGH-JKMN')).toHaveClass('enrolment-code-value');
  expect(within(shown).getByText('02/03/26, 04:05:06')).toBeInTheDocument();
  expect(within(shown).getByText(COMMAND)).toBeInTheDocument();
  expect(within(shown).getByRole('link', { name: 'Open the page of Bench 9' })).toHaveAttribute('href', '/user/devices/9');
  expect(bodies).toEqual([
    { display_name: 'Bench 9', Serial_number: 'SN-9' },
    { display_name: 'Bench 9', Serial_number: 'SN-9' },
  ]);
  // The form is ready for the next device.
  expect(within(form()).getByLabelText('Device name')).toHaveValue('');

  // The command is copied as shown.
  await user.click(within(shown).getByRole('button', { name: 'Copy command' }));
  expect(await navigator.clipboard.readText()).toBe(COMMAND);
  expect(await screen.findByText('Command copied.')).toBeInTheDocument();
});

test('a failure that is not about a field shows as a toast (no Devices subscription)', async () => {
  signInAs('support_user', 1);
  const bodies: unknown[] = [];
  server.use(
    jsonHandler('post', 'device/', bodies, () =>
      fail(403, { detail: 'Devices is not enabled for this organization.', msg: 'Devices is not enabled for this organization.' }),
    ),
  );
  const user = userEvent.setup();
  renderApp('/user/add-device');
  await user.type(await screen.findByLabelText('Device name'), 'Bench 9');
  await user.click(within(form()).getByRole('button', { name: 'Add device' }));
  expect(await screen.findByText('Devices is not enabled for this organization.')).toBeInTheDocument();
  expect(within(form()).queryByRole('alert')).toBeNull();
  expect(screen.queryByRole('region', { name: /Enrolment code/ })).toBeNull();
  expect(bodies).toHaveLength(1);
});

test('roles without ManageDevices get no form and send nothing', async () => {
  signInAs('org_user', 1);
  const rec = recordCalls();
  renderApp('/user/add-device');
  expect(await screen.findByText('Your role does not add devices.')).toBeInTheDocument();
  expect(screen.queryByRole('form', { name: 'Add device' })).toBeNull();
  expect(screenCalls(rec)).toEqual([]);
});
