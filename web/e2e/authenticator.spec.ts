/**
 * The authenticator app as a phone would use it: the portal shows a QR code, the test
 * reads it (decoding the PNG the server drew, as the phone's camera would), derives the
 * code from the `otpauth://` secret (RFC 6238) and signs in with it.
 */
import { createHmac } from 'node:crypto';

import { type Page, expect, test } from '@playwright/test';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

import { createOrganization, createUser, origin, uniqueName } from './env';

/** The `otpauth://` address in the QR code the page shows. */
async function scanQr(page: Page): Promise<URL> {
  const img = page.getByRole('img', { name: 'QR code for the authenticator app' });
  await expect(img).toBeVisible();
  const b64 = await img.evaluate(async (el: HTMLImageElement) => {
    const bytes = new Uint8Array(await (await fetch(el.src)).arrayBuffer());
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin);
  });
  const png = PNG.sync.read(Buffer.from(b64, 'base64'));
  const qr = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  if (!qr) throw new Error('no QR code in the image');
  return new URL(qr.data);
}

function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The RFC 6238 code of `uri` at `now` (ms). */
function totp(uri: URL, now: number): string {
  const digits = Number(uri.searchParams.get('digits') ?? 6);
  const period = Number(uri.searchParams.get('period') ?? 30);
  const algorithm = (uri.searchParams.get('algorithm') ?? 'SHA1').toLowerCase();
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 1000 / period)));
  const mac = createHmac(algorithm, base32(uri.searchParams.get('secret') ?? '')).update(counter).digest();
  const at = (mac[mac.length - 1] ?? 0) & 0x0f;
  const n = (mac.readUInt32BE(at) & 0x7fffffff) % 10 ** digits;
  return String(n).padStart(digits, '0');
}

test('an authenticator app scans the QR code and its codes sign the user in', async ({ page }) => {
  const run = uniqueName();
  const email = `phone-${run}@acme.example`;
  const org = await createOrganization(`Phone Works ${run}`);
  await createUser(email, 'phone-pass-1', 'org_user', org.id);

  await page.goto(`${origin()}/login`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill('phone-pass-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Select Verification Method' })).toBeVisible();
  await page.getByRole('button', { name: 'Authenticator app' }).click();

  const uri = await scanQr(page);
  expect(uri.protocol).toBe('otpauth:');
  expect(decodeURIComponent(uri.pathname)).toContain(email);

  // A code from another time window is refused, and nothing is signed in.
  await page.getByLabel('6-digit code').fill(totp(uri, Date.now() - 10 * 60_000));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Invalid or expired OTP.').first()).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

  await page.getByLabel('6-digit code').fill(totp(uri, Date.now()));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(`${origin(`${org.name}.localhost`)}/user/home`);
});
