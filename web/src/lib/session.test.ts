import type { LoginUser } from '@/api/generated';

import {
  SESSION_KEYS,
  clearAllStorage,
  clearSessionState,
  isSignedIn,
  readSession,
  sessionFromLogin,
  setRedirectUrl,
  getRedirectUrl,
  writeSession,
} from './session';
import { encodeSession, takeSessionFromQuery, withSession } from './session-transfer';

beforeEach(() => localStorage.clear());

const login: LoginUser = {
  id: 7,
  name: 'Ada',
  lastname: 'L',
  email: 'ada@acme.test',
  role: 'org_admin',
  token: 'access-1',
  refresh: 'refresh-1',
  session_key: 'sk-1',
  Organization: { id: 3, name: 'acme', org_name_to_display: 'ACME' },
  poc: false,
  is_policy_accepted: true,
  require_otp: false,
  receive_otp_on: 'email',
  is_otp_setup: true,
  has_mobile_number: false,
};

test('the session has the fields of spec section 3, one local-storage key each', () => {
  expect([...SESSION_KEYS].sort()).toEqual(
    [
      'id', 'name', 'role', 'organization', 'organizationName', 'token', 'refresh', 'email', 'sessionKey', 'sessionId',
      'sessionEndTime', 'sessionUser', 'hostURL', 'poc', 'isPolicyAccepted', 'fcmToken', 'loglevel', 'require_otp',
      'isOtpSetup', 'azureLogin', 'persistUserInfoTemporary',
    ].sort(),
  );
  writeSession(sessionFromLogin(login));
  expect(JSON.parse(localStorage.getItem('token')!)).toBe('access-1');
  expect(JSON.parse(localStorage.getItem('organization')!)).toBe(3);
  expect(readSession()).toMatchObject({
    id: 7,
    role: 'org_admin',
    organization: 3,
    organizationName: 'ACME',
    sessionKey: 'sk-1',
    require_otp: false,
    isOtpSetup: true,
  });
  expect(isSignedIn(readSession())).toBe(true);
});

test('clearing the state keeps hostURL and redirectUrl, sets isOtpSetup false and require_otp true', () => {
  writeSession({ ...sessionFromLogin(login), hostURL: 'http://localhost:8080', sessionId: 4 });
  setRedirectUrl('/user/devices');
  localStorage.setItem('unrelated', 'x');
  clearSessionState();
  const s = readSession();
  expect(s.token).toBeNull();
  expect(s.refresh).toBeNull();
  expect(s.id).toBeNull();
  expect(s.sessionId).toBeNull();
  expect(s.hostURL).toBe('http://localhost:8080');
  expect(getRedirectUrl()).toBe('/user/devices');
  expect(localStorage.getItem('isOtpSetup')).toBe('false');
  expect(localStorage.getItem('require_otp')).toBe('true');
  expect(localStorage.getItem('unrelated')).toBe('x');
  expect(isSignedIn(s)).toBe(false);
});

test('logout storage clear removes everything', () => {
  writeSession({ ...sessionFromLogin(login), hostURL: 'h' });
  clearAllStorage();
  expect(localStorage.length).toBe(0);
});

test('malformed stored values read as empty, not as a session', () => {
  localStorage.setItem('token', '{not json');
  localStorage.setItem('role', '"root"');
  localStorage.setItem('organization', '"three"');
  localStorage.setItem('require_otp', '"no"');
  const s = readSession();
  expect(s.token).toBe('{not json');
  expect(s.role).toBeNull();
  expect(s.organization).toBeNull();
  expect(s.require_otp).toBe(true);
  expect(isSignedIn(s)).toBe(false);
});

test('a session crosses to another host in the config parameter, which is then removed', () => {
  writeSession(sessionFromLogin(login));
  const url = withSession('http://acme.localhost:8080', '/user/home');
  const u = new URL(url);
  expect(u.host).toBe('acme.localhost:8080');
  expect(u.pathname).toBe('/user/home');
  const config = u.searchParams.get('config')!;
  expect(config).toBe(encodeSession());
  localStorage.clear();
  expect(takeSessionFromQuery(`?a=1&config=${config}&b=2`)).toBe('?a=1&b=2');
  expect(readSession()).toMatchObject({ token: 'access-1', organization: 3, role: 'org_admin', require_otp: false });
});

test('a malformed config parameter stores nothing and is removed', () => {
  expect(takeSessionFromQuery('?config=%%%')).toBe('');
  expect(takeSessionFromQuery('?config=WzFd')).toBe(''); // "[1]"
  expect(readSession().token).toBeNull();
  expect(takeSessionFromQuery('?x=1')).toBe('?x=1');
});
