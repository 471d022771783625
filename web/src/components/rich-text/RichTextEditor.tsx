import { useEffect } from 'react';
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react';
import { editorOpening, takeTyped } from '../../lib/keys';
import { richTextExtensions } from './extensions';

export interface RichTextEditorProps {
  label: string;
  value: string;
  onChange: (html: string) => void;
  invalid?: boolean;
  describedBy?: string;
  /**
   * Put the caret at the end once the editor is up, if the person is still waiting for it (lib/keys.ts
   * `openingEditor`): an opening given up meanwhile (Escape, a click elsewhere) leaves the focus where it is.
   */
  autoFocus?: boolean;
}

/** Text typed while the editor was opening, as if typed here: Enter starts a new paragraph. */
function insertTyped(view: Editor['view'], text: string): void {
  let tr = view.state.tr;
  text.split('\n').forEach((line, i) => {
    if (i > 0) tr = tr.split(tr.selection.from);
    if (line) tr = tr.insertText(line);
  });
  view.dispatch(tr);
}

/**
 * TipTap (MIT) for the HTML fields; this module is imported on first use so the editor's weight stays out
 * of every other page. Its output is still sanitised by the service (D22): what is shown after saving is
 * what the service stored.
 */
export default function RichTextEditor({
  label,
  value,
  onChange,
  invalid,
  describedBy,
  autoFocus,
}: RichTextEditorProps) {
  const editor = useEditor({
    extensions: richTextExtensions(),
    content: value,
    // No inline <style> (the Content-Security-Policy refuses it): its rules are in rich-text.css.
    injectCSS: false,
    editorProps: {
      attributes: {
        role: 'textbox',
        'aria-multiline': 'true',
        'aria-label': label,
        ...(invalid ? { 'aria-invalid': 'true' } : {}),
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        class: 'rte-content prose',
        // lib/keys.ts leaves the text typed while opening to this editor's focus handler below.
        'data-takes-typed': '',
      },
      handleDOMEvents: {
        focus: (view) => {
          const typed = takeTyped();
          if (typed) insertTyped(view, typed);
          return false;
        },
      },
    },
    // An empty paragraph is stored as nothing.
    onUpdate: ({ editor: e }) => onChange(e.isEmpty ? '' : e.getHTML()),
  });
  // The caret goes in once the editor is in the page: tiptap's own autofocus runs on timers that a lazy, suspended
  // render can outrun (the editor not attached yet), and then the focus stays nowhere.
  useEffect(() => {
    if (!autoFocus || editor.isDestroyed || !editor.view.dom.isConnected || !editorOpening()) return;
    editor.commands.focus('end');
    editor.view.focus();
  }, [editor, autoFocus]);
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      code: e.isActive('code'),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
    }),
  });
  const tools: [keyof typeof state, string, string, () => void][] = [
    ['bold', 'Bold', 'B', () => editor.chain().focus().toggleBold().run()],
    ['italic', 'Italic', 'I', () => editor.chain().focus().toggleItalic().run()],
    ['code', 'Code', '</>', () => editor.chain().focus().toggleCode().run()],
    ['bullet', 'Bulleted list', '•', () => editor.chain().focus().toggleBulletList().run()],
    ['ordered', 'Numbered list', '1.', () => editor.chain().focus().toggleOrderedList().run()],
  ];
  return (
    <div className={`rte${invalid ? ' rte-invalid' : ''}`}>
      <div role="toolbar" aria-label={`${label} formatting`} className="rte-toolbar">
        {tools.map(([key, name, glyph, run]) => (
          <button
            key={key}
            type="button"
            className="rte-tool"
            aria-pressed={state[key]}
            title={name}
            onClick={run}
          >
            <span aria-hidden="true">{glyph}</span>
            <span className="visually-hidden">{name}</span>
          </button>
        ))}
      </div>
      <EditorContent editor={editor} />
    </div>
  );
}
