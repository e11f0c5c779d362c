import { HttpResponse, http } from 'msw';

import type { Video } from '@/api/generated';
import { fail, signInAs } from '@/testing/helpers';
import { apiUrl, server } from '@/testing/server';

import { video as readyVideo } from '@/testing/videos';
import { type UploadProgress, partSize, resumeUpload, uploadVideo } from './api/recording';

const KIB = 1024;

function video(id: number, size: number, received: number): Video {
  const ready = received === size;
  return readyVideo(id, {
    task: 4,
    file_name: 'bench.mp4',
    status: ready ? 'ready' : 'uploading',
    size_bytes: size,
    received_bytes: received,
    duration_ms: ready ? 2000 : null,
    fps: null,
    width: null,
    height: null,
    url: ready ? '/api/media/t' : null,
  });
}

/** A server holding the bytes of video 9 (`size` of them), as the cloud does: parts in
 * order, 409 with where it is otherwise. `skipAt` makes it claim one part was already
 * there (the answer of a part that arrived twice). */
function uploadServer(size: number, opts: { skipAt?: number; failAt?: number } = {}) {
  const got = new Uint8Array(size);
  let received = 0;
  const ranges: string[] = [];
  const handlers = [
    http.post(apiUrl('organization/task/videos/4'), () => HttpResponse.json(video(9, size, 0), { status: 201 })),
    http.get(apiUrl('organization/task_record/9/'), () => HttpResponse.json(video(9, size, received))),
    http.put(apiUrl('organization/task_record/9/content/'), async ({ request }) => {
      const range = request.headers.get('Content-Range') ?? '';
      ranges.push(range);
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
      if (!m) return fail(400, { 'Content-Range': ['bad'] });
      const [first, last] = [Number(m[1]), Number(m[2])];
      if (opts.failAt === first) {
        opts.failAt = undefined;
        return fail(503, { detail: 'Service unavailable.' });
      }
      if (first !== received) return fail(409, { 'Content-Range': ['elsewhere'], received_bytes: received });
      const body = new Uint8Array(await request.arrayBuffer());
      expect(request.headers.get('Content-Type')).toBe('application/octet-stream');
      expect(body.length).toBe(last - first + 1);
      got.set(body, first);
      received = last + 1;
      if (opts.skipAt === received) {
        received = Math.min(size, received + partSize(size));
        opts.skipAt = undefined;
      }
      return HttpResponse.json(video(9, size, received));
    }),
  ];
  return { handlers, got, ranges, received: () => received };
}

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7) % 251);

test('a file goes in about 20 parts of 256 KiB to 4 MiB, in order, and progress reaches the end', async () => {
  expect(partSize(1000)).toBe(256 * KIB);
  expect(partSize(40 * 1024 * KIB)).toBe(2048 * KIB);
  expect(partSize(1024 * 1024 * KIB)).toBe(4096 * KIB);
  signInAs('org_user', 1);
  const size = 600 * KIB;
  const data = bytes(size);
  const srv = uploadServer(size);
  server.use(...srv.handlers);
  const seen: UploadProgress[] = [];
  let started = 0;
  const v = await uploadVideo(4, new File([data], 'bench.mp4'), true, (u) => (started = u.id), (p) => seen.push(p));
  expect(started).toBe(9);
  expect(v.status).toBe('ready');
  expect(srv.ranges).toEqual([`bytes 0-262143/${size}`, `bytes 262144-524287/${size}`, `bytes 524288-614399/${size}`]);
  expect(srv.got).toEqual(data);
  expect(seen.map((p) => p.sent)).toEqual([0, 262144, 524288, size]);
  expect(seen[0]?.leftMs).toBeNull();
  expect(seen.at(-1)?.leftMs).toBe(0);
});

test('a 409 moves the upload to where the server is', async () => {
  signInAs('org_user', 1);
  const size = 1000 * KIB;
  const data = bytes(size);
  const srv = uploadServer(size, { skipAt: 256 * KIB });
  server.use(...srv.handlers);
  const v = await uploadVideo(4, new File([data], 'bench.mp4'), true, () => {}, () => {});
  expect(v.received_bytes).toBe(size);
  // The second part was sent, refused (the server was past it), and the upload went on
  // from the offset the 409 named.
  expect(srv.ranges.slice(0, 3)).toEqual([`bytes 0-262143/${size}`, `bytes 262144-524287/${size}`, `bytes 524288-786431/${size}`]);
});

test('a failed part stops the upload; resume asks the server where it is and finishes', async () => {
  signInAs('org_user', 1);
  const size = 700 * KIB;
  const data = bytes(size);
  const srv = uploadServer(size, { failAt: 256 * KIB });
  server.use(...srv.handlers);
  const file = new File([data], 'bench.mp4');
  let upload: { id: number; file: Blob } | null = null;
  await expect(uploadVideo(4, file, false, (u) => (upload = u), () => {})).rejects.toMatchObject({ status: 503 });
  expect(srv.received()).toBe(256 * KIB);
  expect(upload).not.toBeNull();
  const seen: number[] = [];
  const v = await resumeUpload(upload!, (p) => seen.push(p.sent));
  expect(v.status).toBe('ready');
  expect(seen[0]).toBe(256 * KIB);
  expect(srv.got).toEqual(data);
});

test('an upload expected to take longer than 100 s is flagged slow', async () => {
  signInAs('org_user', 1);
  const size = 1024 * KIB;
  const srv = uploadServer(size);
  server.use(...srv.handlers);
  // 30 s per part of four: 120 s in all.
  let t = 0;
  const now = vi.spyOn(performance, 'now').mockImplementation(() => (t += 15_000));
  const seen: UploadProgress[] = [];
  try {
    await uploadVideo(4, new File([bytes(size)], 'bench.mp4'), true, () => {}, (p) => seen.push(p));
  } finally {
    now.mockRestore();
  }
  expect(seen[1]?.slow).toBe(true);
  expect(seen[1]?.leftMs).toBeGreaterThan(60_000);
});
