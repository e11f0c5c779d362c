/**
 * Recording a task's training videos (spec section 7 "Videos, tags and comments"): on
 * a device, by upload in parts, bulk delete, and the videos' comments. The list is
 * `@/api/videos` (labeling shows it too).
 *
 * An upload (`uploadVideo`): `POST organization/task/videos/{taskId}` with the file's
 * name and size, then its bytes in order with `PUT organization/task_record/{id}/content/`
 * and `Content-Range`, about 20 parts (256 KiB to 4 MiB each) so progress moves. A part
 * answered 409 carries where the server is (`received_bytes`) and the upload goes on
 * from there; one that fails otherwise stops the upload, which `resume` continues later
 * from what the server holds. The last part's answer is the ready video (or a 400 on
 * `file` when it is not a usable video; the server then keeps nothing of it).
 */
import { queryOptions } from '@tanstack/react-query';

import type { Comment, CommentCreate, Msg, RecordRequest, Video } from '@/api/generated';
import { videosKey } from '@/api/videos';
import { SLOW_UPLOAD_MS, UPLOAD_PART_MAX, UPLOAD_PART_MIN } from '@/config/constants';
import { ApiError, api } from '@/lib/api-client';

/** Asks a device to record `seconds` of `camera` as a training video of `task`. */
export const recordOnDevice = (task: number, body: RecordRequest) =>
  api.post<Video>(`organization/task/videos/${task}/record/`, body);

export const deleteVideos = (ids: number[]) => api.patch<Msg>('organization/task_record/bulk_delete/', { ids });

/** Where an upload is. */
export type UploadProgress = {
  sent: number;
  total: number;
  elapsedMs: number;
  /** Time still to go at the pace so far; null before the first part. */
  leftMs: number | null;
  /** The whole upload is expected to take longer than the slow-upload limit. */
  slow: boolean;
};

/** The part size for a file of `size` bytes. */
export function partSize(size: number): number {
  return Math.min(UPLOAD_PART_MAX, Math.max(UPLOAD_PART_MIN, Math.ceil(size / 20)));
}

/** `received_bytes` of a 409 answer, if it has one. */
function offsetOf(err: unknown): number | null {
  if (!(err instanceof ApiError) || err.status !== 409) return null;
  const at = (err.data as { received_bytes?: unknown } | null)?.received_bytes;
  return typeof at === 'number' ? at : null;
}

/**
 * Sends `file` from byte `from` to the end into video `id`; answers the video as the
 * last part left it.
 */
async function sendParts(
  id: number,
  file: Blob,
  from: number,
  onProgress: (p: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<Video> {
  const total = file.size;
  const step = partSize(total);
  const started = performance.now();
  const startedAt = from;
  let at = from;
  let last: Video | null = null;
  const report = () => {
    const elapsedMs = performance.now() - started;
    const done = at - startedAt;
    const leftMs = done > 0 ? (elapsedMs / done) * (total - at) : null;
    onProgress({ sent: at, total, elapsedMs, leftMs, slow: leftMs !== null && elapsedMs + leftMs > SLOW_UPLOAD_MS });
  };
  report();
  while (at < total) {
    const end = Math.min(at + step, total);
    try {
      last = await api.put<Video>(`organization/task_record/${id}/content/`, file.slice(at, end), {
        headers: { 'Content-Range': `bytes ${at}-${end - 1}/${total}` },
        signal,
      });
      at = end;
    } catch (err) {
      const there = offsetOf(err);
      if (there === null || there === at) throw err;
      at = there;
    }
    report();
  }
  if (last === null) last = await api.get<Video>(`organization/task_record/${id}/`);
  return last;
}

/** A started upload: the video it fills, so a failed one can be resumed. */
export type Upload = { id: number; file: Blob };

/** Starts uploading `file` to `task`; `onStarted` hears the video's id first. */
export async function uploadVideo(
  task: number,
  file: File,
  isUploadedVideo: boolean,
  onStarted: (u: Upload) => void,
  onProgress: (p: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<Video> {
  const v = await api.post<Video>(`organization/task/videos/${task}`, {
    file_name: file.name,
    size_bytes: file.size,
    isUploadedVideo,
  });
  onStarted({ id: v.id, file });
  return sendParts(v.id, file, 0, onProgress, signal);
}

/** Goes on with upload `u` from what the server holds. */
export async function resumeUpload(u: Upload, onProgress: (p: UploadProgress) => void, signal?: AbortSignal): Promise<Video> {
  const v = await api.get<Video>(`organization/task_record/${u.id}/`);
  if (v.status === 'ready') return v;
  return sendParts(u.id, u.file, v.received_bytes, onProgress, signal);
}

export const commentsKey = (video: number) => [...videosKey, 'comments', video] as const;

export const commentsQuery = (video: number) =>
  queryOptions({
    queryKey: commentsKey(video),
    queryFn: () => api.get<Comment[]>('organization/task_record/comments', { query: { entity_id: video } }),
    staleTime: 0,
  });

export const addComment = (body: CommentCreate) => api.post<Comment>('organization/task_record/comments', body);
