/**
 * A small Markdown reader for texts the operator writes (the privacy policy) and the
 * user manuals (`features/docs/content/`): headings,
 * paragraphs, bulleted and numbered lists, rules, and inline strong, emphasis, code and
 * links. It builds a tree, never HTML: raw HTML in the text stays text (React escapes
 * it), and links go only to http(s) and mailto addresses and the portal's own pages (the
 * user manuals link the screens they explain). Anything it does not know reads as plain
 * text.
 */

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'strong' | 'em'; children: Inline[] }
  | { kind: 'code'; text: string }
  | { kind: 'link'; href: string; children: Inline[] };

export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { kind: 'paragraph'; children: Inline[] }
  | { kind: 'list'; ordered: boolean; items: Inline[][] }
  | { kind: 'rule' };

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;

/** The blocks of `text`. */
export function parseMarkdown(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  let para: string[] = [];
  let list: { ordered: boolean; items: string[] } | null = null;
  const flush = () => {
    if (para.length > 0) out.push({ kind: 'paragraph', children: parseInline(para.join(' ')) });
    para = [];
    if (list) out.push({ kind: 'list', ordered: list.ordered, items: list.items.map(parseInline) });
    list = null;
  };
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line.trim() === '') {
      flush();
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      flush();
      out.push({ kind: 'heading', level: h[1]!.length as 1 | 2 | 3 | 4 | 5 | 6, children: parseInline(h[2]!) });
      continue;
    }
    if (RULE.test(line)) {
      flush();
      out.push({ kind: 'rule' });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      const ordered = numbered !== null;
      if (para.length > 0 || (list && list.ordered !== ordered)) flush();
      list ??= { ordered, items: [] };
      list.items.push(item[1]!);
      continue;
    }
    if (list && /^\s+\S/.test(raw)) {
      // An indented line goes on with the list item above it.
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    if (list) flush();
    para.push(line.trim());
  }
  flush();
  return out;
}

/** Whether a link may point at `href`: web and mail addresses, and the portal's own pages
 * (`/user/…`: a path on this site, never `//host` or `/\host`, which browsers read as
 * another site). */
export function safeHref(href: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(href.trim()) || isInternalHref(href);
}

/** Whether `href` is a page of the portal itself (`/user/process?task=3#steps`). */
export function isInternalHref(href: string): boolean {
  return /^\/(?![/\\])/.test(href.trim());
}

/** The inline pieces of one block's text. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const push = (node: Inline) => {
    if (plain !== '') out.push({ kind: 'text', text: plain });
    plain = '';
    out.push(node);
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    if (rest.startsWith('\\') && rest.length > 1 && /[\\`*_[\]()#+\-.!]/.test(rest[1]!)) {
      plain += rest[1];
      i += 2;
      continue;
    }
    if (rest.startsWith('`')) {
      const end = rest.indexOf('`', 1);
      if (end > 1) {
        push({ kind: 'code', text: rest.slice(1, end) });
        i += end + 1;
        continue;
      }
    }
    const strong = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest);
    if (strong) {
      push({ kind: 'strong', children: parseInline(strong[2]!) });
      i += strong[0].length;
      continue;
    }
    const em = /^([*_])(?=\S)([\s\S]*?\S)\1/.exec(rest);
    if (em && !(em[1] === '_' && /\w/.test(text[i - 1] ?? ''))) {
      push({ kind: 'em', children: parseInline(em[2]!) });
      i += em[0].length;
      continue;
    }
    // The address may hold one level of balanced parentheses.
    const link = /^\[([^\]]+)\]\(((?:[^()\s]|\([^()\s]*\))+)\)/.exec(rest);
    if (link) {
      if (safeHref(link[2]!)) push({ kind: 'link', href: link[2]!.trim(), children: parseInline(link[1]!) });
      else plain += link[1];
      i += link[0].length;
      continue;
    }
    plain += rest[0];
    i += 1;
  }
  if (plain !== '') out.push({ kind: 'text', text: plain });
  return out;
}
