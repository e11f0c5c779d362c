import { Fragment, type ReactNode } from 'react';

import { type Block, type Inline, parseMarkdown } from '@/lib/markdown';

function inline(nodes: Inline[]): ReactNode {
  return nodes.map((n, i) => {
    switch (n.kind) {
      case 'text':
        return <Fragment key={i}>{n.text}</Fragment>;
      case 'strong':
        return <strong key={i}>{inline(n.children)}</strong>;
      case 'em':
        return <em key={i}>{inline(n.children)}</em>;
      case 'code':
        return <code key={i}>{n.text}</code>;
      case 'link':
        return (
          <a key={i} href={n.href} rel="noopener noreferrer" target={n.href.startsWith('mailto:') ? undefined : '_blank'}>
            {inline(n.children)}
          </a>
        );
    }
  });
}

function block(b: Block, i: number): ReactNode {
  switch (b.kind) {
    case 'heading': {
      const H = `h${b.level}` as const;
      return <H key={i}>{inline(b.children)}</H>;
    }
    case 'paragraph':
      return <p key={i}>{inline(b.children)}</p>;
    case 'list': {
      const L = b.ordered ? 'ol' : 'ul';
      return (
        <L key={i}>
          {b.items.map((item, j) => (
            <li key={j}>{inline(item)}</li>
          ))}
        </L>
      );
    }
    case 'rule':
      return <hr key={i} />;
  }
}

/**
 * Markdown an operator wrote (`lib/markdown.ts`), as React elements: no HTML is ever
 * injected, links go to web and mail addresses only.
 */
export function Markdown({ text }: { text: string }) {
  return <>{parseMarkdown(text).map(block)}</>;
}
