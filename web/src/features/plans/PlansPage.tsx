import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { Button } from '../../components/Button';
import { EmptyState, ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { plansQuery } from './api';
import { NewPlanDialog } from './NewPlanDialog';
import '../../components/run-lists/runs-list.css';
import { formatCountOf } from '../../lib/format';

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
                    {p.closed ? 'Closed · ' : ''}
                    {formatCountOf(p.runIds.length, 'run')}
                    {p.milestone ? ` · ${p.milestone.title}` : ''}
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
