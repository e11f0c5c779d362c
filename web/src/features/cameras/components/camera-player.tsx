import { useRef, useState } from 'react';

import type { CameraStatus, Device } from '@/api/generated';
import type { LiveSignalling } from '@/api/live-view';
import { useLiveVideo } from '@/api/use-live-view';
import { Dialog } from '@/components/ui/dialog';

import { BlurEditor } from './blur-editor';
import { cameraText, cameraTitle, liveClass, liveText } from './live-bits';
import { Screenshots } from './screenshots';

const VIEWS = { live: 'Live', blur: 'Blur regions', shots: 'Screenshots' } as const;
type View = keyof typeof VIEWS;

/**
 * The full-screen player: one camera large, with its own session (the device encodes
 * once for the tile and this), the viewer's state and what the camera does; the
 * browser's full screen on request. Beside the live picture, the camera's blur regions
 * (`editable`: changed there too) and its screenshots; the live session ends while
 * either is shown.
 */
export function CameraPlayer({
  signal,
  device,
  camera,
  editable,
  onClose,
}: {
  signal: LiveSignalling | null;
  device: Device;
  camera: CameraStatus;
  editable: boolean;
  onClose: () => void;
}) {
  const title = cameraTitle(camera.camera, device);
  const [view, setView] = useState<View>('live');
  return (
    <Dialog title={title} onClose={onClose} className="camera-player">
      <div className="view-switch" role="group" aria-label="View">
        {(Object.keys(VIEWS) as View[]).map((v) => (
          <button key={v} type="button" className="secondary small" aria-pressed={view === v} onClick={() => setView(v)}>
            {VIEWS[v]}
          </button>
        ))}
      </div>
      {view === 'live' ? <LiveView signal={signal} device={device} camera={camera} title={title} /> : null}
      {view === 'blur' ? <BlurEditor device={device} camera={camera.camera} editable={editable} /> : null}
      {view === 'shots' ? <Screenshots device={device} camera={camera.camera} /> : null}
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}

/** The live picture large, the viewer's state, what the camera does. */
function LiveView({ signal, device, camera, title }: { signal: LiveSignalling | null; device: Device; camera: CameraStatus; title: string }) {
  const { ref, state } = useLiveVideo(signal, device.id, camera.camera, device.online);
  const frame = useRef<HTMLDivElement>(null);
  return (
    <>
      <div ref={frame} className="camera-frame camera-frame-large">
        <video ref={ref} muted autoPlay playsInline aria-label={`Live video of ${title}, full screen`} />
      </div>
      <p className={liveClass(state)} role="status" aria-label="Live video state">
        {liveText(state)}
      </p>
      <p>{cameraText(camera, device)}</p>
      <p className="muted">
        {camera.fps > 0 ? `${camera.fps.toFixed(1)} frames per second for its task. ` : ''}
        {device.online ? 'The device is online.' : 'The device is offline.'}
      </p>
      {typeof document !== 'undefined' && document.fullscreenEnabled ? (
        <div className="toolbar">
          <button type="button" className="secondary" onClick={() => void frame.current?.requestFullscreen()}>
            Browser full screen
          </button>
        </div>
      ) : null}
    </>
  );
}
