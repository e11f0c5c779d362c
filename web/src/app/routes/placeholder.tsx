import { useMatches } from 'react-router';

import { EmptyState } from '@/components/ui/empty-state';

/** A screen a later issue builds: its title and an honest empty state. */
export default function PlaceholderScreen() {
  const matches = useMatches();
  const handle = matches[matches.length - 1]?.handle as { title?: string } | undefined;
  const title = handle?.title ?? 'gemba';
  return (
    <section>
      <h1>{title}</h1>
      <EmptyState title="Nothing to show here yet.">
        <p>This screen is not built yet; it shows no data until it is.</p>
      </EmptyState>
    </section>
  );
}
