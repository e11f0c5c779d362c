import { render, screen, within } from '@testing-library/react';

import { DataTable, labelCells } from './data-table';

type Row = { id: number; name: string; role: string };
const rows: Row[] = [
  { id: 1, name: 'Ada', role: 'org_admin' },
  { id: 2, name: 'Grace', role: 'org_user' },
];

test('each cell is labelled with its column, for the rows as cards on a narrow screen', () => {
  render(
    <DataTable
      label="Users"
      query={{ isPending: false, error: null, data: rows }}
      empty={<p>none</p>}
      // A column left out (false) is skipped, so the labels stay in step with the cells.
      columns={['Name', false, 'Role', 'Actions']}
      row={(r) => (
        <tr key={r.id}>
          <td>{r.name}</td>
          {null}
          <td>{r.role}</td>
          <td>
            <button type="button">Delete</button>
          </td>
        </tr>
      )}
    />,
  );
  const table = screen.getByRole('table', { name: 'Users' });
  expect(table).toHaveClass('data-table', 'cards');
  const [, first, second] = within(table).getAllByRole('row');
  const labels = (tr: HTMLElement) => within(tr).getAllByRole('cell').map((td) => [td.dataset.label, td.textContent]);
  expect(labels(first!)).toEqual([
    ['Name', 'Ada'],
    ['Role', 'org_admin'],
    ['Actions', 'Delete'],
  ]);
  expect(labels(second!)[0]).toEqual(['Name', 'Grace']);
  // The headers stay a table's for screen readers.
  expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Name', 'Role', 'Actions']);
});

test('a spanning cell takes its first column, a label of its own stays, and what is not a row is left alone', () => {
  const row = labelCells(
    <tr>
      <td colSpan={2}>wide</td>
      <td data-label="Own">mine</td>
    </tr>,
    ['A', 'B', 'C'],
  );
  render(
    <table>
      <tbody>{row}</tbody>
    </table>,
  );
  const cells = screen.getAllByRole('cell');
  expect(cells.map((c) => c.dataset.label)).toEqual(['A', 'Own']);
  const notARow = <p>text</p>;
  expect(labelCells(notARow, ['A'])).toBe(notARow);
});
