/**
 * The issue center's calls: a range's bad cycles grouped by operation and reason
 * (`telemetry/issues`), and reviewing an issue's open cycles (`telemetry/issues/review`).
 */
import { queryOptions } from '@tanstack/react-query';

import type { BadReason, DeviceEvent, Issue, IssueCenter, Reviewed } from '@/api/generated';
import { cyclesKey } from '@/api/device-stream';
import { reasonText } from '@/components/cycles/recent-cycles';
import { api } from '@/lib/api-client';

import { type StatsParams, statsQueryString } from './cycle-stats';

export const issuesQuery = (org: number, p: StatsParams) => {
  const query = statsQueryString({ ...p, cycleFilter: undefined });
  return queryOptions({
    queryKey: [...cyclesKey, 'issues', org, query],
    queryFn: () => api.get<IssueCenter>('telemetry/issues', { query }),
    staleTime: 0,
    refetchInterval: 30_000,
  });
};

export const reviewIssue = (issue: Issue, p: StatsParams, note: string) =>
  api.post<Reviewed>('telemetry/issues/review', {
    task: issue.task,
    key: issue.key,
    device: p.device ?? null,
    datetime_start: p.start.toISOString(),
    datetime_end: p.end.toISOString(),
    note,
  });

/** An issue in words: "Missed Check seal", "Too long", "Marked bad by a person". */
export function issueText(i: Issue): string {
  if (i.reason === 'marked_bad') return 'Marked bad by a person';
  const steps: string[] = [];
  if (i.step !== null) steps[i.step] = i.step_name ?? `Step ${i.step + 1}`;
  return reasonText({ reason: i.reason, step: i.step ?? 0 } as BadReason, steps);
}

/**
 * The organisation's device health events overlapping a range (a camera offline, frozen
 * frames, the disk low, …; issue 30), open ones first: `telemetry/device_events`.
 */
export const deviceEventsQuery = (org: number, start: Date, end: Date) =>
  queryOptions({
    queryKey: ['device-events', org, start.toISOString(), end.toISOString()],
    queryFn: () =>
      api.get<DeviceEvent[]>('telemetry/device_events', {
        query: { datetime_start: start.toISOString(), datetime_end: end.toISOString() },
      }),
    staleTime: 0,
    refetchInterval: 30_000,
  });
