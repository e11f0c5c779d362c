/**
 * Event notifications (spec section 7 `feature_control/event_notifications`): who is
 * e-mailed when an event happens in an organisation. The event types are those of
 * `gemba_shared::validate::EVENT_TYPES`: the spec's 'Task Update', and 'Device Health'
 * (issue 30: a camera offline, frozen frames, the disk low, …).
 */
import { queryOptions } from '@tanstack/react-query';

import type { EventNotification, EventNotificationCreate, EventNotificationPatch } from '@/api/generated';
import { api } from '@/lib/api-client';

export const EVENT_TYPES = ['Task Update', 'Device Health'] as const;

export const eventNotificationsKey = ['event-notifications'] as const;

export const eventNotificationsQuery = () =>
  queryOptions({
    queryKey: [...eventNotificationsKey],
    queryFn: () => api.get<EventNotification[]>('feature_control/event_notifications'),
  });

export const createEventNotification = (body: EventNotificationCreate) =>
  api.post<EventNotification>('feature_control/event_notifications', body);

/** Changes a notification's event type or recipients (its organisation stays). */
export const updateEventNotification = (id: number, body: EventNotificationPatch) =>
  api.patch<EventNotification>(`feature_control/event_notification/${id}`, body);

export const deleteEventNotification = (id: number) => api.delete<unknown>(`feature_control/event_notification/${id}`);

/** The recipients typed, one per line or comma: trimmed, blanks dropped. */
export const recipientsOf = (text: string) =>
  text
    .split(/[\n,;]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
