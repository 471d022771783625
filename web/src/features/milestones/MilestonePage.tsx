import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../api/keys';
import { runsQuery, statusesQuery, type Run } from '../../api/queries';
import { recordable, type StatusSetting } from '../../api/statuses';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { Progress, sumCounts } from '../../components/run-lists/Progress';
import { ErrorState, Loading } from '../../components/Status';
import { TextField } from '../../components/TextField';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { formatCount, formatCountOf, formatDay, formatPassRate } from '../../lib/format';
import { formErrorsOf, useForm } from '../../lib/useForm';
import { plansQuery } from '../plans';
import { passRateOf } from '../runs';
import { milestoneQuery, updateMilestone } from './api';
import { isComplete, isOverdue } from './overdue';
import '../../components/run-lists/runs-list.css';
import './milestones.css';

type Milestone = Awaited<ReturnType<ReturnType<typeof milestoneQuery>['queryFn'] & {}>>;

/** Edits a milestone's title, description and due date; each refusal is said under its field. */
function EditMilestoneDialog({
  code,
  milestone,
  onClose,
}: {
  code: string;
  milestone: Milestone;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (body: Parameters<typeof updateMilestone>[2]) => updateMilestone(code, milestone.id, body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.milestones(code) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.runs(code) });
      onClose();
    },
  });
  const form = useForm({
    errors: formErrorsOf,
    submit: (_values, data) => {
      const value = (name: string) => String(data?.get(name) ?? '').trim();
      const due = value('due') || null;
      const body = {
        ...(value('title') !== milestone.title ? { title: value('title') } : {}),
        ...(value('description') !== milestone.description ? { description: value('description') } : {}),
        ...(due !== (milestone.due ?? null) ? { due } : {}),
      };
      if (Object.keys(body).length === 0) {
        onClose();
        return Promise.resolve();
      }
      return save.mutateAsync(body);
    },
  });
  return (
    <Dialog
      title={`Edit “${milestone.title}”`}
      isOpen
      onOpenChange={(o) => !o && onClose()}
      isDismissable={!save.isPending}
    >
      <Form {...form.formProps} className="form">
        <FormError message={form.formError} />
        <TextField
          label="Title"
          name="title"
          isRequired
          autoFocus
          maxLength={255}
          defaultValue={milestone.title}
        />
        <TextField
          label="Description"
          name="description"
          multiline
          maxLength={2000}
          defaultValue={milestone.description}
        />
        <TextField
          label="Due date"
          name="due"
          type="date"
          defaultValue={milestone.due ?? ''}
          description="Leave it empty for no due date."
        />
        <div className="dialog-actions">
          <Button isDisabled={save.isPending} onPress={onClose}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" isPending={save.isPending}>
            Save
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}

function RunList({
  code,
  runs,
  label,
  statuses,
}: {
  code: string;
  runs: Run[];
  label: string;
  statuses: StatusSetting[];
}) {
  if (runs.length === 0) return <p className="muted">None.</p>;
  return (
    <ul className="runs-list" aria-label={label}>
      {runs.map((r) => (
        <li key={r.id} className="runs-item">
          <div className="runs-main">
            <Link
              to="/project/$code/run/$runId"
              params={{ code, runId: String(r.id) }}
              className="runs-title"
            >
              {r.title}
            </Link>
            <span className="muted runs-meta">
              {r.plan && r.planId !== null ? `Plan ${r.plan.title}` : 'No plan'}
              {r.assignment ? ` · ${r.assignment.name}` : ''}
              {r.configuration ? ` · ${r.configuration.title}` : ''}
            </span>
          </div>
          <div className="runs-figures">
            <Progress counts={r.statusCounts as Record<string, number> | null} statuses={statuses} />
            <span className="runs-rate">
              Pass rate {formatPassRate(passRateOf(r.statusCounts as Record<string, number> | null))}
            </span>
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * `/project/{CODE}/milestone/{id}`: a milestone's due date (overdue marked), description, progress (pass rate,
 * done of total) and its plans and runs; edit it, open its report.
 */
export function MilestonePage() {
  const { code, milestoneId } = useParams({ from: '/app/project/$code/milestone/$milestoneId' });
  const project = code.toUpperCase();
  const id = Number(milestoneId);
  const valid = Number.isInteger(id) && id > 0;
  const milestone = useQuery({ ...milestoneQuery(project, id), enabled: valid });
  const runs = useQuery(runsQuery(project));
  const plans = useQuery(plansQuery(project));
  const statuses = recordable(useQuery(statusesQuery()).data);
  const [editing, setEditing] = useState(false);
  useDocumentTitle(milestone.data ? `${milestone.data.title} · Milestone` : 'Milestone');
  if (!valid || milestone.isError || runs.isError)
    return (
      <div className="page">
        <ErrorState
          title={`Milestone ${milestoneId} could not be opened.`}
          error={milestone.error ?? runs.error ?? new Error('There is no milestone at this address.')}
          onRetry={() => {
            void milestone.refetch();
            void runs.refetch();
          }}
        >
          <Link to="/project/$code/milestones" params={{ code: project }}>
            All milestones of {project}
          </Link>
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );
  if (milestone.isPending || runs.isPending) return <Loading label="Loading the milestone…" />;
  const m = milestone.data;
  const under = runs.data.filter((r) => r.milestoneId === m.id);
  const open = under.filter((r) => !r.closedAt);
  const closed = under.filter((r) => r.closedAt);
  const itsPlans = (plans.data ?? []).filter((p) => p.milestoneId === m.id);
  const counts = sumCounts(under.map((r) => r.statusCounts as Record<string, number> | null));
  const all = counts.all ?? 0;
  const done = all - (counts.open ?? 0);
  const overdue = isOverdue(m, under);
  const complete = isComplete(under);
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/project/$code/milestones" params={{ code: project }}>
          Milestones
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">{m.title}</span>
      </nav>
      <div className="page-header list-page-header">
        <div>
          <h1 className="page-title title-with-badges">
            <span>{m.title}</span>
            {m.archived && <span className="badge">Archived</span>}
            {overdue && <span className="badge badge-overdue">Overdue</span>}
            {complete && <span className="badge badge-open">Complete</span>}
          </h1>
          <p className="muted milestone-facts">
            <span>
              {m.due ? (
                <>
                  Due <time dateTime={m.due}>{formatDay(m.due)}</time>
                </>
              ) : (
                'No due date'
              )}
            </span>
            <span>
              {formatCount(under.length)} {under.length === 1 ? 'run' : 'runs'} · {formatCount(open.length)}{' '}
              open
            </span>
          </p>
        </div>
        <div className="runs-actions">
          <Button onPress={() => setEditing(true)}>Edit</Button>
          <Link
            to="/project/$code/milestone/$milestoneId/report"
            params={{ code: project, milestoneId: String(m.id) }}
            className="btn btn-secondary"
          >
            Report
          </Link>
        </div>
      </div>
      {m.description && <p className="milestone-description">{m.description}</p>}
      <section className="panel" aria-labelledby="milestone-progress">
        <h2 id="milestone-progress" className="panel-title">
          Progress
        </h2>
        <Progress counts={counts} statuses={statuses} />
        <dl className="milestone-figures">
          <div>
            <dt>Pass rate</dt>
            <dd data-testid="milestone-pass-rate">{formatPassRate(passRateOf(counts))}</dd>
          </div>
          <div>
            <dt>Done</dt>
            <dd data-testid="milestone-done">
              {formatCount(done)} of {formatCount(all)}
            </dd>
          </div>
          <div>
            <dt>Runs closed</dt>
            <dd>
              {formatCount(closed.length)} of {formatCount(under.length)}
            </dd>
          </div>
        </dl>
      </section>
      <section className="panel runs-closed" aria-labelledby="milestone-plans">
        <h2 id="milestone-plans" className="panel-title">
          Test plans <span className="count">{formatCount(itsPlans.length)}</span>
        </h2>
        {itsPlans.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="runs-list" aria-label="Plans of the milestone">
            {itsPlans.map((p) => (
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
                    {p.closed ? 'Closed' : 'Open'} · {formatCountOf(p.runIds.length, 'run')}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="panel runs-closed" aria-labelledby="milestone-open-runs">
        <h2 id="milestone-open-runs" className="panel-title">
          Open runs <span className="count">{formatCount(open.length)}</span>
        </h2>
        <RunList code={project} runs={open} label="Open runs of the milestone" statuses={statuses} />
      </section>
      <section className="panel runs-closed" aria-labelledby="milestone-closed-runs">
        <h2 id="milestone-closed-runs" className="panel-title">
          Closed runs <span className="count">{formatCount(closed.length)}</span>
        </h2>
        <RunList code={project} runs={closed} label="Closed runs of the milestone" statuses={statuses} />
      </section>
      {editing && <EditMilestoneDialog code={project} milestone={m} onClose={() => setEditing(false)} />}
    </div>
  );
}
