import { useRef } from 'react';

import type { CameraStatus, Device } from '@/api/generated';
import type { LiveSignalling } from '@/api/live-view';
import { useLiveVideo } from '@/api/use-live-view';
import { Dialog } from '@/components/ui/dialog';

import { cameraText, cameraTitle, liveClass, liveText } from './live-bits';

/**
 * The full-screen player: one camera large, with its own session (the device encodes
 * once for the tile and this), the viewer's state and what the camera does; the
 * browser's full screen on request.
 */
export function CameraPlayer({
  signal,
  device,
  camera,
  onClose,
}: {
  signal: LiveSignalling | null;
  device: Device;
  camera: CameraStatus;
  onClose: () => void;
}) {
  const title = cameraTitle(camera.camera, device);
  const { ref, state } = useLiveVideo(signal, device.id, camera.camera, device.online);
  const frame = useRef<HTMLDivElement>(null);
  return (
    <Dialog title={title} onClose={onClose} className="camera-player">
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
      <div className="dialog-actions">
        {typeof document !== 'undefined' && document.fullscreenEnabled ? (
          <button type="button" className="secondary" onClick={() => void frame.current?.requestFullscreen()}>
            Browser full screen
          </button>
        ) : null}
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
