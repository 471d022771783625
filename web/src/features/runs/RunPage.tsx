import { Link, useParams } from '@tanstack/react-router';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/** `/project/{CODE}/run/{id}` (printed by the upload CLI) reaches the app; the run page itself comes next. */
export function RunPage() {
  const { code, runId } = useParams({ from: '/app/project/$code/run/$runId' });
  useDocumentTitle(`Run ${runId}`);
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Projects</Link>
        <span aria-hidden="true">/</span>
        <Link to="/project/$code" params={{ code }}>
          {code}
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">Run {runId}</span>
      </nav>
      <h1 className="page-title">Run {runId}</h1>
      <div className="notice" role="note">
        <p className="status-title">The run page is not in this version of the web application yet.</p>
        <p>
          The run and its results are there: the API serves them at{' '}
          <code>
            /api/public/v0/project/{code}/run/{runId}
          </code>
          . Its page (results, filters, history) comes with the runs part of the web application.
        </p>
      </div>
    </div>
  );
}
