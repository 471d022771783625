import { useId, useState, type ReactNode } from 'react';
import {
  Checkbox,
  CheckboxGroup,
  Dialog,
  DialogTrigger,
  Form,
  Input,
  Label,
  Popover,
  SearchField,
  Text,
  TextField,
} from 'react-aria-components';
import { Button } from '../../components/Button';
import { formatCount } from '../../lib/format';

/** Above this many options the popover offers a search over their names. */
const SEARCH_FROM = 10;

/** How the button says what is chosen: the names while they fit, else a count. */
function summary(names: string[]): string {
  if (names.length === 0) return 'Any';
  if (names.length <= 2) return names.join(', ');
  return `${formatCount(names.length)} selected`;
}

/**
 * One filter of the list as a button that opens a popover (Escape or a click outside closes it, focus goes back
 * to the button). The button's name is the filter's label and what is chosen ("Tag smoke, odd").
 */
function FilterShell({
  label,
  chosen,
  active,
  children,
}: {
  label: string;
  chosen: string;
  active: boolean;
  children: ReactNode | ((close: () => void) => ReactNode);
}) {
  const id = useId();
  return (
    <div className="repo-filter">
      <span className="field-label" id={`${id}-label`}>
        {label}
      </span>
      <DialogTrigger>
        <Button
          id={`${id}-button`}
          className={`field-input filter-button${active ? ' is-active' : ''}`}
          aria-labelledby={`${id}-label ${id}-button`}
        >
          <span className="filter-value">{chosen}</span>
          <span aria-hidden="true">▾</span>
        </Button>
        <Popover className="popover filter-popover" placement="bottom start">
          <Dialog className="filter-dialog" aria-label={`Filter by ${label.toLowerCase()}`}>
            {({ close }) => (typeof children === 'function' ? children(close) : children)}
          </Dialog>
        </Popover>
      </DialogTrigger>
    </div>
  );
}

/** A filter taking any number of values from a list: checkboxes in a popover (OR within the filter). */
export function MultiFilter({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  /** [value, name] */
  options: [string, string][];
  value: string[];
  onChange: (v: string[]) => void;
}) {
  const [q, setQ] = useState('');
  const names = new Map(options);
  const shown = q
    ? options.filter(([, name]) => name.toLowerCase().includes(q.trim().toLowerCase()))
    : options;
  return (
    <FilterShell
      label={label}
      chosen={summary(value.map((v) => names.get(v) ?? v))}
      active={value.length > 0}
    >
      {(close) => (
        <>
          {options.length > SEARCH_FROM && (
            <SearchField
              className="field filter-search"
              value={q}
              onChange={setQ}
              aria-label={`Find a ${label.toLowerCase()}`}
            >
              <Input className="field-input" placeholder="Find…" />
            </SearchField>
          )}
          <CheckboxGroup className="filter-options" value={value} onChange={onChange} aria-label={label}>
            {shown.map(([v, name]) => (
              <Checkbox key={v} value={v} className="filter-option">
                <span className="filter-box" aria-hidden="true" />
                {name}
              </Checkbox>
            ))}
            {shown.length === 0 && (
              <p className="muted filter-none">{options.length ? 'No match.' : 'None yet.'}</p>
            )}
          </CheckboxGroup>
          <div className="filter-actions">
            {/* Clearing closes the popover: focus goes back to the filter's button, not to a disabled one. */}
            <Button
              variant="ghost"
              onPress={() => {
                onChange([]);
                close();
              }}
              isDisabled={value.length === 0}
            >
              Clear {label.toLowerCase()}
            </Button>
          </div>
        </>
      )}
    </FilterShell>
  );
}

/** A filter on a typed value (a text custom field): exact values, several separated by commas. */
export function TextFilter({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string[];
  onChange: (v: string[]) => void;
}) {
  return (
    <FilterShell label={label} chosen={summary(value.map((v) => `“${v}”`))} active={value.length > 0}>
      {(close) => <TextFilterForm label={label} value={value} onChange={onChange} close={close} />}
    </FilterShell>
  );
}

/** Mounted with the popover: it starts from the filter's value each time it opens. */
function TextFilterForm({
  label,
  value,
  onChange,
  close,
}: {
  label: string;
  value: string[];
  onChange: (v: string[]) => void;
  close: () => void;
}) {
  const [text, setText] = useState(value.join(', '));
  return (
    <Form
      className="filter-form"
      onSubmit={(e) => {
        e.preventDefault();
        onChange([
          ...new Set(
            text
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          ),
        ]);
        close();
      }}
    >
      <TextField className="field" value={text} onChange={setText} autoFocus>
        <Label className="field-label">{label} is</Label>
        <Input className="field-input" />
        <Text slot="description" className="field-description">
          The whole value; separate several with commas.
        </Text>
      </TextField>
      <div className="filter-actions">
        <Button
          variant="ghost"
          onPress={() => {
            onChange([]);
            close();
          }}
          isDisabled={value.length === 0}
        >
          Clear
        </Button>
        <Button type="submit" variant="primary">
          Apply
        </Button>
      </div>
    </Form>
  );
}
