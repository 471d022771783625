import { useQuery } from '@tanstack/react-query';
import { configurationsQuery, usersQuery } from '../../api/queries';
import { Button } from '../../components/Button';
import { PlanBuilder, Preview, type QueryPlan } from '../runs';
import { resolveCaseIds, type PlanRunBody } from './api';

/** A run of a plan as it is being drafted: its cases come from the query-plan builder. */
export interface DraftRun {
  title: string;
  assignmentId: string;
  configurationId: string;
  plan: QueryPlan;
}

export const newDraftRun = (n: number): DraftRun => ({
  title: `Run ${n}`,
  assignmentId: '',
  configurationId: '',
  plan: {},
});

/**
 * The drafts as the API takes a plan's runs (D20: one query plan of `tcaseIds`): each builder's selection is
 * resolved through the preview first. A draft that selects nothing is refused here, in words.
 */
export async function toPlanRuns(code: string, runs: DraftRun[]): Promise<PlanRunBody[]> {
  const bodies: PlanRunBody[] = [];
  for (const r of runs) {
    const tcaseIds = await resolveCaseIds(code, [r.plan]);
    if (tcaseIds.length === 0)
      throw new Error(`“${r.title}” selects no case: pick a folder, tag or priority.`);
    bodies.push({
      title: r.title.trim(),
      ...(r.assignmentId ? { assignmentId: Number(r.assignmentId) } : {}),
      ...(r.configurationId ? { configurationId: r.configurationId } : {}),
      queryPlans: [{ tcaseIds }],
    });
  }
  return bodies;
}

/** The runs of a plan being made or added to: title, assignee, configuration and cases of each; add and remove. */
export function PlanRunsFields({
  code,
  runs,
  onChange,
  minRuns = 1,
}: {
  code: string;
  runs: DraftRun[];
  onChange: (runs: DraftRun[]) => void;
  minRuns?: number;
}) {
  const users = useQuery(usersQuery());
  const configurations = useQuery(configurationsQuery(code));
  const update = (i: number, patch: Partial<DraftRun>) =>
    onChange(runs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <>
      {runs.map((r, i) => (
        <fieldset key={i} className="plan-builder">
          <legend>Run {i + 1}</legend>
          <div className="new-run-selects">
            <label className="field">
              <span className="field-label">Title of run {i + 1}</span>
              <input
                className="field-input"
                required
                value={r.title}
                onChange={(e) => update(i, { title: e.target.value })}
              />
            </label>
            <label className="field">
              <span className="field-label">Assignee of run {i + 1}</span>
              <select
                className="field-input"
                value={r.assignmentId}
                onChange={(e) => update(i, { assignmentId: e.target.value })}
              >
                <option value="">Nobody</option>
                {(users.data?.users ?? []).map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.name}
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span className="field-label">Configuration of run {i + 1}</span>
              <select
                className="field-input"
                value={r.configurationId}
                onChange={(e) => update(i, { configurationId: e.target.value })}
              >
                <option value="">None</option>
                {(configurations.data?.configurations ?? []).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.title}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <PlanBuilder code={code} index={i} plan={r.plan} onChange={(plan) => update(i, { plan })} />
          <Preview code={code} type="static" plans={[r.plan]} />
          {runs.length > minRuns && (
            <Button variant="ghost" onPress={() => onChange(runs.filter((_, j) => j !== i))}>
              Remove run {i + 1}
            </Button>
          )}
        </fieldset>
      ))}
      <Button variant="ghost" onPress={() => onChange([...runs, newDraftRun(runs.length + 1)])}>
        Add a run
      </Button>
    </>
  );
}
