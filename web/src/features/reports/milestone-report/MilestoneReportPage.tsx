import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { statusesQuery } from '../../../api/queries';
import { recordable } from '../../../api/statuses';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { milestoneReportQuery, reportCsvUrl } from '../api';
import { CsvLink } from '../parts/parts';
import { ReportPageFrame, runReportLink } from '../parts/ReportPageFrame';
import { ShareButton } from '../share/ShareButton';
import { MilestoneReportView } from './MilestoneReportView';

/** `/project/{CODE}/milestone/{id}/report`: a milestone's report, to read, print, download or share. */
export function MilestoneReportPage() {
  const { code, milestoneId } = useParams({ from: '/app/project/$code/milestone/$milestoneId/report' });
  const project = code.toUpperCase();
  const id = Number(milestoneId);
  const report = useQuery({ ...milestoneReportQuery(project, id), enabled: Number.isInteger(id) && id > 0 });
  const statuses = recordable(useQuery(statusesQuery()).data);
  useDocumentTitle(report.data ? `${report.data.milestone.title} · Report` : 'Milestone report');
  const crumbs = (
    <>
      <Link to="/project/$code/milestones" params={{ code: project }}>
        Milestones
      </Link>
      <span aria-hidden="true">/</span>
      <span aria-current="page">{report.data?.milestone.title ?? 'Report'}</span>
    </>
  );
  if (report.isError || !(Number.isInteger(id) && id > 0))
    return (
      <div className="page">
        <ErrorState
          title={`The report of milestone ${milestoneId} could not be shown.`}
          error={report.error ?? new Error('There is no milestone at this address.')}
          onRetry={() => report.refetch()}
        >
          <Link to="/project/$code/milestones" params={{ code: project }}>
            All milestones of {project}
          </Link>
        </ErrorState>
      </div>
    );
  if (report.isPending) return <Loading label="Loading the milestone's report…" />;
  const m = report.data.milestone;
  return (
    <ReportPageFrame
      crumbs={crumbs}
      title={`${m.title}: report`}
      subtitle={`Milestone of ${project}${m.archived ? ' · archived' : ''}`}
      actions={
        <>
          <CsvLink href={reportCsvUrl(`/project/${project}/milestone/${id}/report`)} />
          <ShareButton project={project} report="milestone" params={{ milestoneId: id }} />
        </>
      }
    >
      <MilestoneReportView data={report.data} statuses={statuses} runLink={runReportLink(project)} />
    </ReportPageFrame>
  );
}
