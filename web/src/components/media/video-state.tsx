import type { Video } from '@/api/generated';

/** Where a video that is not ready is: how far its upload is, its recording on a device,
 * or why that recording failed. Nothing for a ready video. */
export function VideoState({ v }: { v: Video }) {
  switch (v.status) {
    case 'ready':
      return null;
    case 'recording':
      return <span className="muted">(recording on the device…)</span>;
    case 'failed':
      return (
        <span className="error" role="note">
          (failed: {v.message})
        </span>
      );
    case 'uploading':
      return <span>{`(uploading, ${v.size_bytes > 0 ? Math.floor((v.received_bytes / v.size_bytes) * 100) : 0}%)`}</span>;
  }
}
