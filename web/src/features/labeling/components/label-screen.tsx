import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Pause, Play, Save, SkipBack, SkipForward } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

import type { Segment, Video } from '@/api/generated';
import { NO_FILTER, videoListQuery, videosKey } from '@/api/videos';
import { stepColour } from '@/components/charts/palette';
import { OperationPicker, useTaskParam } from '@/components/media/operation-picker';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { QueryStatus } from '@/components/ui/query-status';
import { FRAME_STEP } from '@/config/constants';
import { errorMessage } from '@/lib/api-errors';
import { can } from '@/lib/access/roles';
import { exactSeconds } from '@/lib/format';
import { useMediaRecovery } from '@/lib/media-recovery';
import { useSession } from '@/lib/session';
import { notify } from '@/lib/toast';

import { labelerKey } from '../api/labeler';
import { type LabelsVia, deleteAnnotations, labelsKey, labelsQuery, markPropagationsReviewed, saveLabels } from '../api/labels';
import { ZOOMS, addSegment, removeSegment, stepAt, timelineWindow } from '../labels';
import { LabelTimeline } from './label-timeline';
import { LabelersPanel } from './labelers-panel';
import { ObjectBoxes } from './object-boxes';
import { VideosToLabel } from './videos-to-label';

const MAX_ZOOM = Math.max(...ZOOMS);

/** The keys of the editor, shown beside it. */
const KEYS: readonly [string, string][] = [
  ['Space', 'play / pause'],
  ['← / →', 'back / forward by the frame step'],
  ['1 … 9', 'choose the step'],
  ['S', 'mark the start here'],
  ['E', 'mark the end here: adds the segment'],
  ['Backspace', 'remove the last segment'],
  ['+ / −', 'zoom the timeline in / out (around the playhead)'],
];

/**
 * `/user/label-data` (Label Training Set): choose an operation and one of its videos,
 * then mark where each step is performed on the video's timeline: play or step by
 * frames (10 by default, section 9), choose a step, mark its start and end (keys or
 * buttons), and save. Time outside every segment is background. In verification mode
 * a save marks the labels as checked.
 */
export default function LabelScreen() {
  const s = useSession();
  const [params, setParams] = useSearchParams();
  const [task] = useTaskParam();
  const videoId = Number(params.get('video')) || null;
  const [page, setPage] = useState(1);
  const videos = useQuery({ ...videoListQuery(task ?? 0, page, NO_FILTER), enabled: task !== null });
  const chosen = videos.data?.results.find((v) => v.id === videoId) ?? null;
  const label = s.role !== null && can(s.role, 'LabelVideos');
  const manage = s.role !== null && can(s.role, 'ManageTasks');

  return (
    <section>
      <OperationPicker title="Label Training Set" />
      {task !== null && chosen === null ? (
        <>
          {manage ? <LabelersPanel task={task} /> : null}
          <VideosToLabel
            q={videos}
            page={page}
            onPage={setPage}
            empty={<EmptyState title="No videos yet.">Upload them in Record Training Set.</EmptyState>}
            onLabel={(v) => setParams({ task: String(task), video: String(v.id) })}
          />
        </>
      ) : null}
      {chosen ? (
        <>
          <button type="button" className="link-button" onClick={() => setParams({ task: String(task) })}>
            ← All videos
          </button>
          <Editor video={chosen} editable={label} />
          <ObjectBoxes video={chosen} editable={label} />
        </>
      ) : null}
    </section>
  );
}

/** The labeling editor of one video (Label Training Set, and the labeler area's). */
export function Editor({ video, editable, via = 'organization' }: { video: Video; editable: boolean; via?: LabelsVia }) {
  const qc = useQueryClient();
  const q = useQuery(labelsQuery(video.id, via));
  const player = useRef<HTMLVideoElement>(null);
  // A URL that stopped working (a page left open): the lists are asked again for a new one.
  useMediaRecovery(player, video.url, () =>
    Promise.all([qc.invalidateQueries({ queryKey: videosKey }), qc.invalidateQueries({ queryKey: labelerKey })]),
  );
  const [segments, setSegments] = useState<Segment[] | null>(null);
  const [step, setStep] = useState(0);
  const [start, setStart] = useState<number | null>(null);
  const [now, setNow] = useState(0);
  const [frameStep, setFrameStep] = useState(FRAME_STEP);
  const [zoom, setZoom] = useState<number>(1);
  const [mode, setMode] = useState<'annotation' | 'verification'>('annotation');
  const [problem, setProblem] = useState<string | null>(null);
  const fps = video.fps && video.fps > 0 ? video.fps : 15;
  const duration = q.data?.duration_ms ?? video.duration_ms ?? 0;
  const shown = segments ?? q.data?.segments ?? [];
  const steps = q.data?.steps ?? [];
  const dirty = segments !== null;

  // The video lists show where each video's labels stand.
  const refreshLists = () => {
    void qc.invalidateQueries({ queryKey: videosKey });
    void qc.invalidateQueries({ queryKey: labelerKey });
  };
  const save = useMutation({
    mutationFn: () => saveLabels(video.id, { segments: shown, reviewed: mode === 'verification' }, via),
    onSuccess: (l) => {
      qc.setQueryData(labelsKey(video.id, via), l);
      refreshLists();
      setSegments(null);
      setProblem(null);
      notify.successShort('Data updated successfully!');
    },
    onError: (err) => setProblem(errorMessage(err, 'post')),
  });
  const [confirmDelete, setConfirmDelete] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteAnnotations({ task: video.task, videos: [video.id] }),
    onSuccess: (m) => {
      setConfirmDelete(false);
      setSegments(null);
      setProblem(null);
      refreshLists();
      notify.successShort(m.msg);
    },
    onError: (err) => {
      setConfirmDelete(false);
      setProblem(errorMessage(err, 'post'));
    },
  });
  const markReviewed = useMutation({
    mutationFn: () => markPropagationsReviewed({ task: video.task, videos: [video.id] }, via),
    onSuccess: (m) => {
      refreshLists();
      setProblem(null);
      notify.successShort(m.msg);
    },
    onError: (err) => setProblem(errorMessage(err, 'post')),
  });

  // What the keys and buttons do.
  const here = () => Math.round((player.current?.currentTime ?? 0) * 1000);
  const act = {
    toggle: () => {
      const v = player.current;
      if (!v) return;
      if (v.paused) void v.play();
      else v.pause();
    },
    move: (frames: number) => {
      const v = player.current;
      if (!v) return;
      v.pause();
      v.currentTime = Math.min(Math.max(0, v.currentTime + frames / fps), duration / 1000);
      setNow(Math.round(v.currentTime * 1000));
    },
    choose: (k: number) => {
      if (k < steps.length) setStep(k);
    },
    markStart: () => {
      if (!editable) return;
      setStart(here());
      setProblem(null);
    },
    markEnd: () => {
      if (!editable || start === null) return;
      const r = addSegment(shown, step, start, here());
      if ('error' in r) {
        setProblem(r.error);
        return;
      }
      setSegments(r.segments);
      setStart(null);
      setProblem(null);
    },
    /** A segment of the chosen step from `a` to `b` (ms), dragged on the timeline. */
    mark: (a: number, b: number) => {
      if (!editable) return;
      const r = addSegment(shown, step, a, b);
      if ('error' in r) {
        setProblem(r.error);
        return;
      }
      setSegments(r.segments);
      setProblem(null);
    },
    undo: () => {
      if (editable && shown.length > 0) setSegments(removeSegment(shown, shown.length - 1));
    },
    zoom: (by: 1 | -1) => {
      const i = ZOOMS.indexOf(zoom as (typeof ZOOMS)[number]);
      setZoom(ZOOMS[Math.min(Math.max(0, i + by), ZOOMS.length - 1)] ?? 1);
    },
  };

  // The keys, listened to afresh after each render (so they see its state).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName)) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const k = e.key;
      if (k === ' ') act.toggle();
      else if (k === 'ArrowLeft') act.move(-frameStep);
      else if (k === 'ArrowRight') act.move(frameStep);
      else if (/^[1-9]$/.test(k)) act.choose(Number(k) - 1);
      else if (k === 's' || k === 'S') act.markStart();
      else if (k === 'e' || k === 'E') act.markEnd();
      else if (k === 'Backspace') act.undo();
      else if (k === '+' || k === '=') act.zoom(1);
      else if (k === '-') act.zoom(-1);
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (q.isPending || q.error) return <QueryStatus pending={q.isPending} error={q.error} what="Labels" />;
  const current = stepAt(shown, now);
  const view = timelineWindow(duration, now, zoom);

  return (
    <div className="label-editor">
      <h2>{video.file_name}</h2>
      {q.data?.propagated_from && !q.data.reviewed ? (
        <div className="propagated" role="status" aria-label="Propagated labels">
          <p>
            <strong>Propagated labels to review.</strong> Model {q.data.propagated_from} guessed these segments. Check them against the
            video: fix any and save them, or mark them reviewed. Training uses them once reviewed.
          </p>
          {editable ? (
            <button type="button" onClick={() => markReviewed.mutate()} disabled={dirty || markReviewed.isPending}>
              {dirty ? 'Save your changes instead' : markReviewed.isPending ? 'Marking…' : 'Mark reviewed'}
            </button>
          ) : null}
        </div>
      ) : null}
      <video
        ref={player}
        src={video.url ?? undefined}
        poster={video.thumbnail_url ?? undefined}
        aria-label={`Labeling ${video.file_name}`}
        width={640}
        onTimeUpdate={(e) => setNow(Math.round(e.currentTarget.currentTime * 1000))}
        onSeeked={(e) => setNow(Math.round(e.currentTarget.currentTime * 1000))}
      />
      <p aria-live="polite">
        At {exactSeconds(now)} (frame {Math.round((now / 1000) * fps)}):{' '}
        <strong>{current === null ? 'background' : `${current + 1}. ${steps[current] ?? ''}`}</strong>
        {start !== null ? ` · start marked at ${exactSeconds(start)}` : ''}
        {dirty ? ' · unsaved changes' : ''}
      </p>
      <LabelTimeline
        view={view}
        segments={shown}
        steps={steps}
        start={start}
        now={now}
        canMark={editable}
        label={`Timeline: ${shown.length} segment${shown.length === 1 ? '' : 's'}${
          zoom > 1 ? `, ${exactSeconds(Math.round(view.from))} to ${exactSeconds(Math.round(view.to))}` : ''
        }`}
        onSeek={(ms) => {
          const v = player.current;
          if (v) v.currentTime = ms / 1000;
        }}
        onMark={(a, b) => act.mark(a, b)}
      />
      <p className="muted timeline-hint">
        {editable ? 'Tap the timeline to go there; drag along it to mark the chosen step.' : 'Tap the timeline to go there.'}
      </p>
      <div className="label-controls" role="group" aria-label="Player">
        <button type="button" className="with-icon" onClick={() => act.move(-frameStep)}>
          <SkipBack aria-hidden="true" />
          Back {frameStep} frames
        </button>
        <button type="button" className="with-icon" onClick={() => act.toggle()}>
          <Play aria-hidden="true" />
          <Pause aria-hidden="true" />
          Play / pause
        </button>
        <button type="button" className="with-icon" onClick={() => act.move(frameStep)}>
          <SkipForward aria-hidden="true" />
          Forward {frameStep} frames
        </button>
        <Field label="Frame step" type="number" min={1} max={1000} value={frameStep} onChange={(e) => setFrameStep(Math.max(1, Number(e.target.value) || 1))} />
        <button type="button" className="secondary" onClick={() => act.zoom(-1)} disabled={zoom <= 1}>
          Zoom out
        </button>
        <span aria-live="polite">Timeline {zoom}×</span>
        <button type="button" className="secondary" onClick={() => act.zoom(1)} disabled={zoom >= MAX_ZOOM}>
          Zoom in
        </button>
      </div>
      {editable ? (
        <div className="label-controls" role="group" aria-label="Steps">
          {steps.map((name, k) => (
            <button
              key={name}
              type="button"
              aria-pressed={k === step}
              className="step-choice"
              style={k === step ? { borderColor: stepColour(k), background: stepColour(k), color: '#fff' } : { borderColor: stepColour(k) }}
              onClick={() => setStep(k)}
            >
              {k + 1}. {name}
            </button>
          ))}
          <button type="button" className="secondary" onClick={() => act.markStart()}>
            Mark start (S)
          </button>
          <button type="button" className="secondary" onClick={() => act.markEnd()} disabled={start === null}>
            Mark end (E)
          </button>
        </div>
      ) : null}
      <FormError message={problem} />
      <DataTable
        label="Segments"
        query={{ isPending: false, error: null, data: shown }}
        empty={<EmptyState title="No segments yet: the whole video is background." />}
        columns={['Step', 'Start', 'End', 'Length', editable && 'Remove']}
        row={(sg) => (
          <tr key={`${sg.start_ms}-${sg.end_ms}`}>
            <td>
              {sg.step + 1}. {steps[sg.step] ?? ''}
            </td>
            <td>{exactSeconds(sg.start_ms)}</td>
            <td>{exactSeconds(sg.end_ms)}</td>
            <td>{exactSeconds(sg.end_ms - sg.start_ms)}</td>
            {editable ? (
              <td>
                <button type="button" className="secondary" onClick={() => setSegments(removeSegment(shown, shown.indexOf(sg)))}>
                  Remove
                </button>
              </td>
            ) : null}
          </tr>
        )}
      />
      {editable ? (
        <div className="label-controls">
          <SelectField label="Mode" value={mode} onChange={(e) => setMode(e.target.value as 'annotation' | 'verification')}>
            <option value="annotation">Annotation</option>
            <option value="verification">Verification</option>
          </SelectField>
          <button type="button" className="with-icon" onClick={() => save.mutate()} disabled={save.isPending}>
            <Save aria-hidden="true" />
            {save.isPending ? 'Saving…' : mode === 'verification' ? 'Save as checked' : 'Save labels'}
          </button>
          {via === 'organization' && q.data?.updated_at != null ? (
            <button type="button" className="danger" onClick={() => setConfirmDelete(true)} disabled={remove.isPending}>
              Delete labels
            </button>
          ) : null}
          {q.data?.reviewed ? (
            <span className="muted">{q.data.propagated_from ? `Checked (propagated from model ${q.data.propagated_from})` : 'Checked'}</span>
          ) : null}
        </div>
      ) : null}
      {confirmDelete ? (
        <ConfirmDialog
          title="Delete labels"
          confirmLabel="Delete labels"
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirmDelete(false)}
        >
          <p>Delete all the saved labels of {video.file_name}? The video stays; it is no longer trained on until labelled again.</p>
        </ConfirmDialog>
      ) : null}
      <table className="keys" aria-label="Keys">
        <tbody>
          {KEYS.map(([k, what]) => (
            <tr key={k}>
              <th scope="row">
                <kbd>{k}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
