/**
 * Search over every section of the manuals and lessons, in the browser (MiniSearch: a
 * full-text index with prefix and fuzzy matching, built once when first asked). A
 * section's heading weighs more than its text, and its document's title more than its
 * text too, so "takt" finds the Takt time lesson before the pages that mention takt.
 */
import MiniSearch from 'minisearch';

import { lessonHref, manualHref } from '@/config/help';

import { type Doc, plain } from './library';

type Entry = {
  key: string;
  title: string;
  doc: string;
  text: string;
  kind: Doc['kind'];
  slug: string;
  number: number;
  section: string;
};

export type Hit = {
  key: string;
  /** The section's heading (the document's title for its introduction). */
  title: string;
  /** The document's title. */
  doc: string;
  kind: Doc['kind'];
  /** The section's address with the search in it (highlighted there). */
  href: string;
  /** Words of the section around the first match, plain text. */
  snippet: string;
};

/** The words of `q` a search looks for (at least 2 characters each). */
export function queryWords(q: string): string[] {
  return (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2);
}

/**
 * What to highlight for the search `q`: each word of the text beginning with one of its
 * words (as the search matches prefixes), or null for an empty search.
 */
export function marksFor(q: string): RegExp | null {
  const words = queryWords(q).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (words.length === 0) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})[\\p{L}\\p{N}]*`, 'giu');
}

/** About `width` characters of `text` around the first match of `marks`. */
export function snippet(text: string, marks: RegExp | null, width = 160): string {
  const at = marks ? text.search(new RegExp(marks.source, 'iu')) : -1;
  const start = at < 0 ? 0 : Math.max(0, text.lastIndexOf(' ', Math.max(0, at - width / 3)) + 1);
  const end = Math.min(text.length, start + width);
  const cut = text.slice(start, end);
  return `${start > 0 ? '… ' : ''}${end < text.length ? cut.slice(0, Math.max(cut.lastIndexOf(' '), width / 2)) : cut}${end < text.length ? ' …' : ''}`;
}

export type DocsIndex = { search: (q: string, limit?: number) => Hit[] };

/** The index of `docs`' sections. */
export function buildIndex(docs: readonly Doc[]): DocsIndex {
  const entries: Entry[] = docs.flatMap((d) =>
    d.sections.map((s) => ({
      key: `${d.kind}/${d.slug}#${s.id}`,
      title: s.title || d.title,
      doc: d.title,
      text: plain(s.text),
      kind: d.kind,
      slug: d.slug,
      number: d.number,
      section: s.id,
    })),
  );
  const index = new MiniSearch<Entry>({
    idField: 'key',
    fields: ['title', 'doc', 'text'],
    storeFields: ['title', 'doc', 'text', 'kind', 'slug', 'number', 'section'],
    searchOptions: { boost: { title: 3, doc: 2 }, prefix: true, fuzzy: 0.15, combineWith: 'AND' },
  });
  index.addAll(entries);
  return {
    search(q, limit = 10) {
      const words = queryWords(q);
      if (words.length === 0) return [];
      const marks = marksFor(q);
      return index
        .search(words.join(' '))
        .slice(0, limit)
        .map((r) => {
          const e = r as unknown as Entry & { id: string };
          const section = e.section || undefined;
          const href = e.kind === 'manual' ? manualHref(e.slug, section, q.trim()) : lessonHref(e.number, section, q.trim());
          return { key: e.id, title: e.title, doc: e.doc, kind: e.kind, href, snippet: snippet(e.text, marks) };
        });
    },
  };
}
