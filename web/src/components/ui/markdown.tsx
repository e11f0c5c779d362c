import { Fragment, type ReactNode } from 'react';
import { Link } from 'react-router';

import { type Block, type Inline, isInternalHref, parseMarkdown } from '@/lib/markdown';

/**
 * `text` with every match of `marks` (a case-insensitive pattern with the global flag)
 * in `<mark>`; plain text without one.
 */
export function Highlighted({ text, marks }: { text: string; marks?: RegExp | null }): ReactNode {
  if (!marks) return text;
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(marks)) {
    if (m[0] === '') continue;
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(<mark key={m.index}>{m[0]}</mark>);
    last = m.index + m[0].length;
  }
  if (out.length === 0) return text;
  if (last < text.length) out.push(text.slice(last));
  return <>{out}</>;
}

function inline(nodes: Inline[], marks: RegExp | null): ReactNode {
  return nodes.map((n, i) => {
    switch (n.kind) {
      case 'text':
        return (
          <Fragment key={i}>
            <Highlighted text={n.text} marks={marks} />
          </Fragment>
        );
      case 'strong':
        return <strong key={i}>{inline(n.children, marks)}</strong>;
      case 'em':
        return <em key={i}>{inline(n.children, marks)}</em>;
      case 'code':
        return <code key={i}>{n.text}</code>;
      case 'link':
        // The portal's own pages open in place; other sites in a new tab.
        return isInternalHref(n.href) ? (
          <Link key={i} to={n.href}>
            {inline(n.children, marks)}
          </Link>
        ) : (
          <a key={i} href={n.href} rel="noopener noreferrer" target={n.href.startsWith('mailto:') ? undefined : '_blank'}>
            {inline(n.children, marks)}
          </a>
        );
    }
  });
}

function block(b: Block, i: number, marks: RegExp | null): ReactNode {
  switch (b.kind) {
    case 'heading': {
      const H = `h${b.level}` as const;
      return <H key={i}>{inline(b.children, marks)}</H>;
    }
    case 'paragraph':
      return <p key={i}>{inline(b.children, marks)}</p>;
    case 'list': {
      const L = b.ordered ? 'ol' : 'ul';
      return (
        <L key={i}>
          {b.items.map((item, j) => (
            <li key={j}>{inline(item, marks)}</li>
          ))}
        </L>
      );
    }
    case 'rule':
      return <hr key={i} />;
  }
}

/**
 * Markdown an operator wrote (`lib/markdown.ts`), or a manual's, as React elements: no
 * HTML is ever injected, links go to web and mail addresses and the portal's own pages.
 * `marks` (a global, case-insensitive pattern) highlights what a search found.
 */
export function Markdown({ text, marks = null }: { text: string; marks?: RegExp | null }) {
  return <>{parseMarkdown(text).map((b, i) => block(b, i, marks))}</>;
}
