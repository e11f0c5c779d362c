import { Children, type ReactNode, cloneElement, isValidElement } from 'react';

import { QueryStatus } from './query-status';

type Props<T> = {
  /** The table's name (its `aria-label`), also in its loading and error lines. */
  label: string;
  /** The rows' query: loading, failed, or the rows (a page's `results`). */
  query: { isPending: boolean; error: unknown; data: readonly T[] | undefined };
  /** What shows when there are no rows. */
  empty: ReactNode;
  /** Column headers; `false`/`null` leaves a column out. */
  columns: readonly (string | false | null)[];
  /** One `<tr>` per row. */
  row: (item: T) => ReactNode;
};

type CellProps = { colSpan?: number; 'data-label'?: string; children?: ReactNode };

/**
 * `row` (a `<tr>`) with each cell labelled by its column's header (`data-label`), which
 * a narrow screen shows beside the cell when the rows are cards. A cell spanning columns
 * takes the first one's header; anything that is not a `<tr>` of cells is left as it is.
 */
export function labelCells(row: ReactNode, headers: readonly string[]): ReactNode {
  if (!isValidElement<{ children?: ReactNode }>(row) || row.type !== 'tr') return row;
  let column = 0;
  const cells = Children.map(row.props.children, (cell) => {
    if (!isValidElement<CellProps>(cell) || (cell.type !== 'td' && cell.type !== 'th')) return cell;
    const header = headers[column];
    column += Math.max(1, cell.props.colSpan ?? 1);
    return header === undefined || cell.props['data-label'] !== undefined
      ? cell
      : cloneElement(cell, { 'data-label': header });
  });
  return cloneElement(row, undefined, cells);
}

/**
 * A list screen's table with its loading, error and empty states. Below
 * `BREAKPOINTS.cards` (styles.css) each row shows as a card, its cells under their
 * headers (`labelCells`).
 */
export function DataTable<T>({ label, query, empty, columns, row }: Props<T>) {
  const rows = query.data;
  const headers = columns.filter((c): c is string => typeof c === 'string');
  return (
    <>
      <QueryStatus pending={query.isPending} error={query.error} what={label} />
      {rows && rows.length === 0 ? empty : null}
      {rows && rows.length > 0 ? (
        <table className="data-table cards" aria-label={label}>
          <thead>
            <tr>
              {headers.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{rows.map((item) => labelCells(row(item), headers))}</tbody>
        </table>
      ) : null}
    </>
  );
}
