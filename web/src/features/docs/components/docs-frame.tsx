import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';

import { ScreenHeader } from '@/components/ui/screen-header';

import styles from '../docs.module.css';
import type { Doc } from '../library';
import { DocArticle } from './doc-article';
import { DocsSearch } from './docs-search';

/**
 * What User Manuals and App Fundamentals share: the heading and the search, then
 * `index` while no document is asked for; the asked one (`current`) beside the list of
 * `docs` (hidden on a phone, where `back` leads to the index), with its neighbours
 * linked under it and the address's `q` highlighted; or `missing` for an unknown one.
 */
export function DocsFrame({
  title,
  docs,
  asked,
  current,
  hrefOf,
  labelOf,
  listLabel,
  pagerLabel,
  more,
  back,
  index,
  missing,
  figure,
}: {
  title: string;
  docs: readonly Doc[];
  /** Whether the address asks for a document (known or not). */
  asked: boolean;
  current: Doc | undefined;
  hrefOf: (d: Doc) => string;
  /** A document's name in the list beside it. */
  labelOf: (d: Doc) => string;
  listLabel: string;
  pagerLabel: string;
  /** A link under the list (the other screen). */
  more: ReactNode;
  back: { to: string; label: string };
  index: ReactNode;
  missing: ReactNode;
  figure?: (d: Doc) => ReactNode;
}) {
  const [params] = useSearchParams();
  const at = current ? docs.indexOf(current) : -1;
  const prev = at > 0 ? docs[at - 1] : undefined;
  const next = at >= 0 ? docs[at + 1] : undefined;

  return (
    <section>
      <ScreenHeader title={title} />
      <DocsSearch />
      {!asked ? (
        index
      ) : !current ? (
        missing
      ) : (
        <div className={styles.layout}>
          <nav className={styles.toc} aria-label={listLabel}>
            <ol>
              {docs.map((d) => (
                <li key={d.number} value={d.number}>
                  <Link to={hrefOf(d)} aria-current={d === current ? 'page' : undefined}>
                    {labelOf(d)}
                  </Link>
                </li>
              ))}
            </ol>
            <p>{more}</p>
          </nav>
          <div>
            <p className={styles.back}>
              <Link to={back.to}>← {back.label}</Link>
            </p>
            <DocArticle key={`${current.kind}-${current.slug}`} doc={current} q={params.get('q') ?? ''} figure={figure?.(current)} />
            <nav className={styles.pager} aria-label={pagerLabel}>
              {prev ? <Link to={hrefOf(prev)}>← {prev.title}</Link> : <span />}
              {next ? <Link to={hrefOf(next)}>{next.title} →</Link> : null}
            </nav>
          </div>
        </div>
      )}
    </section>
  );
}
