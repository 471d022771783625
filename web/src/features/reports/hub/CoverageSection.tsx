import { useQuery } from '@tanstack/react-query';
import type { StatusSetting } from '../../../api/statuses';
import { Progress } from '../../../components/run-lists/Progress';
import { coverageQuery, reportCsvUrl, type CoverageReport } from '../api';
import { formatCount } from '../../../lib/format';
import { StatusName } from '../parts/parts';
import { ReportTable, type Column } from '../parts/ReportTable';
import { CaseLink, OutLink, ReportSection } from './ReportSection';

type Requirement = CoverageReport['requirements'][number];

/** Each requirement with the cases that cover it and their last status; the cases covering none, counted. */
export function CoverageSection({ code, statuses }: { code: string; statuses: StatusSetting[] }) {
  const query = useQuery(coverageQuery(code));
  const columns: Column<Requirement>[] = [
    {
      key: 'req',
      header: 'Requirement',
      cell: (r) => <OutLink url={r.url} text={r.text} />,
      sortBy: (r) => r.text,
      ascendingFirst: true,
    },
    {
      key: 'cases',
      header: 'Cases and their last status',
      cell: (r) =>
        r.tcases.length === 0 ? (
          <span className="muted">No live case covers it.</span>
        ) : (
          <ul className="rep-case-list">
            {r.tcases.map((t) => (
              <li key={t.tcaseId}>
                <CaseLink code={code} seq={t.seq} title={t.title} />
                <StatusName id={t.lastStatus} statuses={statuses} />
              </li>
            ))}
          </ul>
        ),
      sortBy: (r) => r.tcases.length,
    },
    {
      key: 'progress',
      header: 'Status',
      cell: (r) => <Progress counts={r.counts} statuses={statuses} />,
      sortBy: (r) => (r.counts.all ? (r.counts.passed ?? 0) / r.counts.all : -1),
    },
  ];
  return (
    <ReportSection
      id="coverage"
      title="Requirement coverage"
      about="Every requirement of the project, with the status each case had in the newest run that holds it."
      csv={reportCsvUrl(`/project/${code}/report/coverage`)}
      query={query}
      isEmpty={(d) => d.requirements.length === 0 && d.uncovered === 0}
      empty={{
        title: 'No requirements and no cases yet.',
        body: (
          <p>
            Link a requirement to a test case in its editor: it is listed here with the cases covering it.
          </p>
        ),
      }}
    >
      {(d) => (
        <>
          <p className="rep-uncovered">
            <strong>{formatCount(d.uncovered)}</strong> {d.uncovered === 1 ? 'case covers' : 'cases cover'} no
            requirement.
          </p>
          {d.requirements.length === 0 ? (
            <p className="muted">
              No requirement yet: link one to a test case in its editor to see its coverage here.
            </p>
          ) : (
            <ReportTable
              caption="Requirements"
              columns={columns}
              rows={d.requirements}
              rowKey={(r) => r.id}
            />
          )}
        </>
      )}
    </ReportSection>
  );
}
