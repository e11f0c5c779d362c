import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type PointerEvent, useEffect, useRef, useState } from 'react';

import type { AnnotationImage, AnnotationObjectWrite, TaskObject, Video } from '@/api/generated';
import { EmptyState } from '@/components/ui/empty-state';
import { Field, FormError, SelectField } from '@/components/ui/field';
import { useKeyboardBox } from '@/components/ui/keyboard-box';
import { errorMessage } from '@/lib/api-errors';
import { notify } from '@/lib/toast';

import {
  IMAGES_ERROR,
  annotationImagesQuery,
  annotationsKey,
  deleteImages,
  revertBoxes,
  saveBoxes,
  takeImage,
  taskObjectsQuery,
} from '../api/annotations';
import { type Point, asWrites, cssBox, dragBox, iouWithSaved, pointIn } from '../boxes';

const seconds = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

/**
 * Object boxes (below the labeling editor of a video): take a frame of the video as an
 * annotation image, then draw a box around each of the operation's objects on it
 * (choose the object, Draw Object, drag over the image; or by keyboard, Draw Object
 * puts the focus on the image, where the arrow keys place a box and Enter draws it)
 * and save them. Reset drops
 * the boxes not saved; Revert brings back the boxes before their last save. The
 * server's annotation calls: `cloud/src/http/annotations/`.
 */
export function ObjectBoxes({ video, editable }: { video: Video; editable: boolean }) {
  const qc = useQueryClient();
  const images = useQuery(annotationImagesQuery(video.task));
  const objects = useQuery(taskObjectsQuery(video.task));
  const [at, setAt] = useState('0');
  const [chosen, setChosen] = useState<number | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: annotationsKey(video.task) });
  const take = useMutation({
    mutationFn: () => takeImage({ video: video.id, frame_ms: Math.round(Number(at) * 1000) }),
    onSuccess: async (img) => {
      setProblem(null);
      await refresh();
      setChosen(img.id);
    },
    onError: (err) => setProblem(errorMessage(err, 'post')),
  });

  const mine = (images.data ?? []).filter((i) => i.video === video.id);
  const image = mine.find((i) => i.id === chosen) ?? null;
  return (
    <section className="object-boxes" aria-label="Object boxes">
      <h3>Object boxes</h3>
      {images.error ? (
        <p role="alert" className="query-error">
          {IMAGES_ERROR}
        </p>
      ) : null}
      {editable ? (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            take.mutate();
          }}
        >
          <Field label="Frame at (seconds)" type="number" min={0} step="any" value={at} onChange={(e) => setAt(e.target.value)} />
          <button type="submit" disabled={take.isPending}>
            {take.isPending ? 'Taking…' : 'Take image'}
          </button>
        </form>
      ) : null}
      <FormError message={problem} />
      {mine.length > 0 ? (
        <ul className="annotation-images" aria-label="Annotation images">
          {mine.map((i) => (
            <li key={i.id}>
              <button type="button" aria-pressed={i.id === chosen} onClick={() => setChosen(i.id)}>
                Image at {seconds(i.frame_ms)} ({i.objects.length} {i.objects.length === 1 ? 'box' : 'boxes'})
              </button>
            </li>
          ))}
        </ul>
      ) : images.data ? (
        <p>No images of this video yet.</p>
      ) : null}
      {image ? (
        objects.data && objects.data.length === 0 ? (
          <EmptyState title="This operation has no objects yet.">Add them in Define Operation, then draw them here.</EmptyState>
        ) : (
          <BoxEditor
            key={`${image.id}-${image.updated_at}`}
            image={image}
            objects={objects.data ?? []}
            editable={editable}
            onChanged={refresh}
            onDeleted={() => {
              setChosen(null);
              void refresh();
            }}
          />
        )
      ) : null}
    </section>
  );
}

type EditorProps = {
  image: AnnotationImage;
  objects: TaskObject[];
  editable: boolean;
  onChanged: () => Promise<unknown>;
  onDeleted: () => void;
};

/** One image with its boxes: drawing, the list of boxes, save, reset and revert. */
function BoxEditor({ image, objects, editable, onChanged, onDeleted }: EditorProps) {
  const [boxes, setBoxes] = useState<AnnotationObjectWrite[] | null>(null);
  const [object, setObject] = useState<number>(objects[0]?.id ?? 0);
  const [drawing, setDrawing] = useState(false);
  const [from, setFrom] = useState<Point | null>(null);
  const [to, setTo] = useState<Point | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const canvas = useRef<HTMLDivElement>(null);
  const drawButton = useRef<HTMLButtonElement>(null);
  const shown = boxes ?? asWrites(image.objects);
  const dirty = boxes !== null;
  const name = (id: number) => objects.find((o) => o.id === id)?.name ?? `Object ${id}`;
  const colour = (id: number) => objects.find((o) => o.id === id)?.outline_color ?? '#e11d48';

  const done = (msg: string) => async () => {
    setProblem(null);
    notify.successShort(msg);
    await onChanged();
  };
  const fail = (err: unknown) => setProblem(errorMessage(err, 'post'));
  const save = useMutation({
    mutationFn: () => saveBoxes({ image: image.id, objects: shown }),
    onSuccess: done('Data updated successfully!'),
    onError: fail,
  });
  const revert = useMutation({
    mutationFn: () => revertBoxes(image.id),
    onSuccess: done('Data updated successfully!'),
    onError: fail,
  });
  const remove = useMutation({
    mutationFn: () => deleteImages({ task: image.task, ids: [image.id] }),
    onSuccess: (m) => {
      notify.successShort(m.msg);
      onDeleted();
    },
    onError: fail,
  });

  const at = (e: PointerEvent) => pointIn(canvas.current!.getBoundingClientRect(), e.clientX, e.clientY);
  const down = (e: PointerEvent) => {
    if (!drawing) return;
    e.preventDefault();
    setFrom(at(e));
    setTo(at(e));
  };
  const move = (e: PointerEvent) => {
    if (from) setTo(at(e));
  };
  const up = (e: PointerEvent) => {
    if (!from) return;
    const r = dragBox(from, at(e));
    setFrom(null);
    setTo(null);
    if (r) {
      setBoxes([...shown, { task_object: object, ...r, confidence: null }]);
      setDrawing(false);
    }
  };
  const pending = from && to ? dragBox(from, to) : null;
  const stopDrawing = () => {
    setDrawing(false);
    drawButton.current?.focus();
  };
  const keys = useKeyboardBox({
    name: 'Box',
    onDraw: (r) => {
      setBoxes([...shown, { task_object: object, ...r, confidence: null }]);
      stopDrawing();
    },
    onCancel: stopDrawing,
  });
  // Draw Object hands the focus to the image, to draw by keyboard there.
  useEffect(() => {
    if (drawing) canvas.current?.focus();
  }, [drawing]);

  return (
    <div className="box-editor">
      <div
        ref={canvas}
        className={drawing ? 'box-canvas drawing' : 'box-canvas'}
        onPointerDown={down}
        onPointerMove={move}
        onPointerUp={up}
        {...(drawing ? { ...keys.surface, role: 'group', 'aria-label': `Draw a box around ${name(object)}` } : {})}
      >
        <img src={image.image_url} alt={`Annotation image at ${seconds(image.frame_ms)}`} draggable={false} />
        {shown.map((b, i) => (
          <div
            key={i}
            className="box"
            aria-label={`Box of ${name(b.task_object)}`}
            style={{ ...cssBox(b), borderColor: colour(b.task_object) }}
          >
            <span>{name(b.task_object)}</span>
          </div>
        ))}
        {pending ? <div className="box pending" style={{ ...cssBox(pending), borderColor: colour(object) }} /> : null}
        {drawing ? keys.cursor : null}
      </div>
      {editable ? (
        <div className="box-tools">
          <SelectField label="Object" value={object} onChange={(e) => setObject(Number(e.target.value))}>
            {objects.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </SelectField>
          <button ref={drawButton} type="button" aria-pressed={drawing} onClick={() => setDrawing(!drawing)} disabled={objects.length === 0}>
            Draw Object
          </button>
          <button type="button" onClick={() => setBoxes(null)} disabled={!dirty}>
            Reset
          </button>
          <button type="button" onClick={() => save.mutate()} disabled={!dirty || save.isPending}>
            {save.isPending ? 'Saving…' : 'Save boxes'}
          </button>
          <button type="button" onClick={() => revert.mutate()} disabled={dirty || !image.can_revert || revert.isPending}>
            Revert
          </button>
          <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Delete image
          </button>
        </div>
      ) : null}
      {drawing ? (
        <p className="hint">
          Drag over the image to draw a box around {name(object)}, or use the arrow keys and Enter on it.
        </p>
      ) : null}
      <FormError message={problem} />
      <table aria-label="Boxes">
        <thead>
          <tr>
            <th>Object</th>
            <th>Box (x, y, width, height)</th>
            <th>Confidence</th>
            <th>IOU</th>
            {editable ? <th /> : null}
          </tr>
        </thead>
        <tbody>
          {shown.map((b, i) => {
            const overlap = dirty ? iouWithSaved(b, image.objects) : null;
            return (
              <tr key={i}>
                <td>{name(b.task_object)}</td>
                <td>{[b.x, b.y, b.width, b.height].map((v) => v.toFixed(3)).join(', ')}</td>
                <td>{b.confidence == null ? '—' : b.confidence.toFixed(2)}</td>
                <td title="Overlap with the saved box of the same object">{overlap === null ? '—' : overlap.toFixed(2)}</td>
                {editable ? (
                  <td>
                    <button type="button" className="link-button" onClick={() => setBoxes(shown.filter((_, j) => j !== i))}>
                      Remove
                    </button>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
