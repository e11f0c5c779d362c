/**
 * The state of a paged list (page, search text, filters) in the address's query, so
 * a reload, a shared link or the back button shows the same page. Changing the search
 * or a filter goes back to page 1. Pages count from 1, as the API's `page` does.
 */
import { useCallback, useEffect } from 'react';
import { useSearchParams } from 'react-router';

import { PAGE_SIZE } from '@/config/constants';

export type ListParams<K extends string> = {
  page: number;
  search: string;
  filters: Record<K, string>;
  setPage: (page: number) => void;
  setSearch: (search: string) => void;
  setFilter: (key: K, value: string) => void;
};

export function useListParams<K extends string = never>(filterKeys: readonly K[] = []): ListParams<K> {
  const [params, setParams] = useSearchParams();
  const parsed = Number.parseInt(params.get('page') ?? '', 10);
  const page = Number.isFinite(parsed) && parsed >= 1 ? parsed : 1;
  const search = params.get('search') ?? '';
  const filters = Object.fromEntries(filterKeys.map((k) => [k, params.get(k) ?? ''])) as Record<K, string>;

  const update = useCallback(
    (patch: Record<string, string>, keepPage: boolean) =>
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [k, v] of Object.entries(patch)) {
            if (v === '' || (k === 'page' && v === '1')) next.delete(k);
            else next.set(k, v);
          }
          if (!keepPage) next.delete('page');
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );

  return {
    page,
    search,
    filters,
    setPage: useCallback((p: number) => update({ page: String(p) }, true), [update]),
    setSearch: useCallback((s: string) => update({ search: s.trim() }, false), [update]),
    setFilter: useCallback((k: K, v: string) => update({ [k]: v }, false), [update]),
  };
}

/** The number of pages for `count` rows (at least 1). */
export const pageCount = (count: number) => Math.max(1, Math.ceil(count / PAGE_SIZE));

/**
 * A page past the end (after the last row of the last page was deleted, or a stale
 * link) moves to the last page there is.
 */
export function useClampPage(page: number, data: { results: unknown[]; count: number } | undefined, setPage: (p: number) => void) {
  const last = data ? pageCount(data.count) : null;
  useEffect(() => {
    if (data && data.results.length === 0 && last !== null && page > last) setPage(last);
  }, [data, last, page, setPage]);
}
