import { useState } from 'react';
import { ComboBox, Input, Label, ListBox, ListBoxItem, Popover } from 'react-aria-components';
import { Button } from '../../../components/Button';

const NEW = '\u0000new';

/** Tags: pick one of the project's tags or create one by typing it (a combobox with a "Create" option). */
export function TagsField({
  value,
  onChange,
  known,
  error,
}: {
  value: string[];
  onChange: (tags: string[]) => void;
  known: string[];
  error?: string;
}) {
  const [input, setInput] = useState('');
  // Whether the suggestions are showing: Escape then only closes them (React Aria lets that Escape go on to the
  // editor, which would ask about discarding the edits, the list already gone by the time it looks).
  const [listOpen, setListOpen] = useState(false);
  const typed = input.trim();
  const lower = typed.toLowerCase();
  const options = known
    .filter((t) => !value.includes(t) && t.toLowerCase().includes(lower))
    .slice(0, 50)
    .map((t) => ({ id: t, label: t }));
  if (typed && !known.some((t) => t.toLowerCase() === lower) && !value.includes(typed))
    options.push({ id: NEW, label: `Create tag “${typed}”` });
  // A typed tag that differs from a known one only in case is that tag, not a second one.
  const typedTag = known.find((t) => t.toLowerCase() === lower) ?? typed;
  const add = (tag: string) => {
    if (tag && !value.includes(tag)) onChange([...value, tag]);
    setInput('');
  };
  return (
    <div className="field">
      {value.length > 0 && (
        <ul className="chips" aria-label="Tags of this case">
          {value.map((t) => (
            <li key={t} className="chip">
              {t}
              <Button
                variant="ghost"
                className="chip-remove"
                aria-label={`Remove tag ${t}`}
                onPress={() => onChange(value.filter((x) => x !== t))}
              >
                ✕
              </Button>
            </li>
          ))}
        </ul>
      )}
      <ComboBox
        // Label over the input, as every other field: inline, the input covered the end of the label.
        className="combobox field"
        inputValue={input}
        onInputChange={setInput}
        items={options}
        allowsCustomValue
        menuTrigger="focus"
        onOpenChange={setListOpen}
        selectedKey={null}
        onSelectionChange={(key) => {
          if (key === null) return;
          add(key === NEW ? typed : String(key));
        }}
        isInvalid={!!error}
      >
        <Label className="field-label">Add a tag</Label>
        <Input
          className="field-input"
          placeholder="Type to find or create a tag"
          onKeyDown={(e) => {
            // Enter adds what was typed unless an option is highlighted (React Aria adds that one). React Aria
            // has already handled the key and marked it handled while the list showed, so that mark is no guide.
            if (e.key === 'Enter' && typed && !e.currentTarget.getAttribute('aria-activedescendant')) {
              e.preventDefault(); // not the form's submit
              add(typedTag);
            } else if (e.key === 'Escape' && listOpen) e.preventDefault();
          }}
        />
        <Popover className="popover">
          <ListBox className="listbox">
            {(item: { id: string; label: string }) => (
              <ListBoxItem id={item.id} className="listbox-item" textValue={item.label}>
                {item.label}
              </ListBoxItem>
            )}
          </ListBox>
        </Popover>
      </ComboBox>
      {error && <p className="field-error">{error}</p>}
    </div>
  );
}
