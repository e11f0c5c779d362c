import { baseDomainUrl, siteOf } from './hosts';

const cfg = { base_domain: 'localhost', admin_host: 'admin.localhost' };

test('sites are read like the server reads them', () => {
  expect(siteOf('admin.localhost', cfg)).toEqual({ kind: 'admin' });
  expect(siteOf('localhost', cfg)).toEqual({ kind: 'base' });
  expect(siteOf('www.localhost', cfg)).toEqual({ kind: 'base' });
  expect(siteOf('ACME.localhost', cfg)).toEqual({ kind: 'org', org: 'acme' });
  expect(siteOf('a.b.localhost', cfg)).toEqual({ kind: 'other' });
  expect(siteOf('127.0.0.1', cfg)).toEqual({ kind: 'other' });
  expect(siteOf('gemba.example.com', cfg)).toEqual({ kind: 'other' });
});

test('the base-domain address keeps scheme and port', () => {
  expect(baseDomainUrl({ protocol: 'http:', port: '8080' }, cfg, '/login')).toBe('http://localhost:8080/login');
  expect(baseDomainUrl({ protocol: 'https:', port: '' }, { ...cfg, base_domain: 'gemba.io' }, '/login')).toBe('https://gemba.io/login');
});
