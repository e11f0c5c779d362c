/**
 * Object boxes on an annotation image, as plain logic (the drawing and the lists are
 * `components/object-boxes.tsx`'s): a box is scaled to 0..1 of the image from its
 * top-left corner, as the server keeps it (`AnnotationObjectWrite`).
 */
import type { AnnotationObject, AnnotationObjectWrite } from '@/api/generated';

export type Point = { x: number; y: number };
export type Rect = { x: number; y: number; width: number; height: number };

/** Boxes smaller than this share of the image's width or height are slips, not boxes. */
export const MIN_BOX = 0.01;

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/** The point of a pointer at (`clientX`, `clientY`) on an element at `r`, in 0..1. */
export function pointIn(r: { left: number; top: number; width: number; height: number }, clientX: number, clientY: number): Point {
  return {
    x: r.width > 0 ? clamp01((clientX - r.left) / r.width) : 0,
    y: r.height > 0 ? clamp01((clientY - r.top) / r.height) : 0,
  };
}

/** The box dragged from `a` to `b` (either corner first), inside the image; `null` when too small. */
export function dragBox(a: Point, b: Point): Rect | null {
  const x1 = clamp01(Math.min(a.x, b.x));
  const y1 = clamp01(Math.min(a.y, b.y));
  const x2 = clamp01(Math.max(a.x, b.x));
  const y2 = clamp01(Math.max(a.y, b.y));
  if (x2 - x1 < MIN_BOX || y2 - y1 < MIN_BOX) return null;
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

/** Intersection over union of two boxes (0 when apart, 1 when the same). */
export function iou(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
}

/** The saved boxes as the list a save sends. */
export function asWrites(objects: AnnotationObject[]): AnnotationObjectWrite[] {
  return objects.map(({ task_object, x, y, width, height, confidence }) => ({ task_object, x, y, width, height, confidence }));
}

/**
 * The IOU of drawn box `b` with the saved box of the same object that overlaps it most
 * (how far a box drawn again moved); `null` when the object has no saved box.
 */
export function iouWithSaved(b: AnnotationObjectWrite, saved: AnnotationObject[]): number | null {
  const same = saved.filter((s) => s.task_object === b.task_object);
  if (same.length === 0) return null;
  return Math.max(...same.map((s) => iou(b, s)));
}

/** A box's place and size in percent of the image, for CSS. */
export function cssBox(r: Rect): { left: string; top: string; width: string; height: string } {
  const p = (v: number) => `${(v * 100).toFixed(3)}%`;
  return { left: p(r.x), top: p(r.y), width: p(r.width), height: p(r.height) };
}
