import { type UseQueryResult, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';

import type { Device, Rect, Screenshot } from '@/api/generated';
import { FormError } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { DATA_UPDATED } from '@/config/messages';
import { errorMessage } from '@/lib/api-errors';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

import { blurKey, blurRegionsQuery, replaceBlurRegions } from '../api/blur';
import { snapshotQuery } from '../api/screenshots';
import { describeRect, rectOf, sameRects } from '../blur-rects';
import { BlurFrame } from './blur-frame';
import { cameraTitle } from './live-bits';

/**
 * A camera's privacy blur regions over a picture of it (taken when the editor opens,
 * already blurred where the device blurs now; an offline device's regions are drawn on
 * the empty frame). `editable` roles draw new regions by dragging, delete some, and
 * save the result whole (`PUT`: all of it or, refused, none of it, the server's message
 * shown and the drawing kept), or discard it.
 */
export function BlurEditor({ device, camera, editable }: { device: Device; camera: string; editable: boolean }) {
  const qc = useQueryClient();
  const title = cameraTitle(camera, device);
  const regions = useQuery(blurRegionsQuery(device.id, camera));
  const shot = useQuery({ ...snapshotQuery(device.id, camera), enabled: device.online });
  const saved = useMemo(() => (regions.data ?? []).map(rectOf), [regions.data]);
  const [draft, setDraft] = useState<Rect[] | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [highlighted, setHighlighted] = useState<number | null>(null);
  const rects = draft ?? saved;
  const changed = draft !== null && !sameRects(draft, saved);

  const save = useMutation({
    mutationFn: (r: Rect[]) => replaceBlurRegions({ device: device.id, camera, regions: r }),
    onSuccess: (answer) => {
      qc.setQueryData(blurKey(device.id, camera), answer);
      setDraft(null);
      setRefusal(null);
      notify.successShort(DATA_UPDATED);
    },
    onError: (err) => {
      setRefusal(errorMessage(err, 'post'));
      notify.failure(err, 'post');
    },
  });
  const edit = (next: Rect[]) => {
    setDraft(next);
    setRefusal(null);
  };

  return (
    <div className="blur-editor">
      <p className="muted">
        The device blurs these parts of the camera's frame before any picture leaves it: live view, clips, screenshots and
        recordings.
      </p>
      <QueryStatus pending={false} error={regions.error} what="Blur regions" />
      <BlurFrame
        picture={<Picture device={device} shot={shot} title={title} />}
        rects={rects}
        highlighted={highlighted}
        label={`Frame of ${title}`}
        {...(editable && regions.data ? { onDraw: (r: Rect) => edit([...rects, r]) } : {})}
      />
      <div className="toolbar">
        <button type="button" className="secondary small" disabled={!device.online || shot.isFetching} onClick={() => void shot.refetch()}>
          {shot.isFetching ? 'Taking a picture…' : 'New picture'}
        </button>
        {editable ? <span className="muted">Drag over the picture to draw a region, or use the arrow keys and Enter on it.</span> : null}
      </div>
      {!regions.data ? (
        regions.isPending ? <p className="muted">Loading blur regions…</p> : null
      ) : rects.length === 0 ? (
        <p className="muted">No blur regions: nothing of this camera is blurred.</p>
      ) : (
        <ol className="blur-list" aria-label={`Blur regions of ${title}`}>
          {rects.map((r, i) => (
            <li key={i} onPointerEnter={() => setHighlighted(i)} onPointerLeave={() => setHighlighted(null)}>
              Region {i + 1}: {describeRect(r)}
              {editable ? ' ' : null}
              {editable ? (
                <button
                  type="button"
                  className="secondary small"
                  aria-label={`Delete region ${i + 1}`}
                  onFocus={() => setHighlighted(i)}
                  onBlur={() => setHighlighted(null)}
                  onClick={() => {
                    setHighlighted(null);
                    edit(rects.filter((_, k) => k !== i));
                  }}
                >
                  Delete
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {changed ? (
        <p className="warning" role="status">
          Not saved yet.
        </p>
      ) : null}
      <FormError message={refusal} />
      {editable ? (
        <div className="form-actions">
          <button type="button" className="secondary" disabled={!changed || save.isPending} onClick={() => edit(saved)}>
            Discard changes
          </button>
          <button type="button" disabled={!changed || save.isPending} onClick={() => save.mutate(rects)}>
            {save.isPending ? 'Saving…' : 'Save regions'}
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The camera's picture, or why there is none. */
function Picture({ device, shot, title }: { device: Device; shot: UseQueryResult<Screenshot>; title: string }) {
  if (!device.online) {
    return (
      <p className="blur-empty">
        No picture while {device.display_name} is offline. Regions saved now apply once it is back.
      </p>
    );
  }
  if (shot.error) {
    return (
      <p className="blur-empty" role="alert">
        No picture: {errorMessage(shot.error, 'post')}
      </p>
    );
  }
  if (!shot.data) return <p className="blur-empty">Taking a picture of the camera…</p>;
  return <img src={shot.data.url} alt={`${title}, taken ${formatDateTime(shot.data.taken_at)}`} />;
}
