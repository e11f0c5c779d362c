import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

import type { Device, Screenshot } from '@/api/generated';
import { Pager } from '@/components/ui/pager';
import { QueryStatus } from '@/components/ui/query-status';
import { DayRange } from '@/components/ui/range-fields';
import { errorMessage } from '@/lib/api-errors';
import { addDays, dayOf, isoDay, startOfDay } from '@/lib/days';
import { formatDateTime } from '@/lib/format';
import { notify } from '@/lib/toast';

import { intervalScreenshotsQuery, takeScreenshot } from '../api/screenshots';
import { cameraTitle } from './live-bits';

/** A JPEG's size: "48 KB". */
const kilobytes = (n: number) => `${Math.max(1, Math.round(n / 1024))} KB`;

/** The gallery's first range: the last seven days, today included. */
const DEFAULT_DAYS = 7;

/**
 * A camera's screenshots: one taken now (the device online; the server's message when
 * it could not, or did not in time), and those the device took at its interval over a
 * range of days, newest first, ten a page. Each opens its JPEG; the device blurred its
 * regions in all of them.
 */
export function Screenshots({ device, camera }: { device: Device; camera: string }) {
  const title = cameraTitle(camera, device);
  const take = useMutation({
    mutationFn: () => takeScreenshot(device.id, camera),
    onError: (err) => notify.failure(err, 'post'),
  });
  return (
    <div className="screenshots">
      <h3 className="form-title">Now</h3>
      <div className="toolbar">
        <button type="button" disabled={!device.online || take.isPending} onClick={() => take.mutate()}>
          {take.isPending ? 'Taking the screenshot…' : 'Take screenshot'}
        </button>
        {!device.online ? <span className="muted">{device.display_name} is offline: a screenshot can be taken once it is back.</span> : null}
      </div>
      {take.error && !take.isPending ? (
        <p role="alert" className="query-error">
          {errorMessage(take.error, 'post')}
        </p>
      ) : null}
      {take.data && !take.isPending ? <Shot shot={take.data} title={title} large /> : null}
      <IntervalGallery device={device} camera={camera} title={title} />
    </div>
  );
}

/** The interval screenshots over a range of local days, a page at a time. */
function IntervalGallery({ device, camera, title }: { device: Device; camera: string; title: string }) {
  const today = startOfDay(new Date());
  const [days, setDays] = useState({ from: isoDay(addDays(today, 1 - DEFAULT_DAYS)), to: isoDay(today) });
  const [page, setPage] = useState(1);
  const range = { from: dayOf(days.from).getTime(), to: addDays(dayOf(days.to), 1).getTime() - 1, page };
  const q = useQuery(intervalScreenshotsQuery(device.id, camera, range));
  return (
    <>
      <h3 className="form-title">Taken at the device's interval</h3>
      <div className="filters">
        <DayRange
          from={days.from}
          to={days.to}
          onChange={(field, day) => {
            if (!day) return;
            setDays((d) => ({ ...d, [field]: day }));
            setPage(1);
          }}
        />
      </div>
      {!q.data ? (
        <QueryStatus pending={q.isPending} error={q.error} what="Screenshots" />
      ) : q.data.count === 0 ? (
        <p className="muted">No screenshots taken at the device's interval in these days.</p>
      ) : (
        <>
          <ul className="shot-gallery" aria-label={`Interval screenshots of ${title}`}>
            {q.data.results.map((s) => (
              <li key={s.id}>
                <Shot shot={s} title={title} />
              </li>
            ))}
          </ul>
          <Pager page={page} count={q.data.count} onPage={setPage} label="Screenshots" />
        </>
      )}
    </>
  );
}

/** A screenshot with when it was taken, opening its JPEG. */
function Shot({ shot, title, large = false }: { shot: Screenshot; title: string; large?: boolean }) {
  const when = formatDateTime(shot.taken_at);
  return (
    <figure className={large ? 'shot shot-large' : 'shot'}>
      <a href={shot.url} target="_blank" rel="noreferrer">
        <img src={shot.url} alt={`${title}, taken ${when}`} loading={large ? undefined : 'lazy'} />
      </a>
      <figcaption>
        {when} <span className="muted">({kilobytes(shot.size_bytes)})</span>
      </figcaption>
    </figure>
  );
}
