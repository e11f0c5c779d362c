/**
 * Push notifications to this browser (issue 31; spec section 7
 * `firebase/topic_subscription/` with topic, tokens and action, and the unsubscribe):
 * the browser subscribes with the cloud's VAPID public key through its service worker
 * (`/push-sw.js`), and hands the subscription over as one of `tokens` on a topic, an
 * event type of the event notifications. While subscribed, the browser gets a push
 * whenever the organisation's notification for that event mails the signed-in user.
 */
import { queryOptions } from '@tanstack/react-query';

import type { PushSubscription as Subscription, PushToken, TopicSubscriptionResult, VapidPublicKey } from '@/api/generated';
import { api } from '@/lib/api-client';

/** The topics: `gemba_shared::validate::EVENT_TYPES`. */
export const TOPICS = ['Task Update', 'Device Health'] as const;
export type Topic = (typeof TOPICS)[number];

/** What each topic brings, for the screen. */
export const TOPIC_HINTS: Record<Topic, string> = {
  'Task Update': "An operation's steps changed.",
  'Device Health': 'A camera went offline, frames froze, a disk ran low…',
};

/** The service worker that shows the messages (web/public/push-sw.js). */
export const SERVICE_WORKER = '/push-sw.js';

export const pushKey = ['push'] as const;

export const vapidKeyQuery = () =>
  queryOptions({
    queryKey: [...pushKey, 'vapid'],
    queryFn: () => api.get<VapidPublicKey>('firebase/vapid_public_key/'),
    staleTime: Infinity,
  });

/** The signed-in user's subscriptions of browser `endpoint` in the organisation. */
export const subscriptionsQuery = (endpoint: string) =>
  queryOptions({
    queryKey: [...pushKey, 'subscriptions', endpoint],
    queryFn: () => api.get<Subscription[]>(`firebase/topic_subscription/?endpoint=${encodeURIComponent(endpoint)}`),
  });

export const topicSubscription = (topic: Topic, token: PushToken, action: 'subscribe' | 'unsubscribe') =>
  api.post<TopicSubscriptionResult>('firebase/topic_subscription/', { topic, tokens: [token], action });

export const unsubscribeBrowser = (endpoint: string) =>
  api.delete<unknown>(`firebase/unsubscribe/?endpoint=${encodeURIComponent(endpoint)}`);

/** base64url (the VAPID key as the cloud gives it) to bytes, for `applicationServerKey`. */
export function base64UrlToBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  const raw = atob(b64);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** A browser subscription (`PushSubscription.toJSON()`) as the call's token. */
export function tokenOf(json: PushSubscriptionJSON): PushToken | null {
  const { endpoint, keys } = json;
  if (!endpoint || !keys?.p256dh || !keys.auth) return null;
  return { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } };
}

/** Why this browser cannot take notifications, or null when it can. */
export function unsupportedReason(w: {
  isSecureContext?: boolean;
  navigator?: { serviceWorker?: unknown };
  PushManager?: unknown;
  Notification?: { permission?: string };
}): string | null {
  if (!w.isSecureContext) return 'Notifications need the portal over https:// (or on this machine).';
  if (!w.navigator?.serviceWorker || !w.PushManager || !w.Notification) {
    return 'This browser cannot receive push notifications.';
  }
  if (w.Notification.permission === 'denied') {
    return "Notifications are blocked for this site in the browser's settings.";
  }
  return null;
}

/** The topics `subs` hold. */
export function subscribedTopics(subs: Pick<Subscription, 'topic'>[]): Set<string> {
  return new Set(subs.map((s) => s.topic));
}

/** This browser's push subscription, made with `vapidKey` when there is none. */
export async function browserSubscription(vapidKey: string, create: boolean): Promise<globalThis.PushSubscription | null> {
  const reg = await navigator.serviceWorker.register(SERVICE_WORKER);
  await navigator.serviceWorker.ready;
  const current = await reg.pushManager.getSubscription();
  if (current || !create) return current;
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') throw new Error('Notifications were not allowed.');
  return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(vapidKey) });
}
