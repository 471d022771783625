import { EditorContent, useEditor, useEditorState } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';

export interface RichTextEditorProps {
  label: string;
  value: string;
  onChange: (html: string) => void;
  invalid?: boolean;
  describedBy?: string;
  /** Put the caret at the end once the editor is up (it was opened on purpose). */
  autoFocus?: boolean;
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
    extensions: [
      StarterKit.configure({ link: { openOnClick: false, protocols: ['http', 'https', 'mailto'] } }),
    ],
    content: value,
    // No inline <style> (the Content-Security-Policy refuses it): its rules are in rich-text.css.
    injectCSS: false,
    autofocus: autoFocus ? 'end' : false,
    editorProps: {
      attributes: {
        role: 'textbox',
        'aria-multiline': 'true',
        'aria-label': label,
        ...(invalid ? { 'aria-invalid': 'true' } : {}),
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        class: 'rte-content prose',
      },
    },
    // An empty paragraph is stored as nothing.
    onUpdate: ({ editor: e }) => onChange(e.isEmpty ? '' : e.getHTML()),
  });
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
