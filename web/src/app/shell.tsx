import { Outlet } from 'react-router';

import { GlobalSpinner } from '@/components/ui/spinner';
import { usePageTitle } from '@/lib/page-title';

/** Above every route: the global spinner; the document's title, the screen's. */
export function Shell() {
  usePageTitle();
  return (
    <>
      <GlobalSpinner />
      <Outlet />
    </>
  );
}
