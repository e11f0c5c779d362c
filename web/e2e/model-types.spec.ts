/**
 * Model types and model files against the real server: on `admin.localhost` a super
 * admin of this spec's own (the seeded one's e-mail codes, five in ten minutes, are
 * `admin.spec.ts`'s and the run's set-up) creates a 64×48 model type (a bad recipe and
 * the seeded type's taken name are refused first), uploads a file that is not a model (refused with the server's words), then the demo
 * model bundle the project builds (`$GEMBA_MODELS/default/model.onnx`), listed with the
 * version and labels of its metadata. An org user registers it as a model version:
 * refused for an operation whose steps its labels are not, accepted for the demo
 * operation, and listed on the Models screen. The admin finds it in Org Model Versions
 * for that organisation and soft-deletes it there; the user sees it deleted.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect, test } from '@playwright/test';

import { megabytes } from '../src/lib/format';

import { adminUiLogin, createOrganization, createTask, createUser, openFromMenu, origin, uiLogin, uniqueName } from './env';

const PASSWORD = 'models-pass-1';
const MODEL = join(process.env.GEMBA_MODELS ?? fileURLToPath(new URL('../../target/models', import.meta.url)), 'default/model.onnx');
/** The demo model's labels (its metadata): the demo operation's steps, then background. */
const LABELS = 'Pick base, Pick cover, Fasten screws, Inspect, background';

test('a model file uploaded to a new type is registered by an org user as a model version of a matching operation', async ({ browser }) => {
  test.setTimeout(120_000);
  const run = uniqueName();
  const typeName = `Sensor ${run} 64×48`;
  const fileName = `sensor-${run}.onnx`;
  const org = await createOrganization(`Model Works ${run}`);
  await createTask(org.id, 'Assemble sensor\nPick base:\nTake base;\nPick cover:\nTake cover;\nFasten screws:\nDrive;\nInspect:\nLook;\n');
  await createTask(org.id, 'Weld frame\nWeld:\nTack;\n');
  const email = `models-${run}@acme.example`;
  await createUser(email, PASSWORD, 'org_user', org.id);
  const superAdmin = `models-admin-${run}@gemba.test`;
  await createUser(superAdmin, PASSWORD, 'admin', null);

  // The super admin, on the admin host: Model Types.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await adminUiLogin(admin, superAdmin, PASSWORD);
  await openFromMenu(admin, 'Model Types');
  await expect(admin.getByRole('region', { name: 'Step classifier 64×48' })).toContainText('64×48 frames, 48 hidden units');

  await admin.getByRole('button', { name: 'Create Model Type' }).click();
  const create = admin.getByRole('dialog', { name: 'Create Model Type' });
  await create.getByLabel('Name').fill('Step classifier 64×48');
  await create.getByLabel('Hidden units').fill('2');
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(create.getByText('Ensure this value is between 4 and 1024 units.')).toBeVisible();
  await create.getByLabel('Hidden units').fill('32');
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(create.getByText('A model type with this name already exists.')).toBeVisible();
  await create.getByLabel('Name').fill(typeName);
  await create.getByLabel('Description').fill('The demo sensor line.');
  await create.getByRole('button', { name: 'Create' }).click();
  await expect(admin.getByText('Data created successfully!')).toBeVisible();
  const card = admin.getByRole('region', { name: typeName });
  await expect(card).toContainText('64×48 frames, 32 hidden units');
  await expect(card).toContainText('The demo sensor line.');
  await expect(card).toContainText('No model files yet.');

  // A file that is not a model is refused; the demo bundle is read and listed.
  const upload = card.getByRole('form', { name: `Upload a model file to ${typeName}` });
  const input = upload.getByLabel('Model file (.onnx)');
  await input.setInputFiles({ name: 'notes.onnx', mimeType: 'application/octet-stream', buffer: Buffer.from('not a model at all') });
  await upload.getByRole('button', { name: 'Upload' }).click();
  await expect(upload.getByRole('alert')).toHaveText('This file is not an ONNX model.');
  await input.setInputFiles({ name: fileName, mimeType: 'application/octet-stream', buffer: readFileSync(MODEL) });
  await upload.getByRole('button', { name: 'Upload' }).click();
  await expect(admin.getByText(`${fileName} uploaded: version demo-1.`)).toBeVisible();
  await expect(upload.getByRole('progressbar', { name: 'Upload progress' })).toHaveCount(0);
  const fileRow = card.getByRole('table', { name: `Model files of ${typeName}` }).getByRole('row', { name: new RegExp(fileName) });
  await expect(fileRow).toContainText('demo-1');
  await expect(fileRow).toContainText(LABELS);
  // Its size as the screen shows it (MiB, one decimal), whatever the recipe made.
  await expect(fileRow).toContainText(megabytes(statSync(MODEL).size));

  // The org user registers it on the Models screen.
  const userContext = await browser.newContext();
  const page = await userContext.newPage();
  await uiLogin(page, email, PASSWORD);
  const site = origin(`${org.name}.localhost`);
  await expect(page).toHaveURL(`${site}/user/home`);
  await page.goto(`${site}/user/models`);
  await expect(page.getByText('No model versions yet.')).toBeVisible();
  const register = page.getByRole('form', { name: 'Register a model file' });
  const option = `demo-1 · ${fileName} · ${LABELS}`;
  await register.getByLabel('Operation').selectOption({ label: 'Weld frame' });
  await register.getByLabel('Model file').selectOption({ label: option });
  await register.getByRole('button', { name: 'Register' }).click();
  await expect(register.getByRole('alert')).toHaveText(
    `The model's labels (${LABELS}) are not this task's steps then background (Weld, background).`,
  );
  await register.getByLabel('Operation').selectOption({ label: 'Assemble sensor' });
  await register.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByText('Model version demo-1 registered.')).toBeVisible();
  const versionRow = page.getByRole('table', { name: 'Model versions' }).getByRole('row', { name: /demo-1/ });
  await expect(versionRow).toContainText('Assemble sensor');
  await expect(versionRow.getByRole('checkbox', { name: 'demo-1 deleted' })).not.toBeChecked();

  // The admin finds it under the organisation in Org Model Versions and soft-deletes it.
  await openFromMenu(admin, 'Org Model Versions');
  await admin.getByLabel('Organization').selectOption({ label: `Model Works ${run}` });
  const adminRow = admin.getByRole('table', { name: 'Model versions' }).getByRole('row', { name: /demo-1/ });
  await expect(adminRow).toContainText('Assemble sensor');
  await adminRow.getByRole('checkbox', { name: 'demo-1 deleted' }).check();
  await expect(adminRow.getByRole('checkbox', { name: 'demo-1 deleted' })).toBeChecked();
  await admin.reload();
  await expect(admin.getByRole('checkbox', { name: 'demo-1 deleted' })).toBeChecked();
  await adminContext.close();

  await page.reload();
  await expect(page.getByRole('checkbox', { name: 'demo-1 deleted' })).toBeChecked();
  await userContext.close();
});
