import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { queryKeys } from '../../api/keys';
import { configurationsQuery, statusesQuery, usersQuery } from '../../api/queries';
import { recordable } from '../../api/statuses';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { Progress, sumCounts } from '../../components/run-lists/Progress';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useForm } from '../../lib/useForm';
import { PlanBuilder, Preview, type QueryPlan } from '../runs';
import { createPlan, planQuery, plansQuery, resolveCaseIds } from './api';
import '../../components/run-lists/runs-list.css';

interface DraftRun {
  title: string;
  assignmentId: string;
  configurationId: string;
  plan: QueryPlan;
}
const newRun = (n: number): DraftRun => ({
  title: `Run ${n}`,
  assignmentId: '',
  configurationId: '',
  plan: {},
});

/** A plan of several runs, each with its own title, assignee, configuration and cases from the builder. */
function NewPlanDialog({
  code,
  isOpen,
  onOpenChange,
}: {
  code: string;
  isOpen: boolean;
  onOpenChange: (o: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [title, setTitle] = useState('');
  const [runs, setRuns] = useState<DraftRun[]>([newRun(1), newRun(2)]);
  const users = useQuery(usersQuery());
  const configurations = useQuery(configurationsQuery(code));
  const save = useMutation({
    mutationFn: async () => {
      const withIds = [];
      for (const r of runs) {
        const tcaseIds = await resolveCaseIds(code, [r.plan]);
        if (tcaseIds.length === 0)
          throw new Error(`“${r.title}” selects no case: pick a folder, tag or priority.`);
        withIds.push({
          title: r.title.trim(),
          ...(r.assignmentId ? { assignmentId: Number(r.assignmentId) } : {}),
          ...(r.configurationId ? { configurationId: r.configurationId } : {}),
          queryPlans: [{ tcaseIds }],
        });
      }
      return createPlan(code, { title: title.trim(), runs: withIds });
    },
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.plans(code) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) });
      onOpenChange(false);
      await navigate({ to: '/project/$code/plan/$planId', params: { code, planId: String(created.id) } });
    },
  });
  // A plan's refusals name no field of this form (its runs are built here): all are said above it.
  const form = useForm({
    submit: () => save.mutateAsync(),
    errors: (e) => ({ form: e instanceof Error ? e.message : String(e), fields: {} }),
  });
  const update = (i: number, patch: Partial<DraftRun>) =>
    setRuns((all) => all.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <Dialog title="New test plan" isOpen={isOpen} onOpenChange={onOpenChange} isDismissable={!save.isPending}>
      <form className="form new-run-form" onSubmit={form.handleSubmit}>
        <FormError message={form.formError} />
        <label className="field">
          <span className="field-label">Plan title</span>
          <input
            className="field-input"
            required
            maxLength={255}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
          />
        </label>
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
            {runs.length > 1 && (
              <Button variant="ghost" onPress={() => setRuns((all) => all.filter((_, j) => j !== i))}>
                Remove run {i + 1}
              </Button>
            )}
          </fieldset>
        ))}
        <Button variant="ghost" onPress={() => setRuns((all) => [...all, newRun(all.length + 1)])}>
          Add a run
        </Button>
        <div className="dialog-actions">
          <Button isDisabled={save.isPending} onPress={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={save.isPending}>
            Create plan
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

/** `/project/{CODE}/plans`: the project's test plans. */
export function PlansPage() {
  const { code } = useParams({ from: '/app/project/$code/plans' });
  const project = code.toUpperCase();
  useDocumentTitle(`Test plans · ${project}`);
  const plans = useQuery(plansQuery(project));
  const [creating, setCreating] = useState(false);
  return (
    <div className="page">
      <div className="page-header">
        <h1 className="page-title">Test plans</h1>
        <Button variant="primary" onPress={() => setCreating(true)}>
          New plan
        </Button>
      </div>
      {plans.isPending ? (
        <Loading label="Loading the plans…" />
      ) : plans.isError ? (
        <ErrorState
          title="The plans could not be loaded."
          error={plans.error}
          onRetry={() => plans.refetch()}
        />
      ) : plans.data.length === 0 ? (
        <EmptyState title="No test plans yet.">
          <p>
            A plan groups several runs — one per configuration or tester — and shows their progress together.
          </p>
        </EmptyState>
      ) : (
        <section className="panel">
          <ul className="runs-list" aria-label="Test plans">
            {plans.data.map((p) => (
              <li key={p.id} className="runs-item">
                <div className="runs-main">
                  <Link
                    to="/project/$code/plan/$planId"
                    params={{ code: project, planId: String(p.id) }}
                    className="runs-title"
                  >
                    {p.title}
                  </Link>
                  <span className="muted runs-meta">
                    {p.runIds.length} runs{p.milestone ? ` · ${p.milestone.title}` : ''}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
      <NewPlanDialog code={project} isOpen={creating} onOpenChange={setCreating} />
    </div>
  );
}

/** `/project/{CODE}/plan/{id}`: a plan's runs and their combined progress. */
export function PlanPage() {
  const { code, planId } = useParams({ from: '/app/project/$code/plan/$planId' });
  const project = code.toUpperCase();
  const plan = useQuery(planQuery(project, Number(planId)));
  const statuses = recordable(useQuery(statusesQuery()).data);
  useDocumentTitle(plan.data?.title ?? `Plan ${planId}`);
  if (plan.isPending) return <Loading label="Loading the plan…" />;
  if (plan.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Plan ${planId} could not be opened.`}
          error={plan.error}
          onRetry={() => plan.refetch()}
        >
          <Link to="/project/$code/plans" params={{ code: project }}>
            All plans of {project}
          </Link>
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );
  const p = plan.data;
  const combined = sumCounts(p.runs.map((r) => r.statusCounts as Record<string, number> | null));
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/project/$code/plans" params={{ code: project }}>
          Test plans
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">{p.title}</span>
      </nav>
      <div className="page-header">
        <h1 className="page-title">{p.title}</h1>
        <Link
          to="/project/$code/plan/$planId/report"
          params={{ code: project, planId: String(p.id) }}
          className="btn btn-secondary"
        >
          Report
        </Link>
      </div>
      <section className="panel" aria-labelledby="plan-progress">
        <h2 id="plan-progress" className="panel-title">
          All runs together
        </h2>
        <Progress counts={combined} statuses={statuses} />
      </section>
      <section className="panel runs-closed" aria-labelledby="plan-runs">
        <h2 id="plan-runs" className="panel-title">
          Runs <span className="count">{p.runs.length}</span>
        </h2>
        <ul className="runs-list" aria-label="Runs of the plan">
          {p.runs.map((r) => (
            <li key={r.id} className="runs-item">
              <div className="runs-main">
                <Link
                  to="/project/$code/run/$runId"
                  params={{ code: project, runId: String(r.id) }}
                  className="runs-title"
                >
                  {r.title}
                </Link>
                <span className="muted runs-meta">
                  {r.closedAt ? 'Closed' : 'Open'}
                  {r.assignment ? ` · ${r.assignment.name}` : ''}
                  {r.configuration ? ` · ${r.configuration.title}` : ''}
                </span>
              </div>
              <Progress counts={r.statusCounts as Record<string, number> | null} statuses={statuses} />
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
