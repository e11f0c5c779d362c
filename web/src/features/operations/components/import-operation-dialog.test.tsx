import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { HttpResponse, http } from 'msw';

import type { TaskFromDocument } from '@/api/generated';
import { fail } from '@/testing/helpers';
import { PUMP_OPERATION, PUMP_TEXT } from '@/testing/operation';
import { apiUrl, server } from '@/testing/server';

import { ImportOperationDialog, MAX_IMPORT_BYTES } from './import-operation-dialog';

function renderDialog() {
  const onImport = vi.fn();
  const onClose = vi.fn();
  render(<ImportOperationDialog onImport={onImport} onClose={onClose} />);
  const dialog = screen.getByRole('dialog', { name: 'Import operation' });
  return { onImport, onClose, dialog: within(dialog) };
}

test('pasted text shows a preview, and Import hands over the operation', async () => {
  const user = userEvent.setup();
  const { onImport, dialog } = renderDialog();
  const box = dialog.getByLabelText('Operation text');
  expect(box).toHaveFocus();
  expect(dialog.getByRole('button', { name: 'Import' })).toBeDisabled();

  await user.click(box);
  await user.paste(PUMP_TEXT);
  const preview = within(dialog.getByRole('region', { name: 'Preview' }));
  expect(preview.getByText('Assemble pump')).toBeInTheDocument();
  // The steps after the last process line go to a default process.
  expect(preview.getByText('Process 2')).toBeInTheDocument();
  expect(preview.getByText('Inspect seal')).toBeInTheDocument();
  expect(dialog.queryByRole('alert')).toBeNull();

  await user.click(dialog.getByRole('button', { name: 'Import' }));
  expect(onImport).toHaveBeenCalledWith(PUMP_OPERATION);
});

test('a line the format cannot read is named, and nothing can be imported', async () => {
  const user = userEvent.setup();
  const { onImport, dialog } = renderDialog();
  await user.click(dialog.getByLabelText('Operation text'));
  await user.paste('Op\nA:\na;\nno marker here\n');
  expect(dialog.getByRole('alert')).toHaveTextContent(
    `Line 4: "no marker here" ends in none of ':' (a step), ';' (a sub-step) or '~' (a process)`,
  );
  expect(dialog.queryByRole('region', { name: 'Preview' })).toBeNull();
  expect(dialog.getByRole('button', { name: 'Import' })).toBeDisabled();
  await user.type(dialog.getByLabelText('Operation text'), '{Control>}a{/Control}{Backspace}');
  await user.paste('Op\nP~\nsub;');
  expect(dialog.getByRole('alert')).toHaveTextContent('Line 3: the sub-step "sub;" has no step above it in its process');
  expect(onImport).not.toHaveBeenCalled();
});

test('text that reads but breaks a save rule previews with the rule, and can still be imported', async () => {
  const user = userEvent.setup();
  const { onImport, dialog } = renderDialog();
  await user.click(dialog.getByLabelText('Operation text'));
  await user.paste('Op\nA:\n');
  expect(dialog.getByText('Saving needs a change first: Each step must have atleast one sub-step!')).toBeInTheDocument();
  await user.click(dialog.getByRole('button', { name: 'Import' }));
  expect(onImport).toHaveBeenCalledWith({ name: 'Op', processes: [{ name: 'Process 1', steps: [{ name: 'A', substeps: [] }] }] });
});

test('a .txt file is read into the box (Windows line breaks and a byte-order mark too)', async () => {
  const user = userEvent.setup();
  const { onImport, dialog } = renderDialog();
  const file = new File([`\uFEFF${PUMP_TEXT.replaceAll('\n', '\r\n')}`], 'pump.txt', { type: 'text/plain' });
  await user.upload(dialog.getByLabelText(/Text file/), file);
  await waitFor(() => expect(dialog.getByLabelText<HTMLTextAreaElement>('Operation text').value).toContain('Assemble pump'));
  await user.click(dialog.getByRole('button', { name: 'Import' }));
  expect(onImport.mock.calls[0]?.[0]).toMatchObject({ name: 'Assemble pump', processes: [{ name: 'Pre-assembly' }, { name: 'Process 2' }] });
});

test('a file over 1 MB is not read', async () => {
  const user = userEvent.setup();
  const { dialog } = renderDialog();
  const file = new File(['x'.repeat(MAX_IMPORT_BYTES + 1)], 'big.txt', { type: 'text/plain' });
  await user.upload(dialog.getByLabelText(/Text file/), file);
  expect(dialog.getByRole('alert')).toHaveTextContent('The file is too large: at most 1 MB.');
  expect(dialog.getByLabelText('Operation text')).toHaveValue('');
});

test('Cancel and Escape close without importing', async () => {
  const user = userEvent.setup();
  const { onImport, onClose, dialog } = renderDialog();
  await user.click(dialog.getByRole('button', { name: 'Cancel' }));
  await user.keyboard('{Escape}');
  expect(onClose).toHaveBeenCalledTimes(2);
  expect(onImport).not.toHaveBeenCalled();
});

const EXTRACT = apiUrl('organization/task/extract_task_from_doc/');

test('a .docx goes to the server, and its draft fills the box with what to check', async () => {
  const user = userEvent.setup();
  let sent: { name: string | null; type: string | null; size: number } | null = null;
  const draft: TaskFromDocument = {
    taskName: 'Water pump',
    task_detail: 'Water pump\nFit housing:\nPlace housing;\nTighten screws:\nProcess 1~\n',
    processes: [],
    source: 'docx',
    notes: ['1 step(s) have no sub-step in the document: add at least one to each before saving.'],
  };
  server.use(
    http.post(EXTRACT, async ({ request }) => {
      const body = await request.arrayBuffer();
      sent = {
        name: new URL(request.url).searchParams.get('name'),
        type: request.headers.get('content-type'),
        size: body.byteLength,
      };
      return HttpResponse.json(draft);
    }),
  );
  const { onImport, dialog } = renderDialog();
  const file = new File([new Uint8Array([0x50, 0x4b, 3, 4, 9, 9])], 'pump sop.docx', {
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  });
  await user.upload(dialog.getByLabelText(/Text file/), file);
  await waitFor(() => expect(dialog.getByLabelText('Operation text')).toHaveValue(draft.task_detail));
  expect(sent).toEqual({ name: 'pump sop.docx', type: 'application/octet-stream', size: 6 });
  const check = within(dialog.getByRole('region', { name: 'Check before saving' }));
  expect(check.getByText(draft.notes[0]!)).toBeInTheDocument();
  // The draft still breaks a save rule: the preview says which, the editor fixes it.
  expect(dialog.getByText('Saving needs a change first: Each step must have atleast one sub-step!')).toBeInTheDocument();
  await user.click(dialog.getByRole('button', { name: 'Import' }));
  expect(onImport.mock.calls[0]?.[0]).toMatchObject({ name: 'Water pump' });
});

test('a procedure written as prose in a .txt goes to the server; its refusal is shown', async () => {
  const user = userEvent.setup();
  let calls = 0;
  server.use(
    http.post(EXTRACT, () => {
      calls += 1;
      return fail(400, { file: ['No steps were found in the document.'] });
    }),
  );
  const { dialog } = renderDialog();
  await user.upload(dialog.getByLabelText(/Text file/), new File(['Just a title\n'], 'notes.txt', { type: 'text/plain' }));
  await waitFor(() => expect(dialog.getByRole('alert')).toHaveTextContent('No steps were found in the document.'));
  expect(calls).toBe(1);
  expect(dialog.getByLabelText('Operation text')).toHaveValue('');
});

test('a text already in the format is not sent anywhere', async () => {
  const user = userEvent.setup();
  let calls = 0;
  server.use(http.post(EXTRACT, () => ((calls += 1), HttpResponse.json({}))));
  const { dialog } = renderDialog();
  await user.upload(dialog.getByLabelText(/Text file/), new File([PUMP_TEXT], 'pump.txt', { type: 'text/plain' }));
  await waitFor(() => expect(dialog.getByLabelText<HTMLTextAreaElement>('Operation text').value).toContain('Assemble pump'));
  expect(calls).toBe(0);
});
