import { pageTitle } from '@/lib/page-title';

test('a screen is titled by the route table, then the product', () => {
  expect(pageTitle('/user/home')).toBe('Dashboard · gemba');
  expect(pageTitle('/user/devices/7')).toBe('Device · gemba');
  expect(pageTitle('/cycle-trace/abc')).toBe('Cycle Trace · gemba');
  expect(pageTitle('/admin/organizations')).toBe('Organizations · gemba');
});

test('an address outside the table has the product name alone', () => {
  expect(pageTitle('/')).toBe('gemba');
  expect(pageTitle('/nowhere/at/all')).toBe('gemba');
});
