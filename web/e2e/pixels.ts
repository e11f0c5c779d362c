/**
 * A camera's pictures read in the page, for `blur.spec.ts`: a picture (an `<img>`'s
 * JPEG, or a `<video>`'s frame shown now) copied whole into a canvas and kept under a
 * name (`grabInPage`), and a blur region's blocks read back from it (`readBlocksInPage`):
 * how far the colours of each block's inner half spread, and their mean. The blocks
 * are the agent's (`blocksOf`, as `edge-agent/src/capture/blur.rs` cuts a region).
 * The `InPage` functions run inside the page (`evaluate`), so they are self-contained.
 */

/** A blur region as the server keeps it: fractions 0–1 of the frame from its top left. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A square block of the picture, in its pixels. */
export interface Block {
  x: number;
  y: number;
  size: number;
}

/**
 * The region of a `w × h` frame in pixels, `[x0, x1) × [y0, y1)` (`blur::pixels`: the
 * start rounded down, the end up, in `f32` as the agent computes it), its block
 * (`blur::block_size`: an eighth of the longer side, at least 16) and the blocks lying
 * wholly inside it, cut from its top-left corner (`blur::pixelate`). The blocks at the
 * right and bottom edges that the region cuts short are left out.
 */
export function blocksOf(r: Region, w: number, h: number): { px: [number, number, number, number]; size: number; blocks: Block[] } {
  const f = Math.fround;
  const clamp = (v: number) => f(Math.min(1, Math.max(0, v)));
  const x0 = Math.min(Math.floor(f(clamp(f(r.x)) * w)), w);
  const y0 = Math.min(Math.floor(f(clamp(f(r.y)) * h)), h);
  const x1 = Math.max(Math.min(Math.ceil(f(clamp(f(f(r.x) + f(r.width))) * w)), w), x0);
  const y1 = Math.max(Math.min(Math.ceil(f(clamp(f(f(r.y) + f(r.height))) * h)), h), y0);
  const size = Math.max(16, Math.floor(Math.max(x1 - x0, y1 - y0) / 8));
  const blocks: Block[] = [];
  for (let y = y0; y + size <= y1; y += size) for (let x = x0; x + size <= x1; x += size) blocks.push({ x, y, size });
  return { px: [x0, y0, x1, y1], size, blocks };
}

/** In the page: copies the picture `el` shows (an image's whole JPEG, a video's frame
 * now) at its own size into a canvas kept as `name`; answers its size. */
export function grabInPage(el: Element, name: string): [number, number] {
  const src = el as HTMLImageElement | HTMLVideoElement;
  const [w, h] = src instanceof HTMLVideoElement ? [src.videoWidth, src.videoHeight] : [src.naturalWidth, src.naturalHeight];
  if (!w || !h) throw new Error(`${name}: no picture yet`);
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('no 2D canvas');
  ctx.drawImage(src, 0, 0, w, h);
  const page = window as unknown as { grabbed?: Record<string, ImageData> };
  page.grabbed ??= {};
  // Throws for a picture from another origin (a tainted canvas): the test must see it.
  page.grabbed[name] = ctx.getImageData(0, 0, w, h);
  return [w, h];
}

/** What one block of a picture holds. */
export interface BlockRead {
  /** The largest spread (max − min) of a channel (R, G or B) over the block's inner half. */
  spread: number;
  /** The inner half's mean colour (RGB). */
  inner: number[];
}

/** In the page: `blocks` of the picture kept as `name`. The inner half leaves a
 * quarter of the block on each side, where JPEG's and H.264's own blocks blur the
 * edges between the agent's. */
export function readBlocksInPage({ name, blocks }: { name: string; blocks: Block[] }): BlockRead[] {
  const pic = (window as unknown as { grabbed?: Record<string, ImageData> }).grabbed?.[name];
  if (!pic) throw new Error(`nothing grabbed as ${name}`);
  const read = (x0: number, y0: number, x1: number, y1: number) => {
    const lo = [255, 255, 255];
    const hi = [0, 0, 0];
    const sum = [0, 0, 0];
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const i = (y * pic.width + x) * 4;
        for (let c = 0; c < 3; c++) {
          const v = pic.data[i + c] ?? 0;
          lo[c] = Math.min(lo[c] ?? 255, v);
          hi[c] = Math.max(hi[c] ?? 0, v);
          sum[c] = (sum[c] ?? 0) + v;
        }
      }
    }
    const n = (x1 - x0) * (y1 - y0);
    return { spread: Math.max(...hi.map((v, c) => v - (lo[c] ?? 0))), mean: sum.map((s) => Math.round(s / n)) };
  };
  return blocks.map((b) => {
    const q = Math.floor(b.size / 4);
    const inner = read(b.x + q, b.y + q, b.x + b.size - q, b.y + b.size - q);
    return { spread: inner.spread, inner: inner.mean };
  });
}

/** In the page: the picture kept as `name`, as a PNG (base64). */
export function pngInPage(name: string): string {
  const pic = (window as unknown as { grabbed?: Record<string, ImageData> }).grabbed?.[name];
  if (!pic) throw new Error(`nothing grabbed as ${name}`);
  const canvas = document.createElement('canvas');
  canvas.width = pic.width;
  canvas.height = pic.height;
  canvas.getContext('2d')?.putImageData(pic, 0, 0);
  return canvas.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
}
