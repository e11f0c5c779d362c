import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';

import type { Video } from '@/api/generated';
import { NO_FILTER, type VideoFilter, videoListQuery, videosKey } from '@/api/videos';
import { OperationPicker, useTaskParam } from '@/components/media/operation-picker';
import { VideoState } from '@/components/media/video-state';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { Pager } from '@/components/ui/pager';
import { UploadProgressBar } from '@/components/ui/upload-progress';
import { ApiError, api } from '@/lib/api-client';
import { errorMessage } from '@/lib/api-errors';
import { can } from '@/lib/access/roles';
import { formatDateTime, megabytes } from '@/lib/format';
import { useMediaRecovery } from '@/lib/media-recovery';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';
import { useIdSet } from '@/lib/use-id-set';

import { type Upload, type UploadProgress, deleteVideos, resumeUpload, uploadVideo } from '../api/recording';
import { CommentsPanel } from './comments-panel';
import { VideoDetails } from './video-details';
import { CameraRecorder } from './camera-recorder';
import { DeviceRecorder } from './device-recorder';

/** The spec's message after an upload (section 8). */
export const UPLOADED = 'Data uploaded successfully!';

/**
 * `/user/record` (Record Training Set, gated by that subscription): choose an operation,
 * upload training or trace video with a progress bar (resumable; the slow-upload
 * warning of section 9) or record it in the browser or on a device's camera, and the
 * operation's videos: filters (type, dates, order by
 * comments), thumbnails, playback, bulk delete.
 */
export default function RecordScreen() {
  const s = useSession();
  const [task] = useTaskParam();
  const manage = s.role !== null && can(s.role, 'ManageVideos');

  return (
    <section>
      <OperationPicker title="Record Training Set" />
      {task !== null ? (
        <>
          {manage ? <UploadPanel task={task} /> : null}
          {manage && s.organization !== null ? <DeviceRecorder task={task} org={s.organization} /> : null}
          <VideoList task={task} manage={manage} />
        </>
      ) : null}
    </section>
  );
}

const secs = (ms: number) => (ms >= 90_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`);

function UploadPanel({ task }: { task: number }) {
  const qc = useQueryClient();
  const fileRef = useRef<HTMLInputElement>(null);
  const [training, setTraining] = useState('true');
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [stopped, setStopped] = useState<Upload | null>(null);

  const run = async (go: () => Promise<Video>) => {
    setBusy(true);
    setError(null);
    try {
      await go();
      setStopped(null);
      setProgress(null);
      if (fileRef.current) fileRef.current.value = '';
      notify.success(UPLOADED);
    } catch (err) {
      setError(errorMessage(err, 'post'));
    } finally {
      setBusy(false);
      await qc.invalidateQueries({ queryKey: videosKey });
    }
  };

  const send = (file: File) => {
    setStopped(null);
    void run(() =>
      uploadVideo(task, file, training === 'true', setStopped, setProgress).catch((err: unknown) => {
        // Refused as a whole (a 400: not a usable video): the server kept nothing to resume.
        if (err instanceof ApiError && err.status === 400) setStopped(null);
        throw err;
      }),
    );
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const file = fileRef.current?.files?.[0];
    if (!file) {
      setError('Choose a video file.');
      return;
    }
    send(file);
  };

  return (
    <form aria-label="Upload video" onSubmit={submit} className="upload-panel">
      <h2>Upload video</h2>
      <label>
        Video file
        <input type="file" accept="video/*" ref={fileRef} disabled={busy} />
      </label>
      <SelectField label="Type" value={training} onChange={(e) => setTraining(e.target.value)} disabled={busy}>
        <option value="true">Training</option>
        <option value="false">Trace</option>
      </SelectField>
      <FormError message={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Uploading…' : 'Upload'}
      </button>
      <CameraRecorder disabled={busy} onRecorded={send} />
      {stopped && !busy && error ? (
        <button type="button" className="secondary" onClick={() => void run(() => resumeUpload(stopped, setProgress))}>
          Resume upload
        </button>
      ) : null}
      {progress ? (
        <UploadProgressBar
          sent={progress.sent}
          total={progress.total}
          note={
            <>
              {progress.leftMs !== null && progress.sent < progress.total ? ` · about ${secs(progress.leftMs)} left` : ''}
              {progress.sent === progress.total && busy ? ' · reading the video…' : ''}
            </>
          }
        >
          {progress.slow && progress.leftMs !== null && progress.sent < progress.total ? (
            <p role="status" className="warning">
              Slow upload: about {secs(progress.leftMs)} left. Keep this page open until it finishes.
            </p>
          ) : null}
        </UploadProgressBar>
      ) : null}
    </form>
  );
}

/** The chosen video playing; asked for again (a new URL) when its URL stops working. */
function Player({ video, onRefreshed }: { video: Video; onRefreshed: (v: Video) => void }) {
  const ref = useRef<HTMLVideoElement>(null);
  useMediaRecovery(ref, video.url, async () => onRefreshed(await api.get<Video>(`organization/task_record/${video.id}/`)));
  return (
    <video ref={ref} controls src={video.url ?? undefined} poster={video.thumbnail_url ?? undefined} aria-label={`Playing ${video.file_name}`} width={640} />
  );
}

function VideoList({ task, manage }: { task: number; manage: boolean }) {
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState<VideoFilter>(NO_FILTER);
  const [chosen, toggle, setChosen] = useIdSet();
  const [asking, setAsking] = useState(false);
  const [playing, setPlaying] = useState<Video | null>(null);
  const q = useQuery(videoListQuery(task, page, filter));
  const del = useMutation({
    mutationFn: () => deleteVideos([...chosen]),
    onSuccess: async (m) => {
      notify.successShort(m.msg);
      if (playing && chosen.has(playing.id)) setPlaying(null);
      setChosen(new Set());
      setAsking(false);
      await qc.invalidateQueries({ queryKey: videosKey });
    },
    onError: (err) => {
      setAsking(false);
      notify.failure(err, 'delete');
    },
  });
  const set = (change: Partial<VideoFilter>) => {
    setFilter((f) => ({ ...f, ...change }));
    setPage(1);
  };

  return (
    <div>
      <h2>Videos</h2>
      <div className="filters" role="group" aria-label="Video filters">
        <SelectField
          label="Video type"
          value={filter.isUploadedVideo}
          onChange={(e) => set({ isUploadedVideo: e.target.value as VideoFilter['isUploadedVideo'] })}
        >
          <option value="">All Videos</option>
          <option value="true">Training</option>
          <option value="false">Trace</option>
        </SelectField>
        <Field label="From" type="date" value={filter.from} onChange={(e) => set({ from: e.target.value })} />
        <Field label="To" type="date" value={filter.to} onChange={(e) => set({ to: e.target.value })} />
        <SelectField
          label="Order"
          value={filter.ordering}
          onChange={(e) => set({ ordering: e.target.value as VideoFilter['ordering'] })}
        >
          <option value="">Newest first</option>
          <option value="-no_of_comments">Most comments first</option>
          <option value="no_of_comments">Fewest comments first</option>
        </SelectField>
      </div>
      {manage && chosen.size > 0 ? (
        <button type="button" className="danger" onClick={() => setAsking(true)}>
          Delete selected ({chosen.size})
        </button>
      ) : null}
      <DataTable
        label="Videos"
        query={{ isPending: q.isPending, error: q.error, data: q.data?.results }}
        empty={<EmptyState title="No videos yet." />}
        columns={[manage && 'Select', 'Thumbnail', 'Name', 'Type', 'Tags', 'Comments', 'Length', 'Frames', 'Size', 'Uploaded']}
        row={(v) => (
          <tr key={v.id}>
            {manage ? (
              <td>
                <input type="checkbox" aria-label={`Select ${v.file_name}`} checked={chosen.has(v.id)} onChange={() => toggle(v.id)} />
              </td>
            ) : null}
            <td>{v.thumbnail_url ? <img src={v.thumbnail_url} alt="" width={96} /> : '—'}</td>
            <td>
              {v.url ? (
                <button type="button" className="link-button" onClick={() => setPlaying(v)}>
                  {v.file_name}
                </button>
              ) : (
                <>
                  {v.file_name} <VideoState v={v} />
                </>
              )}
            </td>
            <td>{v.isUploadedVideo ? 'Training' : 'Trace'}</td>
            <td>{v.tags.length > 0 ? v.tags.join(', ') : '—'}</td>
            <td>{v.no_of_comments}</td>
            <td>{v.duration_ms !== null ? secs(v.duration_ms) : '—'}</td>
            <td>
              {v.width !== null && v.height !== null
                ? `${v.width}×${v.height} @ ${v.fps !== null && v.fps > 0 ? `${v.fps} fps` : 'variable frame rate'}`
                : '—'}
            </td>
            <td>{megabytes(v.size_bytes)}</td>
            <td>{formatDateTime(v.created_at)}</td>
          </tr>
        )}
      />
      {q.data ? <Pager page={page} count={q.data.count} onPage={setPage} label="Videos" /> : null}
      {playing?.url ? (
        <figure className="player">
          <Player video={playing} onRefreshed={setPlaying} />
          <figcaption>{playing.file_name}</figcaption>
          <CommentsPanel video={playing.id} />
          <VideoDetails key={playing.id} video={playing.id} />
        </figure>
      ) : null}
      {asking ? (
        <ConfirmDialog
          title="Delete videos"
          confirmLabel="Delete"
          busy={del.isPending}
          onConfirm={() => del.mutate()}
          onCancel={() => setAsking(false)}
        >
          <p>
            Delete {chosen.size} video{chosen.size === 1 ? '' : 's'} and their files? This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
