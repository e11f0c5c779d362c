import { landingFor } from './landing';
import { ROLES } from './roles';
import { canOpen } from './routes';

test('landing screen by role (spec section 2)', () => {
  expect(landingFor('admin')).toBe('/admin/organizations');
  expect(landingFor('org_admin')).toBe('/user/home');
  expect(landingFor('org_user')).toBe('/user/home');
  expect(landingFor('support_user')).toBe('/user/home');
  expect(landingFor('user')).toBe('/user/home');
  expect(landingFor('labeler')).toBe('/labeler/tasks');
  expect(landingFor('analytics_user')).toBe('/user/analytics');
  expect(landingFor('doc_user')).toBe('/user/user-manual');
  expect(landingFor('workstation_user')).toBeNull();
});

test('every role may open its own landing screen (no redirect loop)', () => {
  for (const r of ROLES) {
    const l = landingFor(r);
    if (l !== null) expect(canOpen(r, l), r).toBe(true);
  }
});
