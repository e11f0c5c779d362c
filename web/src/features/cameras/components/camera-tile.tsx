import { useId } from 'react';

import type { CameraStatus, Device } from '@/api/generated';
import type { LiveSignalling } from '@/api/live-view';
import { useLiveVideo } from '@/api/use-live-view';

import { cameraText, cameraTitle, liveClass, liveText } from './live-bits';

/**
 * One camera's tile: its live picture (asked for only while the device is online), its
 * name and device, the viewer's state and the camera's own. The whole tile is the
 * button opening the full-screen player.
 */
export function CameraTile({
  signal,
  device,
  camera,
  onOpen,
}: {
  signal: LiveSignalling | null;
  device: Device;
  camera: CameraStatus;
  onOpen: () => void;
}) {
  const id = useId();
  const title = cameraTitle(camera.camera, device);
  const { ref, state } = useLiveVideo(signal, device.id, camera.camera, device.online);
  return (
    <li className="camera-tile">
      <button
        type="button"
        className="camera-tile-button"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-live ${id}-camera`}
        onClick={onOpen}
      >
        <span className="camera-frame">
          <video ref={ref} muted autoPlay playsInline aria-label={`Live video of ${title}`} />
        </span>
        <span id={`${id}-title`} className="camera-tile-title">
          {title}
        </span>
      </button>
      {/* Outside the button, which they describe: its name stays its visible words. */}
      <span id={`${id}-live`} className={liveClass(state)}>
        {liveText(state)}
      </span>
      <span id={`${id}-camera`} className="muted">
        {cameraText(camera, device)}
      </span>
    </li>
  );
}
