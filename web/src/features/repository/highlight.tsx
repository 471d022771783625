import type { ReactNode } from 'react';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The API's escaped text back to characters (it escapes only these five). */
const unescape = (s: string): string =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name]);

/**
 * A search highlight (escaped HTML whose only tags are <mark> and </mark>) as React nodes: the one tag is read,
 * everything else is text, so nothing the case holds can become markup.
 */
export function Highlighted({ html }: { html: string }): ReactNode {
  const parts = html.split(/<mark>|<\/mark>/);
  return parts.map((part, i) => (i % 2 === 1 ? <mark key={i}>{unescape(part)}</mark> : unescape(part)));
}
