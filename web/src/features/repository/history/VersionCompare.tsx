import { useQuery } from '@tanstack/react-query';
import { diffWords } from 'diff';
import { ErrorState, Loading } from '../../../components/Status';
import { testCaseVersionQuery, type TestCase } from '../api';
import { alignSteps, type AlignedStep, type StepText } from './step-diff';

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

function stepsOf(t: TestCase): StepText[] {
  return (t.steps ?? []).map((s, i) =>
    s.type === 'shared'
      ? { number: i + 1, description: `Shared step: ${s.title ?? ''}`, expected: '' }
      : { number: i + 1, description: text(s.description), expected: text(s.expected) },
  );
}

/** One step's text on one side; a changed step shows its words diffed, the "Expected" label never marked. */
function StepSide({ step, other, side }: { step: StepText; other?: StepText; side: 'old' | 'new' }) {
  const [from, to] = side === 'old' ? [step, other ?? step] : [other ?? step, step];
  return (
    <>
      <Side parts={diffWords(from.description, to.description)} side={side} />
      {(from.expected || to.expected) && (
        <div className="diff-expected">
          <span className="step-label">Expected</span>
          <Side parts={diffWords(from.expected, to.expected)} side={side} />
        </div>
      )}
    </>
  );
}

const STEP_STATE = { same: '', changed: ' (changed)', removed: ' (removed)', added: ' (added)' };

/** The steps as rows of their own: a step's number stays outside what is marked inserted or deleted. */
function StepRows({ old, now, from, to }: { old: StepText[]; now: StepText[]; from: number; to: number }) {
  const rows: AlignedStep[] = alignSteps(old, now);
  if (rows.length === 0)
    return (
      <tr>
        <th scope="row">Steps</th>
        <td className="muted">No steps</td>
        <td className="muted">No steps</td>
      </tr>
    );
  return (
    <>
      {rows.map((r, i) => {
        const a = r.kind === 'added' ? undefined : r.old;
        const b = r.kind === 'removed' ? undefined : r.now;
        const name =
          a && b && a.number !== b.number ? `Step ${a.number} → ${b.number}` : `Step ${(a ?? b)!.number}`;
        return (
          <tr key={i} className={`diff-step diff-step-${r.kind}${r.kind === 'same' ? '' : ' diff-changed'}`}>
            <th scope="row">
              {name}
              {r.kind !== 'same' && <span className="diff-step-state">{STEP_STATE[r.kind]}</span>}
            </th>
            <td>
              {r.kind === 'added' ? (
                <span className="muted">Not in version {from}</span>
              ) : r.kind === 'removed' ? (
                <del className="diff-whole">
                  <StepSide step={r.old} side="old" />
                </del>
              ) : (
                <StepSide step={r.old} other={r.now} side="old" />
              )}
            </td>
            <td>
              {r.kind === 'removed' ? (
                <span className="muted">Not in version {to}</span>
              ) : r.kind === 'added' ? (
                <ins className="diff-whole">
                  <StepSide step={r.now} side="new" />
                </ins>
              ) : (
                <StepSide step={r.now} other={r.old} side="new" />
              )}
            </td>
          </tr>
        );
      })}
    </>
  );
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

/**
 * Any two versions side by side, field by field, the steps one row per step (added, removed, changed or kept); loaded (with jsdiff) when a comparison is first asked for. */
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
          if (name === 'Tags')
            // The steps come after the precondition, before the tags: as the case page shows them.
            return [
              <StepRows key="steps" old={stepsOf(a.data)} now={stepsOf(b.data)} from={from} to={to} />,
              fieldRow(name, old, right[i]![1]),
            ];
          return fieldRow(name, old, right[i]![1]);
        })}
      </tbody>
    </table>
  );
}

function fieldRow(name: string, old: string, now: string) {
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
}
