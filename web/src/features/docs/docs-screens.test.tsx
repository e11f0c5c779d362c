/**
 * The two screens in the portal (in memory): a docs user lands on User Manuals, searches
 * and opens the section found with the words highlighted; App Fundamentals lists the 17
 * lessons and opens one with its diagram; the screen header's Help link goes to the
 * screen's section for the roles that may read the manuals, on every screen that has one
 * (Profile Settings, the Audit Log, OPC and the Kaizen Assistant among them).
 */
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse, http } from 'msw';
import { MemoryRouter } from 'react-router';

import { ScreenHeader } from '@/components/ui/screen-header';
import { signInAs } from '@/testing/helpers';
import { renderApp } from '@/testing/render-app';
import { apiUrl, server } from '@/testing/server';

import { LessonDiagram } from './components/lesson-diagrams';

test('a docs user lands on User Manuals, searches, and opens the section with the words marked', async () => {
  const user = userEvent.setup();
  signInAs('doc_user');
  const { router } = renderApp('/');
  expect(await screen.findByRole('heading', { level: 1, name: 'User Manuals' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/user-manual');
  expect(screen.getByRole('heading', { level: 2, name: 'Contents' })).toBeInTheDocument();

  // Pasted rather than typed key by key: each change searches again.
  await user.click(screen.getByLabelText('Search the manuals and lessons'));
  await user.paste('enrolment code');
  const results = screen.getByRole('region', { name: 'Search results' });
  const first = within(results).getAllByRole('link')[0]!;
  expect(first).toHaveTextContent('Devices and updates › Adding a device');
  await user.click(first);

  expect(router.state.location.search).toBe('?topic=devices&q=enrolment+code');
  expect(router.state.location.hash).toBe('#adding-a-device');
  const heading = await screen.findByRole('heading', { level: 3, name: 'Adding a device' });
  expect(heading).toHaveFocus();
  const marked = [...document.querySelectorAll('article mark')].map((m) => m.textContent?.toLowerCase());
  expect(marked).toContain('enrolment');
  expect(marked).toContain('code');
  // The search closed once a result was chosen.
  expect(screen.queryByRole('region', { name: 'Search results' })).toBeNull();
});

test('nothing found says so; Enter opens the first result', async () => {
  const user = userEvent.setup();
  signInAs('org_user');
  const { router } = renderApp('/user/user-manual');
  const box = await screen.findByLabelText('Search the manuals and lessons');
  await user.click(box);
  await user.paste('qqqzzz');
  expect(screen.getByRole('status')).toHaveTextContent('Nothing found for “qqqzzz”.');
  await user.clear(box);
  await user.paste('poka yoke');
  await user.keyboard('{Enter}');
  expect(await screen.findByRole('heading', { level: 2, name: '14. Poka-yoke: mistake-proofing' })).toBeInTheDocument();
  expect(router.state.location.pathname).toBe('/user/fundamentals');
  expect(new URLSearchParams(router.state.location.search).get('lesson')).toBe('14');
});

test('App Fundamentals lists the 17 lessons in order and opens one with its diagram', async () => {
  signInAs('doc_user');
  renderApp('/user/fundamentals');
  const list = await screen.findByRole('heading', { level: 2, name: '17 lessons on lean basics' });
  const items = within(list.closest('article')!).getAllByRole('listitem');
  expect(items.map((li) => li.getAttribute('value'))).toEqual(Array.from({ length: 17 }, (_, i) => String(i + 1)));
  expect(within(items[4]!).getByRole('link')).toHaveTextContent('Takt time');
});

test('a lesson shows its text and diagram, and links its neighbours', async () => {
  signInAs('doc_user');
  renderApp('/user/fundamentals?lesson=7');
  expect(await screen.findByRole('heading', { level: 2, name: '7. Line balancing' })).toBeInTheDocument();
  expect(screen.getByRole('img', { name: /a balance of 62\.5%/ })).toBeInTheDocument();
  const pager = screen.getByRole('navigation', { name: 'Lesson pages' });
  expect(within(pager).getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual([
    '/user/fundamentals?lesson=6',
    '/user/fundamentals?lesson=8',
  ]);
});

test("every lesson's diagram draws, named and captioned", () => {
  for (let n = 1; n <= 17; n++) {
    const { unmount } = render(<LessonDiagram n={n} />);
    const img = screen.getByRole('img');
    expect(img.getAttribute('aria-labelledby'), `lesson ${n}`).toBeTruthy();
    expect(img.querySelector('title')?.textContent, `lesson ${n}`).toMatch(/\w{3}/);
    expect(screen.getByRole('figure').querySelector('figcaption')?.textContent, `lesson ${n}`).toMatch(/\w{3}/);
    unmount();
  }
});

test('an unknown chapter or lesson says so', async () => {
  signInAs('doc_user');
  const { unmount } = renderApp('/user/fundamentals?lesson=18');
  expect(await screen.findByText('No such lesson.')).toBeInTheDocument();
  unmount();
  renderApp('/user/user-manual?topic=nothing');
  expect(await screen.findByText('No such chapter.')).toBeInTheDocument();
});

describe("the screen header's Help link", () => {
  const header = (path: string) =>
    render(
      <MemoryRouter initialEntries={[path]}>
        <ScreenHeader title="Screen" />
      </MemoryRouter>,
    );

  test("goes to the screen's section of the manual", () => {
    signInAs('org_user');
    header('/user/devices/7');
    expect(screen.getByRole('link', { name: 'Help: Screen' })).toHaveAttribute('href', '/user/user-manual?topic=devices#a-devices-page');
  });

  test('is not shown where the manual has no section, to a role without the manuals, or outside a router', () => {
    signInAs('org_user');
    const manual = header('/user/user-manual');
    expect(screen.getByRole('heading', { name: 'Screen' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Help/ })).toBeNull();
    manual.unmount();
    signInAs('analytics_user');
    const analytics = header('/user/analytics');
    expect(screen.queryByRole('link', { name: /Help/ })).toBeNull();
    analytics.unmount();
    signInAs('org_user');
    render(<ScreenHeader title="Alone" />);
    expect(screen.getByRole('heading', { name: 'Alone' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Help/ })).toBeNull();
  });

  test('Profile Settings and the Audit Log have theirs', async () => {
    signInAs('org_admin', 1);
    server.use(http.get(apiUrl('organization/audit_log/'), () => HttpResponse.json({ count: 0, next: null, previous: null, results: [] })));
    const profile = renderApp('/user/setting');
    expect(await screen.findByRole('link', { name: 'Help: Profile Settings' })).toHaveAttribute('href', '/user/user-manual?topic=users-roles#your-profile');
    profile.unmount();
    renderApp('/audit-log');
    expect(await screen.findByRole('link', { name: 'Help: Audit Log' })).toHaveAttribute('href', '/user/user-manual?topic=users-roles#the-audit-log');
  });

  test('the OPC and Kaizen Assistant screens have theirs', async () => {
    signInAs('org_user', 1);
    server.use(
      http.get(apiUrl('feature_control/subscribed_feature/'), () =>
        HttpResponse.json([{ id: 1, Feature: 4, Organization: 1, feature_name: 'OPCUA Explorer', is_suppressed: false }]),
      ),
      http.get(apiUrl('device/device_org/1/'), () => HttpResponse.json([])),
      http.get(apiUrl('organization/assistant/documents/'), () => HttpResponse.json([])),
    );
    const opc = renderApp('/user/opc');
    expect(await screen.findByRole('link', { name: 'Help: OPC' })).toHaveAttribute('href', '/user/user-manual?topic=opc#the-opc-screen');
    opc.unmount();
    renderApp('/user/assistant');
    expect(await screen.findByRole('link', { name: 'Help: Kaizen Assistant' })).toHaveAttribute('href', '/user/user-manual?topic=assistant#asking-a-question');
  });
});
