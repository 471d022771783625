import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { StatusSetting } from '../../../api/statuses';
import { Progress } from '../../../components/run-lists/Progress';
import { foldersQuery, reportCsvUrl, type FolderReport } from '../api';
import { formatCount } from '../../../lib/format';
import { ReportTable, type Column } from '../parts/ReportTable';
import { MoreRows, ReportSection } from './ReportSection';
import { FolderPath } from '../../../components/FolderPath';

type Folder = FolderReport['folders'][number];

/** Failures by folder (whole paths) over the last N runs: where the trouble sits, the most failures first. */
export function FoldersSection({
  code,
  last,
  statuses,
}: {
  code: string;
  last: number;
  statuses: StatusSetting[];
}) {
  const [limit, setLimit] = useState(100);
  const query = useQuery(foldersQuery(code, { last, limit }));
  const columns: Column<Folder>[] = [
    {
      key: 'path',
      header: 'Folder',
      cell: (f) => <FolderPath path={f.path} max={60} />,
      sortBy: (f) => f.path.join('/'),
      ascendingFirst: true,
    },
    {
      key: 'failures',
      header: 'Failures',
      numeric: true,
      cell: (f) => formatCount(f.failures),
      sortBy: (f) => f.failures,
    },
    {
      key: 'results',
      header: 'Results',
      numeric: true,
      cell: (f) => formatCount(f.results),
      sortBy: (f) => f.results,
    },
    { key: 'status', header: 'Status', cell: (f) => <Progress counts={f.counts} statuses={statuses} /> },
  ];
  return (
    <ReportSection
      id="folders"
      title="Failures by folder"
      about={`Each folder's cases in the last ${formatCount(last)} runs, the most failures first.`}
      csv={reportCsvUrl(`/project/${code}/report/folders`, { last, limit })}
      query={query}
      isEmpty={(d) => d.folders.length === 0}
      empty={{
        title: `No results in the last ${formatCount(last)} runs.`,
        body: <p>Results recorded in runs (by testers or the upload CLI) appear here, folder by folder.</p>,
      }}
    >
      {(d) => (
        <>
          <ReportTable
            caption="Failures by folder"
            columns={columns}
            rows={d.folders}
            rowKey={(f) => f.path.join('\u0000')}
          />
          <MoreRows shown={d.folders.length} limit={limit} onMore={setLimit} />
        </>
      )}
    </ReportSection>
  );
}
