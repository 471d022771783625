import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { statusesQuery } from '../../../api/queries';
import { recordable } from '../../../api/statuses';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { planReportQuery, reportCsvUrl } from '../api';
import { CsvLink } from '../parts/parts';
import { ReportPageFrame, runReportLink } from '../parts/ReportPageFrame';
import { ShareButton } from '../share/ShareButton';
import { PlanReportView } from './PlanReportView';

/** `/project/{CODE}/plan/{id}/report`: a test plan's report, to read, print, download or share. */
export function PlanReportPage() {
  const { code, planId } = useParams({ from: '/app/project/$code/plan/$planId/report' });
  const project = code.toUpperCase();
  const id = Number(planId);
  const valid = Number.isInteger(id) && id > 0;
  const report = useQuery({ ...planReportQuery(project, id), enabled: valid });
  const statuses = recordable(useQuery(statusesQuery()).data);
  useDocumentTitle(report.data ? `${report.data.plan.title} · Report` : 'Plan report');
  if (report.isError || !valid)
    return (
      <div className="page">
        <ErrorState
          title={`The report of plan ${planId} could not be shown.`}
          error={report.error ?? new Error('There is no plan at this address.')}
          onRetry={() => report.refetch()}
        >
          <Link to="/project/$code/plans" params={{ code: project }}>
            All plans of {project}
          </Link>
        </ErrorState>
      </div>
    );
  if (report.isPending) return <Loading label="Loading the plan's report…" />;
  const p = report.data.plan;
  return (
    <ReportPageFrame
      crumbs={
        <>
          <Link to="/project/$code/plans" params={{ code: project }}>
            Test plans
          </Link>
          <span aria-hidden="true">/</span>
          <Link to="/project/$code/plan/$planId" params={{ code: project, planId: String(id) }}>
            {p.title}
          </Link>
          <span aria-hidden="true">/</span>
          <span aria-current="page">Report</span>
        </>
      }
      title={`${p.title}: report`}
      subtitle={`Test plan of ${project}`}
      actions={
        <>
          <CsvLink href={reportCsvUrl(`/project/${project}/plan/${id}/report`)} />
          <ShareButton project={project} report="plan" params={{ planId: id }} />
        </>
      }
    >
      <PlanReportView data={report.data} statuses={statuses} runLink={runReportLink(project)} />
    </ReportPageFrame>
  );
}
