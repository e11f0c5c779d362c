import { useEffect, useRef, useState } from 'react';

const two = (n: number) => String(n).padStart(2, '0');

/** `recording-YYYYMMDD-HHMMSS.webm` for now. */
function recordingName(d: Date): string {
  return `recording-${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}-${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}.webm`;
}

/** The browser's best WebM recording format, if it records at all. */
function recordingType(): string | undefined {
  return ['video/webm;codecs=vp8', 'video/webm;codecs=vp9', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t));
}

/**
 * Recording training video with the computer's camera (MediaRecorder): open the camera
 * (a live preview), start and stop recording (time so far shown); the recording is
 * handed to `onRecorded` as a WebM file, which the upload then sends like any file.
 */
export function CameraRecorder({ disabled, onRecorded }: { disabled: boolean; onRecorded: (file: File) => void }) {
  const preview = useRef<HTMLVideoElement>(null);
  const recorder = useRef<MediaRecorder | null>(null);
  const chunks = useRef<Blob[]>([]);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [since, setSince] = useState<number | null>(null);
  const [now, setNow] = useState(0);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (preview.current) preview.current.srcObject = stream;
    return () => stream?.getTracks().forEach((t) => t.stop());
  }, [stream]);
  useEffect(() => {
    if (since === null) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [since]);

  const open = async () => {
    setError(null);
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
      setError('This browser cannot record from a camera here (it needs HTTPS or localhost).');
      return;
    }
    try {
      setStream(await navigator.mediaDevices.getUserMedia({ video: true, audio: false }));
    } catch (e) {
      setError(`The camera could not be opened: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const start = () => {
    if (!stream) return;
    const type = recordingType();
    const r = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
    chunks.current = [];
    r.ondataavailable = (e) => {
      if (e.data.size > 0) chunks.current.push(e.data);
    };
    r.onstop = () => {
      const blob = new Blob(chunks.current, { type: r.mimeType || 'video/webm' });
      onRecorded(new File([blob], recordingName(new Date()), { type: blob.type }));
    };
    r.start(1000);
    recorder.current = r;
    const t = Date.now();
    setSince(t);
    setNow(t);
  };
  const stop = () => {
    recorder.current?.stop();
    recorder.current = null;
    setSince(null);
  };
  const close = () => {
    if (since !== null) stop();
    setStream(null);
  };
  const elapsed = since === null ? 0 : Math.max(0, Math.floor((now - since) / 1000));

  return (
    <div className="camera-recorder" role="group" aria-label="Record from camera">
      <h3>Record from camera</h3>
      {stream ? (
        <>
          <video ref={preview} aria-label="Camera preview" autoPlay muted playsInline className="camera-preview" />
          <div className="camera-actions">
            {since === null ? (
              <button type="button" onClick={start} disabled={disabled}>
                Start recording
              </button>
            ) : (
              <button type="button" className="danger" onClick={stop}>
                Stop recording
              </button>
            )}
            <button type="button" className="secondary" onClick={close}>
              Close camera
            </button>
            {since !== null ? (
              <span role="status">
                Recording {Math.floor(elapsed / 60)}:{two(elapsed % 60)}
              </span>
            ) : null}
          </div>
        </>
      ) : (
        <button type="button" className="secondary" onClick={() => void open()} disabled={disabled}>
          Open camera
        </button>
      )}
      {error ? (
        <p role="alert" className="form-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
