import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';

import { signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { server } from '@/testing/server';

/** The browser's width as `matchMedia` tells it: below the drawer's breakpoint or not. */
function screenWidth(px: number) {
  vi.stubGlobal('matchMedia', (query: string) => {
    const max = /max-width:\s*([\d.]+)px/.exec(query);
    return {
      matches: max ? px <= Number(max[1]) : false,
      media: query,
      addEventListener: () => {},
      removeEventListener: () => {},
    };
  });
}
afterEach(() => vi.unstubAllGlobals());

test('on a phone the sidebar is a drawer: the menu button opens it, focus goes in, Escape closes it and gives focus back', async () => {
  screenWidth(390);
  signInAs('org_user');
  renderApp('/user/user-manual');
  expect(await screen.findByRole('heading', { name: 'User Manuals' })).toBeInTheDocument();
  const menu = screen.getByRole('button', { name: 'Menu' });
  expect(menu).toHaveAttribute('aria-expanded', 'false');
  expect(menu).toHaveAttribute('aria-controls', 'main-nav');

  await userEvent.click(menu);
  expect(menu).toHaveAttribute('aria-expanded', 'true');
  const nav = screen.getByRole('navigation', { name: 'Main' });
  // The focus is on the drawer's first control; the screen behind is inert.
  await waitFor(() => expect(nav).toContainElement(document.activeElement as HTMLElement));
  expect(document.querySelector('main')).toHaveAttribute('inert');

  await userEvent.keyboard('{Escape}');
  expect(menu).toHaveAttribute('aria-expanded', 'false');
  expect(menu).toHaveFocus();
  expect(document.querySelector('main')).not.toHaveAttribute('inert');
});

test('choosing an entry in the drawer goes there and closes it; so does its close button', async () => {
  screenWidth(390);
  // The screen chosen reads its lists: none.
  server.use(http.get(/\/api\/telemetry\//, () => HttpResponse.json([])));
  signInAs('org_user');
  const { router } = renderApp('/user/user-manual');
  const menu = await screen.findByRole('button', { name: 'Menu' });
  await userEvent.click(menu);
  const nav = screen.getByRole('navigation', { name: 'Main' });
  await userEvent.click(within(nav).getByRole('link', { name: 'Line' }));
  await waitFor(() => expect(router.state.location.pathname).toBe('/user/line'));
  expect(await screen.findByRole('heading', { level: 1, name: 'Line' })).toBeInTheDocument();
  // Asked afresh: the layout may have been drawn again around the new screen.
  const menuThere = screen.getByRole('button', { name: 'Menu' });
  expect(menuThere).toHaveAttribute('aria-expanded', 'false');

  await userEvent.click(menuThere);
  expect(menuThere).toHaveAttribute('aria-expanded', 'true');
  await userEvent.click(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('button', { name: 'Close menu' }));
  expect(menuThere).toHaveAttribute('aria-expanded', 'false');
  expect(menuThere).toHaveFocus();
});

test('on a wide screen the sidebar stays beside the screen, with no menu button', async () => {
  screenWidth(1440);
  signInAs('org_user');
  renderApp('/user/user-manual');
  expect(await screen.findByRole('heading', { name: 'User Manuals' })).toBeInTheDocument();
  expect(screen.queryByRole('button', { name: 'Menu' })).toBeNull();
  expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
  expect(document.querySelector('main')).not.toHaveAttribute('inert');
});
