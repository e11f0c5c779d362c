import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import type { EventNotification } from '@/api/generated';
import { allOrganizationsQuery } from '@/api/organizations';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { DATA_CREATED, DATA_DELETED, DATA_UPDATED } from '@/config/messages';
import { errorMessage, fieldErrors } from '@/lib/api-errors';
import { email } from '@/lib/validate';
import { notify } from '@/lib/toast';

import {
  EVENT_TYPES,
  createEventNotification,
  deleteEventNotification,
  updateEventNotification,
  eventNotificationsKey,
  eventNotificationsQuery,
  recipientsOf,
} from '../api/event-notifications';

/** What is wrong with the form, or null: an organisation, 1 to 50 valid addresses. */
export function formProblem(org: string, recipients: string[]): string | null {
  if (org === '') return 'Choose an organization.';
  return recipientsProblem(recipients);
}

/** What is wrong with a list of recipients, or null: 1 to 50 valid addresses. */
export function recipientsProblem(recipients: string[]): string | null {
  if (recipients.length === 0) return 'Add at least one recipient.';
  if (recipients.length > 50) return 'At most 50 recipients.';
  const bad = recipients.find((r) => email('Recipients', r) !== null);
  return bad !== undefined ? `${bad} is not a valid e-mail address.` : null;
}

/**
 * `/admin/event-notification` (super admin): who is e-mailed when an event happens in an
 * organisation: 'Task Update' (a task's steps changed) or 'Device Health' (issue 30: a
 * camera offline, frozen frames, the disk low, …). The list (Event, Recipients,
 * Organization, Actions), adding one (checked before sending; one per organisation and
 * event, the server's refusal shown), changing one's recipients in place (Edit, then
 * Save or Cancel; checked before sending, the server's refusal shown under them),
 * deleting one (confirmed).
 */
export default function EventNotificationsScreen() {
  const qc = useQueryClient();
  const q = useQuery(eventNotificationsQuery());
  const orgs = useQuery(allOrganizationsQuery());
  const [eventType, setEventType] = useState<string>(EVENT_TYPES[0]);
  const [org, setOrg] = useState('');
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<EventNotification | null>(null);
  const [editing, setEditing] = useState<{ id: number; text: string; problem: string | null } | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: eventNotificationsKey });
  const create = useMutation({
    mutationFn: () =>
      createEventNotification({ event_type: eventType, recipients: recipientsOf(text), Organization: Number(org) }),
    onSuccess: async () => {
      notify.successShort(DATA_CREATED);
      setText('');
      await refresh();
    },
    onError: (err) => notify.failure(err, 'post'),
  });
  const save = useMutation({
    mutationFn: (e: { id: number; recipients: string[] }) => updateEventNotification(e.id, { recipients: e.recipients }),
    onSuccess: async () => {
      notify.successShort(DATA_UPDATED);
      setEditing(null);
      await refresh();
    },
    onError: (err) => {
      const message = fieldErrors(err).recipients ?? errorMessage(err, 'post');
      setEditing((e) => (e ? { ...e, problem: message } : e));
    },
  });
  const startEdit = (n: EventNotification) => {
    save.reset();
    setEditing({ id: n.id, text: n.recipients.join('\n'), problem: null });
  };
  const remove = useMutation({
    mutationFn: (n: EventNotification) => deleteEventNotification(n.id),
    onSuccess: async () => {
      notify.successShort(DATA_DELETED);
      setDeleting(null);
      await refresh();
    },
    onError: (err) => notify.failure(err, 'delete'),
  });

  return (
    <section>
      <div className="screen-header">
        <h1>Event Notification</h1>
      </div>
      <form
        aria-label="Add event notification"
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          const p = formProblem(org, recipientsOf(text));
          setProblem(p);
          if (p === null) create.mutate();
        }}
      >
        <label>
          Event{' '}
          <select aria-label="Event" value={eventType} onChange={(e) => setEventType(e.target.value)}>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Organization{' '}
          <select aria-label="Organization" value={org} onChange={(e) => setOrg(e.target.value)}>
            <option value="">Choose…</option>
            {(orgs.data ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.org_name_to_display || o.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Recipients{' '}
          <textarea aria-label="Recipients" value={text} placeholder="one e-mail address a line" onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit" disabled={create.isPending}>
          Add
        </button>
        {problem !== null ? <p role="alert">{problem}</p> : null}
      </form>
      <DataTable
        label="Event notifications"
        query={{ isPending: q.isPending, error: q.error, data: q.data }}
        empty={<EmptyState title="No event notifications yet." />}
        columns={['Event', 'Recipients', 'Organization', 'Actions']}
        row={(n) => {
          const named = `${n.event_type} of ${n.organization_name}`;
          if (editing?.id === n.id) {
            const submit = () => {
              const recipients = recipientsOf(editing.text);
              const p = recipientsProblem(recipients);
              if (p !== null) setEditing({ ...editing, problem: p });
              else save.mutate({ id: n.id, recipients });
            };
            return (
              <tr key={n.id}>
                <td>{n.event_type}</td>
                <td>
                  <textarea
                    aria-label={`Recipients of ${named}`}
                    aria-invalid={editing.problem !== null ? true : undefined}
                    value={editing.text}
                    placeholder="one e-mail address a line"
                    onChange={(e) => setEditing({ ...editing, text: e.target.value })}
                  />
                  {editing.problem !== null ? (
                    <p className="field-error" role="alert">
                      {editing.problem}
                    </p>
                  ) : null}
                </td>
                <td>{n.organization_name}</td>
                <td className="actions">
                  <button type="button" disabled={save.isPending} aria-label={`Save recipients of ${named}`} onClick={submit}>
                    Save
                  </button>{' '}
                  <button type="button" className="secondary" onClick={() => setEditing(null)}>
                    Cancel
                  </button>
                </td>
              </tr>
            );
          }
          return (
            <tr key={n.id}>
              <td>{n.event_type}</td>
              <td>{n.recipients.join(', ')}</td>
              <td>{n.organization_name}</td>
              <td className="actions">
                <button type="button" className="secondary" aria-label={`Edit recipients of ${named}`} onClick={() => startEdit(n)}>
                  Edit
                </button>{' '}
                <button type="button" className="danger" aria-label={`Delete ${named}`} onClick={() => setDeleting(n)}>
                  Delete
                </button>
              </td>
            </tr>
          );
        }}
      />
      {deleting ? (
        <ConfirmDialog
          title="Delete event notification"
          confirmLabel="Delete"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
        >
          No more {deleting.event_type} mails for {deleting.organization_name}?
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
