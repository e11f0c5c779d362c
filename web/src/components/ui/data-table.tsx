import type { ReactNode } from 'react';

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

/** A list screen's table with its loading, error and empty states. */
export function DataTable<T>({ label, query, empty, columns, row }: Props<T>) {
  const rows = query.data;
  return (
    <>
      <QueryStatus pending={query.isPending} error={query.error} what={label} />
      {rows && rows.length === 0 ? empty : null}
      {rows && rows.length > 0 ? (
        <table className="data-table" aria-label={label}>
          <thead>
            <tr>
              {columns
                .filter((c): c is string => typeof c === 'string')
                .map((c) => (
                  <th scope="col" key={c}>
                    {c}
                  </th>
                ))}
            </tr>
          </thead>
          <tbody>{rows.map(row)}</tbody>
        </table>
      ) : null}
    </>
  );
}
