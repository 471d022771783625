import { lazy, Suspense, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from 'react-aria-components';
import { Button } from '../../../components/Button';
import { RelativeTime } from '../../../components/RelativeTime';
import { testCaseVersionsQuery, type VersionEntry } from '../api';

const VersionCompare = lazy(() => import('./VersionCompare'));

/** The API's field names (docs/api-decisions.md#test-case-version-history) as people say them. */
const FIELD_NAMES: Record<VersionEntry['changed'][number], string> = {
  title: 'Title',
  priority: 'Priority',
  precondition: 'Precondition',
  steps: 'Steps',
  tags: 'Tags',
  requirements: 'Requirements',
  links: 'Links',
  customFields: 'Custom fields',
  files: 'Attachments',
  parameterValues: 'Parameter rows',
};

/** "Title, Steps, Tags changed"; version 1 was the case's creation. */
export function changeSummary(v: Pick<VersionEntry, 'version' | 'changed'>): string {
  if (v.version === 1) return 'Created';
  if (v.changed.length === 0) return 'No content changed';
  return `${v.changed.map((f) => FIELD_NAMES[f]).join(', ')} changed`;
}

function VersionRow({ v, current }: { v: VersionEntry; current: number }) {
  return (
    <li className="version-row">
      <span className="version-number">
        Version {v.version}
        {v.version === current && <span className="badge">Current</span>}
      </span>
      <span className="version-title">
        {v.title}
        <span className="version-changes">{changeSummary(v)}</span>
      </span>
      <span className="version-meta muted">
        {v.authorName ?? 'a removed user'} · <RelativeTime iso={v.createdAt} />
      </span>
    </li>
  );
}

function VersionSelect({
  label,
  versions,
  value,
  onChange,
}: {
  label: string;
  versions: number[];
  value: number;
  onChange: (v: number) => void;
}) {
  return (
    <Select className="field" selectedKey={value} onSelectionChange={(k) => onChange(Number(k))}>
      <Label className="field-label">{label}</Label>
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      <Popover className="popover">
        <ListBox className="listbox" items={versions.map((v) => ({ id: v }))}>
          {(item) => (
            <ListBoxItem id={item.id} className="listbox-item" textValue={`Version ${item.id}`}>
              Version {item.id}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}

/**
 * Every version of the case (D15: 1 … current) with who made it and when, and a side-by-side comparison of any
 * two of them.
 */
export function VersionHistory({
  code,
  id,
  current,
  compare,
}: {
  code: string;
  id: string;
  current: number;
  compare?: [number, number];
}) {
  const versions = Array.from({ length: current }, (_, i) => current - i);
  const history = useQuery(testCaseVersionsQuery(code, id, current));
  const [from, setFrom] = useState(compare?.[0] ?? Math.max(1, current - 1));
  const [to, setTo] = useState(compare?.[1] ?? current);
  const [shown, setShown] = useState<[number, number] | null>(compare ?? null);
  return (
    <section aria-labelledby="history" className="panel tcase-section">
      <h2 id="history" className="panel-title">
        Version history <span className="count">{current}</span>
      </h2>
      {history.data ? (
        <ol className="version-list" reversed>
          {history.data.map((v) => (
            <VersionRow key={v.version} v={v} current={current} />
          ))}
        </ol>
      ) : (
        <>
          <ol className="version-list" reversed>
            {versions.map((v) => (
              <li key={v} className="version-row">
                <span className="version-number">
                  Version {v}
                  {v === current && <span className="badge">Current</span>}
                </span>
              </li>
            ))}
          </ol>
          {history.isError ? (
            <p className="muted">Who made each version could not be loaded.</p>
          ) : (
            <p className="visually-hidden" role="status">
              Loading who made each version…
            </p>
          )}
        </>
      )}
      {current < 2 ? (
        <p className="muted">This case has one version; editing it makes the next one.</p>
      ) : (
        <>
          <div className="compare-controls">
            <VersionSelect label="Compare version" versions={versions} value={from} onChange={setFrom} />
            <VersionSelect label="with version" versions={versions} value={to} onChange={setTo} />
            <Button onPress={() => setShown([from, to])} isDisabled={from === to}>
              Compare
            </Button>
          </div>
          {shown && (
            <Suspense fallback={<p role="status">Loading the comparison…</p>}>
              <VersionCompare code={code} id={id} from={shown[0]} to={shown[1]} />
            </Suspense>
          )}
        </>
      )}
    </section>
  );
}
