/*
 * The portal's service worker for Web Push (issue 31): the cloud sends each push
 * message (RFC 8291, encrypted to this browser's subscription) when an event
 * notification that names the signed-in user fires; the browser decrypts it and hands
 * it here as JSON (`gemba_shared::api::v1::push::PushMessage`: topic, title, body,
 * organization), shown as a notification. A click opens the portal.
 * Served from the portal's root (web/public → dist/), so its scope is the whole portal.
 */
self.addEventListener('push', (event) => {
  let m = { title: 'gemba', body: '', topic: '' };
  try {
    m = { ...m, ...(event.data ? event.data.json() : {}) };
  } catch {
    m.body = event.data ? event.data.text() : '';
  }
  event.waitUntil(
    self.registration.showNotification(m.title, { body: m.body, tag: m.topic || undefined, data: m }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((all) => {
      const open = all.find((c) => 'focus' in c);
      return open ? open.focus() : self.clients.openWindow('/');
    }),
  );
});
