import { Link, useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { lessonHref } from '@/config/help';
import { paths } from '@/config/paths';

import { LESSONS } from '../content';
import styles from '../docs.module.css';
import { bareTitle, summary } from '../library';
import { DocsFrame } from './docs-frame';
import { LessonDiagram } from './lesson-diagrams';

/**
 * `/user/fundamentals` (App Fundamentals): the 17 numbered lessons on lean basics, each
 * a written lesson with a diagram drawn in code (`lesson-diagrams.tsx`; no videos:
 * docs/decisions.md "Fundamentals are written lessons"). Without `?lesson=N`, the
 * numbered list with each lesson's first lines; with it, that lesson beside the list.
 */
export default function FundamentalsScreen() {
  const [params] = useSearchParams();
  const asked = params.get('lesson');
  return (
    <DocsFrame
      title="App Fundamentals"
      docs={LESSONS}
      asked={asked !== null}
      current={LESSONS.find((d) => String(d.number) === asked)}
      hrefOf={(d) => lessonHref(d.number)}
      labelOf={bareTitle}
      listLabel="Lessons"
      pagerLabel="Lesson pages"
      more={<Link to={paths.user.userManual}>User Manuals</Link>}
      back={{ to: paths.user.fundamentals, label: 'All lessons' }}
      index={<LessonList />}
      missing={
        <EmptyState title="No such lesson.">
          <p>
            <Link to={paths.user.fundamentals}>See the 17 lessons</Link>.
          </p>
        </EmptyState>
      }
      figure={(d) => <LessonDiagram n={d.number} />}
    />
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
