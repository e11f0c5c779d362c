/**
 * Barcodes (spec section 7 "Barcodes"): an organisation's barcode values, each starting
 * at most one of its operations when a camera reads it. `account/barcode/{id}` lists
 * (GET) and makes up (POST) barcodes of organisation `{id}`, and deletes (DELETE)
 * barcode `{id}` (docs/decisions.md "Barcodes").
 */
import { queryOptions } from '@tanstack/react-query';

import type { AssociatedBarcode, Barcode, Msg, Page, Task } from '@/api/generated';
import { api } from '@/lib/api-client';

export const barcodesKey = ['barcodes'] as const;

export const barcodesQuery = (org: number) =>
  queryOptions({
    queryKey: [...barcodesKey, org],
    queryFn: () => api.get<Barcode[]>(`account/barcode/${org}`),
  });

/** A barcode of `org` with a value the server makes up. */
export const generateBarcode = (org: number) => api.post<Barcode>(`account/barcode/${org}`, {});

export const createCustomBarcode = (org: number, barcode_value: string) =>
  api.put<Barcode>('account/create_custom_barcode/', { barcode_value, organization: org });

export const updateBarcodeValue = (id: number, barcode_value: string) =>
  api.patch<Barcode>('account/update_barcode_value/', { id, barcode_value });

export const deleteBarcode = (id: number) => api.delete<Msg>(`account/barcode/${id}`);

export const associateBarcode = (task: number, barcode_id: number) =>
  api.post<AssociatedBarcode>('account/associate_barcode/', { task, barcode_id });

export const removeAssociation = (id: number) => api.delete<Msg>(`account/associate_barcode/${id}/`);

/** Organisation `org`'s operations whose name holds `search`: the first page (10). */
export const orgTasksQuery = (org: number, search: string) =>
  queryOptions({
    queryKey: ['barcode-tasks', org, search],
    queryFn: () =>
      api.get<Page<Task>>(
        `organization/tasks/admin?organization=${org}${search ? `&search=${encodeURIComponent(search)}` : ''}`,
      ),
  });
