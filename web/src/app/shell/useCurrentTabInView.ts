import { useLayoutEffect, useRef } from 'react';

/**
 * A navigation bar that scrolls sideways on a phone (the project's, the administration's): its current tab
 * (`aria-current="page"`) is brought into view whenever `current` changes; the page itself does not move.
 */
export function useCurrentTabInView(current: unknown) {
  const navRef = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const nav = navRef.current;
    const tab = nav?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!nav || !tab || nav.scrollWidth <= nav.clientWidth) return;
    if (
      tab.offsetLeft + tab.offsetWidth > nav.scrollLeft + nav.clientWidth ||
      tab.offsetLeft < nav.scrollLeft
    )
      nav.scrollLeft = tab.offsetLeft - 12;
  }, [current]);
  return navRef;
}
