import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { StatusSetting } from '../../../api/statuses';
import {
  defectsQuery,
  failingQuery,
  flakyQuery,
  reportCsvUrl,
  slowestQuery,
  type DefectsReport,
  type FailingReport,
  type FlakyReport,
  type SlowestReport,
} from '../api';
import { formatCount, formatDateTime, formatDuration } from '../../../lib/format';
import { StatusName } from '../parts/parts';
import { ReportTable, type Column } from '../parts/ReportTable';
import { CaseLink, MoreRows, OutLink, ReportSection } from './ReportSection';
import { FlakyRuns, formatScore } from './FlakyRuns';

interface Props {
  code: string;
  last: number;
  statuses: StatusSetting[];
}

const runsWord = (last: number) => `the last ${formatCount(last)} runs`;
const noRuns = 'Results recorded in runs (by testers or the upload CLI) appear here.';

type Failing = FailingReport['tcases'][number];
export function FailingSection({ code, last }: Props) {
  const [limit, setLimit] = useState(100);
  const query = useQuery(failingQuery(code, { last, limit }));
  const columns: Column<Failing>[] = [
    {
      key: 'case',
      header: 'Test case',
      cell: (t) => <CaseLink code={code} seq={t.seq} title={t.title} />,
      sortBy: (t) => t.seq,
      ascendingFirst: true,
    },
    {
      key: 'failures',
      header: 'Failures',
      numeric: true,
      cell: (t) => formatCount(t.failures),
      sortBy: (t) => t.failures,
    },
    {
      key: 'runs',
      header: 'In runs',
      numeric: true,
      cell: (t) => formatCount(t.runs),
      sortBy: (t) => t.runs,
    },
    {
      key: 'last',
      header: 'Last failed',
      nowrap: true,
      cell: (t) => formatDateTime(t.lastFailedAt),
      sortBy: (t) => t.lastFailedAt,
    },
  ];
  return (
    <ReportSection
      id="failing"
      title="Most failing"
      about={`Cases failed or blocked in ${runsWord(last)}, the most failures first.`}
      csv={reportCsvUrl(`/project/${code}/report/failing`, { last, limit })}
      query={query}
      isEmpty={(d) => d.tcases.length === 0}
      empty={{ title: `No case failed in ${runsWord(last)}.`, body: <p>{noRuns}</p> }}
    >
      {(d) => (
        <>
          <ReportTable
            caption="Most failing cases"
            columns={columns}
            rows={d.tcases}
            rowKey={(t) => t.tcaseId}
          />
          <MoreRows shown={d.tcases.length} limit={limit} onMore={setLimit} />
        </>
      )}
    </ReportSection>
  );
}

type Flaky = FlakyReport['tcases'][number];
export function FlakySection({ code, last, statuses }: Props) {
  const [limit, setLimit] = useState(100);
  const query = useQuery(flakyQuery(code, { last, limit }));
  const columns: Column<Flaky>[] = [
    {
      key: 'case',
      header: 'Test case',
      cell: (t) => <CaseLink code={code} seq={t.seq} title={t.title} />,
      sortBy: (t) => t.seq,
      ascendingFirst: true,
    },
    {
      key: 'score',
      header: 'Flaky score',
      numeric: true,
      cell: (t) => formatScore(t.score),
      sortBy: (t) => t.score,
    },
    {
      key: 'flips',
      header: 'Flips',
      numeric: true,
      cell: (t) => formatCount(t.flips),
      sortBy: (t) => t.flips,
    },
    {
      key: 'runs',
      header: 'In runs',
      numeric: true,
      cell: (t) => formatCount(t.runs),
      sortBy: (t) => t.runs,
    },
    {
      key: 'status',
      header: 'Last status',
      cell: (t) => <StatusName id={t.lastStatus} statuses={statuses} />,
    },
    {
      key: 'history',
      header: 'Runs that show it',
      cell: (t) => <FlakyRuns code={code} configurations={t.configurations} statuses={statuses} />,
    },
  ];
  return (
    <ReportSection
      id="flaky"
      title="Flaky"
      about={`Cases whose result flipped between passed and failed from one run to the next, in ${runsWord(last)}. The flaky score weighs recent flips more, per configuration; a case shows its highest.`}
      csv={reportCsvUrl(`/project/${code}/report/flaky`, { last, limit })}
      query={query}
      isEmpty={(d) => d.tcases.length === 0}
      empty={{
        title: `No case flipped in ${runsWord(last)}.`,
        body: <p>A case is flaky when it passes in one run and fails in the next. {noRuns}</p>,
      }}
    >
      {(d) => (
        <>
          <ReportTable caption="Flaky cases" columns={columns} rows={d.tcases} rowKey={(t) => t.tcaseId} />
          <MoreRows shown={d.tcases.length} limit={limit} onMore={setLimit} />
        </>
      )}
    </ReportSection>
  );
}

type Slow = SlowestReport['tcases'][number];
export function SlowestSection({ code, last }: Props) {
  const [limit, setLimit] = useState(100);
  const query = useQuery(slowestQuery(code, { last, limit }));
  const columns: Column<Slow>[] = [
    {
      key: 'case',
      header: 'Test case',
      cell: (t) => <CaseLink code={code} seq={t.seq} title={t.title} />,
      sortBy: (t) => t.seq,
      ascendingFirst: true,
    },
    {
      key: 'median',
      header: 'Median',
      numeric: true,
      cell: (t) => formatDuration(t.medianMs),
      sortBy: (t) => t.medianMs,
    },
    {
      key: 'max',
      header: 'Longest',
      numeric: true,
      cell: (t) => formatDuration(t.maxMs),
      sortBy: (t) => t.maxMs,
    },
    {
      key: 'samples',
      header: 'Results timed',
      numeric: true,
      cell: (t) => formatCount(t.samples),
      sortBy: (t) => t.samples,
    },
  ];
  return (
    <ReportSection
      id="slowest"
      title="Slowest"
      about={`Cases by the median time their results took in ${runsWord(last)}.`}
      csv={reportCsvUrl(`/project/${code}/report/slowest`, { last, limit })}
      query={query}
      isEmpty={(d) => d.tcases.length === 0}
      empty={{
        title: `No result with a time in ${runsWord(last)}.`,
        body: (
          <p>
            Results get a time when the upload CLI sends one (or a result is recorded with its time taken).
          </p>
        ),
      }}
    >
      {(d) => (
        <>
          <ReportTable caption="Slowest cases" columns={columns} rows={d.tcases} rowKey={(t) => t.tcaseId} />
          <MoreRows shown={d.tcases.length} limit={limit} onMore={setLimit} />
        </>
      )}
    </ReportSection>
  );
}

type Defect = DefectsReport['defects'][number];
export function DefectsSection({ code, last }: Props) {
  const [limit, setLimit] = useState(100);
  const query = useQuery(defectsQuery(code, { last, limit }));
  const columns: Column<Defect>[] = [
    {
      key: 'defect',
      header: 'Defect',
      cell: (d) => <OutLink url={d.url} text={d.text} />,
      sortBy: (d) => d.text || d.url,
      ascendingFirst: true,
    },
    {
      key: 'cases',
      header: 'Cases',
      cell: (d) => (
        <span className="rep-chips">
          {d.tcases.map((seq) => (
            <CaseLink key={seq} code={code} seq={seq} />
          ))}
        </span>
      ),
      sortBy: (d) => d.tcases.length,
    },
    {
      key: 'runs',
      header: 'Runs',
      cell: (d) => (
        <span className="rep-chips">
          {d.runs.map((id) => (
            <Link
              key={id}
              to="/project/$code/run/$runId"
              params={{ code, runId: String(id) }}
              aria-label={`Run ${id}`}
            >
              #{id}
            </Link>
          ))}
        </span>
      ),
      sortBy: (d) => d.runs.length,
    },
    {
      key: 'first',
      header: 'First seen',
      nowrap: true,
      cell: (d) => formatDateTime(d.firstAt),
      sortBy: (d) => d.firstAt,
    },
    {
      key: 'last',
      header: 'Last seen',
      nowrap: true,
      cell: (d) => formatDateTime(d.lastAt),
      sortBy: (d) => d.lastAt,
    },
  ];
  return (
    <ReportSection
      id="defects"
      title="Defects"
      about={`Issues linked from results in ${runsWord(last)}, the most recently seen first.`}
      csv={reportCsvUrl(`/project/${code}/report/defects`, { last, limit })}
      query={query}
      isEmpty={(d) => d.defects.length === 0}
      empty={{
        title: `No result links an issue in ${runsWord(last)}.`,
        body: (
          <p>
            Add the issue&apos;s link when recording a failure: it is listed here with the cases and runs it
            touched.
          </p>
        ),
      }}
    >
      {(d) => (
        <>
          <ReportTable caption="Defects" columns={columns} rows={d.defects} rowKey={(x) => x.url} />
          <MoreRows shown={d.defects.length} limit={limit} onMore={setLimit} />
        </>
      )}
    </ReportSection>
  );
}
