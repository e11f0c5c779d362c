/**
 * The Kaizen assistant (`POST organization/assistant/`; the organisation's documents at
 * `organization/assistant/documents/`): a question in one of the spec's modes (section
 * 8), answered from the organisation's own cycles, each figure linking to the cycles
 * behind it. The answers read cycles, so they are not cached.
 */
import { queryOptions } from '@tanstack/react-query';

import type { AssistantAnswer, AssistantAsk, AssistantDocument, Line } from '@/api/generated';
import { api } from '@/lib/api-client';

/** The spec's modes (section 8), by the name the call takes. */
export const MODES = [
  { value: 'station_performance', label: 'Station Performance (single time period)' },
  { value: 'station_comparison', label: 'Station Performance (comparison of two time periods)' },
  { value: 'line_performance', label: 'Line Performance' },
  { value: 'ergonomics', label: 'Ergonomics' },
  { value: 'iot_infrastructure', label: 'IoT Infrastructure' },
  { value: 'rag', label: 'Retrieval-Augmented Generation' },
] as const;

export type Mode = (typeof MODES)[number]['value'];

/** The beta-model notice (the server's `BETA_NOTICE`, which every answer carries too). */
export const BETA_NOTICE =
  "Beta: the assistant's models are in beta and can be incomplete or wrong. Every figure links to the cycles behind it: check them before acting.";

export const askAssistant = (body: AssistantAsk) => api.post<AssistantAnswer>('organization/assistant/', body);

/** The organisation's lines, for Line Performance's choice. */
export const lineChoicesQuery = () =>
  queryOptions({
    queryKey: ['assistant', 'lines'],
    queryFn: () => api.get<Line[]>('telemetry/trace/line/'),
  });

export const documentsKey = ['assistant', 'documents'] as const;

export const documentsQuery = () =>
  queryOptions({
    queryKey: documentsKey,
    queryFn: () => api.get<AssistantDocument[]>('organization/assistant/documents/'),
  });

/** Adds a manual or SOP (.docx, .pdf or text), the file as the body. */
export const uploadDocument = (file: File) =>
  api.post<AssistantDocument>('organization/assistant/documents/', file, { query: { name: file.name } });

export const deleteDocument = (id: number) => api.delete<void>(`organization/assistant/documents/${id}/`);
