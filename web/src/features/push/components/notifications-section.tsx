import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';

import { notify } from '@/lib/toast';

import {
  TOPICS,
  TOPIC_HINTS,
  type Topic,
  browserSubscription,
  pushKey,
  subscribedTopics,
  subscriptionsQuery,
  tokenOf,
  topicSubscription,
  unsubscribeBrowser,
  unsupportedReason,
  vapidKeyQuery,
} from '../api/push';

/** What a failure says: the server's field message, else the browser's. */
function messageOf(err: unknown): string {
  const data = (err as { data?: Record<string, unknown> }).data;
  const first = data && Object.values(data)[0];
  if (Array.isArray(first) && typeof first[0] === 'string') return first[0];
  const m = err instanceof Error ? err.message : String(err);
  return `This browser could not subscribe: ${m}`;
}

/**
 * "Notifications in this browser" (issue 31, on Profile Setting): for each event of
 * the event notifications (Task Update, Device Health), whether this browser gets a
 * push when the organisation's notification for it mails the signed-in user. Turning
 * one on asks the browser's permission, subscribes through the service worker with
 * the cloud's VAPID key and sends the subscription as the call's `tokens`; off takes
 * the topic away. "Stop in this browser" ends the browser's subscription everywhere.
 * docs/decisions.md "Push notifications to the portal".
 */
export function NotificationsSection() {
  const id = useId();
  const reason = unsupportedReason(window);
  return (
    <section className="section" aria-labelledby={id}>
      <h2 id={id}>Notifications in this browser</h2>
      <p className="hint">
        Get the event notifications that name you here as well as by e-mail. An administrator chooses who is notified of
        each event (Event Notification).
      </p>
      {reason ? <p role="status">{reason}</p> : <Topics />}
    </section>
  );
}

function Topics() {
  const qc = useQueryClient();
  const vapid = useQuery(vapidKeyQuery());
  const [sub, setSub] = useState<globalThis.PushSubscription | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const key = vapid.data?.public_key;
  useEffect(() => {
    if (!key) return;
    let live = true;
    browserSubscription(key, false)
      .then((s) => live && setSub(s))
      .catch(() => live && setSub(null));
    return () => {
      live = false;
    };
  }, [key]);
  const endpoint = sub?.endpoint ?? '';
  const subs = useQuery({ ...subscriptionsQuery(endpoint), enabled: endpoint !== '' });
  const on = subscribedTopics(subs.data ?? []);
  const refresh = () => qc.invalidateQueries({ queryKey: pushKey });
  const toggle = useMutation({
    mutationFn: async ({ topic, want }: { topic: Topic; want: boolean }) => {
      if (!key) throw new Error('the key is not loaded yet');
      const s = await browserSubscription(key, want);
      const token = s && tokenOf(s.toJSON());
      if (!token) throw new Error('the browser gave no subscription');
      await topicSubscription(topic, token, want ? 'subscribe' : 'unsubscribe');
      setSub(s);
      return { topic, want };
    },
    onSuccess: async ({ topic, want }) => {
      setProblem(null);
      notify.successShort(want ? `${topic}: notifications on in this browser.` : `${topic}: notifications off.`);
      await refresh();
    },
    onError: (err) => setProblem(messageOf(err)),
  });
  const stop = useMutation({
    mutationFn: async () => {
      if (!sub) return;
      await unsubscribeBrowser(sub.endpoint).catch(() => undefined);
      await sub.unsubscribe();
      setSub(null);
    },
    onSuccess: async () => {
      setProblem(null);
      notify.successShort('Notifications stopped in this browser.');
      await refresh();
    },
    onError: (err) => setProblem(messageOf(err)),
  });
  if (vapid.isError) return <p role="alert">Could not load the notification settings.</p>;
  return (
    <>
      <ul className="checklist">
        {TOPICS.map((t) => (
          <li key={t}>
            <label>
              <input
                type="checkbox"
                checked={on.has(t)}
                disabled={!key || toggle.isPending}
                onChange={(e) => toggle.mutate({ topic: t, want: e.target.checked })}
              />{' '}
              {t}
            </label>{' '}
            <span className="hint">{TOPIC_HINTS[t]}</span>
          </li>
        ))}
      </ul>
      {problem && <p role="alert">{problem}</p>}
      {sub && (
        <button type="button" onClick={() => stop.mutate()} disabled={stop.isPending}>
          Stop in this browser
        </button>
      )}
    </>
  );
}
