/**
 * Lines (`telemetry/trace/line/`): an organisation's production lines, each an ordered
 * set of stations (an operation on a device) with a takt time; a line's figures over a
 * range (`telemetry/line_stats`) and a part traced along it
 * (`telemetry/trace/line_traceability/`). The line figures and traces read cycles, so
 * they share the cycles' key and follow the device stream.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Device, Line, LineBody, LineStats, LineTrace, Task } from '@/api/generated';
import { cyclesKey } from '@/api/device-stream';
import { api } from '@/lib/api-client';

export const linesKey = ['lines'] as const;

export const linesQuery = () =>
  queryOptions({
    queryKey: [...linesKey, 'list'],
    queryFn: () => api.get<Line[]>('telemetry/trace/line/'),
    staleTime: 0,
  });

export const createLine = (body: LineBody) => api.post<Line>('telemetry/trace/line/', body);
export const patchLine = (id: number, body: LineBody) => api.patch<Line>(`telemetry/trace/line/${id}`, body);
export const deleteLine = (id: number) => api.delete<void>(`telemetry/trace/line/${id}`);

export const lineStatsQuery = (line: number, start: Date, end: Date) => {
  const query = { line, datetime_start: start.toISOString(), datetime_end: end.toISOString() };
  return queryOptions({
    queryKey: [...cyclesKey, 'line-stats', query],
    queryFn: () => api.get<LineStats>('telemetry/line_stats', { query }),
    staleTime: 0,
    refetchInterval: 30_000,
  });
};

/** How a part is followed along a line: by the line's times, or by its barcode. */
export type TraceBy = 'time' | 'barcode';

export const lineTraceQuery = (line: number, cycle: string, by: TraceBy = 'time') =>
  queryOptions({
    queryKey: [...cyclesKey, 'line-trace', line, cycle, by],
    queryFn: () => api.get<LineTrace>('telemetry/trace/line_traceability/', { query: { line, cycle_id: cycle, by } }),
    staleTime: 0,
  });

/** What a station may be: the organisation's operations and devices. */
export const taskChoicesQuery = () =>
  queryOptions({
    queryKey: [...linesKey, 'tasks'],
    queryFn: () => api.get<Task[]>('organization/task/'),
  });

export const deviceChoicesQuery = (org: number) =>
  queryOptions({
    queryKey: [...linesKey, 'devices', org],
    queryFn: () => api.get<Device[]>(`device/device_org/${org}/`),
  });

/** A station in words: "Assemble pump on Bench 3". */
export const stationText = (s: { task: number; task_name: string | null; device: number; device_name: string | null }) =>
  `${s.task_name ?? `Operation ${s.task}`} on ${s.device_name ?? `Device ${s.device}`}`;
