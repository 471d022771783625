import { useEffect } from 'react';

/** Each page names itself in the tab and to screen readers after a navigation. */
export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · Casebook` : 'Casebook';
  }, [title]);
}
