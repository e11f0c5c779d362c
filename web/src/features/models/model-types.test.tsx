import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http } from 'msw';

import type { ModelFilesPatch, ModelType, ModelTypeCreate, ModelTypePatch } from '@/api/generated';
import { callsTo, fail, ok, recordCalls, signInAs, tableRows } from '@/testing/helpers';
import { fillIn } from '@/testing/form';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { modelFile, modelType, modelTypes } from './fixtures';

const RECIPE_REFUSAL =
  "Model files or model versions were made to this type's recipe: make a new type for another recipe.";
const NOT_ONNX = 'This file is not an ONNX model.';

let types: ModelType[];
/** Holds the answer to an upload until released (to see it under way). */
let gate: Promise<void> | null;

const ids = (request: Request) => (new URL(request.url).searchParams.get('ids') ?? '').split(',').map(Number);

beforeEach(() => {
  signInAs('admin', null);
  types = modelTypes();
  gate = null;
  server.use(
    http.get(apiUrl('organization/model_types'), () => ok(types)),
    http.post(apiUrl('organization/model_types'), async ({ request }) => {
      const b = (await request.json()) as ModelTypeCreate;
      if (types.some((t) => t.name === b.name)) return fail(400, { name: ['A model type with this name already exists.'] });
      const t = modelType(types.length + 1, b.name, b);
      types.push(t);
      return ok(t, 201);
    }),
    http.patch(apiUrl('organization/model_type/:id'), async ({ params, request }) => {
      const b = (await request.json()) as ModelTypePatch;
      const t = types.find((x) => x.id === Number(params.id))!;
      const recipe = [b.input_width, b.input_height, b.hidden];
      if (recipe.join() !== [t.input_width, t.input_height, t.hidden].join() && t.model_files.length > 0) {
        return fail(400, { non_field_errors: [RECIPE_REFUSAL] });
      }
      Object.assign(t, b);
      return ok(t);
    }),
    http.post(apiUrl('organization/model_files'), async ({ request }) => {
      const q = new URL(request.url).searchParams;
      const bytes = new Uint8Array(await request.arrayBuffer());
      await gate;
      if (bytes[0] !== 0x08) return fail(400, { file: [NOT_ONNX] });
      const t = types.find((x) => x.id === Number(q.get('model_type')))!;
      const f = modelFile(10, t.id, { name: q.get('name') ?? '', version: 'demo-10', size_bytes: bytes.length });
      t.model_files.push(f);
      return ok(f, 201);
    }),
    http.patch(apiUrl('organization/model_files'), async ({ request }) => {
      const to = ((await request.json()) as ModelFilesPatch).model_type;
      const moving = types.flatMap((t) => t.model_files).filter((f) => ids(request).includes(f.id));
      for (const t of types) t.model_files = t.model_files.filter((f) => !ids(request).includes(f.id));
      types.find((t) => t.id === to)!.model_files.push(...moving.map((f) => ({ ...f, model_type: to })));
      return ok(moving);
    }),
    http.delete(apiUrl('organization/model_files'), ({ request }) => {
      for (const t of types) t.model_files = t.model_files.filter((f) => !ids(request).includes(f.id));
      return ok({ msg: `${ids(request).length} model files deleted.` });
    }),
  );
});

const card = (name: string) => screen.findByRole('region', { name });

test('the model types are listed with their recipe, description and files', async () => {
  renderApp('/admin/model-types');
  const first = within(await card('Step classifier 64×48'));
  expect(first.getByText('64×48 frames, 48 hidden units')).toBeInTheDocument();
  expect(first.getByText('The whole frame at 64×48: the default.')).toBeInTheDocument();
  expect(tableRows(first.getByRole('table', { name: 'Model files of Step classifier 64×48' }))).toEqual([
    ['', 'model-1.onnx', 'demo-1', 'Pick base, Pick cover, Fasten screws, Inspect, background', '1.8 MB', '111111111111', '01/02/26, 03:04:05'],
    ['', 'model-2.onnx', 'demo-2', 'Weld, background', '1.8 MB', '222222222222', '01/02/26, 03:04:05'],
  ]);
  const closeUp = within(await card('Close-up 96×72'));
  expect(closeUp.getByText('96×72 frames, 32 hidden units')).toBeInTheDocument();
  expect(closeUp.getByText('No model files yet.')).toBeInTheDocument();
  expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
    'Step classifier 64×48',
    'Wide classifier 64×48',
    'Close-up 96×72',
  ]);
});

test("a new type is checked before it is sent, shows the server's messages, and is listed", async () => {
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/admin/model-types');
  await card('Step classifier 64×48');
  await user.click(screen.getByRole('button', { name: 'Create Model Type' }));
  const dialog = within(screen.getByRole('dialog', { name: 'Create Model Type' }));
  // The default recipe is filled in.
  expect(dialog.getByLabelText('Frame width (px)')).toHaveValue(64);
  expect(dialog.getByLabelText('Frame height (px)')).toHaveValue(48);
  expect(dialog.getByLabelText('Hidden units')).toHaveValue(48);

  await fillIn(user, { 'Frame width (px)': '8', 'Frame height (px)': '641', 'Hidden units': '2000' });
  await user.click(dialog.getByRole('button', { name: 'Create' }));
  expect(dialog.getByText('The name is required!')).toBeInTheDocument();
  expect(dialog.getAllByText('Ensure this value is between 16 and 640 pixels.')).toHaveLength(2);
  expect(dialog.getByText('Ensure this value is between 4 and 1024 units.')).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'organization/model_types')).toEqual([]);

  await fillIn(user, { Name: 'Close-up 96×72', Description: 'Hands close up.', 'Frame width (px)': '96', 'Frame height (px)': '72', 'Hidden units': '32' });
  await user.click(dialog.getByRole('button', { name: 'Create' }));
  expect(await dialog.findByText('A model type with this name already exists.')).toBeInTheDocument();
  expect(dialog.getByLabelText('Name')).toHaveAccessibleDescription('A model type with this name already exists.');

  await fillIn(user, { Name: '  Close-up 96×72 v2 ' });
  await user.click(dialog.getByRole('button', { name: 'Create' }));
  expect(await screen.findByText('Data created successfully!')).toBeInTheDocument();
  expect(screen.queryByRole('dialog')).toBeNull();
  expect(within(await card('Close-up 96×72 v2')).getByText('96×72 frames, 32 hidden units')).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'organization/model_types').map((c) => c.body)).toEqual([
    { name: 'Close-up 96×72', description: 'Hands close up.', input_width: 96, input_height: 72, hidden: 32 },
    { name: 'Close-up 96×72 v2', description: 'Hands close up.', input_width: 96, input_height: 72, hidden: 32 },
  ]);
});

test("changing the recipe of a type with files shows the server's refusal; its name can change", async () => {
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/admin/model-types');
  await user.click(within(await card('Wide classifier 64×48')).getByRole('button', { name: 'Edit Wide classifier 64×48' }));
  const dialog = within(screen.getByRole('dialog', { name: 'Edit Wide classifier 64×48' }));
  expect(dialog.getByLabelText('Hidden units')).toHaveValue(128);

  await fillIn(user, { 'Hidden units': '64' });
  await user.click(dialog.getByRole('button', { name: 'Save' }));
  expect(await dialog.findByText(RECIPE_REFUSAL)).toBeInTheDocument();

  await fillIn(user, { 'Hidden units': '128', Name: 'Wide 64×48' });
  await user.click(dialog.getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('Data updated successfully!')).toBeInTheDocument();
  expect(await card('Wide 64×48')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/model_type/2').map((c) => c.body)).toEqual([
    { name: 'Wide classifier 64×48', description: '', input_width: 64, input_height: 48, hidden: 64 },
    { name: 'Wide 64×48', description: '', input_width: 64, input_height: 48, hidden: 128 },
  ]);
});

test('a model file uploads whole with a progress bar and is listed; a refused one says why', async () => {
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/admin/model-types');
  const closeUp = within(await card('Close-up 96×72'));
  const upload = within(closeUp.getByRole('form', { name: 'Upload a model file to Close-up 96×72' }));

  await user.click(upload.getByRole('button', { name: 'Upload' }));
  expect(upload.getByText('Choose a model file.')).toBeInTheDocument();

  let release = () => {};
  gate = new Promise((r) => (release = r));
  const bytes = new Uint8Array(3 * 1024 * 1024).fill(0x08);
  await user.upload(upload.getByLabelText('Model file (.onnx)'), new File([bytes], 'hands.onnx'));
  await user.click(upload.getByRole('button', { name: 'Upload' }));
  expect(upload.getByRole('progressbar', { name: 'Upload progress' })).toHaveValue(0);
  expect(upload.getByText('0.0 MB of 3.0 MB (0%)')).toBeInTheDocument();
  expect(upload.getByRole('button', { name: 'Uploading…' })).toBeDisabled();
  release();
  expect(await screen.findByText('hands.onnx uploaded: version demo-10.')).toBeInTheDocument();
  await waitFor(() => expect(upload.queryByRole('progressbar')).toBeNull());
  expect(tableRows(await closeUp.findByRole('table', { name: 'Model files of Close-up 96×72' }))[0]?.slice(1, 5)).toEqual([
    'hands.onnx',
    'demo-10',
    'Pick base, Pick cover, Fasten screws, Inspect, background',
    '3.0 MB',
  ]);
  const post = callsTo(rec, 'POST', 'organization/model_files')[0]!;
  expect(post.query.toString()).toBe('model_type=3&name=hands.onnx');
  expect(post.headers.get('content-type')).toBe('application/octet-stream');

  gate = null;
  await user.upload(upload.getByLabelText('Model file (.onnx)'), new File(['not a model'], 'notes.onnx'));
  await user.click(upload.getByRole('button', { name: 'Upload' }));
  expect(await upload.findByText(NOT_ONNX)).toBeInTheDocument();
  expect(upload.queryByRole('progressbar')).toBeNull();

  server.use(http.post(apiUrl('organization/model_files'), () => fail(413, { detail: 'Request body is too large.' })));
  await user.click(upload.getByRole('button', { name: 'Upload' }));
  expect(await upload.findByText('Request body is too large.')).toBeInTheDocument();
});

test('a model made elsewhere is uploaded with what it takes declared; a refused value shows at its field', async () => {
  const rec = recordCalls();
  const user = userEvent.setup();
  const STD_REFUSED = 'Ensure this value is three numbers greater than 0, one per channel.';
  server.use(
    http.post(apiUrl('organization/model_files'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      if (q.get('input_std') !== '0.229, 0.224, 0.225') return fail(400, { input_std: [STD_REFUSED] });
      const t = types.find((x) => x.id === Number(q.get('model_type')))!;
      const f = modelFile(11, t.id, { name: q.get('name') ?? '', version: q.get('version') ?? '' });
      t.model_files.push(f);
      return ok(f, 201);
    }),
  );
  renderApp('/admin/model-types');
  const closeUp = within(await card('Close-up 96×72'));
  const upload = within(closeUp.getByRole('form', { name: 'Upload a model file to Close-up 96×72' }));
  expect(upload.queryByLabelText('Layout')).toBeNull();
  await user.click(upload.getByRole('checkbox', { name: /Made elsewhere/ }));
  // A PyTorch export's frame, until changed.
  expect(upload.getByLabelText('Layout')).toHaveValue('NCHW');
  expect(upload.getByLabelText('Element type')).toHaveValue('float32');
  expect(upload.getByLabelText('Scale')).toHaveValue('1/255');
  await user.upload(upload.getByLabelText('Model file (.onnx)'), new File([new Uint8Array(16).fill(0x08)], 'resnet.onnx'));
  await user.click(upload.getByRole('button', { name: 'Upload' }));
  expect(upload.getByText('Give at least two names: the steps in order, then background.')).toBeInTheDocument();
  expect(upload.getByText('Give the version a name.')).toBeInTheDocument();
  expect(callsTo(rec, 'POST', 'organization/model_files')).toEqual([]);

  await user.type(upload.getByLabelText(/^Labels/), 'Pick, Place, background');
  await user.type(upload.getByLabelText('Version'), 'resnet-1');
  await user.selectOptions(upload.getByLabelText('Colour order'), 'BGR');
  await user.clear(upload.getByLabelText('Std (per channel)'));
  await user.type(upload.getByLabelText('Std (per channel)'), '0.2, 0, 0.2');
  await user.click(upload.getByRole('button', { name: 'Upload' }));
  expect(await upload.findByText(STD_REFUSED)).toBeInTheDocument();
  expect(upload.getByLabelText('Std (per channel)')).toHaveAttribute('aria-invalid', 'true');

  await user.clear(upload.getByLabelText('Std (per channel)'));
  await user.type(upload.getByLabelText('Std (per channel)'), '0.229, 0.224, 0.225');
  await user.click(upload.getByRole('button', { name: 'Upload' }));
  expect(await screen.findByText('resnet.onnx uploaded: version resnet-1.')).toBeInTheDocument();
  expect(Object.fromEntries(callsTo(rec, 'POST', 'organization/model_files')[1]!.query)).toEqual({
    model_type: '3',
    name: 'resnet.onnx',
    labels: '["Pick","Place","background"]',
    version: 'resnet-1',
    input_layout: 'NCHW',
    input_type: 'float32',
    input_scale: '1/255',
    input_mean: '0.485, 0.456, 0.406',
    input_std: '0.229, 0.224, 0.225',
    input_format: 'BGR',
  });
  // A uint8 input takes no scale, mean or std.
  await user.selectOptions(upload.getByLabelText('Element type'), 'uint8');
  expect(upload.queryByLabelText('Scale')).toBeNull();
});

test('chosen files are deleted after a confirmation, or moved to another type, by their ids', async () => {
  const rec = recordCalls();
  const user = userEvent.setup();
  renderApp('/admin/model-types');
  const first = within(await card('Step classifier 64×48'));
  const chosen = within(first.getByRole('group', { name: 'Chosen files of Step classifier 64×48' }));
  expect(chosen.getByRole('button', { name: 'Delete' })).toBeDisabled();

  await user.click(first.getByRole('checkbox', { name: 'Choose model-1.onnx' }));
  await user.click(first.getByRole('checkbox', { name: 'Choose model-2.onnx' }));
  await user.click(chosen.getByRole('button', { name: 'Delete' }));
  const confirm = () => within(screen.getByRole('dialog', { name: 'Delete model files' }));
  expect(confirm().getByText(/^Delete 2 model files of/)).toBeInTheDocument();
  await user.click(confirm().getByRole('button', { name: 'Cancel' }));
  expect(callsTo(rec, 'DELETE', 'organization/model_files')).toEqual([]);
  await user.click(chosen.getByRole('button', { name: 'Delete' }));
  await user.click(confirm().getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('2 model files deleted.')).toBeInTheDocument();
  expect(callsTo(rec, 'DELETE', 'organization/model_files').map((c) => c.query.get('ids'))).toEqual(['1,2']);
  expect(await first.findByText('No model files yet.')).toBeInTheDocument();

  // Move: the other types are offered with their frame size; a refusal is the server's.
  const wide = within(await card('Wide classifier 64×48'));
  const wideChosen = within(wide.getByRole('group', { name: 'Chosen files of Wide classifier 64×48' }));
  expect(within(wideChosen.getByLabelText('Move to')).getAllByRole('option').map((o) => o.textContent)).toEqual([
    'Choose a model type…',
    'Step classifier 64×48 (64×48)',
    'Close-up 96×72 (96×72)',
  ]);
  await user.click(wide.getByRole('checkbox', { name: 'Choose wide.onnx' }));
  expect(wideChosen.getByRole('button', { name: 'Move' })).toBeDisabled();
  server.use(
    http.patch(apiUrl('organization/model_files'), () => fail(400, { model_type: ['wide.onnx takes 64×48 frames; Close-up 96×72 takes 96×72.'] }), {
      once: true,
    }),
  );
  await user.selectOptions(wideChosen.getByLabelText('Move to'), 'Close-up 96×72 (96×72)');
  await user.click(wideChosen.getByRole('button', { name: 'Move' }));
  expect(await screen.findByText('wide.onnx takes 64×48 frames; Close-up 96×72 takes 96×72.')).toBeInTheDocument();

  await user.selectOptions(wideChosen.getByLabelText('Move to'), 'Step classifier 64×48 (64×48)');
  await user.click(wideChosen.getByRole('button', { name: 'Move' }));
  expect(await screen.findByText('1 model file moved to Step classifier 64×48.')).toBeInTheDocument();
  expect(callsTo(rec, 'PATCH', 'organization/model_files').map((c) => [c.query.get('ids'), c.body])).toEqual([
    ['3', { model_type: 3 }],
    ['3', { model_type: 1 }],
  ]);
  expect(tableRows(await first.findByRole('table', { name: 'Model files of Step classifier 64×48' })).map((r) => r[1])).toEqual(['wide.onnx']);
});
