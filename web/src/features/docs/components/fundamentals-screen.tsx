import { Link, useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { ScreenHeader } from '@/components/ui/screen-header';
import { lessonHref } from '@/config/help';
import { paths } from '@/config/paths';

import { LESSONS } from '../content';
import styles from '../docs.module.css';
import { bareTitle, summary } from '../library';
import { DocArticle } from './doc-article';
import { DocsSearch } from './docs-search';
import { LessonDiagram } from './lesson-diagrams';

/**
 * `/user/fundamentals` (App Fundamentals): the 17 numbered lessons on lean basics, each
 * a written lesson with a diagram drawn in code (`lesson-diagrams.tsx`; no videos:
 * docs/decisions.md "Fundamentals are written lessons"). Without `?lesson=N`, the
 * numbered list with each lesson's first lines; with it, that lesson, its neighbours
 * linked, and the search.
 */
export default function FundamentalsScreen() {
  const [params] = useSearchParams();
  const asked = params.get('lesson');
  const lesson = asked === null ? undefined : LESSONS.find((d) => String(d.number) === asked);
  const prev = lesson ? LESSONS.find((d) => d.number === lesson.number - 1) : undefined;
  const next = lesson ? LESSONS.find((d) => d.number === lesson.number + 1) : undefined;

  return (
    <section>
      <ScreenHeader title="App Fundamentals" />
      <DocsSearch />
      <div className={`${styles.layout}${lesson ? ` ${styles.reading}` : ''}`}>
        {/* The list is the page itself until a lesson is open. */}
        {lesson ? (
          <nav className={styles.toc} aria-label="Lessons">
            <ol>
              {LESSONS.map((d) => (
                <li key={d.number} value={d.number}>
                  <Link to={lessonHref(d.number)} aria-current={d === lesson ? 'page' : undefined}>
                    {bareTitle(d)}
                  </Link>
                </li>
              ))}
            </ol>
            <p>
              <Link to={paths.user.userManual}>User Manuals</Link>
            </p>
          </nav>
        ) : null}
        <div>
          {asked === null ? (
            <LessonList />
          ) : lesson ? (
            <>
              <p className={styles.back}>
                <Link to={paths.user.fundamentals}>← All lessons</Link>
              </p>
              <DocArticle key={lesson.number} doc={lesson} q={params.get('q') ?? ''} figure={<LessonDiagram n={lesson.number} />} />
              <nav className={styles.pager} aria-label="Lesson pages">
                {prev ? <Link to={lessonHref(prev.number)}>← {prev.title}</Link> : <span />}
                {next ? <Link to={lessonHref(next.number)}>{next.title} →</Link> : null}
              </nav>
            </>
          ) : (
            <EmptyState title="No such lesson.">
              <p>
                <Link to={paths.user.fundamentals}>See the 17 lessons</Link>.
              </p>
            </EmptyState>
          )}
        </div>
      </div>
    </section>
  );
}

/** The lessons, numbered, each with its first lines. */
function LessonList() {
  return (
    <article className={styles.article} aria-labelledby="lessons-title">
      <h2 id="lessons-title">17 lessons on lean basics</h2>
      <p>
        The ideas behind Gemba&apos;s figures, from kaizen and the eight wastes to takt time, line balancing and
        mistake-proofing. Each lesson is a short text with a diagram, and ends with where the idea shows in Gemba. How to
        use the screens themselves is in the <Link to={paths.user.userManual}>User Manuals</Link>.
      </p>
      <ol className={styles.lessons}>
        {LESSONS.map((d) => (
          <li key={d.number} value={d.number}>
            <Link to={lessonHref(d.number)}>{bareTitle(d)}</Link>
            <p>{summary(d)}</p>
          </li>
        ))}
      </ol>
    </article>
  );
}
