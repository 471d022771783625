import { useLayoutEffect, useRef } from 'react';
import { sanitizedFragment } from './sanitize';

/**
 * The one way the web application shows stored HTML (html fields, D22; rich-text custom fields): sanitised
 * again in the browser (./sanitize.ts) and put in as nodes. `dangerouslySetInnerHTML` and `innerHTML` are
 * refused everywhere else by the lint configuration.
 */
export function SafeHtml({ html, className = 'prose' }: { html: string; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(sanitizedFragment(html));
  }, [html]);
  return <div ref={ref} className={className} />;
}
