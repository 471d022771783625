import type { RefObject } from 'react';
import { type Key, Menu, MenuItem, Popover } from 'react-aria-components';
import { siblingsOf, type FolderIndex, type FolderNode } from '../folder-tree';

/** A folder's actions, beside the row's actions button (`triggerRef`); focus goes back to it on close. */
export function FolderMenu({
  id,
  index,
  folder,
  keyboard,
  triggerRef,
  onAction,
  onClose,
}: {
  id: string;
  index: FolderIndex;
  folder: FolderNode;
  /** Opened from the keyboard (or a screen reader): the first item takes the focus, as in a menu button. */
  keyboard: boolean;
  triggerRef: RefObject<Element | null>;
  onAction: (action: Key) => void;
  onClose: () => void;
}) {
  const siblings = siblingsOf(index, folder);
  const at = siblings.findIndex((s) => s.id === folder.id);
  return (
    <Popover
      className="popover"
      placement="bottom end"
      triggerRef={triggerRef}
      isOpen
      onOpenChange={(open) => !open && onClose()}
      aria-label={`Actions for folder ${folder.title}`}
    >
      <Menu
        id={id}
        className="menu"
        aria-label={`Actions for folder ${folder.title}`}
        autoFocus={keyboard ? 'first' : true}
        onAction={onAction}
        onClose={onClose}
        disabledKeys={[...(at === 0 ? ['up'] : []), ...(at === siblings.length - 1 ? ['down'] : [])]}
      >
        <MenuItem id="sub" className="menu-item">
          New subfolder…
        </MenuItem>
        <MenuItem id="rename" className="menu-item">
          Rename…
        </MenuItem>
        <MenuItem id="up" className="menu-item">
          Move up
        </MenuItem>
        <MenuItem id="down" className="menu-item">
          Move down
        </MenuItem>
        <MenuItem id="move" className="menu-item">
          Move to…
        </MenuItem>
        <MenuItem id="delete" className="menu-item menu-item-danger">
          Delete…
        </MenuItem>
      </Menu>
    </Popover>
  );
}

/**
 * When the menu closes, the focus goes back to the button it came from: React Aria's tree would otherwise give
 * the focus to the row it last focused, which a keyboard user did not leave for the menu. The tree restores its row a frame or two after the menu closes, later on a busy machine: for a few
 * frames, a focus on a row (or on nothing) goes back to the button, until the person acts again or the
 * focus goes anywhere else.
 */
export function giveFocusBack(button: Element): void {
  if (!(button instanceof HTMLElement)) return;
  let frames = 0;
  const stop = () => {
    frames = Infinity;
    window.removeEventListener('keydown', stop, true);
    window.removeEventListener('pointerdown', stop, true);
  };
  // eslint-disable-next-line no-restricted-syntax -- not a shortcut: any key means the person acts again
  window.addEventListener('keydown', stop, true);
  window.addEventListener('pointerdown', stop, true);
  const settle = () => {
    if (!button.isConnected || frames++ >= 12) return stop();
    const active = document.activeElement;
    if (active !== button) {
      if (active && active !== document.body && active.getAttribute('role') !== 'row') return stop();
      button.focus({ preventScroll: true });
    }
    requestAnimationFrame(settle);
  };
  requestAnimationFrame(settle);
}
