import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';

import { base64UrlToBytes, subscribedTopics, tokenOf, unsupportedReason } from './api/push';
import { NotificationsSection } from './components/notifications-section';

describe('push notifications', () => {
  it('turns the base64url VAPID key into its 65 bytes', () => {
    // 65 bytes: 0x04 then 64 of 0xff, as the cloud's key is shaped.
    const bytes = new Uint8Array(65).fill(255);
    bytes[0] = 4;
    let b64 = btoa(String.fromCharCode(...bytes));
    b64 = b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    expect(b64).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Array.from(base64UrlToBytes(b64))).toEqual(Array.from(bytes));
    expect(Array.from(base64UrlToBytes('AQID'))).toEqual([1, 2, 3]);
    expect(Array.from(base64UrlToBytes('_-8'))).toEqual([255, 239]);
  });

  it("hands over a browser's subscription as the call's token, or nothing without keys", () => {
    const json = { endpoint: 'https://push.example/1', expirationTime: null, keys: { p256dh: 'BAA', auth: 'AAE' } };
    expect(tokenOf(json)).toEqual({ endpoint: 'https://push.example/1', keys: { p256dh: 'BAA', auth: 'AAE' } });
    expect(tokenOf({ endpoint: 'https://push.example/1' })).toBeNull();
    expect(tokenOf({ keys: { p256dh: 'BAA', auth: 'AAE' } })).toBeNull();
  });

  it('says why a browser cannot take notifications', () => {
    const able = { isSecureContext: true, navigator: { serviceWorker: {} }, PushManager: {}, Notification: { permission: 'default' } };
    expect(unsupportedReason(able)).toBeNull();
    expect(unsupportedReason({ ...able, isSecureContext: false })).toMatch(/https/);
    expect(unsupportedReason({ ...able, PushManager: undefined })).toBe('This browser cannot receive push notifications.');
    expect(unsupportedReason({ ...able, navigator: {} })).toBe('This browser cannot receive push notifications.');
    expect(unsupportedReason({ ...able, Notification: { permission: 'denied' } })).toMatch(/blocked/);
  });

  it('knows the topics a list of subscriptions holds', () => {
    expect(subscribedTopics([{ topic: 'Task Update' }, { topic: 'Task Update' }])).toEqual(new Set(['Task Update']));
    expect(subscribedTopics([])).toEqual(new Set());
  });

  it('shows why instead of the topics where the browser has no push', () => {
    render(
      <QueryClientProvider client={new QueryClient()}>
        <NotificationsSection />
      </QueryClientProvider>,
    );
    expect(screen.getByRole('heading', { name: 'Notifications in this browser' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(/https|cannot receive/);
    expect(screen.queryByRole('checkbox')).toBeNull();
  });
});
