import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { projectQuery, runsQuery, statusesQuery } from '../../../api/queries';
import { recordable } from '../../../api/statuses';
import { Button } from '../../../components/Button';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { reportCsvUrl, runReportQuery, type RunReport } from '../api';
import { ShareButton } from '../share/ShareButton';
import { RunReportView } from './RunReportView';
import { FailureGroupsSummary } from '../../triage';

/** `/project/{CODE}/run/{id}/report?since=<run>`: a run's report for its lead, to read, print, download and share. */
export function RunReportPage() {
  const { code, runId } = useParams({ from: '/app/project/$code/run/$runId/report' });
  const { since } = useSearch({ from: '/app/project/$code/run/$runId/report' });
  const id = Number(runId);
  const project = code.toUpperCase();
  const valid = Number.isInteger(id) && id > 0;
  const report = useQuery({ ...runReportQuery(project, id, since), enabled: valid });
  const projectData = useQuery(projectQuery(project));
  const statuses = useQuery(statusesQuery());
  useDocumentTitle(report.data ? `Report: ${report.data.run.title}` : `Run ${runId} report`);

  if (!valid)
    return (
      <div className="page">
        <ErrorState
          title={`“${runId}” is not a run number.`}
          error={new Error('Run addresses end in a number.')}
        />
      </div>
    );
  if (report.isPending) return <Loading label={`Loading the report of run ${runId}…`} />;
  if (report.isError)
    return (
      <div className="page">
        <ErrorState
          title={`The report of run ${runId} could not be made.`}
          error={report.error}
          onRetry={() => report.refetch()}
        >
          <Link to="/project/$code/runs" params={{ code: project }}>
            All runs of {project}
          </Link>
          <Link to="/">All projects</Link>
        </ErrorState>
      </div>
    );

  const data = report.data;
  return (
    <div className="page report-page">
      <nav aria-label="Breadcrumb" className="breadcrumb no-print">
        <Link to="/project/$code/runs" params={{ code: project }}>
          Runs
        </Link>
        <span aria-hidden="true">/</span>
        <Link to="/project/$code/run/$runId" params={{ code: project, runId: String(id) }}>
          Run {id}
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">Report</span>
      </nav>
      <RunReportView
        data={data}
        project={{ code: project, title: projectData.data?.title ?? project }}
        statuses={statuses.data ?? recordable(undefined)}
        linkCases
        sinceChosen={since !== undefined}
        compareControl={<ComparePicker code={project} runId={id} report={data} />}
        failureGroups={<FailureGroupsSummary code={project} runId={id} />}
        actions={
          <>
            <Button onPress={() => window.print()}>Print or save as PDF</Button>
            <a
              className="btn btn-secondary"
              href={reportCsvUrl(`/project/${project}/run/${id}/report`)}
              download
            >
              Download CSV
            </a>
            <ShareButton
              project={project}
              report="run"
              params={{ runId: id, ...(since !== undefined ? { since } : {}) }}
            />
          </>
        }
      />
    </div>
  );
}

/** Another earlier run of the project to compare with; the choice lives in the address (`since=`). */
function ComparePicker({ code, runId, report }: { code: string; runId: number; report: RunReport }) {
  const navigate = useNavigate({ from: '/project/$code/run/$runId/report' });
  const runs = useQuery(runsQuery(code));
  const earlier = (runs.data ?? []).filter((r) => r.id < runId).sort((a, b) => b.id - a.id);
  if (runs.isError)
    return <p className="field-error">The earlier runs could not be listed to choose from.</p>;
  if (runs.isSuccess && earlier.length === 0) return null;
  return (
    <label className="field report-picker">
      <span className="field-label">Compare with</span>
      <select
        className="field-input"
        disabled={runs.isPending}
        value={report.since?.runId ?? ''}
        onChange={(e) =>
          void navigate({
            search: (s) => ({ ...s, since: e.target.value ? Number(e.target.value) : undefined }),
          })
        }
      >
        {!report.since && <option value="">Nothing</option>}
        {runs.isPending && report.since && <option value={report.since.runId}>{report.since.title}</option>}
        {earlier.map((r) => (
          <option key={r.id} value={r.id}>
            {r.title} (run {r.id}
            {r.milestone ? `, ${r.milestone.title}` : ''})
          </option>
        ))}
      </select>
    </label>
  );
}
