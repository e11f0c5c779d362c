import { PAGE_SIZE } from '@/config/constants';

/** Previous / next through a paged list (`count` rows in all, 10 a page). */
export function Pager({ page, count, onPage, label }: { page: number; count: number; onPage: (p: number) => void; label: string }) {
  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {Math.min(page, pages)} of {pages} ({count} {count === 1 ? 'entry' : 'entries'})
      </span>
      <button type="button" className="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
