/**
 * A device's OPC UA node bindings (`device/{id}/opcua_bindings/`, our paths: the spec
 * names none): the list, binding a node, removing a binding. Changes invalidate
 * `bindingsKey(device)`.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Msg, OpcuaBindingCreate, OpcuaBindingRecord } from '@/api/generated';
import { api } from '@/lib/api-client';

export const bindingsKey = (device: number) => ['opcua-bindings', device] as const;

/** The bindings of `device`, oldest first. */
export const bindingsQuery = (device: number) =>
  queryOptions({
    queryKey: bindingsKey(device),
    queryFn: () => api.get<OpcuaBindingRecord[]>(`device/${device}/opcua_bindings/`),
    staleTime: 0,
  });

export const createBinding = (device: number, body: OpcuaBindingCreate) =>
  api.post<OpcuaBindingRecord>(`device/${device}/opcua_bindings/`, body);

export const deleteBinding = (device: number, id: number) => api.delete<Msg>(`device/${device}/opcua_bindings/${id}/`);
