/**
 * Screenshots of a device's cameras (`organization/get_screenshot`,
 * `get_screenshot_intervals`): a JPEG taken now (the device must be online; the server
 * waits up to 10 s for it and answers 502 with the device's reason, or 504), and those
 * taken at the device's interval over a time range, newest first, ten a page. Each
 * carries a signed URL of its JPEG; the device blurs its regions before sending.
 */
import { queryOptions } from '@tanstack/react-query';

import type { Page, Screenshot } from '@/api/generated';
import { api } from '@/lib/api-client';

/** Takes a screenshot of `camera` of `device` now. */
export const takeScreenshot = (device: number, camera: string) =>
  api.get<Screenshot>('organization/get_screenshot', { query: { device, camera } });

/** A picture of the camera for the blur editor: taken once when asked, kept while shown. */
export const snapshotQuery = (device: number, camera: string) =>
  queryOptions({
    queryKey: ['screenshot', device, camera],
    queryFn: () => takeScreenshot(device, camera),
    staleTime: Infinity,
    retry: false,
  });

export type IntervalRange = {
  /** Unix ms, inclusive. */
  from: number;
  /** Unix ms, inclusive. */
  to: number;
  page: number;
};

/** The camera's interval screenshots over a range, a page of ten. */
export const intervalScreenshotsQuery = (device: number, camera: string, r: IntervalRange) =>
  queryOptions({
    queryKey: ['screenshots', device, camera, r.from, r.to, r.page],
    queryFn: () =>
      api.get<Page<Screenshot>>('organization/get_screenshot_intervals', {
        query: { device, camera, datetime_start: r.from, datetime_end: r.to, page: r.page },
      }),
    staleTime: 0,
  });
