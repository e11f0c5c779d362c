import { Outlet } from 'react-router';

import { GlobalSpinner } from '@/components/ui/spinner';

/** Above every route: the global spinner. */
export function Shell() {
  return (
    <>
      <GlobalSpinner />
      <Outlet />
    </>
  );
}
