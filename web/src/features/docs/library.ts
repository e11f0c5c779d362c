/**
 * The manuals and lessons as documents (pure: no I/O). Each is one Markdown file of
 * `content/`: its `# ` line is the title (a lesson's starts with its number, "5. Takt
 * time"), the text before its first `## ` the introduction, and each `## ` heading
 * opens a section whose id is the heading as a slug ("A device's page" →
 * `a-devices-page`), unique in its document. The files stay plain Markdown so other
 * readers (the assistant's retrieval) can index them as they are.
 */

export type DocKind = 'manual' | 'lesson';

export type Section = {
  /** The heading as a slug; '' for the introduction before the first heading. */
  id: string;
  title: string;
  /** The section's Markdown, without its heading. */
  text: string;
};

export type Doc = {
  kind: DocKind;
  /** The file's name without its number and extension: `define-operation`. */
  slug: string;
  /** The file's number: a chapter's place, a lesson's number. */
  number: number;
  title: string;
  sections: Section[];
};

/** `heading` as an id: lower case, letters and digits, words joined by '-'. */
export function slugify(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const FILE = /(?:^|\/)(\d+)-([a-z0-9-]+)\.md$/;

/** The document of file `path` (`…/05-takt-time.md`) holding `text`. */
export function parseDoc(kind: DocKind, path: string, text: string): Doc {
  const file = FILE.exec(path);
  if (!file) throw new Error(`${path}: a document's file is named NN-slug.md`);
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let title = '';
  const sections: Section[] = [];
  let current: Section = { id: '', title: '', text: '' };
  const body: string[] = [];
  const close = () => {
    current.text = body.join('\n').trim();
    body.length = 0;
    if (current.id !== '' || current.text !== '') sections.push(current);
  };
  for (const line of lines) {
    const h1 = /^#\s+(.+?)\s*$/.exec(line);
    const h2 = /^##\s+(.+?)\s*$/.exec(line);
    if (h1 && title === '') {
      title = h1[1]!;
    } else if (h2) {
      close();
      current = { id: slugify(h2[1]!), title: h2[1]!, text: '' };
    } else {
      body.push(line);
    }
  }
  close();
  if (title === '') throw new Error(`${path}: a document starts with its "# " title`);
  const ids = sections.map((s) => s.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`${path}: two sections are "${twice}"`);
  return { kind, slug: file[2]!, number: Number(file[1]), title, sections };
}

/** The documents of `files` (path → text), in the order of their numbers. */
export function parseDocs(kind: DocKind, files: Record<string, string>): Doc[] {
  return Object.entries(files)
    .map(([path, text]) => parseDoc(kind, path, text))
    .sort((a, b) => a.number - b.number);
}

/** A lesson's title without its number ("5. Takt time" → "Takt time"). */
export function bareTitle(doc: Doc): string {
  return doc.title.replace(/^\d+\.\s*/, '');
}

/** The start of `doc`'s first paragraph as plain text, whole sentences up to about
 * `max` characters (at least the first sentence's words): a summary for lists. */
export function summary(doc: Doc, max = 180): string {
  const first = plain(doc.sections[0]?.text.split(/\n\s*\n/)[0] ?? '');
  if (first.length <= max) return first;
  const end = first.lastIndexOf('. ', max);
  if (end > 0) return first.slice(0, end + 1);
  return `${first.slice(0, first.lastIndexOf(' ', max))} …`;
}

/** Markdown as the words a reader sees: no emphasis marks, links as their text. */
export function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]/g, '')
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}
