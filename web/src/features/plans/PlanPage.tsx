import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { statusesQuery } from '../../api/queries';
import { recordable } from '../../api/statuses';
import { Button } from '../../components/Button';
import { SafeHtml } from '../../components/rich-text/SafeHtml';
import { Progress, sumCounts } from '../../components/run-lists/Progress';
import { ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { formatCount, formatDate, formatPassRate } from '../../lib/format';
import { passRateOf } from '../runs';
import { planQuery } from './api';
import { AddRunsDialog, ClosePlanDialog, EditPlanDialog } from './PlanDialogs';
import '../../components/run-lists/runs-list.css';

type Dialogs = 'edit' | 'add' | 'close' | undefined;

/** `/project/{CODE}/plan/{id}`: a plan's runs and their combined progress; edit, add runs, close. */
export function PlanPage() {
  const { code, planId } = useParams({ from: '/app/project/$code/plan/$planId' });
  const project = code.toUpperCase();
  const plan = useQuery(planQuery(project, Number(planId)));
  const statuses = recordable(useQuery(statusesQuery()).data);
  const [dialog, setDialog] = useState<Dialogs>();
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
  const closeDialog = () => setDialog(undefined);
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/project/$code/plans" params={{ code: project }}>
          Test plans
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">{p.title}</span>
      </nav>
      <div className="page-header list-page-header">
        <div>
          <h1 className="page-title title-with-badges">
            <span>{p.title}</span>
            {p.closed && <span className="badge">Closed</span>}
          </h1>
          <p className="muted">
            {p.milestone ? (
              <>
                Milestone{' '}
                <Link
                  to="/project/$code/milestone/$milestoneId"
                  params={{ code: project, milestoneId: String(p.milestone.id) }}
                >
                  {p.milestone.title}
                </Link>
              </>
            ) : (
              'No milestone'
            )}
            {p.closedAt ? ` · closed ${formatDate(p.closedAt)}` : ''}
          </p>
        </div>
        <div className="runs-actions">
          {!p.closed && (
            <>
              <Button onPress={() => setDialog('edit')}>Edit</Button>
              <Button onPress={() => setDialog('add')}>Add runs</Button>
              <Button variant="danger" onPress={() => setDialog('close')}>
                Close plan
              </Button>
            </>
          )}
          <Link
            to="/project/$code/plan/$planId/report"
            params={{ code: project, planId: String(p.id) }}
            className="btn btn-secondary"
          >
            Report
          </Link>
        </div>
      </div>
      {p.description && <SafeHtml className="prose plan-description" html={p.description} />}
      {p.closed && (
        <p className="muted list-page-note" role="note">
          This plan is closed: its runs are read-only and it takes no more runs.
        </p>
      )}
      <section className="panel" aria-labelledby="plan-progress">
        <h2 id="plan-progress" className="panel-title">
          All runs together
        </h2>
        <Progress counts={combined} statuses={statuses} />
        <p className="muted runs-rate" data-testid="plan-pass-rate">
          Pass rate {formatPassRate(passRateOf(combined))}
        </p>
      </section>
      <section className="panel runs-closed" aria-labelledby="plan-runs">
        <h2 id="plan-runs" className="panel-title">
          Runs <span className="count">{formatCount(p.runs.length)}</span>
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
      {dialog === 'edit' && <EditPlanDialog code={project} plan={p} isOpen onClose={closeDialog} />}
      {dialog === 'add' && <AddRunsDialog code={project} plan={p} isOpen onClose={closeDialog} />}
      {dialog === 'close' && <ClosePlanDialog code={project} plan={p} isOpen onClose={closeDialog} />}
    </div>
  );
}
