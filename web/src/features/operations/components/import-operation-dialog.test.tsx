import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

import { PUMP_OPERATION, PUMP_TEXT } from '@/testing/operation';

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
  await user.upload(dialog.getByLabelText('Text file'), file);
  await waitFor(() => expect(dialog.getByLabelText<HTMLTextAreaElement>('Operation text').value).toContain('Assemble pump'));
  await user.click(dialog.getByRole('button', { name: 'Import' }));
  expect(onImport.mock.calls[0]?.[0]).toMatchObject({ name: 'Assemble pump', processes: [{ name: 'Pre-assembly' }, { name: 'Process 2' }] });
});

test('a file over 1 MB is not read', async () => {
  const user = userEvent.setup();
  const { dialog } = renderDialog();
  const file = new File(['x'.repeat(MAX_IMPORT_BYTES + 1)], 'big.txt', { type: 'text/plain' });
  await user.upload(dialog.getByLabelText('Text file'), file);
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
