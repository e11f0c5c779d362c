import { useEffect, useState } from 'react';

import type { Device, OpcuaNode } from '@/api/generated';
import { FormError } from '@/components/ui/field';

import type { OpcuaExplorer } from '../explorer';
import { ROOT, type Tree, failed, loaded, newTree, refreshed, rows, toggle } from '../tree';
import { BindForm } from './bindings';

/**
 * The address space of the server at `endpoint`, as `device` sees it: the Objects
 * folder's children first, a node's children asked for when it is opened. Choosing a
 * node shows it (a variable's type and value, read again on demand) and, for those
 * who may, the form binding it to a camera.
 */
export function AddressSpace({ device, endpoint, explorer, editable }: { device: Device; endpoint: string; explorer: OpcuaExplorer; editable: boolean }) {
  const [tree, setTree] = useState<Tree>(() => newTree(endpoint));
  const [chosen, setChosen] = useState<OpcuaNode | null>(null);
  const [reading, setReading] = useState(false);
  const [readError, setReadError] = useState<string | null>(null);

  const load = (id: string) => {
    const request = id === ROOT ? { op: 'browse' as const, endpoint } : { op: 'browse' as const, endpoint, node_id: id };
    explorer.ask(device.id, request).then(
      (reply) => {
        if (reply.op === 'browse') setTree((t) => loaded(t, id, reply.nodes, reply.truncated));
        else setTree((t) => failed(t, id, 'The device answered something else.'));
      },
      (err: unknown) => setTree((t) => failed(t, id, (err as Error).message)),
    );
  };

  // The root, once (the component is made anew for another endpoint).
  useEffect(() => {
    load(ROOT);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const open = (id: string) => {
    const next = toggle(tree, id);
    setTree(next.tree);
    if (next.load) load(id);
  };

  const read = (node: OpcuaNode) => {
    setReading(true);
    setReadError(null);
    explorer.ask(device.id, { op: 'read', endpoint, node_id: node.node_id }).then(
      (reply) => {
        setReading(false);
        if (reply.op !== 'read') return;
        setChosen((c) => (c?.node_id === reply.node.node_id ? reply.node : c));
        setTree((t) => refreshed(t, reply.node));
      },
      (err: unknown) => {
        setReading(false);
        setReadError((err as Error).message);
      },
    );
  };

  const root = tree.branches[ROOT];
  const shown = rows(tree);

  return (
    <div className="section">
      <h2>Address space of {endpoint}</h2>
      {root?.state === 'loading' ? <p className="muted">Browsing…</p> : null}
      {root?.state === 'failed' ? <FormError message={`Browsing failed: ${root.message}`} /> : null}
      {root?.state === 'loaded' && root.nodes.length === 0 ? <p className="muted">The Objects folder is empty.</p> : null}
      {shown.length > 0 ? (
        <ul className="plain-list opc-tree" aria-label={`Nodes of ${endpoint}`}>
          {shown.map((r, i) => (
            <li key={`${r.node.node_id}@${i}`} style={{ paddingInlineStart: `${r.depth * 1.25}rem` }}>
              {r.expandable ? (
                <button type="button" className="icon-button" aria-expanded={r.open} aria-label={`${r.open ? 'Close' : 'Open'} ${r.node.display_name}`} onClick={() => open(r.node.node_id)}>
                  {r.open ? '▾' : '▸'}
                </button>
              ) : (
                <span className="icon-button" aria-hidden="true">
                  ·
                </span>
              )}{' '}
              <button type="button" className="link-button" aria-pressed={chosen?.node_id === r.node.node_id} onClick={() => setChosen(r.node)}>
                {r.node.display_name}
              </button>{' '}
              <span className="muted">
                {r.node.node_class}
                {r.node.value !== undefined ? ` = ${r.node.value}` : ''}
              </span>
              {r.branch?.state === 'loading' ? <span className="muted"> Browsing…</span> : null}
              {r.branch?.state === 'failed' ? <span className="field-error"> {r.branch.message}</span> : null}
              {r.branch?.state === 'loaded' && r.branch.nodes.length === 0 ? <span className="muted"> (no children)</span> : null}
              {r.branch?.state === 'loaded' && r.branch.truncated ? <span className="muted"> (more children than one answer holds)</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {root?.state === 'loaded' && root.truncated ? <p className="muted">More nodes than one answer holds: the first are shown.</p> : null}
      {chosen ? (
        <div className="section" aria-label="Chosen node">
          <h3 className="form-title">{chosen.display_name}</h3>
          <dl className="facts">
            <dt>Node id</dt>
            <dd>{chosen.node_id}</dd>
            <dt>Browse name</dt>
            <dd>{chosen.browse_name}</dd>
            <dt>Class</dt>
            <dd>{chosen.node_class}</dd>
            {chosen.node_class === 'variable' ? (
              <>
                <dt>Data type</dt>
                <dd>{chosen.data_type ?? '—'}</dd>
                <dt>Value</dt>
                <dd aria-label="Value">{chosen.value ?? '—'}</dd>
                {chosen.status ? (
                  <>
                    <dt>Status</dt>
                    <dd>{chosen.status}</dd>
                  </>
                ) : null}
              </>
            ) : null}
          </dl>
          {chosen.node_class === 'variable' ? (
            <button type="button" className="secondary small" disabled={reading || !device.online} onClick={() => read(chosen)}>
              {reading ? 'Reading…' : 'Read value'}
            </button>
          ) : null}
          {readError ? <FormError message={`Reading failed: ${readError}`} /> : null}
          {editable ? <BindForm key={chosen.node_id} device={device} endpoint={endpoint} node={chosen} /> : null}
        </div>
      ) : null}
    </div>
  );
}
