import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type PointerEvent as ReactPointerEvent,
  type ReactNode,
} from 'react';
import { flushSync } from 'react-dom';
import { Button as AriaButton, type PressEvent } from 'react-aria-components';
import type { FolderCount } from '../../../api/queries';
import { formatCount } from '../../../lib/format';
import type { FolderNode } from '../folder-tree';

/** How a row asks for its folder's actions menu: which folder, the button beside it, and how the press came. */
export type OpenMenu = (node: FolderNode, button: Element, pointerType: PressEvent['pointerType']) => void;

/**
 * What the rows read at render time rather than from their closures: React Aria caches a collection's rendered
 * items by item, so a row built earlier would keep an old value.
 */
export interface Rows {
  /** Whether the rows carry their buttons yet (see `useRowControls`). */
  controls: boolean;
  /** The folder whose actions menu is open, and the menu's id (the button's aria-controls). */
  openMenu?: number;
  menuId: string;
  onMenu: OpenMenu;
  /** A press on a row's marks before its buttons came: expand or collapse, or open its menu once they are there. */
  toggle: (id: number) => void;
  menuOnceReady?: number;
  requestMenu: (id: number) => void;
  /** Each folder's cases, once loaded: a row shows its subtree's (what picking it lists). */
  counts?: ReadonlyMap<number, FolderCount>;
}
export const RowsContext = createContext<Rows>({
  controls: true,
  menuId: '',
  onMenu: () => undefined,
  toggle: () => undefined,
  requestMenu: () => undefined,
});

/**
 * A cold load shows the tree with look-alike marks where each row's three buttons go; the buttons come once the
 * main thread is first idle (at most a second later; 200 ms in Safari, which has no requestIdleCallback), or at once
 * when the mouse or the focus comes into the folder pane. React Aria's buttons cost each row about as much as the
 * row itself, and every row renders twice while mounting; the marks took a twentieth off the repository page's
 * first paint. A tap on a mark still does what the button would (see `FolderRow`). In development React Aria warns
 * once per row that it mounted without its chevron and drag buttons; that is these marks.
 */
export function useRowControls(): [boolean, () => void] {
  const [controls, setControls] = useState(false);
  const pressed = useRef(false);
  const deferred = useRef(false);
  // The buttons come in one synchronous commit, and never while a pointer is down: a press that began on a mark
  // and ended on the button that replaced it would do nothing at all (the click lands on neither).
  const show = useCallback(() => {
    if (pressed.current) deferred.current = true;
    else flushSync(() => setControls(true));
  }, []);
  useEffect(() => {
    if (controls) return;
    // Only a primary press clicks; a press whose release never comes (a context menu took it, the window lost
    // the focus) ends there too, so the buttons are never held back for good.
    const down = (e: PointerEvent) => {
      if (e.button === 0) pressed.current = true;
    };
    const up = () => {
      if (!pressed.current) return;
      pressed.current = false;
      // After the click that ends this press has been dispatched to the mark.
      if (deferred.current) setTimeout(show, 0);
    };
    document.addEventListener('pointerdown', down, true);
    document.addEventListener('pointerup', up, true);
    document.addEventListener('pointercancel', up, true);
    document.addEventListener('contextmenu', up, true);
    window.addEventListener('blur', up);
    const idle = typeof (window as Partial<Window>).requestIdleCallback === 'function';
    const id = idle ? window.requestIdleCallback(show, { timeout: 1000 }) : window.setTimeout(show, 200);
    return () => {
      if (idle) window.cancelIdleCallback(id);
      else window.clearTimeout(id);
      document.removeEventListener('pointerdown', down, true);
      document.removeEventListener('pointerup', up, true);
      document.removeEventListener('pointercancel', up, true);
      document.removeEventListener('contextmenu', up, true);
      window.removeEventListener('blur', up);
    };
  }, [controls, show]);
  return [controls, show];
}

/**
 * A folder's cases, its subfolders' included (what picking it lists), with the part directly in it in the tooltip;
 * the row's name stays the folder's title, and the number is read with the row's content.
 */
export function FolderCases({ count }: { count: FolderCount | undefined }) {
  if (!count) return null;
  const words = `Cases: ${formatCount(count.subtree)} with subfolders, ${formatCount(count.own)} directly in it`;
  return (
    <span className="folder-count" title={words}>
      <span aria-hidden="true">{formatCount(count.subtree)}</span>
      <span className="visually-hidden">{words}</span>
    </span>
  );
}

/** Keeps a press on a mark away from the row (which would select the folder instead). */
const ownPress = (e: ReactPointerEvent) => e.stopPropagation();

/** A button's mark before the row has its buttons: for pointers only, a tap does what the button would. */
function Mark({ className, onTap, children }: { className: string; onTap: () => void; children: ReactNode }) {
  return (
    <span className={className} aria-hidden="true" onPointerDown={ownPress} onClick={onTap}>
      {children}
    </span>
  );
}

/** A row's drag handle, chevron, title and actions button (marks in their place until `controls`). */
export function FolderRow({
  node,
  canEdit,
  hasChildItems,
  isExpanded,
}: {
  node: FolderNode;
  canEdit: boolean;
  hasChildItems: boolean;
  isExpanded: boolean;
}) {
  const rows = useContext(RowsContext);
  const actions = useRef<HTMLButtonElement>(null);
  const { controls, menuOnceReady, onMenu } = rows;
  // The menu asked for through the mark opens beside the button that replaced it.
  useLayoutEffect(() => {
    if (controls && menuOnceReady === node.id && actions.current) onMenu(node, actions.current, 'mouse');
  }, [controls, menuOnceReady, node, onMenu]);
  const chevron = <span aria-hidden="true">{isExpanded ? '▾' : '▸'}</span>;
  const open = rows.openMenu === node.id;
  // Until `controls`, each button is a mark for pointers only (hidden from assistive technology, which reaches the
  // buttons through the focus); a press on a mark is kept from the row and does what the button would.
  return (
    <div className="folder-row">
      {canEdit &&
        (controls ? (
          <AriaButton slot="drag" className="folder-drag" aria-label={`Drag ${node.title}`}>
            ⠿
          </AriaButton>
        ) : (
          <span className="folder-drag" aria-hidden="true">
            ⠿
          </span>
        ))}
      {!hasChildItems ? (
        <span className="folder-chevron" aria-hidden="true" />
      ) : controls ? (
        <AriaButton slot="chevron" className="folder-chevron" aria-label={isExpanded ? 'Collapse' : 'Expand'}>
          {chevron}
        </AriaButton>
      ) : (
        <Mark className="folder-chevron" onTap={() => rows.toggle(node.id)}>
          {chevron}
        </Mark>
      )}
      <span className="folder-title">{node.title}</span>
      <FolderCases count={rows.counts?.get(node.id)} />
      {canEdit &&
        (controls ? (
          <AriaButton
            ref={actions}
            className="folder-menu-button"
            aria-label={`Actions for folder ${node.title}`}
            aria-haspopup="menu"
            aria-expanded={open}
            aria-controls={open ? rows.menuId : undefined}
            onPress={(e) => {
              // Focus goes back here when the menu closes (some browsers do not focus a clicked button).
              if (e.target instanceof HTMLElement) e.target.focus({ preventScroll: true });
              onMenu(node, e.target, e.pointerType);
            }}
          >
            <span aria-hidden="true">⋯</span>
          </AriaButton>
        ) : (
          <Mark className="folder-menu-button" onTap={() => rows.requestMenu(node.id)}>
            ⋯
          </Mark>
        ))}
    </div>
  );
}
