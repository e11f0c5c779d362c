import { useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';

import { Highlighted } from '@/components/ui/markdown';

import { LESSONS, MANUAL } from '../content';
import styles from '../docs.module.css';
import { type DocsIndex, buildIndex, marksFor } from '../search';

let index: DocsIndex | null = null;
/** The index of every manual and lesson, built the first time someone searches. */
const docsIndex = () => (index ??= buildIndex([...MANUAL, ...LESSONS]));

/**
 * The search over the manuals and the lessons: results as you type, each the section's
 * heading and document with the words around the match, linking to the section with
 * the words highlighted. Enter opens the first.
 */
export function DocsSearch() {
  const id = useId();
  const navigate = useNavigate();
  const [q, setQ] = useState('');
  const hits = q.trim() ? docsIndex().search(q) : [];
  const marks = marksFor(q);
  const open = (href: string) => {
    setQ('');
    void navigate(href);
  };

  return (
    <>
      <form
        role="search"
        className={styles.search}
        onSubmit={(e) => {
          e.preventDefault();
          if (hits[0]) open(hits[0].href);
        }}
      >
        <label htmlFor={id}>Search the manuals and lessons</label>
        <input id={id} type="search" value={q} autoComplete="off" placeholder="e.g. takt time, blur, enrolment code" onChange={(e) => setQ(e.target.value)} />
      </form>
      {q.trim() ? (
        <section className={styles.results} aria-label="Search results">
          <p role="status">{hits.length === 0 ? `Nothing found for “${q.trim()}”.` : `${hits.length} result${hits.length === 1 ? '' : 's'}`}</p>
          {hits.length === 0 ? null : (
            <ol>
              {hits.map((h) => (
                <li key={h.key}>
                  <Link to={h.href} onClick={() => setQ('')}>
                    {h.title === h.doc ? h.doc : `${h.doc} › ${h.title}`}
                  </Link>
                  <span className="muted"> · {h.kind === 'manual' ? 'User Manuals' : 'App Fundamentals'}</span>
                  <p>
                    <Highlighted text={h.snippet} marks={marks} />
                  </p>
                </li>
              ))}
            </ol>
          )}
        </section>
      ) : null}
    </>
  );
}
