import { Link, useSearchParams } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';
import { manualHref } from '@/config/help';
import { paths } from '@/config/paths';

import { MANUAL } from '../content';
import styles from '../docs.module.css';
import { DocsFrame } from './docs-frame';

/**
 * `/user/user-manual` (User Manuals; the docs user's landing screen): the search over
 * the manuals and lessons, and one chapter (`?topic=devices#a-devices-page`, the
 * search's words as `q`) beside the list of chapters. Without a chapter, the contents:
 * every chapter with its sections, and the way to App Fundamentals.
 */
export default function UserManualScreen() {
  const [params] = useSearchParams();
  const topic = params.get('topic');
  return (
    <DocsFrame
      title="User Manuals"
      docs={MANUAL}
      asked={topic !== null}
      current={MANUAL.find((d) => d.slug === topic)}
      hrefOf={(d) => manualHref(d.slug)}
      labelOf={(d) => d.title}
      listLabel="Chapters"
      pagerLabel="Chapter pages"
      more={<Link to={paths.user.fundamentals}>App Fundamentals: 17 lessons on lean basics</Link>}
      back={{ to: paths.user.userManual, label: 'Contents' }}
      index={<Contents />}
      missing={
        <EmptyState title="No such chapter.">
          <p>
            <Link to={paths.user.userManual}>See the contents</Link>.
          </p>
        </EmptyState>
      }
    />
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
          <li key={d.slug} value={d.number}>
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
