/**
 * The one rule for "is the person typing?", read by every single-key shortcut listener (run page, repository,
 * case list, test case page, the shell's `?`): a key is text, never a shortcut, while the focus is in an editable
 * element or is on its way into one.
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
