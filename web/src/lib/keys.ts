import { useEffect, useRef } from 'react';
import { singleKeyShortcutsOn } from './shortcuts';

/**
 * How the application listens for keys, in one place: every shortcut site listens through `useKeyDown`, and a
 * bare key is a shortcut only when `isSingleKeyShortcut` says so. That reads the one rule for "is the person
 * typing?" (`isTyping`): a key is text, never a shortcut, while the focus is in an editable element or is on its
 * way into one; and the one switch that turns single-key shortcuts off (WCAG 2.1.4, lib/shortcuts.ts).
 *
 * "On its way" is the opening window: a button or key that opens an editor (a rich-text field that loads and
 * mounts lazily, a form on another page) calls `openingEditor()`. Until an editable element takes the focus, the
 * focus sits on no field (the opener is gone, the editor not there yet), so keys land on the page: here they are
 * caught before any listener sees them, kept, and put into the element that takes the focus, in order. Nothing
 * typed is lost and nothing typed is a shortcut. The window closes when an editable element takes the focus, or
 * is abandoned: Escape or Tab, a pointer press, the focus going to something that is not a field.
 */

/** What was typed since the opening began; undefined when no editor is opening. */
let typed: string | undefined;
let listening = false;

// Inputs that take no text: a key pressed on a just-ticked checkbox is meant for the page.
const NOT_TEXT = new Set([
  'checkbox',
  'radio',
  'button',
  'submit',
  'reset',
  'file',
  'range',
  'color',
  'image',
]);

/** An element whose keys are text: a text field, a select, a contenteditable (the rich-text editor). */
function isEditable(target: EventTarget | null): target is HTMLElement {
  if (target instanceof HTMLInputElement) return !NOT_TEXT.has(target.type);
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT');
}

/** Typing (in a field, or into an editor still opening) is text, not a shortcut. */
export function isTyping(target: EventTarget | null): boolean {
  return typed !== undefined || isEditable(target);
}

/** A bare key meant as a shortcut: no Ctrl, ⌘ or Alt, not typed text, and single-key shortcuts are on. */
export function isSingleKeyShortcut(e: KeyboardEvent): boolean {
  return !e.ctrlKey && !e.metaKey && !e.altKey && !isTyping(e.target) && singleKeyShortcutsOn();
}

/** A dialog, menu or listbox is open: Escape belongs to it. */
export const overlayOpen = () => !!document.querySelector('.modal-overlay, .popover, [role="listbox"]');

/**
 * The one way a page listens for keys: a keydown listener on the window while the component is mounted, calling
 * the latest render's handler (which may read that render's state; the listener is not added again per render).
 * Listeners run after the focused element's own handlers (React's), and after the keys held for an opening
 * editor were taken (openingEditor captures them first).
 */
export function useKeyDown(handler: (e: KeyboardEvent) => void): void {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => latest.current(e);
    // eslint-disable-next-line no-restricted-syntax -- the one listener every page's keys go through
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}

/** Whether an editor was asked for and has not taken the focus yet (it should take it when it comes). */
export function editorOpening(): boolean {
  return typed !== undefined;
}

/** Call on the click or key that opens an editor, before it is rendered. */
export function openingEditor(): void {
  typed = '';
  if (listening) return;
  listening = true;
  // Capture on window: before React's handlers and every shortcut listener (window or document).
  // eslint-disable-next-line no-restricted-syntax -- keys held for an opening editor are caught before any listener
  window.addEventListener('keydown', onKeyDown, true);
  window.addEventListener('pointerdown', abandon, true);
  window.addEventListener('focusin', onFocusIn, true);
}

/**
 * For an editor that inserts text its own way (ProseMirror): call it when it takes the focus. Ends the opening
 * and returns what was typed meanwhile ('' for nothing), newlines for Enter.
 */
export function takeTyped(): string {
  const text = typed ?? '';
  typed = undefined;
  return text;
}

function abandon(): void {
  typed = undefined;
}

function onKeyDown(e: KeyboardEvent): void {
  if (typed === undefined || isEditable(e.target) || e.isComposing) return;
  if (e.key === 'Escape' || e.key === 'Tab') {
    // Back to the keys, or the focus moved on purpose: what was typed was not for a field any more.
    abandon();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === 'Backspace') typed = Array.from(typed).slice(0, -1).join('');
  else if (e.key === 'Enter') typed += '\n';
  else if (Array.from(e.key).length === 1) typed += e.key;
  else return;
  e.preventDefault();
  e.stopImmediatePropagation();
}

function onFocusIn(e: FocusEvent): void {
  if (typed === undefined) return;
  const el = e.target;
  if (!isEditable(el)) {
    // The focus went to a button, a link, a dialog: not the editor that was asked for.
    if (el instanceof HTMLElement && el !== document.body) abandon();
    return;
  }
  // An editor that takes what was typed itself (in its own focus handler, before or after this event).
  if (el.dataset.takesTyped !== undefined) return;
  const text = takeTyped();
  if (!text || el.tagName === 'SELECT') return;
  // As if typed there: the field's input event fires, so React's onChange sees it.
  document.execCommand('insertText', false, el.tagName === 'TEXTAREA' ? text : text.replace(/\n/g, ' '));
}
