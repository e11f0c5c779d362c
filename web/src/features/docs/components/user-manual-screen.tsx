import { Link, useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { ScreenHeader } from '@/components/ui/screen-header';
import { manualHref } from '@/config/help';
import { paths } from '@/config/paths';

import { MANUAL } from '../content';
import styles from '../docs.module.css';
import { DocArticle } from './doc-article';
import { DocsSearch } from './docs-search';

/**
 * `/user/user-manual` (User Manuals; the docs user's landing screen): the search over
 * the manuals and lessons, the chapters beside the text, and one chapter
 * (`?topic=devices#a-devices-page`, the search's words as `q`). Without a chapter, the
 * contents: every chapter with its sections, and the way to App Fundamentals.
 */
export default function UserManualScreen() {
  const [params] = useSearchParams();
  const topic = params.get('topic');
  const at = topic === null ? -1 : MANUAL.findIndex((d) => d.slug === topic);
  const doc = at >= 0 ? MANUAL[at] : undefined;
  const prev = MANUAL[at - 1];
  const next = at >= 0 ? MANUAL[at + 1] : undefined;

  return (
    <section>
      <ScreenHeader title="User Manuals" />
      <DocsSearch />
      <div className={`${styles.layout}${doc ? ` ${styles.reading}` : ''}`}>
        {/* The contents are the page itself until a chapter is open. */}
        {doc ? (
          <nav className={styles.toc} aria-label="Chapters">
            <ol>
              {MANUAL.map((d) => (
                <li key={d.slug}>
                  <Link to={manualHref(d.slug)} aria-current={d === doc ? 'page' : undefined}>
                    {d.title}
                  </Link>
                </li>
              ))}
            </ol>
            <p>
              <Link to={paths.user.fundamentals}>App Fundamentals: 17 lessons on lean basics</Link>
            </p>
          </nav>
        ) : null}
        <div>
          {topic === null ? (
            <Contents />
          ) : doc ? (
            <>
              <p className={styles.back}>
                <Link to={paths.user.userManual}>← Contents</Link>
              </p>
              <DocArticle key={doc.slug} doc={doc} q={params.get('q') ?? ''} />
              <nav className={styles.pager} aria-label="Chapter pages">
                {prev ? <Link to={manualHref(prev.slug)}>← {prev.title}</Link> : <span />}
                {next ? <Link to={manualHref(next.slug)}>{next.title} →</Link> : null}
              </nav>
            </>
          ) : (
            <EmptyState title="No such chapter.">
              <p>
                <Link to={paths.user.userManual}>See the contents</Link>.
              </p>
            </EmptyState>
          )}
        </div>
      </div>
    </section>
  );
}

/** Every chapter with its sections, linked. */
function Contents() {
  return (
    <article className={styles.article} aria-labelledby="manual-contents">
      <h2 id="manual-contents">Contents</h2>
      <p>
        How to use Gemba, screen by screen, in the order the work is done: define an operation, record and label video,
        train and deploy a model, then watch and read the cycles. The{' '}
        <Link to={paths.user.fundamentals}>App Fundamentals</Link> explain the lean ideas behind the figures in 17 short
        lessons.
      </p>
      <ol>
        {MANUAL.map((d) => (
          <li key={d.slug}>
            <Link to={manualHref(d.slug)}>{d.title}</Link>
            <ul>
              {d.sections
                .filter((s) => s.id !== '')
                .map((s) => (
                  <li key={s.id}>
                    <Link to={manualHref(d.slug, s.id)}>{s.title}</Link>
                  </li>
                ))}
            </ul>
          </li>
        ))}
      </ol>
    </article>
  );
}
