import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';

import type { Device, OpcuaServer } from '@/api/generated';
import { browserConnect } from '@/api/browser-socket';
import { applyStreamEvent } from '@/api/device-stream';
import { deviceListQuery } from '@/api/devices';
import type { StreamState } from '@/api/stream';
import { ScreenHeader } from '@/components/ui/screen-header';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { StreamBadge } from '@/components/ui/stream-badge';
import { errorMessage } from '@/lib/api-errors';
import { can } from '@/lib/access/roles';
import { useSession } from '@/lib/session';

import { OpcuaExplorer, discoveryUrls } from '../explorer';
import { AddressSpace } from './address-space';
import { Bindings } from './bindings';

/**
 * OPC (`/user/opc`, the 'OPCUA Explorer' subscription): a device of the organisation
 * finds the OPC UA servers it reaches, browses their address space (opened node by
 * node) and reads variables, over the device stream; a node is bound to one of the
 * device's cameras to start or end its cycles or to put its value on their metadata.
 * The requests go to the device and back, so a device must be online.
 */
export default function OpcScreen() {
  const s = useSession();
  const org = s.organization;
  const devices = useQuery({ ...deviceListQuery(org ?? 0), enabled: org !== null });
  const [deviceId, setDeviceId] = useState<number | null>(null);
  const [state, setState] = useState<StreamState>('connecting');
  const qc = useQueryClient();
  // One stream for the screen: the explorer's requests, and the devices' status (into
  // the cached device list, so a device coming online shows at once).
  const explorer = useMemo(
    () => (org === null ? null : new OpcuaExplorer(browserConnect(org), { onState: setState, onEvent: (e) => applyStreamEvent(qc, e) })),
    [org, qc],
  );
  useEffect(() => {
    if (!explorer) return;
    explorer.start();
    return () => explorer.stop();
  }, [explorer]);

  const enrolled = (devices.data ?? []).filter((d) => d.enrolled && !d.is_archived);
  const device = enrolled.find((d) => d.id === deviceId) ?? null;
  const editable = s.role !== null && can(s.role, 'ExploreOpcua');

  return (
    <section>
      <ScreenHeader title="OPC">
        <StreamBadge state={state} />
      </ScreenHeader>
      <p className="muted">Find the OPC UA servers a device reaches, browse their nodes, and bind a node to a camera's cycles.</p>
      <SelectField
        label="Device"
        value={deviceId ?? ''}
        disabled={!devices.data}
        onChange={(e) => setDeviceId(e.target.value === '' ? null : Number(e.target.value))}
      >
        <option value="">{devices.data && enrolled.length === 0 ? 'No enrolled device yet' : 'Choose a device'}</option>
        {enrolled.map((d) => (
          <option key={d.id} value={d.id}>
            {d.display_name}
            {d.online ? '' : ' (offline)'}
          </option>
        ))}
      </SelectField>
      {devices.error ? <FormError message={`Devices could not be loaded: ${errorMessage(devices.error, 'account')}`} /> : null}
      {device && explorer ? <DeviceExplorer key={device.id} device={device} explorer={explorer} editable={editable} /> : null}
    </section>
  );
}

type Discovery = { state: 'idle' } | { state: 'busy' } | { state: 'done'; servers: OpcuaServer[] } | { state: 'failed'; message: string };

/** One device's servers, address space and bindings. */
function DeviceExplorer({ device, explorer, editable }: { device: Device; explorer: OpcuaExplorer; editable: boolean }) {
  const [urls, setUrls] = useState('');
  const [discovery, setDiscovery] = useState<Discovery>({ state: 'idle' });
  const [endpoint, setEndpoint] = useState('');
  // The endpoint browsed, and how many times Browse was pressed (pressed again, the
  // tree is read anew).
  const [browsing, setBrowsing] = useState<{ url: string; n: number } | null>(null);

  async function discover(e: React.FormEvent) {
    e.preventDefault();
    setDiscovery({ state: 'busy' });
    try {
      const typed = discoveryUrls(urls);
      const reply = await explorer.ask(device.id, typed.length > 0 ? { op: 'discover', urls: typed } : { op: 'discover' });
      setDiscovery(reply.op === 'discover' ? { state: 'done', servers: reply.servers } : { state: 'failed', message: 'The device answered something else.' });
    } catch (err) {
      setDiscovery({ state: 'failed', message: (err as Error).message });
    }
  }

  function browse(url: string) {
    setEndpoint(url);
    setBrowsing((b) => ({ url: url.trim(), n: (b?.n ?? 0) + 1 }));
  }

  return (
    <>
      {device.online ? null : (
        <p role="status" className="warning">
          {device.display_name} is offline: it can discover and browse once it is online.
        </p>
      )}
      <div className="section">
        <h2>Servers</h2>
        <form className="inline-form" onSubmit={(e) => void discover(e)} noValidate>
          <Field label="Also ask at (opc.tcp:// URLs, optional)" value={urls} onChange={(e) => setUrls(e.target.value)} placeholder="opc.tcp://192.168.1.20:4840" />
          <button type="submit" disabled={!device.online || discovery.state === 'busy'}>
            {discovery.state === 'busy' ? 'Discovering…' : 'Discover servers'}
          </button>
        </form>
        {discovery.state === 'failed' ? <FormError message={`Discovery failed: ${discovery.message}`} /> : null}
        {discovery.state === 'done' ? (
          discovery.servers.length === 0 ? (
            <p className="muted">No OPC UA server answered.</p>
          ) : (
            <table className="data-table" aria-label="Servers found">
              <thead>
                <tr>
                  <th scope="col">Server</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {discovery.servers.map((sv) => (
                  <tr key={sv.endpoint}>
                    <td>{sv.application_name || sv.application_uri}</td>
                    <td>{sv.endpoint}</td>
                    <td className="actions">
                      <button type="button" className="secondary small" onClick={() => browse(sv.endpoint)}>
                        Browse {sv.application_name || sv.endpoint}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        ) : null}
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            browse(endpoint);
          }}
          noValidate
        >
          <Field label="Endpoint" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} placeholder="opc.tcp://host:4840" />
          <button type="submit" className="secondary" disabled={!device.online || endpoint.trim() === ''}>
            Browse
          </button>
        </form>
      </div>
      {browsing ? (
        <AddressSpace key={`${browsing.url}#${browsing.n}`} device={device} endpoint={browsing.url} explorer={explorer} editable={editable} />
      ) : null}
      <Bindings device={device} editable={editable} />
    </>
  );
}
