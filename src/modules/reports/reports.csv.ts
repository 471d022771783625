import { toCsv, type CsvCell } from '../../lib/csv.js';
import { STATUS_IDS } from '../../lib/statuses.js';
import type {
  CoverageReport,
  DefectsReport,
  FailingReport,
  FlakyReport,
  FolderReport,
  MilestoneReport,
  PlanReport,
  ReportCounts,
  SlowestReport,
  TrendReport,
} from './reports.schemas.js';
import type { RunCaseLine } from './reports.service.js';

/** Each report as CSV: one row per item of its main list (docs/api-decisions.md#reports). */

const COUNT_HEADER = ['all', ...STATUS_IDS];
const countCells = (c: ReportCounts): CsvCell[] => [c.all, ...STATUS_IDS.map((s) => c[s])];
/** Lists inside one cell are separated by a space (seqs, run ids) or " / " (folder paths). */
const joined = (items: (string | number)[], sep = ' ') => items.join(sep);

export const trendCsv = (r: TrendReport) =>
  toCsv(
    ['key', 'label', 'at', ...COUNT_HEADER, 'passRate'],
    r.points.map((p) => [p.key, p.label, p.at, ...countCells(p.counts), p.passRate]),
  );

/**
 * The run report's CSV: one row per case of the run with its latest result (extensions.md §7), the figures of the
 * JSON answer (counts, folders, since) being sums of these rows. An open case has empty result cells. A `steps`
 * column (`<position>:<status>`, space-separated) is added only when some latest result has step outcomes
 * (extensions.md §8), so a run without them gives the same file as before. `case` is the marker people read and
 * type (`WEB-1`); `seq` stays beside it for the scripts that read it.
 */
export const runCsv = ({ code, lines }: { code: string; lines: RunCaseLine[] }) => {
  const withSteps = lines.some((l) => l.steps !== undefined);
  return toCsv(
    [
      'seq',
      'case',
      'tcaseId',
      'title',
      'folderPath',
      'status',
      'comment',
      'links',
      'author',
      'at',
      'timeTakenMs',
      ...(withSteps ? ['steps'] : []),
    ],
    lines.map((l) => [
      l.seq,
      `${code}-${l.seq}`,
      l.tcaseId,
      l.title,
      joined(l.folderPath, ' / '),
      l.status,
      l.comment,
      joined(
        l.links.map((link) => link.url),
        ' ',
      ),
      l.author?.name,
      l.at,
      l.timeTaken,
      ...(withSteps ? [joined((l.steps ?? []).map((st) => `${st.position}:${st.status}`))] : []),
    ]),
  );
};

export const flakyCsv = (r: FlakyReport) =>
  toCsv(
    ['seq', 'tcaseId', 'title', 'flips', 'runs', 'lastStatus', 'score'],
    r.tcases.map((t) => [t.seq, t.tcaseId, t.title, t.flips, t.runs, t.lastStatus, t.score]),
  );

export const failingCsv = (r: FailingReport) =>
  toCsv(
    ['seq', 'tcaseId', 'title', 'failures', 'runs', 'lastFailedAt'],
    r.tcases.map((t) => [t.seq, t.tcaseId, t.title, t.failures, t.runs, t.lastFailedAt]),
  );

export const slowestCsv = (r: SlowestReport) =>
  toCsv(
    ['seq', 'tcaseId', 'title', 'medianMs', 'maxMs', 'samples'],
    r.tcases.map((t) => [t.seq, t.tcaseId, t.title, t.medianMs, t.maxMs, t.samples]),
  );

export const defectsCsv = (r: DefectsReport) =>
  toCsv(
    ['url', 'text', 'tcases', 'runs', 'firstAt', 'lastAt'],
    r.defects.map((d) => [d.url, d.text, joined(d.tcases), joined(d.runs), d.firstAt, d.lastAt]),
  );

export const foldersCsv = (r: FolderReport) =>
  toCsv(
    ['folderPath', 'failures', 'results', ...COUNT_HEADER],
    r.folders.map((f) => [joined(f.path, ' / '), f.failures, f.results, ...countCells(f.counts)]),
  );

export const coverageCsv = (r: CoverageReport) =>
  toCsv(
    ['requirementId', 'text', 'url', 'tcases', ...COUNT_HEADER],
    r.requirements.map((q) => [
      q.id,
      q.text,
      q.url,
      joined(q.tcases.map((t) => t.seq)),
      ...countCells(q.counts),
    ]),
  );

const runsCsv = (runs: MilestoneReport['runs']) =>
  toCsv(
    ['runId', 'title', 'closed', ...COUNT_HEADER, 'passRate'],
    runs.map((r) => [r.id, r.title, r.closed, ...countCells(r.counts), r.passRate]),
  );

export const milestoneCsv = (r: MilestoneReport) => runsCsv(r.runs);
export const planCsv = (r: PlanReport) => runsCsv(r.runs);
