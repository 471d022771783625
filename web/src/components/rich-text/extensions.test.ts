import { Editor } from '@tiptap/react';
import { afterEach, describe, expect, it } from 'vitest';
import { richTextExtensions } from './extensions';

const editors: Editor[] = [];
const open = (content: string) => {
  const editor = new Editor({
    element: document.createElement('div'),
    extensions: richTextExtensions(),
    content,
  });
  editors.push(editor);
  return editor;
};
const hrefs = (editor: Editor) =>
  [...editor.view.dom.querySelectorAll('a')].map((a) => a.getAttribute('href'));

afterEach(() => editors.splice(0).forEach((e) => e.destroy()));

describe('the rich editor', () => {
  // Each scheme an editor registers makes linkify warn "already initialized" once it has run (the first editor
  // that linked anything): one Link extension, registering nothing, is what keeps the console quiet.
  // (linkify's console is not the test's, so the warning itself is checked in test/web/test-case.test.ts.)
  it('has one link extension, which registers no scheme of its own', () => {
    const links = open('<p>x</p>').extensionManager.extensions.filter((e) => e.name === 'link');
    expect(links).toHaveLength(1);
    expect(links[0]!.options.protocols).toEqual([]);
  });

  it('still turns typed web and mail addresses into links', () => {
    const editor = open('<p>See</p>');
    editor.commands.focus('end');
    editor.commands.insertContent(' https://example.com/a ');
    editor.commands.insertContent('mailto:ann@example.com ');
    expect(hrefs(editor)).toEqual(['https://example.com/a', 'mailto:ann@example.com']);
  });

  it('keeps http, https, mailto and relative links, and drops script links', () => {
    const editor = open(
      '<p><a href="https://example.com">a</a> <a href="mailto:ann@example.com">b</a> ' +
        '<a href="/project/SHOP">c</a> <a href="javascript:alert(1)">d</a></p>',
    );
    expect(hrefs(editor)).toEqual(['https://example.com', 'mailto:ann@example.com', '/project/SHOP']);
  });
});
