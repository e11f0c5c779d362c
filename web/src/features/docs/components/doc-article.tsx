import { type ReactNode, useEffect } from 'react';
import { useLocation } from 'react-router';

import { Markdown } from '@/components/ui/markdown';

import styles from '../docs.module.css';
import type { Doc } from '../library';
import { marksFor } from '../search';

/**
 * One chapter or lesson: its title, then each section under its heading with the
 * section's id (the address's `#…` scrolls to it), `q` (a search's words) highlighted.
 * `figure` goes after the introduction (a lesson's diagram).
 */
export function DocArticle({ doc, q, figure }: { doc: Doc; q: string; figure?: ReactNode }) {
  const { hash } = useLocation();
  const marks = marksFor(q);

  // Go to the section the address names, once its text is there; its heading takes the
  // focus so a keyboard or screen reader carries on from it.
  useEffect(() => {
    const id = decodeURIComponent(hash.slice(1));
    const heading = id ? document.getElementById(id)?.querySelector('h3') : null;
    if (!heading) return;
    heading.scrollIntoView?.({ block: 'start' });
    heading.focus({ preventScroll: true });
  }, [hash, doc]);

  return (
    <article className={styles.article} aria-labelledby={`doc-${doc.kind}-${doc.slug}`}>
      <h2 id={`doc-${doc.kind}-${doc.slug}`}>{doc.title}</h2>
      {doc.sections.map((s, i) => (
        <section key={s.id || 'intro'} id={s.id || undefined}>
          {s.title ? <h3 tabIndex={-1}>{s.title}</h3> : null}
          <Markdown text={s.text} marks={marks} />
          {i === 0 && figure ? figure : null}
        </section>
      ))}
    </article>
  );
}
