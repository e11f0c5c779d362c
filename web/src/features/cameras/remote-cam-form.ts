/**
 * The remote camera form's rules, pure: what it checks before sending (the server's
 * rules and messages for a camera name and the start of a URL, `check_camera` and
 * `check_camera_url` of `gemba_shared`; the rest of the URL is the server's to refuse),
 * and what it sends: a new camera whole, a change only with what changed (so an
 * unchanged URL is not sent back beside a login, which the server refuses as "both").
 */
import type { RemoteCam, RemoteCamCreate, RemoteCamPatch } from '@/api/generated';
import { requiredMessage, trimWs } from '@/lib/validate';

export type RemoteCamValues = {
  name: string;
  url: string;
  username: string;
  /** Empty: none (new) or keep the kept one (change). */
  password: string;
  /** A change removes the kept password. */
  clearPassword: boolean;
};

export type RemoteCamField = 'name' | 'url' | 'username' | 'password';

export const CAMERA_NAME_MESSAGE = "A camera name is 1 to 100 letters, digits, '-', '_' or '.'.";
export const URL_SPACES_MESSAGE = "The camera's URL must not contain spaces or control characters.";
export const URL_SCHEME_MESSAGE = "The camera's URL must start with rtsp://, rtsps://, http:// or https://.";

const CAMERA_NAME = /^[A-Za-z0-9._-]{1,100}$/;
const SCHEMES = ['rtsp', 'rtsps', 'http', 'https'];

/** The URL without its login (`rtsp://user@host/x` → `rtsp://host/x`). */
export function urlWithoutLogin(url: string): string {
  const at = url.indexOf('://');
  if (at < 0) return url;
  const rest = url.slice(at + 3);
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const login = authority.lastIndexOf('@');
  return login < 0 ? url : `${url.slice(0, at + 3)}${rest.slice(login + 1)}`;
}

/** The form's values for a new camera, or to change `cam`. */
export function initialValues(cam: RemoteCam | null): RemoteCamValues {
  return {
    name: cam?.name ?? '',
    url: cam ? urlWithoutLogin(cam.url) : '',
    username: cam?.username ?? '',
    password: '',
    clearPassword: false,
  };
}

/** The messages of the wrong fields (none: fine to send). */
export function checkRemoteCam(v: RemoteCamValues): Partial<Record<RemoteCamField, string>> {
  const out: Partial<Record<RemoteCamField, string>> = {};
  const name = trimWs(v.name);
  if (name === '') out.name = requiredMessage('Name');
  else if (!CAMERA_NAME.test(name)) out.name = CAMERA_NAME_MESSAGE;
  const url = trimWs(v.url);
  const scheme = url.split('://')[0]!.toLowerCase();
  if (url === '') out.url = requiredMessage('URL');
  else if (/[\p{White_Space}\p{Cc}]/u.test(url)) out.url = URL_SPACES_MESSAGE;
  else if (!url.includes('://') || !SCHEMES.includes(scheme)) out.url = URL_SCHEME_MESSAGE;
  return out;
}

/** What adding a camera sends: the login only when given. */
export function createBody(v: RemoteCamValues): RemoteCamCreate {
  const username = trimWs(v.username);
  return {
    name: trimWs(v.name),
    url: trimWs(v.url),
    ...(username !== '' ? { username } : {}),
    ...(v.password !== '' ? { password: v.password } : {}),
  };
}

/** What changing `cam` sends: each field that changed (`{}`: nothing to send). */
export function patchBody(cam: RemoteCam, v: RemoteCamValues): RemoteCamPatch {
  const out: RemoteCamPatch = {};
  const name = trimWs(v.name);
  const url = trimWs(v.url);
  const username = trimWs(v.username);
  if (name !== cam.name) out.name = name;
  if (url !== urlWithoutLogin(cam.url)) out.url = url;
  if (username !== cam.username) out.username = username;
  if (v.clearPassword) {
    if (cam.has_password) out.password = '';
  } else if (v.password !== '') out.password = v.password;
  return out;
}

/** A camera's login as listed: its user name and whether a password is kept. */
export function loginText(cam: Pick<RemoteCam, 'username' | 'has_password'>): string {
  const parts = [cam.username, cam.has_password ? 'password kept' : ''].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(', ') : '—';
}
