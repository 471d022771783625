import { useQuery } from '@tanstack/react-query';
import { diffWords } from 'diff';
import { ErrorState, Loading } from '../../../components/Status';
import { testCaseVersionQuery, type TestCase } from '../api';

/** Markup is not content: the comparison is over the text people read. */
const text = (html: string | undefined) =>
  (html ?? '')
    .replace(/<\/(p|li|h\d|pre|tr)>/g, '\n')
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();

function fieldsOf(t: TestCase): [string, string][] {
  const pre = t.precondition;
  return [
    ['Title', t.title],
    ['Priority', t.priority],
    [
      'Precondition',
      pre?.type === 'shared' ? `Shared: ${pre.title ?? ''}\n${text(pre.text)}` : text(pre?.text),
    ],
    [
      'Steps',
      (t.steps ?? [])
        .map((s, i) =>
          s.type === 'shared'
            ? `${i + 1}. Shared step: ${s.title ?? ''}`
            : `${i + 1}. ${text(s.description)}${s.expected ? `\n   Expected: ${text(s.expected)}` : ''}`,
        )
        .join('\n'),
    ],
    ['Tags', (t.tags ?? []).map((x) => x.title).join(', ')],
    [
      'Fields',
      Object.entries(t.customFields ?? {})
        .map(([k, v]) => `${k}: ${text(v.value)}`)
        .join('\n'),
    ],
    ['Requirements', (t.requirements ?? []).map((r) => `${r.text} ${r.url}`.trim()).join('\n')],
    ['Links', t.links.map((l) => `${l.text} ${l.url}`).join('\n')],
  ];
}

function Side({ parts, side }: { parts: ReturnType<typeof diffWords>; side: 'old' | 'new' }) {
  return (
    <div className="diff-side">
      {parts.map((p, i) => {
        if (side === 'old' && p.added) return null;
        if (side === 'new' && p.removed) return null;
        if (p.added) return <ins key={i}>{p.value}</ins>;
        if (p.removed) return <del key={i}>{p.value}</del>;
        return <span key={i}>{p.value}</span>;
      })}
    </div>
  );
}

/** Any two versions side by side, field by field; loaded (with jsdiff) when a comparison is first asked for. */
export default function VersionCompare({
  code,
  id,
  from,
  to,
}: {
  code: string;
  id: string;
  from: number;
  to: number;
}) {
  const a = useQuery(testCaseVersionQuery(code, id, from));
  const b = useQuery(testCaseVersionQuery(code, id, to));
  if (a.isPending || b.isPending) return <Loading label={`Loading versions ${from} and ${to}…`} />;
  if (a.isError || b.isError)
    return <ErrorState title="These versions could not be loaded." error={a.error ?? b.error} />;
  const left = fieldsOf(a.data);
  const right = fieldsOf(b.data);
  return (
    <table className="diff-table">
      <caption className="visually-hidden">
        Version {from} (left) compared with version {to} (right)
      </caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Version {from}</th>
          <th scope="col">Version {to}</th>
        </tr>
      </thead>
      <tbody>
        {left.map(([name, old], i) => {
          const now = right[i]![1];
          const parts = diffWords(old, now);
          const changed = old !== now;
          return (
            <tr key={name} className={changed ? 'diff-changed' : undefined}>
              <th scope="row">
                {name}
                {changed && <span className="visually-hidden"> (changed)</span>}
              </th>
              <td>
                <Side parts={parts} side="old" />
              </td>
              <td>
                <Side parts={parts} side="new" />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
