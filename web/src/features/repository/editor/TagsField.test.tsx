import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useKeyDown } from '../../../lib/keys';
import { TagsField } from './TagsField';

afterEach(cleanup);

function Editor({ known, onEscape }: { known: string[]; onEscape: (e: KeyboardEvent) => void }) {
  const [tags, setTags] = useState<string[]>([]);
  // The editor's Escape, as EditSession listens for it: on the window, minding a key already handled.
  useKeyDown((e) => {
    if (e.key === 'Escape' && !e.defaultPrevented) onEscape(e);
  });
  return (
    <div>
      <TagsField value={tags} onChange={setTags} known={known} />
    </div>
  );
}

const setup = (known: string[] = ['smoke', 'regression']) => {
  const onEscape = vi.fn();
  render(<Editor known={known} onEscape={onEscape} />);
  const input = screen.getByRole('combobox', { name: 'Add a tag' });
  act(() => input.focus());
  const type = (text: string) => act(() => fireEvent.change(input, { target: { value: text } }));
  const press = (key: string) => act(() => fireEvent.keyDown(input, { key }));
  // The case's tags as the page shows them: one chip each, with its remove button (hidden from the accessibility
  // tree only while the suggestions show, as React Aria does outside an open popover).
  const tags = () =>
    screen
      .queryAllByRole('button', { name: /^Remove tag /, hidden: true })
      .map((b) => b.getAttribute('aria-label')!.slice('Remove tag '.length));
  return { input, type, press, tags, onEscape };
};

describe('the tag field', () => {
  it('adds the typed tag on Enter and empties itself for the next', () => {
    const { input, type, press, tags } = setup();
    type('checkout');
    expect(screen.getByRole('option', { name: 'Create tag “checkout”' })).toBeTruthy();
    press('Enter');
    expect(tags()).toEqual(['checkout']);
    expect((input as HTMLInputElement).value).toBe('');
  });

  it('adds a known tag typed in another case as that tag', () => {
    const { type, press, tags } = setup();
    type('Smoke');
    press('Enter');
    expect(tags()).toEqual(['smoke']);
  });

  it('closes the suggestions on Escape without the editor taking it as "cancel"', () => {
    const { type, press, tags, onEscape } = setup();
    type('smo');
    expect(screen.getByRole('option', { name: 'smoke' })).toBeTruthy();
    press('Escape');
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(tags()).toEqual([]);
    expect(onEscape).not.toHaveBeenCalled();
    // With the list closed, Escape is the editor's again.
    press('Escape');
    expect(onEscape).toHaveBeenCalledTimes(1);
  });
});
