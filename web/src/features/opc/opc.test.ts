/**
 * The OPC screen's logic: the explorer's requests on the device stream (which answer
 * goes to which request, refusals, a dropped stream), the address space opened node by
 * node, and the binding form's checks.
 */
import type { OpcuaEvent, OpcuaNode, ServerEvent } from '@/api/generated';
import { LOST, SIGN_IN_ENDED } from '@/api/stream';
import { type FakeSocket, sockets } from '@/testing/fake-socket';

import { bindingBody, roleText, taskText } from './binding-form';
import { OpcuaExplorer, discoveryUrls } from './explorer';
import { ROOT, failed, loaded, newTree, refreshed, rows, toggle } from './tree';

/** Sends the OPC UA step `e` on `s`. */
const opc = (s: FakeSocket, e: OpcuaEvent) => s.say({ event: 'discover_devices_opcua', data: e });

function explorer() {
  const { all, connect, last } = sockets();
  const heard: ServerEvent[] = [];
  const x = new OpcuaExplorer(connect, { retryMs: [10], onEvent: (e) => heard.push(e) });
  x.start();
  return { x, all, heard, last };
}

const node = (id: string, name: string, c: OpcuaNode['node_class'] = 'object', value?: string): OpcuaNode => ({
  node_id: id,
  browse_name: `2:${name}`,
  display_name: name,
  node_class: c,
  ...(value === undefined ? {} : { value, data_type: 'String' }),
});

test('each request hears its own answer by id, and a refusal answers the oldest waiting', async () => {
  const { x, heard, last } = explorer();
  const a = x.ask(3, { op: 'discover' });
  expect(last().sent).toEqual([]); // not open yet
  last().events.open();
  const b = x.ask(3, { op: 'browse', endpoint: 'opc.tcp://plc:4840' });
  const c = x.ask(4, { op: 'read', endpoint: 'opc.tcp://plc:4840', node_id: 'ns=2;s=Part' });
  // The stream watches the organisation's devices first, then the requests go.
  expect(last().sent[0]).toEqual({ event: 'subscribe', data: {} });
  expect(last().sent.slice(1).map((f) => f.event === 'discover_devices_opcua' && f.data.device)).toEqual([3, 3, 4]);
  // The devices answer the subscribe; a sent, b refused (the server answers in order),
  // c sent; a device's status goes to the screen.
  last().say({ event: 'devices', data: [] });
  opc(last(), { type: 'sent', id: 'ra', device: 3, request: { op: 'discover' } });
  last().say({ event: 'error', data: { message: 'OPCUA Explorer is not enabled for this organization.' } });
  opc(last(), { type: 'sent', id: 'rc', device: 4, request: { op: 'read', endpoint: 'opc.tcp://plc:4840', node_id: 'ns=2;s=Part' } });
  await expect(b).rejects.toThrow('OPCUA Explorer is not enabled for this organization.');
  expect(heard).toEqual([{ event: 'devices', data: [] }]);
  // c's answer before a's: each goes to its own request.
  const part = node('ns=2;s=Part', 'Part', 'variable', 'P-7');
  opc(last(), { type: 'answer', id: 'rc', device: 4, request: { op: 'read', endpoint: 'x', node_id: 'y' }, reply: { op: 'read', endpoint: 'opc.tcp://plc:4840', node: part } });
  await expect(c).resolves.toEqual({ op: 'read', endpoint: 'opc.tcp://plc:4840', node: part });
  opc(last(), { type: 'failed', id: 'ra', device: 3, request: { op: 'discover' }, message: 'The device did not answer in time.' });
  await expect(a).rejects.toThrow('did not answer');
  // An answer to nothing of ours is passed over.
  opc(last(), { type: 'answer', id: 'other', device: 3, request: { op: 'discover' }, reply: { op: 'discover', servers: [], connections: [] } });
  x.stop();
});

test('a dropped stream fails what waits on it and opens again; 4401 does not, and later asks fail', async () => {
  const { x, all, last } = explorer();
  last().events.open();
  last().say({ event: 'devices', data: [] });
  const a = x.ask(3, { op: 'discover' });
  const b = x.ask(3, { op: 'discover' });
  opc(last(), { type: 'sent', id: 'ra', device: 3, request: { op: 'discover' } });
  last().events.closed(1006);
  await expect(a).rejects.toThrow(LOST);
  await expect(b).rejects.toThrow(LOST);
  await vi.waitFor(() => expect(all).toHaveLength(2));
  last().events.open();
  last().say({ event: 'devices', data: [] });
  const c = x.ask(3, { op: 'discover' });
  opc(last(), { type: 'sent', id: 'rc', device: 3, request: { op: 'discover' } });
  const servers = [{ endpoint: 'opc.tcp://plc:4840', application_name: 'PLC', application_uri: 'urn:plc', found_at: 'opc.tcp://plc:4840' }];
  opc(last(), { type: 'answer', id: 'rc', device: 3, request: { op: 'discover' }, reply: { op: 'discover', servers, connections: [] } });
  await expect(c).resolves.toMatchObject({ op: 'discover', servers });
  last().events.closed(4401);
  await new Promise((r) => setTimeout(r, 30));
  expect(all).toHaveLength(2);
  await expect(x.ask(3, { op: 'discover' })).rejects.toThrow(SIGN_IN_ENDED);
});

test('the address space opens node by node, loads each once, and does not loop', () => {
  let t = newTree('opc.tcp://plc:4840');
  expect(t.branches[ROOT]).toEqual({ state: 'loading' });
  const line = node('ns=2;s=Line1', 'Line1');
  const part = node('ns=2;s=Line1.Part', 'Part', 'variable', 'P-1');
  const start = node('ns=2;s=Line1.Start', 'Start', 'method');
  t = loaded(t, ROOT, [line], false);
  expect(rows(t).map((r) => [r.node.display_name, r.depth, r.open, r.expandable])).toEqual([['Line1', 0, false, true]]);
  let step = toggle(t, line.node_id);
  expect(step.load).toBe(true);
  t = step.tree;
  expect(rows(t)[0]?.branch).toEqual({ state: 'loading' });
  // Line1 lists itself among its children (a loop): shown, not opened inside itself.
  t = loaded(t, line.node_id, [part, start, line], false);
  expect(rows(t).map((r) => [r.node.display_name, r.depth, r.expandable])).toEqual([
    ['Line1', 0, true],
    ['Part', 1, true],
    ['Start', 1, false],
    ['Line1', 1, false],
  ]);
  // Closed and opened again: not asked for again.
  t = toggle(t, line.node_id).tree;
  expect(rows(t)).toHaveLength(1);
  step = toggle(t, line.node_id);
  expect(step.load).toBe(false);
  t = step.tree;
  // A value read again shows wherever the node is listed.
  t = refreshed(t, { ...part, value: 'P-2' });
  expect(rows(t)[1]?.node.value).toBe('P-2');
  // A failed branch is asked for again when opened again.
  step = toggle(t, part.node_id);
  t = failed(step.tree, part.node_id, 'BadNodeIdUnknown');
  expect(rows(t)[1]?.branch).toEqual({ state: 'failed', message: 'BadNodeIdUnknown' });
  t = toggle(t, part.node_id).tree;
  expect(toggle(t, part.node_id).load).toBe(true);
});

test('a binding needs a camera and a role, a metadata key for metadata; it reads in words', () => {
  const ep = 'opc.tcp://plc:4840';
  expect(bindingBody(ep, 'i=1', { camera: '', task: '', role: '', key: '' }).errors).toEqual({
    camera: 'Camera is required!',
    role: 'Role is required!',
  });
  expect(bindingBody(ep, 'i=1', { camera: 'cam0', task: '', role: 'metadata', key: '  ' }).errors).toEqual({ key: 'Metadata key is required!' });
  expect(bindingBody(ep, 'i=1', { camera: 'cam0', task: '', role: 'metadata', key: 'k'.repeat(101) }).errors?.key).toContain('at most 100');
  expect(bindingBody(ep, 'ns=2;s=Part', { camera: 'cam0', task: '7', role: 'metadata', key: ' part ' }).body).toEqual({
    endpoint: ep,
    node_id: 'ns=2;s=Part',
    camera: 'cam0',
    task: 7,
    role: 'metadata',
    key: 'part',
  });
  // A key typed before switching to another role is not sent.
  expect(bindingBody(ep, 'i=1', { camera: 'cam0', task: '', role: 'start_cycle', key: 'x' }).body).toMatchObject({ task: null, role: 'start_cycle', key: null });
  expect(roleText({ role: 'metadata', key: 'part' })).toBe('Metadata part');
  expect(roleText({ role: 'end_cycle', key: null })).toBe('End cycle');
  expect(taskText({ task: null, task_name: null })).toBe('Any task');
  expect(taskText({ task: 4, task_name: null })).toBe('Task 4 (deleted)');
  expect(discoveryUrls(' opc.tcp://a:4840, opc.tcp://b:4841\nopc.tcp://c ')).toEqual(['opc.tcp://a:4840', 'opc.tcp://b:4841', 'opc.tcp://c']);
});
