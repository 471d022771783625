import { useQuery } from '@tanstack/react-query';
import { isApiError } from '../../api/client';
import { configurationsQuery } from '../../api/queries';
import { Button } from '../../components/Button';
import { SelectField } from '../../components/SelectField';
import { sentence, type FormErrors } from '../../lib/useForm';
import { PlanBuilder, Preview, projectAssignableQuery, type QueryPlan } from '../runs';
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

/** The runs' fields shown beside them; a refusal of anything else is said above the form. */
const RUN_FIELDS = ['assignmentId', 'configurationId'];

/**
 * A plan's refusal as the form shows it: `/runs/<i>/assignmentId` and `/runs/<i>/configurationId` beside that run's
 * select (keyed `runs/<i>/<field>`), everything else above the form.
 */
export function planRunErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e) || !e.body.details?.length)
    return { form: e instanceof Error ? e.message : String(e), fields: {} };
  const fields: Record<string, string> = {};
  const rest: string[] = [];
  for (const d of e.body.details) {
    const [, top, index, field] = d.path.split('/');
    if (top === 'runs' && index !== undefined && field && RUN_FIELDS.includes(field))
      fields[`runs/${index}/${field}`] ??= d.message;
    else rest.push(sentence(d.message));
  }
  return { fields, ...(rest.length ? { form: rest.join(' ') } : {}) };
}

/** The runs of a plan being made or added to: title, assignee, configuration and cases of each; add and remove. */
export function PlanRunsFields({
  code,
  runs,
  onChange,
  minRuns = 1,
  errors = {},
  onFieldChange,
}: {
  code: string;
  runs: DraftRun[];
  onChange: (runs: DraftRun[]) => void;
  minRuns?: number;
  /** Refusals by `runs/<i>/<field>` (planRunErrorsOf). */
  errors?: Record<string, string>;
  onFieldChange?: (name: string) => void;
}) {
  // Only the people the server accepts as a run's assignee: active, above viewer, able to open the project.
  const users = useQuery(projectAssignableQuery(code));
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
            <SelectField
              label={`Assignee of run ${i + 1}`}
              value={r.assignmentId}
              onChange={(v) => {
                update(i, { assignmentId: v });
                onFieldChange?.(`runs/${i}/assignmentId`);
              }}
              placeholder="Nobody"
              options={(users.data ?? []).map((u) => ({ value: String(u.id), label: u.name }))}
              error={errors[`runs/${i}/assignmentId`]}
            />
            <SelectField
              label={`Configuration of run ${i + 1}`}
              value={r.configurationId}
              onChange={(v) => {
                update(i, { configurationId: v });
                onFieldChange?.(`runs/${i}/configurationId`);
              }}
              placeholder="None"
              options={(configurations.data?.configurations ?? []).map((c) => ({
                value: c.id,
                label: c.title,
              }))}
              error={errors[`runs/${i}/configurationId`]}
            />
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
