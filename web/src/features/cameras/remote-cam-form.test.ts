import type { RemoteCam } from '@/api/generated';

import {
  CAMERA_NAME_MESSAGE,
  URL_SCHEME_MESSAGE,
  URL_SPACES_MESSAGE,
  checkRemoteCam,
  createBody,
  initialValues,
  loginText,
  patchBody,
  urlWithoutLogin,
} from './remote-cam-form';

const cam: RemoteCam = {
  id: 3,
  device: { id: 7, display_name: 'Bench', Serial_number: 'SN-7', Type: 'workstation', online: true },
  name: 'gate',
  url: 'rtsp://admin@10.0.0.5:554/stream1',
  username: 'admin',
  has_password: true,
  created_at: 0,
  updated_at: 0,
};

const values = (v: Partial<ReturnType<typeof initialValues>>) => ({ ...initialValues(null), ...v });

test('the login is taken out of a URL, and only out of its authority', () => {
  expect(urlWithoutLogin('rtsp://admin@10.0.0.5:554/stream1')).toBe('rtsp://10.0.0.5:554/stream1');
  expect(urlWithoutLogin('rtsp://a%40b:pw@host/x?y=a@b')).toBe('rtsp://host/x?y=a@b');
  expect(urlWithoutLogin('http://host/path@x')).toBe('http://host/path@x');
  expect(urlWithoutLogin('no scheme@host')).toBe('no scheme@host');
});

test('a name and a URL are checked with the server messages', () => {
  expect(checkRemoteCam(values({}))).toEqual({ name: 'Name is required!', url: 'URL is required!' });
  expect(checkRemoteCam(values({ name: 'gate 1', url: 'ftp://host/' }))).toEqual({ name: CAMERA_NAME_MESSAGE, url: URL_SCHEME_MESSAGE });
  expect(checkRemoteCam(values({ name: 'x'.repeat(101), url: 'host/stream' }))).toEqual({ name: CAMERA_NAME_MESSAGE, url: URL_SCHEME_MESSAGE });
  expect(checkRemoteCam(values({ name: ' gate-1.b_2 ', url: 'rtsp://host/a b' }))).toEqual({ url: URL_SPACES_MESSAGE });
  // The rest of the URL (host, port) is the server's to check.
  expect(checkRemoteCam(values({ name: 'gate', url: ' RTSP://10.0.0.5:99999/ ' }))).toEqual({});
});

test('a new camera sends its login only when given', () => {
  expect(createBody(values({ name: ' gate ', url: ' rtsp://host/s ' }))).toEqual({ name: 'gate', url: 'rtsp://host/s' });
  expect(createBody(values({ name: 'gate', url: 'rtsp://host/s', username: ' admin ', password: ' p w ' }))).toEqual({
    name: 'gate',
    url: 'rtsp://host/s',
    username: 'admin',
    password: ' p w ',
  });
});

test('a change sends only what changed; the URL shown is without its login', () => {
  const start = initialValues(cam);
  expect(start).toEqual({ name: 'gate', url: 'rtsp://10.0.0.5:554/stream1', username: 'admin', password: '', clearPassword: false });
  expect(patchBody(cam, start)).toEqual({});
  expect(patchBody(cam, { ...start, name: 'gate2' })).toEqual({ name: 'gate2' });
  expect(patchBody(cam, { ...start, url: 'rtsp://10.0.0.6/s' })).toEqual({ url: 'rtsp://10.0.0.6/s' });
  expect(patchBody(cam, { ...start, username: '', password: 'new' })).toEqual({ username: '', password: 'new' });
  expect(patchBody(cam, { ...start, clearPassword: true })).toEqual({ password: '' });
  expect(patchBody({ ...cam, has_password: false }, { ...start, clearPassword: true })).toEqual({});
});

test('the login as listed', () => {
  expect(loginText(cam)).toBe('admin, password kept');
  expect(loginText({ username: '', has_password: true })).toBe('password kept');
  expect(loginText({ username: 'viewer', has_password: false })).toBe('viewer');
  expect(loginText({ username: '', has_password: false })).toBe('—');
});
